// The timed schedule: warps issue in virtual time as a timing model says.
// The model here has fixed latencies, so every cycle count below follows
// from the kernel by hand; gpmx_sim's GPU model is tested in tests/sim.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <numeric>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/mem_view.hpp"

namespace {
using namespace gpmx;

constexpr vtime cycle = 1000;  // 1 ns cycles keep the arithmetic readable

// Loads take `load_cycles`, everything else one cycle; records each issue.
class fixed_latency_model final : public timing_model {
 public:
  struct issued {
    vtime at;
    std::uint32_t sm, block, warp, lanes;
    timed_kind kind;
    const void* addr;
    std::uint8_t sub;
  };
  explicit fixed_latency_model(timed_machine m, vtime load_cycles = 100) : m_(m), load_(load_cycles) {
    m_.cycle = cycle;
  }
  timed_machine machine() const override { return m_; }
  issue_result issue(const warp_instruction& in, vtime now) override {
    const timed_op& op = in.ops[std::countr_zero(in.lanes)];
    log.push_back({now, in.sm, std::uint32_t(in.block), in.warp, in.lanes, op.kind, op.addr, op.sub});
    const bool memory = op.kind == timed_kind::load || op.kind == timed_kind::atomic || op.kind == timed_kind::spin;
    EXPECT_EQ(op.work, 0u) << "declared work is issued before the operation";
    return {now + (memory ? load_ * cycle : cycle), now + cycle,
            memory ? stall_reason::memory : stall_reason::compute};
  }
  vtime launch_end(vtime now, const sm_activity* sms) override {
    ended_at = now;
    activity.assign(sms, sms + m_.sms);
    return now;
  }
  std::vector<issued> log;
  vtime ended_at = 0;
  std::vector<sm_activity> activity;

