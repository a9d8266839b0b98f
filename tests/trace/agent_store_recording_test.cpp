// An agent that persists through a pool while a launch runs: its stores are
// the agent's thread's (block agent_block, the agent's name), found at its
// persist, which is a persist_range of that thread; the kernel's own stores
// made before it are not taken for the agent's.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "gpmx/exec/agent.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "gpmx/trace/recorder.hpp"
#include "trace/find_store.hpp"

namespace {
using namespace gpmx;
using trace::event_kind;

// Waits for the kernel's store, then writes and persists a word of its own
// (and leaves one unpersisted), then lets the kernel end.
class persisting_agent final : public agent {
 public:
  persisting_agent(pm::region& r, std::uint64_t* go) : r_(r), go_(go) {}
  step_result step() override {
    auto* words = reinterpret_cast<std::uint64_t*>(r_.data());
    if (done_) return step_result::idle;
    if (std::atomic_ref<std::uint64_t>(words[0]).load(std::memory_order_acquire) == 0) return step_result::waiting;
    words[1] = 0x3333333333333333;
    r_.persist(8, 8);
    words[3] = 0x4444444444444444;  // never persisted: found at the launch's end
    std::atomic_ref<std::uint64_t>(*go_).store(1, std::memory_order_release);
    done_ = true;
    return step_result::progressed;
  }
  std::string_view name() const override { return "persister"; }

 private:
  pm::region& r_;
  std::uint64_t* go_;
  bool done_ = false;
};

struct store_then_wait {
  void operator()(auto& t, pm::pm_span<std::uint64_t> v, std::uint64_t* go) const {
    v.bind(t)[0] = 0x1111111111111111;
    t.spin_wait([&] { return t.atomic_load(go, memory_order::acquire) != 0; });
    v.bind(t)[2] = 0x2222222222222222;
  }
};

TEST(AgentStoreRecording, AnAgentsPersistRecordsItsStoresAndAPersistRangeOfItsThread) {
  const scratch_dir s;
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 3, .observer = &rec});
  pm::pool p = pm::pool::create(s / "a.pool", 1 << 20, {.mode = pm::durability::none});
  pm::region r = p.create_region("data", 4096);
  std::uint64_t go = 0;
  persisting_agent a(r, &go);
  {
    auto on = ex.attach(a);
    ex.launch({dim3(1), dim3(1), 0, "store_then_wait"}, store_then_wait{}, r.span<std::uint64_t>(), &go);
  }
  const trace::trace t = rec.take();
  auto find_store = [&](std::uint64_t value) { return trace::testing::find_store(t, value); };
  const auto kernel = find_store(0x1111111111111111), agents = find_store(0x3333333333333333);
  const auto later = find_store(0x2222222222222222), unpersisted = find_store(0x4444444444444444);
  ASSERT_NE(kernel, t.events.end());
  ASSERT_NE(agents, t.events.end());
  ASSERT_NE(later, t.events.end());
  ASSERT_NE(unpersisted, t.events.end());
  EXPECT_FALSE(trace::is_agent(*kernel));
  EXPECT_TRUE(trace::is_agent(*agents));
  EXPECT_EQ(t.strings.at(agents->warp), "persister");
  EXPECT_EQ(agents->launch, 0u);
  EXPECT_LT(kernel, agents);
  EXPECT_LT(agents, later);  // the kernel's store after the agent's step comes after it
  // The persist follows the agent's store, as a persist_range of the same thread.
  const auto persist = std::next(agents);
  ASSERT_NE(persist, t.events.end());
  EXPECT_EQ(persist->kind, event_kind::persist_range);
  EXPECT_TRUE(trace::is_agent(*persist));
  EXPECT_EQ(persist->warp, agents->warp);
  EXPECT_EQ(persist->address, agents->address);
  EXPECT_EQ(persist->bytes, 8u);
  EXPECT_EQ(persist->po, agents->po + 1);
  // The kernel's view store was not found again as the agent's.
  EXPECT_EQ(std::count_if(t.events.begin(), t.events.end(),
                          [](const trace::event& e) { return e.kind == event_kind::pm_write && e.data[0] == 0x11; }),
            1);
  // A store the agent never persisted is found at the launch's end (as a kernel's unviewed store).
  EXPECT_EQ(unpersisted->block, trace::unviewed_block);
}

}  // namespace
