// A process bound to fewer CPUs than its runtime threads need is told so, with what to do.
#include "core/cpu_affinity.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <string>

namespace lightning {
namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(CpuAffinity, OneCpuOfManyIsAdvisedAgainstNamingTheFix) {
  const std::string a = cpu_affinity_advice(1, 16, 2, kBusyRuntimeThreads);
  EXPECT_TRUE(has(a, "may run on 1 of the machine's 16 CPUs")) << a;
  EXPECT_TRUE(has(a, "Give each of the machine's 2 ranks 5 CPUs or more")) << a;
  EXPECT_TRUE(has(a, "--bind-to none")) << a;
  // Its share of the machine: 16 CPUs for 8 ranks are 2 each.
  const std::string b = cpu_affinity_advice(1, 16, 8, kBusyRuntimeThreads);
  EXPECT_TRUE(has(b, "Give each of the machine's 8 ranks 2 CPUs or more")) << b;
  const std::string c = cpu_affinity_advice(1, 4, 1, kBusyRuntimeThreads);
  EXPECT_TRUE(has(c, "Give the rank 4 CPUs or more")) << c;
}

TEST(CpuAffinity, EnoughCpusOrNoMoreToShareIsNotAdvised) {
  EXPECT_EQ(cpu_affinity_advice(5, 16, 2, 5), "");
  EXPECT_EQ(cpu_affinity_advice(16, 16, 1, 5), "");
  EXPECT_EQ(cpu_affinity_advice(1, 2, 2, 5), "");   // two ranks on two CPUs: one each
  EXPECT_EQ(cpu_affinity_advice(2, 16, 8, 5), "");  // its share
  EXPECT_EQ(cpu_affinity_advice(1, 1, 1, 5), "");
  EXPECT_EQ(cpu_affinity_advice(0, 16, 1, 5), "");  // unknown
  EXPECT_EQ(cpu_affinity_advice(1, 0, 1, 5), "");
  EXPECT_EQ(cpu_affinity_advice(1, 16, 0, 5), "");
}

TEST(CpuAffinity, CountsTheCallersAffinityMask) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(cpus_allowed(), CPU_COUNT(&saved));
  EXPECT_GE(cpus_online(), cpus_allowed());
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(cpus_allowed(), 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
}

}  // namespace
}  // namespace lightning