 private:
  timed_machine m_;
  vtime load_;
};

timed_machine small_machine(std::uint32_t sms = 1, std::uint32_t schedulers = 1) {
  timed_machine m;
  m.sms = sms;
  m.schedulers_per_sm = schedulers;
  m.max_threads_per_sm = 1024;
  m.max_blocks_per_sm = 8;
  return m;
}

cpu::executor timed_executor(timing_model& model) {
  return cpu::executor({.policy = cpu::schedule::timed, .timing = &model});
}

// Each thread follows a chain of `hops` dependent loads.
struct chase {
  void operator()(auto& t, global_span<const std::uint32_t> next, std::uint32_t hops,
                  global_span<std::uint32_t> out) const {
    auto n = next.bind(t);
    std::uint32_t i = std::uint32_t(t.global_id());
    for (std::uint32_t h = 0; h < hops; ++h) i = n[i];
    out.bind(t)[t.global_id()] = i;
  }
};

TEST(TimedSchedule, AWarpIssuesItsLanesTogetherAndWaitsForEachLoad) {
  fixed_latency_model model(small_machine());
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> next(32), out(32);
  for (std::uint32_t i = 0; i < 32; ++i) next[i] = (i + 1) % 32;
  ex.launch({.grid = 1, .block = 32}, chase{}, global_span<const std::uint32_t>(next.data(), 32), 10u,
            global_span<std::uint32_t>(out.data(), 32));
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(out[i], (i + 10) % 32);
  ASSERT_EQ(model.log.size(), 11u);  // ten loads and the store, one instruction each
  for (std::size_t k = 0; k < 10; ++k) {
    EXPECT_EQ(model.log[k].lanes, 0xffffffffu);
    EXPECT_EQ(model.log[k].kind, timed_kind::load);
    EXPECT_EQ(model.log[k].at, k * 100 * cycle) << "load " << k << " waits for the one before";
  }
  EXPECT_EQ(model.log[10].kind, timed_kind::store);
  EXPECT_EQ(model.ended_at, 10 * 100 * cycle + cycle);
}

TEST(TimedSchedule, WarpsOnOneSchedulerHideEachOthersLatency) {
  fixed_latency_model model(small_machine());
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> next(256), out(256);
  std::iota(next.begin(), next.end(), 0u);
  ex.launch({.grid = 1, .block = 256}, chase{}, global_span<const std::uint32_t>(next.data(), 256), 4u,
            global_span<std::uint32_t>(out.data(), 256));
  // Eight warps, one scheduler: each round of loads takes eight issue
  // cycles and the latency of the last, not eight latencies.
  ASSERT_EQ(model.log.size(), 8u * 5u);
  EXPECT_EQ(model.ended_at, 3 * 100 * cycle + 7 * cycle + 100 * cycle + cycle);
  vtime busy = 0;
  for (const auto& a : model.activity) busy += a.busy;
  EXPECT_EQ(busy, 40 * cycle);
}

// Even and odd lanes load at different source lines: two instructions.
struct diverge {
  void operator()(auto& t, global_span<const std::uint32_t> in, global_span<std::uint32_t> out) const {
    auto a = in.bind(t);
    std::uint32_t v;
    if (t.lane_id() % 2 == 0) v = a[0];
    else v = a[1];
    out.bind(t)[t.lane_id()] = v;
  }
};

TEST(TimedSchedule, DivergentLanesIssueAsSeparateGroups) {
  fixed_latency_model model(small_machine());
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> in{7, 9}, out(32);
  ex.launch({.grid = 1, .block = 32}, diverge{}, global_span<const std::uint32_t>(in.data(), 2),
            global_span<std::uint32_t>(out.data(), 32));
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(out[i], i % 2 ? 9u : 7u);
  ASSERT_GE(model.log.size(), 2u);
  EXPECT_EQ(model.log[0].lanes, 0x55555555u);
  EXPECT_EQ(model.log[1].lanes, 0xaaaaaaaau);
}

// Warp 0 loads `hops` times before the barrier; warp 1 only waits there.
struct late_barrier {
  void operator()(auto& t, global_span<const std::uint32_t> next, global_span<std::uint32_t> out) const {
    auto n = next.bind(t);
    std::uint32_t i = t.thread_rank();
    if (t.warp_id() == 0)
      for (int h = 0; h < 5; ++h) i = n[i];
    t.syncthreads();
    out.bind(t)[t.thread_rank()] = i;
  }
};

TEST(TimedSchedule, ABarrierHoldsEveryWarpUntilTheLastArrives) {
  fixed_latency_model model(small_machine(1, 2));
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> next(64), out(64);
  std::iota(next.begin(), next.end(), 0u);
  ex.launch({.grid = 1, .block = 64}, late_barrier{}, global_span<const std::uint32_t>(next.data(), 64),
            global_span<std::uint32_t>(out.data(), 64));
  // Warp 0 reaches the barrier after five loads; warp 1's store issues
  // only after that.
  vtime warp0_barrier = 0, warp1_store = 0;
  for (const auto& e : model.log) {
    if (e.warp == 0 && e.kind == timed_kind::barrier) warp0_barrier = e.at;
    if (e.warp == 1 && e.kind == timed_kind::store) warp1_store = e.at;
  }
  EXPECT_EQ(warp0_barrier, 5 * 100 * cycle);
  EXPECT_EQ(warp1_store, warp0_barrier + cycle);
  EXPECT_GT(model.activity[0].stalled[unsigned(stall_reason::barrier)], 0u);
}

TEST(TimedSchedule, BlocksBeyondAnSmsCapacityWaitForASlot) {
  timed_machine m = small_machine();
  m.max_threads_per_sm = 256;  // one block of 256 at a time
  fixed_latency_model model(m);
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> next(1024), out(1024);
  std::iota(next.begin(), next.end(), 0u);
  ex.launch({.grid = 4, .block = 256}, chase{}, global_span<const std::uint32_t>(next.data(), 1024), 4u,
            global_span<std::uint32_t>(out.data(), 1024));
  const vtime one_block = 3 * 100 * cycle + 7 * cycle + 100 * cycle + cycle;
  EXPECT_EQ(model.ended_at, 4 * one_block);
  EXPECT_EQ(model.activity[0].blocks, 4u);
}

TEST(TimedSchedule, TheWarpSchedulerPolicyDecidesTheIssueOrder) {
  auto order = [](warp_scheduling p) {
    timed_machine m = small_machine();
    m.policy = p;
    fixed_latency_model model(m, 1);  // loads as fast as issue: a greedy scheduler keeps one warp
    auto ex = timed_executor(model);
    std::vector<std::uint32_t> next(128), out(128);
    std::iota(next.begin(), next.end(), 0u);
    ex.launch({.grid = 1, .block = 128}, chase{}, global_span<const std::uint32_t>(next.data(), 128), 3u,
              global_span<std::uint32_t>(out.data(), 128));
    std::vector<std::uint32_t> warps;
    for (const auto& e : model.log) warps.push_back(e.warp);
    return warps;
  };
  const auto gto = order(warp_scheduling::gto), lrr = order(warp_scheduling::lrr);
  EXPECT_EQ(std::vector<std::uint32_t>(gto.begin(), gto.begin() + 4), (std::vector<std::uint32_t>{0, 0, 0, 0}));
  EXPECT_EQ(std::vector<std::uint32_t>(lrr.begin(), lrr.begin() + 4), (std::vector<std::uint32_t>{0, 1, 2, 3}));
}

struct busy {
  void operator()(auto& t, global_span<std::uint32_t> out) const {
    t.work(50);
    out.bind(t)[t.thread_rank()] = 1;
  }
};

TEST(TimedSchedule, DeclaredWorkCostsIssueCycles) {
  fixed_latency_model model(small_machine());
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> out(32);
  ex.launch({.grid = 1, .block = 32}, busy{}, global_span<std::uint32_t>(out.data(), 32));
  ASSERT_EQ(model.log.size(), 1u);
  EXPECT_EQ(model.log[0].at, 50 * cycle);  // the store follows the fifty declared instructions
  EXPECT_EQ(model.ended_at, 51 * cycle);
  EXPECT_EQ(model.activity[0].compute_instructions, 50u);
}

// Block 1 publishes a flag that block 0 spins on: the spin ends once the
// producer's store issues, in virtual time.
struct flag_handoff {
  void operator()(auto& t, std::uint32_t* flag, global_span<std::uint32_t> out) const {
    if (t.thread_rank() != 0) return;
    if (t.block_rank() == 1) {
      t.work(1000);
      t.atomic_store(flag, 1u);
    } else {
      t.spin_wait([&] { return t.atomic_load(flag) == 1u; });
      out.bind(t)[0] = 42;
    }
  }
};

TEST(TimedSchedule, ASpinEndsWhenAnotherBlockPublishes) {
  fixed_latency_model model(small_machine(2));
  auto ex = timed_executor(model);
  std::uint32_t flag = 0;
  std::vector<std::uint32_t> out(1);
  ex.launch({.grid = 2, .block = 32}, flag_handoff{}, &flag, global_span<std::uint32_t>(out.data(), 1));
  EXPECT_EQ(out[0], 42u);
  vtime published = 0, consumed = 0;
  for (const auto& e : model.log) {
    if (e.block == 1 && e.kind == timed_kind::atomic) published = e.at;
    if (e.block == 0 && e.kind == timed_kind::store) consumed = e.at;
  }
  EXPECT_EQ(published, 1000 * cycle);
  EXPECT_GT(consumed, published) << "the spinner saw the flag before it was published in virtual time";
}

struct stuck {
  void operator()(auto& t, std::uint32_t* flag) const {
    t.spin_wait([&] { return t.atomic_load(flag) == 1u; });
  }
};

TEST(TimedSchedule, ASpinNobodyCanEndIsADeadlock) {
  fixed_latency_model model(small_machine());
  auto ex = timed_executor(model);
  std::uint32_t flag = 0;
  EXPECT_THROW(ex.launch({.grid = 1, .block = 64}, stuck{}, &flag), deadlock_error);
}

TEST(TimedSchedule, SameRunSameTimes) {
  auto run = [] {
    fixed_latency_model model(small_machine(2, 2));
    auto ex = timed_executor(model);
    std::vector<std::uint32_t> next(2048), out(2048);
    for (std::uint32_t i = 0; i < 2048; ++i) next[i] = (i * 7919u) % 2048;
    ex.launch({.grid = 8, .block = 256}, chase{}, global_span<const std::uint32_t>(next.data(), 2048), 6u,
              global_span<std::uint32_t>(out.data(), 2048));
    return std::pair(model.ended_at, model.log.size());
  };
  EXPECT_EQ(run(), run());
}

struct block_sum {
  void operator()(auto& t, global_span<const std::uint32_t> in, std::uint32_t* total) const {
    GPMX_SHARED(t, std::uint32_t, warp_sums, 8);
    std::uint32_t v = in.bind(t)[t.global_id()];
    for (int d = 16; d > 0; d /= 2) v += t.shfl_down(0xffffffffu, v, unsigned(d));
    auto s = shared_span<std::uint32_t>(warp_sums, 8).bind(t);
    if (t.lane_id() == 0) s[t.warp_id()] = v;
    t.syncthreads();
    if (t.thread_rank() == 0) {
      std::uint32_t sum = 0;
      for (std::uint32_t w = 0; w < 8; ++w) sum += s[w];
      t.atomic_add(total, sum);
    }
  }
};

TEST(TimedSchedule, ResultsMatchTheCpuSchedule) {
  // A block reduction through shared memory, barriers and shuffles.
  std::vector<std::uint32_t> in(256 * 16);
  std::iota(in.begin(), in.end(), 1u);
  fixed_latency_model model(small_machine(3, 4));
  auto ex = timed_executor(model);
  std::uint32_t total = 0;
  ex.launch({.grid = 16, .block = 256}, block_sum{}, global_span<const std::uint32_t>(in.data(), in.size()),
            &total);
  EXPECT_EQ(total, std::accumulate(in.begin(), in.end(), 0u));
}

struct throws {
  void operator()(auto& t, global_span<std::uint32_t> out) const {
    out.bind(t)[t.thread_rank()] = 1;
    if (t.thread_rank() == 40) throw std::runtime_error("thread 40 gives up");
  }
};

TEST(TimedSchedule, AKernelErrorFailsTheLaunch) {
  fixed_latency_model model(small_machine());
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> out(64);
  EXPECT_THROW(ex.launch({.grid = 1, .block = 64}, throws{}, global_span<std::uint32_t>(out.data(), 64)),
               kernel_error);
}

TEST(TimedSchedule, OptionsNeedAModelAndOnlyTheTimedScheduleTakesOne) {
  EXPECT_THROW(cpu::executor({.policy = cpu::schedule::timed}), config_error);
  fixed_latency_model model(small_machine());
  EXPECT_THROW(cpu::executor({.policy = cpu::schedule::deterministic, .timing = &model}), config_error);
}

TEST(TimedSchedule, ABlockThatCannotFitAnSmIsRefused) {
  timed_machine m = small_machine();
  m.max_threads_per_sm = 128;
  fixed_latency_model model(m);
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> out(256);
  EXPECT_THROW(ex.launch({.grid = 1, .block = 256}, chase{}, global_span<const std::uint32_t>(out.data(), 256),
                         0u, global_span<std::uint32_t>(out.data(), 256)),
               config_error);
}

}  // namespace

