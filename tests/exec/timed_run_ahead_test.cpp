// Run-ahead in the timed schedule (timed_machine::run_ahead): a lane
// performs plain loads before its warp issues them, and goes on past plain
// stores, recording both; the warp issues them later, in order. For a kernel whose loads do not race
// with stores, every instruction issues at the same time, with the same
// lanes and addresses, as when each load waits for its issue.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/mem_view.hpp"

namespace {
using namespace gpmx;

constexpr vtime cycle = 1000;

// Loads take 100 cycles, everything else one; logs every instruction whole.
class logging_model final : public timing_model {
 public:
  struct issued {
    vtime at;
    std::uint64_t block;
    std::uint32_t warp, lanes;
    timed_kind kind;
    std::vector<std::uintptr_t> addr;  // per lane of `lanes`
    bool operator==(const issued&) const = default;
  };
  explicit logging_model(std::uint32_t run_ahead) {
    m_.sms = 2;
    m_.schedulers_per_sm = 2;
    m_.max_threads_per_sm = 1024;
    m_.max_blocks_per_sm = 2;
    m_.cycle = cycle;
    m_.run_ahead = run_ahead;
  }
  void set_run_ahead(std::uint32_t n, bool stores) {
    m_.run_ahead = n;
    m_.run_ahead_stores = stores;
  }
  timed_machine machine() const override { return m_; }
  void launch_begin(std::string_view, dim3, dim3, vtime now) override {
    began = now;
    log.clear();
  }
  issue_result issue(const warp_instruction& in, vtime now) override {
    issued e{now - began, in.block, in.warp, in.lanes, in.ops[std::countr_zero(in.lanes)].kind, {}};
    for (std::uint32_t m = in.lanes; m != 0; m &= m - 1) {
      const timed_op& op = in.ops[std::countr_zero(m)];
      // Which block's page-aligned arena serves a block differs from
      // launch to launch; the offset within it does not.
      const auto a = reinterpret_cast<std::uintptr_t>(op.addr);
      e.addr.push_back(op.space == mem_space::shared ? a % 4096 : a);
    }
    log.push_back(e);
    const bool memory = e.kind == timed_kind::load || e.kind == timed_kind::atomic || e.kind == timed_kind::spin;
    return {now + (memory ? 100 : 1) * cycle, now + cycle, memory ? stall_reason::memory : stall_reason::compute};
  }
  vtime launch_end(vtime now, const sm_activity*) override {
    ended_at = now - began;
    return now;
  }
  std::vector<issued> log;  // of the last launch; times from its start
  vtime began = 0, ended_at = 0;

 private:
  timed_machine m_;
};

// Dependent loads with stores and declared work between them, a divergent stretch of
// different lengths, shared memory across a barrier, loads right before a
// spin on a flag another block publishes, and loads right before the
// thread ends.
struct mix {
  void operator()(auto& t, global_span<const std::uint32_t> next, std::uint32_t* flag,
                  global_span<std::uint32_t> out) const {
    auto n = next.bind(t);
    auto o = out.bind(t);
    GPMX_SHARED(t, std::uint32_t, box, 64);
    auto s = shared_span<std::uint32_t>(box, 64).bind(t);
    std::uint32_t i = std::uint32_t(t.global_id() % 64);
    for (int h = 0; h < 6; ++h) {
      i = n[i];
      if (h % 2 == 1) o[t.global_id()] = i;
      t.work(3);
    }
    if (t.lane_id() % 3 == 0)
      for (int h = 0; h < 4; ++h) i = n[i ^ 1u];
    else
      i = n[i];
    s[t.thread_rank()] = i;
    t.syncthreads();
    i = n[(i + s[(t.thread_rank() + 1) % 64]) % 64];
    // Block 1 publishes while block 0's last two loads are on their way: a
    // check of the flag before they issued would still find it unset.
    if (t.block_rank() == 1 && t.thread_rank() == 0) {
      t.work(50);
      t.atomic_store(flag, 1u);
    }
    if (t.block_rank() == 0) {
      i = n[i];
      i = n[i];
      t.spin_wait([&] { return t.atomic_load(flag) == 1u; });
    }
    o[t.global_id()] = i;
    if (t.lane_id() < 8)
      for (std::uint32_t h = 0; h < 3; ++h) i = n[(i + h) % 64];
  }
};

struct mix_run {
  std::vector<logging_model::issued> log;
  vtime ended_at;
  std::vector<std::uint32_t> out;
};

// One executor and the same buffers for every run, so that global and
// shared addresses are the same from run to run.
class mix_runner {
 public:
  mix_runner() : next_(64), out_(256) {
    for (std::uint32_t i = 0; i < 64; ++i) next_[i] = (i * 37u + 11u) % 64;
  }
  mix_run run(std::uint32_t run_ahead, bool stores) {
    model_.set_run_ahead(run_ahead, stores);
    flag_ = 0;
    std::fill(out_.begin(), out_.end(), 0u);
    ex_.launch({.grid = 4, .block = 64}, mix{}, global_span<const std::uint32_t>(next_.data(), 64), &flag_,
               global_span<std::uint32_t>(out_.data(), 256));
    return {model_.log, model_.ended_at, out_};
  }

