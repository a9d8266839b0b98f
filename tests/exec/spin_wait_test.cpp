#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "kernels/exec_kernels.hpp"

namespace {
using namespace gpmx;

TEST(SpinWait, FlagChainAcrossBlocks) {
  for (unsigned workers : {1u, 2u}) {
    cpu::executor ex({.workers = workers});
    const std::uint32_t blocks = 200;
    std::vector<std::uint32_t> flags(blocks, 0), out(blocks, 0);
    ex.launch({dim3(blocks), dim3(64), 0, "flag_chain"}, test_kernels::flag_chain{}, flags.data(), out.data());
    for (std::uint32_t b = 0; b < blocks; ++b) ASSERT_EQ(out[b], b + 1);
  }
}

TEST(SpinWait, WaitingOnALaterBlockAdmitsIt) {
  // Block 0 waits for the last block: a worker must admit more blocks while
  // its resident ones only spin, as a GPU with enough SMs would run them.
  cpu::executor ex({.workers = 1, .max_resident_blocks = 8});
  std::vector<std::uint32_t> flag(1, 0), out(8, 0);
  ex.launch({dim3(8), dim3(32), 0, "reverse"}, [](auto& t, std::uint32_t* f, std::uint32_t* o) {
    if (t.thread_rank() != 0) return;
    if (t.block_rank() == 0) {
      t.spin_wait([&] { return t.atomic_load(f, memory_order::acquire) == 1u; });
      o[0] = 1;
    } else if (t.block_rank() == 7) {
      t.atomic_store(f, 1u, memory_order::release);
    }
  }, flag.data(), out.data());
  EXPECT_EQ(out[0], 1u);
}

TEST(SpinWait, WithinABlockTheWriterRuns) {
  cpu::executor ex({.workers = 1});
  for (std::uint32_t block : {2u, 64u, 1024u}) {
    std::vector<std::uint32_t> flag(1, 0), out(2, 0);
    ex.launch({dim3(1), dim3(block)}, test_kernels::flag_in_block{}, flag.data(), out.data());
    EXPECT_EQ(out[0], 42u);
  }
}

TEST(SpinWait, ForeverIsADeadlockInTheDeterministicSchedule) {
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 3});
  std::uint32_t never = 0;
  try {
    ex.launch({dim3(2), dim3(4), 0, "waits_forever"}, [](auto& t, std::uint32_t* f) {
      t.spin_wait([&] { return t.atomic_load(f) != 0u; });
    }, &never);
    FAIL() << "no deadlock reported";
  } catch (const deadlock_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("waits_forever"), std::string::npos) << what;
    EXPECT_NE(what.find("spin_wait"), std::string::npos) << what;
  }
}

TEST(SpinWait, ForeverTimesOutInTheParallelSchedule) {
  // Also a long wait: a worker whose threads are all in long waits yields
  // instead of sleeping between polls (an agent's thread brings their
  // completions), but it is still a stall for the deadlock timeout.
  for (const bool long_wait : {false, true}) {
    cpu::executor ex({.workers = 2, .spin_timeout = std::chrono::milliseconds(200)});
    std::uint32_t never = 0;
    EXPECT_THROW(ex.launch({dim3(4), dim3(8), 0, "waits_forever"}, [](auto& t, std::uint32_t* f, bool lng) {
      if (lng) t.spin_wait_long([&] { return t.atomic_load(f) != 0u; });
      else t.spin_wait([&] { return t.atomic_load(f) != 0u; });
    }, &never, long_wait), deadlock_error) << (long_wait ? "spin_wait_long" : "spin_wait");
  }
}

TEST(SpinWait, ThreadsThatOnlyPassSpinsAreProgressNotAStall) {
  // Two threads hand a token back and forth 3,000 times and exit only at
  // the end, as kernel threads waiting on one I/O after another do. Each
  // hand-over passes a spin that failed first: progress. A worker that
  // counted only exits as progress backed off (sleeping up to 1 ms per
  // round) and, with no exit for 200 ms, reported a deadlock.
  cpu::executor ex({.workers = 2, .spin_timeout = std::chrono::milliseconds(200)});
  const std::uint32_t rounds = 3000;
  std::vector<std::uint32_t> token(1, 0), passes(2, 0);
  ASSERT_NO_THROW(ex.launch({dim3(1), dim3(2), 0, "ping_pong"},
                            [](auto& t, std::uint32_t* tok, std::uint32_t n, std::uint32_t* done) {
    const std::uint32_t me = t.thread_rank();
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t mine = 2 * k + me;  // token values this thread waits for
      t.spin_wait([&] { return t.atomic_load(tok, memory_order::acquire) == mine; });
      t.atomic_store(tok, mine + 1, memory_order::release);
      ++done[me];
    }
  }, token.data(), rounds, passes.data()));
  EXPECT_EQ(passes[0], rounds);
  EXPECT_EQ(passes[1], rounds);
}

TEST(SpinWait, ALongWaitIsCheckedOffTheFiberAndSeesItsWriter) {
  // spin_wait_long: the parallel schedule polls the condition on the
  // worker's stack; each thread waits for the one before it (a chain across
  // blocks), in every schedule.
  for (const auto policy : {cpu::schedule::parallel, cpu::schedule::deterministic}) {
    cpu::executor ex({.workers = 2, .policy = policy, .seed = 5});
    const std::uint32_t n = 256;
    std::vector<std::uint32_t> flags(n + 1, 0), order(n, 0), next(1, 0);
    flags[0] = 1;
    ex.launch({dim3(n / 32), dim3(32), 0, "long_chain"},
              [](auto& t, std::uint32_t* f, std::uint32_t* ord, std::uint32_t* nx) {
      const std::uint32_t me = t.global_id();
      t.spin_wait_long([&] { return t.atomic_load(&f[me], memory_order::acquire) != 0u; });
      ord[me] = t.atomic_add(nx, 1u);
      t.atomic_store(&f[me + 1], 1u, memory_order::release);
    }, flags.data(), order.data(), next.data());
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(order[i], i) << "thread " << i;
  }
}

TEST(SpinWait, ALongWaitsConditionThatThrowsFailsItsThread) {
  cpu::executor ex({.workers = 2});
  std::vector<std::uint32_t> flag(1, 0);
  try {
    ex.launch({dim3(1), dim3(2), 0, "long_throw"}, [](auto& t, std::uint32_t* f) {
      if (t.thread_rank() == 1) {
        t.atomic_store(f, 1u, memory_order::release);
        return;
      }
      t.spin_wait_long([&] {
        if (t.atomic_load(f, memory_order::acquire) != 0u) throw std::runtime_error("the device is gone");
        return false;
      });
    }, flag.data());
    FAIL() << "no error";
  } catch (const kernel_error& e) {
    EXPECT_NE(std::string(e.what()).find("the device is gone"), std::string::npos) << e.what();
  }
}

}  // namespace