namespace {
// Thirty SMs of 1024 resident threads (SBRP's Table 1): every thread holds
// a fiber while it waits for its warp (30,720 fibers), the most the timed
// schedule keeps alive at once. ThreadSanitizer maps about nine regions per
// fiber and a process may map 65,530 by default (vm.max_map_count), so
// under tsan the machine has 3 SMs.
#if defined(GPMX_SANITIZER_thread)
constexpr std::uint32_t full_sms = 3;
#else
constexpr std::uint32_t full_sms = 30;
#endif

TEST(TimedSchedule, EveryThreadOfFullSmsWaitsAtOnce) {
  timed_machine m = small_machine(full_sms, 4);
  m.max_threads_per_sm = 1024;
  fixed_latency_model model(m);
  auto ex = timed_executor(model);
  const std::uint64_t n = full_sms * 1024;
  std::vector<std::uint32_t> next(n), out(n);
  std::iota(next.begin(), next.end(), 0u);
  ex.launch({.grid = full_sms, .block = 1024}, chase{}, global_span<const std::uint32_t>(next.data(), n), 2u,
            global_span<std::uint32_t>(out.data(), n));
  EXPECT_EQ(out[n - 1], n - 1);
  EXPECT_EQ(model.activity[full_sms - 1].blocks, 1u);
}
}  // namespace

