// How a survivor tells a lost rank's process on its host, and ends it: a stopped child
// process stands in for a stopped rank.
#include "driver/process_identity.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace lightning::driver {
namespace {

TEST(ProcessIdentity, TheCallerIsAliveHereAndIsNeverEnded) {
  const ProcessIdentity self = ProcessIdentity::of_this_process();
  EXPECT_EQ(self.pid, static_cast<int64_t>(getpid()));
  EXPECT_GT(self.start_time, 0u);
  EXPECT_TRUE(self.is_alive_here());
  EXPECT_FALSE(end_process(self));
}

TEST(ProcessIdentity, AnotherHostOrALaterProcessWithThePidIsNotIt) {
  ProcessIdentity elsewhere = ProcessIdentity::of_this_process();
  elsewhere.host[0] = elsewhere.host[0] == 'x' ? 'y' : 'x';
  EXPECT_FALSE(elsewhere.is_alive_here());
  ProcessIdentity reused = ProcessIdentity::of_this_process();
  reused.start_time += 1;  // the same pid, started at another time: not the process recorded
  EXPECT_FALSE(reused.is_alive_here());
  EXPECT_FALSE(end_process(reused));
}

TEST(ProcessIdentity, AStoppedProcessIsEndedAndThenNoLongerAlive) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    raise(SIGSTOP);
    pause();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);  // it has stopped
  ASSERT_TRUE(WIFSTOPPED(status));
  const ProcessIdentity p = ProcessIdentity::of(child);  // as a survivor learnt it
  EXPECT_TRUE(p.is_alive_here());
  EXPECT_TRUE(end_process(p));
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_FALSE(p.is_alive_here());
  EXPECT_FALSE(end_process(p));
}

}  // namespace
}  // namespace lightning::driver
