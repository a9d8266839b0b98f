// A timing model may hold a warp's instruction (issue_result::ready ==
// vtime_never) and release it later from its own events: the lanes perform
// the instruction at the release, so what it makes visible appears then.
// gpmx_sim's persist buffers hold persist releases and durability fences
// this way.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/mem_view.hpp"

namespace {
using namespace gpmx;

constexpr vtime cycle = 1000;

// Holds every persist release for `hold` cycles (or for ever when `release`
// is false); everything else takes one cycle.
class holding_model final : public timing_model {
 public:
  struct issued {
    vtime at;
    std::uint64_t block;
    std::uint32_t warp;
    timed_kind kind;
  };
  holding_model(vtime hold_cycles, bool release = true) : hold_(hold_cycles), release_(release) {}
  timed_machine machine() const override {
    timed_machine m;
    m.sms = 2;
    m.schedulers_per_sm = 1;
    m.max_threads_per_sm = 1024;
    m.max_blocks_per_sm = 8;
    m.cycle = cycle;
    return m;
  }
  issue_result issue(const warp_instruction& in, vtime now) override {
    const timed_op& op = in.ops[std::countr_zero(in.lanes)];
    log.push_back({now, in.block, in.warp, op.kind});
    if (op.kind == timed_kind::flag_release) {
      held_.push_back({now + hold_ * cycle, in.block, in.warp});
      return {vtime_never, now + cycle, stall_reason::ordering};
    }
    return {now + cycle, now + cycle, stall_reason::compute};
  }
  vtime next_event() const override {
    if (!release_ || held_.empty()) return vtime_never;
    vtime t = vtime_never;
    for (const auto& h : held_) t = std::min(t, h.at);
    return t;
  }
  void advance(vtime t, timed_waker& w) override {
    for (std::size_t i = 0; i < held_.size();)
      if (held_[i].at <= t) {
        const auto h = held_[i];
        held_.erase(held_.begin() + std::ptrdiff_t(i));
        w.wake(h.block, h.warp, h.at);
      } else {
        ++i;
      }
  }
  std::vector<issued> log;

 private:
  struct held_release {
    vtime at;
    std::uint64_t block;
    std::uint32_t warp;
  };
  vtime hold_;
  bool release_;
  std::vector<held_release> held_;
};

cpu::executor timed_executor(timing_model& model) {
  return cpu::executor({.policy = cpu::schedule::timed, .timing = &model});
}

// Block 1 releases the flag; block 0 waits for it, then stores.
struct release_handoff {
  void operator()(auto& t, std::uint32_t* flag, global_span<std::uint32_t> out) const {
    if (t.block_rank() == 1) {
      t.prel(scope::device, flag, 1u);
      out.bind(t)[1 + t.thread_rank()] = 7;
    } else {
      t.spin_wait([&] { return t.pacq(scope::device, flag) == 1u; });
      out.bind(t)[0] = 42;
    }
  }
};

TEST(TimedHold, AHeldReleaseBecomesVisibleWhenTheModelReleasesIt) {
  holding_model model(500);
  auto ex = timed_executor(model);
  std::uint32_t flag = 0;
  std::vector<std::uint32_t> out(33);
  ex.launch({.grid = 2, .block = 32}, release_handoff{}, &flag, global_span<std::uint32_t>(out.data(), 33));
  EXPECT_EQ(out[0], 42u);
  vtime released = vtime_never, consumed = 0, next_after_release = 0;
  for (const auto& e : model.log) {
    if (e.block == 1 && e.kind == timed_kind::flag_release) released = e.at;
    if (e.block == 1 && e.kind == timed_kind::store) next_after_release = e.at;
    if (e.block == 0 && e.kind == timed_kind::store) consumed = e.at;
  }
  ASSERT_NE(released, vtime_never);
  // Held 500 cycles, performed then, and the warp's next instruction a cycle later.
  EXPECT_EQ(next_after_release, released + 501 * cycle);
  EXPECT_GT(consumed, released + 500 * cycle) << "the acquirer read the flag before the model released it";
}

struct release_only {
  void operator()(auto& t, std::uint32_t* flag) const { t.prel(scope::device, flag, 1u); }
};

TEST(TimedHold, AWarpHeldWithNoEventToReleaseItIsADeadlock) {
  holding_model model(500, false);
  auto ex = timed_executor(model);
  std::uint32_t flag = 0;
  try {
    ex.launch({.grid = 1, .block = 32}, release_only{}, &flag);
    FAIL() << "expected a deadlock";
  } catch (const deadlock_error& e) {
    EXPECT_NE(std::string(e.what()).find("timing model holds warps"), std::string::npos) << e.what();
  }
  EXPECT_EQ(flag, 0u) << "a held release was performed";
}

}  // namespace