namespace {
// Threads that make no operation the schedule stops at end while their
// block is staged: the block is over at once and the launch ends.
struct untimed_copy {
  void operator()(auto& t, std::uint32_t* out) const { out[t.global_id()] = 7; }
};

TEST(TimedSchedule, BlocksWithNothingToTimeEndWhenStaged) {
  fixed_latency_model model(small_machine(2));
  auto ex = timed_executor(model);
  std::vector<std::uint32_t> out(64 * 8);
  ex.launch({.grid = 8, .block = 64}, untimed_copy{}, out.data());
  for (std::uint32_t v : out) EXPECT_EQ(v, 7u);
  EXPECT_TRUE(model.log.empty());
  EXPECT_EQ(model.activity[0].blocks + model.activity[1].blocks, 8u);
}
}  // namespace

namespace {
// The consumer polls a flag through a view, not an atomic: each further try
// of the condition is a load of that word.
struct view_flag_handoff {
  void operator()(auto& t, global_span<std::uint32_t> flag, global_span<std::uint32_t> out) const {
    if (t.thread_rank() != 0) return;
    auto f = flag.bind(t);
    if (t.block_rank() == 1) {
      t.work(500);
      f[0] = 1;
    } else {
      t.spin_wait([&] { return f[0] == 1u; });
      out.bind(t)[0] = 42;
    }
  }
};

TEST(TimedSchedule, ASpinOnAViewLoadRetriesThatLoad) {
  fixed_latency_model model(small_machine(2));
  auto ex = timed_executor(model);
  std::uint32_t flag = 0;
  std::vector<std::uint32_t> out(1);
  ex.launch({.grid = 2, .block = 32}, view_flag_handoff{}, global_span<std::uint32_t>(&flag, 1),
            global_span<std::uint32_t>(out.data(), 1));
  EXPECT_EQ(out[0], 42u);
  std::size_t spins = 0;
  for (const auto& e : model.log)
    if (e.kind == timed_kind::spin) {
      ++spins;
      EXPECT_EQ(e.addr, &flag);
      EXPECT_EQ(e.sub, std::uint8_t(atomic_op::none));
    }
  EXPECT_GT(spins, 0u);
}
}  // namespace

