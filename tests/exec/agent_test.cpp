// Agents beside a launch: a producer agent fills a queue that spinning
// consumer threads drain, under every schedule; a spin with no agent work
// is still a deadlock.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpmx/exec/agent.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "exec/agent_workload.hpp"

namespace {
using namespace gpmx;
using namespace agent_test;

TEST(Agents, ParallelScheduleRunsTheAgentOnItsOwnThread) {
  cpu::executor ex({.workers = 2});
  expect_all_consumed(consume(ex, 8, 64));
}

TEST(Agents, DeterministicScheduleStepsTheAgentEachRound) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed});
    expect_all_consumed(consume(ex, 6, 32));
  }
}

TEST(Agents, ASpinWithNoAgentWorkIsStillADeadlock) {
  std::vector<std::uint64_t> items(64, 0), out(64, 0);
  std::uint64_t count = 0;
  {
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1});
    EXPECT_THROW(ex.launch({dim3(2), dim3(32), 0, "consumer"}, consumer{}, items.data(), &count, out.data()),
                 deadlock_error);
  }
  {
    // The producer runs out of items before the consumers are satisfied.
    std::vector<std::uint64_t> few(16, 0);
    producer p(few, &count);
    cpu::executor ex({.workers = 2, .spin_timeout = std::chrono::milliseconds(200)});
    auto on = ex.attach(p);
    EXPECT_THROW(ex.launch({dim3(2), dim3(32), 0, "consumer"}, consumer{}, few.data(), &count, out.data()),
                 deadlock_error);
  }
}

TEST(Agents, AnAgentsErrorFailsTheLaunchWithItsMessage) {
  struct failing final : agent {
    step_result step() override { throw std::runtime_error("controller lost its device"); }
    std::string_view name() const override { return "failing"; }
  } bad;
  for (auto policy : {cpu::schedule::parallel, cpu::schedule::deterministic}) {
    cpu::executor ex({.workers = 2, .policy = policy, .spin_timeout = std::chrono::milliseconds(2000)});
    auto on = ex.attach(bad);
    std::uint64_t flag = 0;
    try {
      ex.launch({dim3(1), dim3(1), 0, "waiter"}, [](auto& t, std::uint64_t* f) {
        t.spin_wait([&] { return t.atomic_load(f) != 0; });
      }, &flag);
      ADD_FAILURE() << "the launch did not fail";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("controller lost its device"), std::string::npos) << e.what();
    }
  }
}

TEST(Agents, DetachedAgentsAreNotStepped) {
  std::vector<std::uint64_t> items(4, 0);
  std::uint64_t count = 0;
  producer p(items, &count);
  cpu::executor ex({.workers = 1});
  { auto on = ex.attach(p); }
  ex.launch({dim3(1), dim3(32), 0, "noop"}, [](auto&) {});
  EXPECT_EQ(p.steps, 0u);
  auto on = ex.attach(p);
  EXPECT_THROW((void)ex.attach(p), config_error);
}

}  // namespace
