// Spins in the timed schedule: after its first check on the thread's fiber,
// a spin_wait condition is checked by the scheduler at each try the warp
// issues, without resuming the fiber (thread_ctx::timed_spin_wait). These
// tests pin what that must keep: one check per issued try, the condition's
// side effects and exceptions, and a clear error for a condition that waits.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/mem_view.hpp"

namespace {
using namespace gpmx;

constexpr vtime cycle = 1000;

// Every instruction takes 10 cycles; counts the lanes of each spin try.
class counting_model final : public timing_model {
 public:
  counting_model() {
    m_.sms = 2;
    m_.schedulers_per_sm = 1;
    m_.cycle = cycle;
  }
  timed_machine machine() const override { return m_; }
  issue_result issue(const warp_instruction& in, vtime now) override {
    const timed_op& op = in.ops[std::countr_zero(in.lanes)];
    if (op.kind == timed_kind::spin)
      for (std::uint32_t m = in.lanes; m != 0; m &= m - 1) ++spin_tries[in.block * 32 + std::countr_zero(m)];
    return {now + 10 * cycle, now + cycle, stall_reason::memory};
  }
  vtime launch_end(vtime now, const sm_activity*) override { return now; }
  std::vector<std::uint32_t> spin_tries = std::vector<std::uint32_t>(64);

 private:
  timed_machine m_;
};

cpu::executor timed_executor(timing_model& model) {
  return cpu::executor({.policy = cpu::schedule::timed, .timing = &model});
}

// Block 1's first thread publishes one flag after another, with work
// between; block 0's lane i spins on flag i, counting its condition's checks.
struct staggered_flags {
  void operator()(auto& t, std::uint32_t* flags, global_span<std::uint32_t> checks,
                  global_span<std::uint32_t> out) const {
    const std::uint32_t lane = t.lane_id();
    if (t.block_rank() == 1) {
      if (lane == 0)
        for (std::uint32_t i = 0; i < 32; ++i) {
          t.work(100);
          t.atomic_store(&flags[i], i + 1);
        }
      return;
    }
    auto c = checks.bind(t);
    std::uint32_t seen = 0;
    t.spin_wait([&] {
      c[lane] = c[lane] + 1;
      seen = t.atomic_load(&flags[lane]);
      return seen != 0;
    });
    out.bind(t)[lane] = seen;
  }
};

TEST(TimedSpin, TheConditionIsCheckedOncePerIssuedTryAndItsEffectsStay) {
  counting_model model;
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> flags(32), checks(32), out(32);
  ex.launch({.grid = 2, .block = 32}, staggered_flags{}, flags.data(), global_span<std::uint32_t>(checks.data(), 32),
            global_span<std::uint32_t>(out.data(), 32));
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[lane], lane + 1) << "lane " << lane << " left its spin without the value that ended it";
    // The first check runs before any try; each issued try checks once more.
    EXPECT_EQ(checks[lane], 1 + model.spin_tries[lane]) << "lane " << lane;
    EXPECT_GT(model.spin_tries[lane], 0u) << "lane " << lane << " never retried: the test shows nothing";
  }
  // Later flags take more tries: the lanes left the spin at different times.
  EXPECT_LT(model.spin_tries[0], model.spin_tries[31]);
}

// Block 0's warp spins on `flag` with `condition(t, flag)`; block 1
// publishes the flag long after a few tries, so no deadlock is declared.
template <class Condition>
struct late_flag {
  Condition condition;
  void operator()(auto& t, std::uint32_t* flag) const {
    if (t.block_rank() == 1) {
      if (t.lane_id() == 0) {
        t.work(10000);
        t.atomic_store(flag, 1u);
      }
      return;
    }
    auto check = condition;  // its own state per thread
    t.spin_wait([&] { return check(t, flag); });
  }
};

// Runs late_flag with the condition; the launch must fail naming `text`.
template <class Condition>
void expect_launch_fails_with(Condition condition, const std::string& text) {
  counting_model model;
  auto ex = timed_executor(model);
  std::uint32_t flag = 0;
  try {
    ex.launch({.grid = 2, .block = 32}, late_flag<Condition>{condition}, &flag);
    FAIL() << "the launch did not fail";
  } catch (const kernel_error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(TimedSpin, AnExceptionFromARetriedConditionFailsTheLaunchWithItsMessage) {
  expect_launch_fails_with(
      [tries = 0u](auto& t, std::uint32_t* flag) mutable {
        if (++tries == 3 && t.lane_id() == 7) throw std::runtime_error("lane 7 gives up on its third check");
        return t.atomic_load(flag) == 1u;
      },
      "lane 7 gives up on its third check");
}

TEST(TimedSpin, AConditionThatWaitsIsRefusedByName) {
  expect_launch_fails_with(
      [first = true](auto& t, std::uint32_t* flag) mutable {
        if (!first) t.syncwarp();
        first = false;
        return t.atomic_load(flag) == 1u;
      },
      "spin_wait condition waited");
}

}  // namespace