namespace {
using namespace gpmx;

// Lane 0 spins on a flag that lane 1 of the same warp sets after a store:
// lane 0's failed retry is not a deadlock while lane 1 can still issue.
struct divergent_spin {
  void operator()(auto& t, std::uint32_t* flag, global_span<std::uint32_t> out) const {
    if (t.thread_rank() == 0) {
      t.spin_wait([&] { return t.atomic_load(flag) == 1u; });
      out.bind(t)[0] = 1;
    } else if (t.thread_rank() == 1) {
      out.bind(t)[1] = 5;
      t.atomic_store(flag, 1u);
    }
  }
};

TEST(TimedSchedule, ASpinningLaneIsNoDeadlockWhileAnotherLaneOfItsWarpCanIssue) {
  fixed_latency_model model(small_machine());
  auto ex = timed_executor(model);
  std::uint32_t flag = 0;
  std::vector<std::uint32_t> out(2);
  ex.launch({.grid = 1, .block = 32}, divergent_spin{}, &flag, global_span<std::uint32_t>(out.data(), 2));
  EXPECT_EQ(out[0], 1u);
  EXPECT_EQ(out[1], 5u);
  std::size_t failed_retries = 0;
  for (const auto& e : model.log) failed_retries += e.kind == timed_kind::spin;
  EXPECT_GE(failed_retries, 1u) << "the test needs lane 0 to retry before lane 1 publishes";
}

}  // namespace

namespace {
using namespace gpmx;

// One cycle per instruction, a load 20; refuses to go on past `cap` issues
// (a warp starved by a spinning one would otherwise make the test hang).
class capped_model final : public timing_model {
 public:
  explicit capped_model(std::uint64_t cap) : cap_(cap) {}
  timed_machine machine() const override {
    timed_machine m = small_machine(1, 1);
    m.cycle = cycle;
    return m;
  }
  issue_result issue(const warp_instruction& in, vtime now) override {
    if (++issued > cap_) throw std::runtime_error("issue cap reached: a warp is starved");
    const timed_op& op = in.ops[std::countr_zero(in.lanes)];
    const bool read = op.kind == timed_kind::load || op.kind == timed_kind::atomic ||
                      op.kind == timed_kind::flag_acquire || (op.kind == timed_kind::spin && op.addr);
    spin_acquires += op.kind == timed_kind::spin && op.acquire;
    return {now + (read ? 20 : 1) * cycle, now + cycle, read ? stall_reason::memory : stall_reason::compute};
  }
  std::uint64_t issued = 0, spin_acquires = 0;

 private:
  std::uint64_t cap_;
};

// Warp 0 waits on a persist acquire of a flag that warp 1 releases after
// some work, both on one warp scheduler.
struct acquire_handoff {
  void operator()(auto& t, std::uint32_t* flag, global_span<std::uint32_t> out) const {
    if (t.thread_rank() == 0) {
      t.spin_wait([&] { return t.pacq(scope::block, flag) == 1u; });
      out.bind(t)[0] = 1;
    } else if (t.thread_rank() == 32) {
      for (std::uint32_t i = 1; i < 40; ++i) out.bind(t)[i] = i;
      t.prel(scope::block, flag, 1u);
    }
  }
};

TEST(TimedSchedule, GtoDoesNotStarveAWarpBehindOneSpinningOnAnAcquire) {
  capped_model model(100'000);
  auto ex = timed_executor(model);
  std::uint32_t flag = 0;
  std::vector<std::uint32_t> out(40);
  ex.launch({.grid = 1, .block = 64}, acquire_handoff{}, &flag, global_span<std::uint32_t>(out.data(), 40));
  EXPECT_EQ(out[0], 1u);
  EXPECT_LT(model.issued, 1000u);
  EXPECT_GT(model.spin_acquires, 0u) << "a retry of a spin on pacq is an acquire with its flag's address";
}

}  // namespace
