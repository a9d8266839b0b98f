// Agents stepped on host threads beside a launch that is not the cpu
// executor's (a GPU kernel): each agent runs until stop(); the waiting
// host sees their work; an agent's error comes back from stop(); the
// executor lists the agents attached to it.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/host_agents.hpp"

namespace {
using namespace gpmx;

// Publishes 1, 2, ... up to `until`, one per step.
class counter_agent final : public agent {
 public:
  explicit counter_agent(std::uint32_t until) : until_(until) {}
  step_result step() override {
    const std::uint32_t v = value.load(std::memory_order_relaxed);
    if (v == until_) return step_result::idle;
    value.store(v + 1, std::memory_order_release);
    return step_result::progressed;
  }
  std::string_view name() const override { return "counter"; }
  std::atomic<std::uint32_t> value{0};

 private:
  std::uint32_t until_;
};

class failing_agent final : public agent {
 public:
  step_result step() override { throw std::runtime_error("device 'nvme0' failed"); }
  std::string_view name() const override { return "failing"; }
};

TEST(HostAgents, StepEveryAgentUntilStoppedWhileTheHostWaits) {
  counter_agent a(1000), b(500);
  host_agent_threads beside({&a, &b});
  while (a.value.load(std::memory_order_acquire) < 1000 || b.value.load(std::memory_order_acquire) < 500)
    std::this_thread::yield();  // stands for a host waiting on a kernel that waits on the agents
  beside.stop();
  EXPECT_EQ(a.value.load(), 1000u);
  EXPECT_EQ(b.value.load(), 500u);
  EXPECT_FALSE(beside.failed());
}

TEST(HostAgents, AnAgentsErrorComesBackFromStop) {
  counter_agent ok(10);
  failing_agent bad;
  host_agent_threads beside({&ok, &bad});
  while (!beside.failed()) std::this_thread::yield();
  try {
    beside.stop();
    FAIL() << "stop() did not rethrow the agent's error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "device 'nvme0' failed");
  }
}

TEST(HostAgents, TheExecutorListsTheAgentsAttachedNow) {
  cpu::executor ex({.workers = 1});
  counter_agent a(1), b(1);
  EXPECT_TRUE(ex.attached_agents().empty());
  {
    auto on_a = ex.attach(a);
    auto on_b = ex.attach(b);
    EXPECT_EQ(ex.attached_agents(), (std::vector<agent*>{&a, &b}));
  }
  EXPECT_TRUE(ex.attached_agents().empty());
}

}  // namespace