 private:
  logging_model model_{0};
  cpu::executor ex_{{.policy = cpu::schedule::timed, .timing = &model_}};
  std::vector<std::uint32_t> next_, out_;
  std::uint32_t flag_ = 0;
};

TEST(TimedRunAhead, InstructionsIssueAsWhenEachLoadWaitsForItsIssue) {
  mix_runner runner;
  const mix_run base = runner.run(0, false);
  ASSERT_GT(base.log.size(), 40u);
  std::size_t loads = 0, atomics = 0, barriers = 0;
  for (const auto& e : base.log) {
    loads += e.kind == timed_kind::load;
    atomics += e.kind == timed_kind::atomic || e.kind == timed_kind::spin;
    barriers += e.kind == timed_kind::barrier;
  }
  EXPECT_GT(loads, 30u);
  EXPECT_GE(atomics, 3u) << "the flag's store and block 0's two warps reading it";
  EXPECT_GT(barriers, 0u);
  // 1 and 2 fill a lane's record in the middle of the chains; 16 holds them.
  for (bool stores : {false, true})
    for (std::uint32_t run_ahead : {1u, 2u, 3u, 16u, 256u}) {
      const mix_run r = runner.run(run_ahead, stores);
      const std::string what = "run_ahead " + std::to_string(run_ahead) + (stores ? " with stores" : "");
      EXPECT_EQ(r.out, base.out) << what;
      EXPECT_EQ(r.ended_at, base.ended_at) << what;
      ASSERT_EQ(r.log.size(), base.log.size()) << what;
      for (std::size_t k = 0; k < r.log.size(); ++k) ASSERT_EQ(r.log[k], base.log[k]) << "instruction " << k << ", " << what;
    }
}

// Block 1 stores x after 50 cycles; block 0 loads x after three dependent
// loads of 100 cycles each. The store and the load race: no flag orders
// them. Issued at its time the load sees the store; run ahead, it was
// performed when the lane reached it, before the store.
struct racy_read {
  void operator()(auto& t, global_span<const std::uint32_t> next, global_span<std::uint32_t> x,
                  global_span<std::uint32_t> out) const {
    if (t.thread_rank() != 0) return;
    auto v = x.bind(t);
    if (t.block_rank() == 1) {
      t.work(50);
      v[0] = 1;
      return;
    }
    auto n = next.bind(t);
    std::uint32_t i = 0;
    for (int h = 0; h < 3; ++h) i = n[i];
    out.bind(t)[0] = v[0] + i;
  }
};

std::uint32_t racy_result(std::uint32_t run_ahead) {
  logging_model model(run_ahead);
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &model});
  std::vector<std::uint32_t> next(4, 0), out(1);
  std::uint32_t x = 0;
  ex.launch({.grid = 2, .block = 32}, racy_read{}, global_span<const std::uint32_t>(next.data(), 4),
            global_span<std::uint32_t>(&x, 1), global_span<std::uint32_t>(out.data(), 1));
  return out[0];
}

TEST(TimedRunAhead, OnlyALoadThatRacesWithAStoreCanReadAnOlderValue) {
  EXPECT_EQ(racy_result(0), 1u);
  EXPECT_EQ(racy_result(16), 0u);
}

}  // namespace
