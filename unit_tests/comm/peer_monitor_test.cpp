// Peer liveness, alone: heartbeats fall due every interval, a watched rank silent for longer
// than the peer timeout is lost and reported once, traffic from a rank restarts its silence,
// and a pause of this rank itself (a gap between polls) is not held against its peers.
#include "comm/peer_monitor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/error.hpp"
#include "fakes.hpp"

namespace lightning::comm {
namespace {

using testing::FakeClock;
using namespace std::chrono_literals;

std::vector<int> lost_ranks(const PeerMonitor::Due& due) {
  std::vector<int> ranks;
  for (const PeerFailure& f : due.timed_out) ranks.push_back(f.rank);
  return ranks;
}

class PeerMonitorTest : public ::testing::Test {
 protected:
  FakeClock clock;
  PeerMonitor peers{/*rank=*/0, /*size=*/4, /*watched=*/{1, 2, 3}, 500ms, 5000ms, clock};
  const std::vector<int> all{1, 2, 3};

  /// Lets `d` pass as the communication loop does, polling every 100 ms and hearing from
  /// `talking` before each poll; returns every rank lost meanwhile and the last heartbeats.
  PeerMonitor::Due run_for(std::chrono::milliseconds d, const std::vector<int>& talking = {}) {
    PeerMonitor::Due all_due;
    for (auto passed = 0ms; passed < d; passed += 100ms) {
      clock.advance(std::min(100ms, d - passed));
      for (int r : talking) peers.heard_from(r);
      PeerMonitor::Due due = peers.poll();
      for (PeerFailure& f : due.timed_out) all_due.timed_out.push_back(std::move(f));
      if (!due.heartbeats.empty()) all_due.heartbeats = due.heartbeats;
    }
    return all_due;
  }
};

TEST_F(PeerMonitorTest, HeartbeatsFallDueEveryInterval) {
  EXPECT_EQ(peers.poll().heartbeats, all) << "the first is due at once";
  EXPECT_TRUE(peers.poll().heartbeats.empty());
  clock.advance(499ms);
  EXPECT_TRUE(peers.poll().heartbeats.empty());
  clock.advance(1ms);
  EXPECT_EQ(peers.poll().heartbeats, all);
  // The interval counts from the poll that found one due, however late it was.
  clock.advance(800ms);
  EXPECT_EQ(peers.poll().heartbeats, all);
  clock.advance(499ms);
  EXPECT_TRUE(peers.poll().heartbeats.empty());
  clock.advance(1ms);
  EXPECT_EQ(peers.poll().heartbeats, all);
}

TEST_F(PeerMonitorTest, ASilentPeerIsLostAndReportedOnce) {
  peers.poll();
  // Ranks 2 and 3 keep talking; rank 1 is silent.
  for (int i = 0; i < 10; ++i) {
    clock.advance(500ms);
    peers.heard_from(2);
    peers.heard_from(3);
    const PeerMonitor::Due due = peers.poll();
    EXPECT_TRUE(due.timed_out.empty()) << "silent for exactly the timeout is not yet lost";
    EXPECT_EQ(due.heartbeats, all);
  }
  clock.advance(500ms);
  peers.heard_from(2);
  peers.heard_from(3);
  PeerMonitor::Due due = peers.poll();
  ASSERT_EQ(lost_ranks(due), std::vector<int>{1});
  EXPECT_EQ(due.timed_out[0].reason,
            "nothing heard from it for 5.5 s (no heartbeat: the process died or hangs)");
  EXPECT_EQ(due.heartbeats, (std::vector<int>{2, 3})) << "no heartbeat to a lost rank";
  EXPECT_FALSE(peers.alive(1));
  EXPECT_TRUE(peers.alive(2));

  clock.advance(500ms);
  due = peers.poll();
  EXPECT_TRUE(due.timed_out.empty()) << "reported once";
  EXPECT_FALSE(peers.mark_lost(1)) << "lost already";

  // Rank 2 falls silent too: reported on its own, once.
  due = run_for(5s, {3});
  EXPECT_EQ(lost_ranks(due), std::vector<int>{2});
  EXPECT_EQ(due.heartbeats, std::vector<int>{3});
  EXPECT_EQ(lost_ranks(run_for(10s)), std::vector<int>{3});
  EXPECT_TRUE(run_for(10s).timed_out.empty());
}

TEST_F(PeerMonitorTest, TrafficRestartsTheSilence) {
  peers.poll();
  run_for(4s);
  peers.heard_from(1);
  PeerMonitor::Due due = run_for(1500ms);
  EXPECT_EQ(lost_ranks(due), (std::vector<int>{2, 3}));
  EXPECT_EQ(due.heartbeats, std::vector<int>{1}) << "heard from 1.5 s ago";
  due = run_for(3500ms);
  EXPECT_TRUE(due.timed_out.empty()) << "silent for 5.0 s";
  EXPECT_EQ(lost_ranks(run_for(500ms)), std::vector<int>{1});
}

TEST_F(PeerMonitorTest, APauseOfThisRankIsNotHeldAgainstItsPeers) {
  peers.poll();
  run_for(3s, {3});
  // This process stops for a minute (SIGSTOP): nothing could be heard meanwhile.
  clock.advance(60s);
  PeerMonitor::Due due = peers.poll();
  EXPECT_TRUE(due.timed_out.empty()) << "the silence counts as it stood before the pause";
  EXPECT_EQ(due.heartbeats, all) << "heartbeats go out at once on waking";
  // Once running again, the peers' silence goes on from where it stood: ranks 1 and 2, silent
  // for 3 s before the pause, are lost 2 s later; rank 3, which talks, is not.
  due = run_for(1900ms, {3});
  EXPECT_TRUE(due.timed_out.empty()) << "silent for 4.9 s of this rank's running time";
  EXPECT_EQ(lost_ranks(run_for(600ms, {3})), (std::vector<int>{1, 2}));
  // A gap no longer than the heartbeat interval is ordinary: it counts (without it rank 3 would
  // be silent for exactly 5.0 s at the last poll below, not yet lost).
  clock.advance(500ms);
  EXPECT_TRUE(peers.poll().timed_out.empty());
  EXPECT_EQ(lost_ranks(run_for(5s)), std::vector<int>{3});
}

TEST_F(PeerMonitorTest, AGoodbyeEndsTheWatch) {
  peers.said_goodbye(2);
  EXPECT_FALSE(peers.alive(2));
  EXPECT_EQ(peers.poll().heartbeats, (std::vector<int>{1, 3}));
  EXPECT_EQ(lost_ranks(run_for(10s)), (std::vector<int>{1, 3})) << "not 2: it said goodbye";
  // A call that fails for it later still loses it, once.
  EXPECT_TRUE(peers.mark_lost(2));
  EXPECT_FALSE(peers.mark_lost(2));
  peers.said_goodbye(2);
  EXPECT_FALSE(peers.mark_lost(2)) << "a late goodbye does not revive a lost rank";
}

TEST_F(PeerMonitorTest, ALossFromAFailedCallIsNotReportedAgainOnTimeout) {
  EXPECT_TRUE(peers.mark_lost(3));
  EXPECT_FALSE(peers.alive(3));
  EXPECT_EQ(peers.poll().heartbeats, (std::vector<int>{1, 2}));
  EXPECT_EQ(lost_ranks(run_for(10s)), (std::vector<int>{1, 2}));
}

TEST(PeerMonitor, WatchingItselfOrARankOutsideTheRunIsRefused) {
  FakeClock clock;
  for (int bad : {0, 4, -1}) {
    try {
      PeerMonitor peers(0, 4, {1, bad}, 500ms, 5000ms, clock);
      ADD_FAILURE() << "watching " << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
      EXPECT_NE(e.message().find("cannot watch rank " + std::to_string(bad)), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace lightning::comm
