// Group commit: in the parallel schedule, threads waiting for durability of
// a domain whose flush is slow share one flush, and no thread goes past a
// durability point (or publishes a release) before its lines are durable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/persist_domain.hpp"

namespace {
using namespace gpmx;
using namespace std::chrono_literals;

// A domain whose every flush takes `delay` (as an msync does) and then
// marks its lines durable; it can be told to fail.
struct slow_domain final : persist_domain {
  std::chrono::microseconds delay{2000};
  std::atomic<bool> fail{false};
  bool shares_flushes() const override { return true; }
  void persist_range(const void* p, std::size_t bytes) const override {
    if (fail) throw std::runtime_error("the device is gone: persist failed");
    std::this_thread::sleep_for(delay);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard lock(m);
    ++calls;
    for (std::uintptr_t l = a / persist_line_bytes; l <= (a + bytes - 1) / persist_line_bytes; ++l)
      durable_lines.insert(l);
  }
  bool durable(const void* p) const {
    std::lock_guard lock(m);
    return durable_lines.count(reinterpret_cast<std::uintptr_t>(p) / persist_line_bytes) != 0;
  }
  mutable std::mutex m;
  mutable std::set<std::uintptr_t> durable_lines;
  mutable std::uint64_t calls = 0;
};

struct alignas(64) slot {
  std::uint64_t value;
};

enum class durability_point { gpm_persist, dfence, ofence, persist_range };

// Every thread stores its own slot, reaches the durability point, and
// counts a violation if its slot is not durable when it goes on.
struct store_and_persist {
  const slow_domain* d;
  durability_point how;
  void operator()(auto& t, slot* slots, std::atomic<std::uint32_t>* violations) const {
    slot& s = slots[t.global_id()];
    s.value = t.global_id() + 1;
    // A range persist covers a store nobody recorded (a drainer's case).
    if (how != durability_point::persist_range) t.record_pm_write(d, &s, sizeof s);
    switch (how) {
      case durability_point::gpm_persist: t.gpm_persist(); break;
      case durability_point::dfence: t.dfence(); break;
      case durability_point::ofence: t.ofence(); break;
      case durability_point::persist_range: t.persist_range(&s, sizeof s); break;
    }
    if (!d->durable(&s)) violations->fetch_add(1);
  }
};

constexpr std::uint32_t blocks = 64, threads = 64;

TEST(GroupCommit, NoThreadGoesPastADurabilityPointBeforeItsLinesAreDurable) {
  std::vector<slot> slots(blocks * threads);
  for (auto how : {durability_point::gpm_persist, durability_point::dfence, durability_point::ofence,
                   durability_point::persist_range}) {
    slow_domain d;
    scoped_persist_domain registered(&d, slots.data(), slots.size() * sizeof(slot));
    std::atomic<std::uint32_t> violations{0};
    cpu::executor ex({.workers = 2});
    ex.launch({dim3(blocks), dim3(threads), 0, "persist"}, store_and_persist{&d, how}, slots.data(), &violations);
    EXPECT_EQ(violations.load(), 0u) << "durability point " << int(how);
    const cpu::durability_stats s = ex.durability();
    EXPECT_EQ(s.waits, std::uint64_t(blocks) * threads) << "durability point " << int(how);
    EXPECT_GE(s.flushes, 1u);
    EXPECT_EQ(s.lines, std::uint64_t(blocks) * threads);
  }
}

TEST(GroupCommit, WaitingThreadsShareFlushes) {
  std::vector<slot> slots(blocks * threads);
  slow_domain d;
  std::atomic<std::uint32_t> violations{0};
  cpu::executor ex({.workers = 1});
  ex.launch({dim3(blocks), dim3(threads), 0, "persist"}, store_and_persist{&d, durability_point::gpm_persist},
            slots.data(), &violations);
  const cpu::durability_stats s = ex.durability();
  // One worker runs the other threads while a flush is in flight, so they
  // queue behind it and share the next: far fewer flushes than waits, and
  // adjacent slots merged into fewer calls than lines.
  EXPECT_LT(s.flushes, s.waits);
  EXPECT_LT(s.calls, s.lines);
  EXPECT_EQ(d.calls, s.calls);
  EXPECT_EQ(violations.load(), 0u);
}

// Threads that reach several durability points in turn (gpKVS's undo
// entry, tail and pair) park once per point; a worker's rounds skip looking
// at parked threads while no flush completes, so each must still be resumed
// by the flush that covers it, and only by it.
struct persist_three_times {
  const slow_domain* d;
  void operator()(auto& t, slot* slots, std::atomic<std::uint32_t>* violations) const {
    slot* mine = slots + std::size_t(t.global_id()) * 3;
    for (int k = 0; k < 3; ++k) {
      mine[k].value = std::uint64_t(k) + 1;
      t.record_pm_write(d, &mine[k], sizeof mine[k]);
      t.gpm_persist();
      if (!d->durable(&mine[k])) violations->fetch_add(1);
    }
  }
};

TEST(GroupCommit, ThreadsWithSeveralDurabilityPointsWaitForEachFlushTheyNeed) {
  std::vector<slot> slots(std::size_t(blocks) * threads * 3);
  slow_domain d;
  d.delay = std::chrono::microseconds(300);
  std::atomic<std::uint32_t> violations{0};
  cpu::executor ex({.workers = 2});
  ex.launch({dim3(blocks), dim3(threads), 0, "persist3"}, persist_three_times{&d}, slots.data(), &violations);
  EXPECT_EQ(violations.load(), 0u);
  const cpu::durability_stats s = ex.durability();
  EXPECT_EQ(s.waits, std::uint64_t(blocks) * threads * 3);
  // Each thread's three points are three flushes at least, one after another.
  EXPECT_GE(s.flushes, 3u);
  for (const slot& x : slots) ASSERT_TRUE(d.durable(&x));
}

// A domain that makes a whole group durable in one call (as a file's
// fdatasync does) gets every range of a flush at once, sorted and disjoint.
struct group_domain final : persist_domain {
  bool shares_flushes() const override { return true; }
  void persist_range(const void*, std::size_t) const override { ++single_calls; }
  std::size_t persist_group(const merged_range* r, std::size_t n) const override {
    std::this_thread::sleep_for(std::chrono::microseconds(2000));
    for (std::size_t i = 1; i < n; ++i)
      if (static_cast<const std::byte*>(r[i - 1].p) + r[i - 1].bytes > static_cast<const std::byte*>(r[i].p))
        ++unordered;
    for (std::size_t i = 0; i < n; ++i) asked += r[i].asked;
    ++group_calls;
    return 1;
  }
  mutable std::atomic<std::uint64_t> single_calls{0}, group_calls{0}, unordered{0}, asked{0};
  bool durable(const void*) const { return true; }
};

TEST(GroupCommit, ADomainGetsEveryRangeOfAFlushInOneCall) {
  std::vector<slot> slots(blocks * threads * 2);
  group_domain d;
  cpu::executor ex({.workers = 1});
  // Every other slot: the ranges have gaps, so a flush holds many.
  ex.launch({dim3(blocks), dim3(threads), 0, "persist"}, [](auto& t, slot* s, const group_domain* dom) {
    slot& mine = s[t.global_id() * 2];
    mine.value = 1;
    t.record_pm_write(dom, &mine, sizeof mine);
    t.gpm_persist();
  }, slots.data(), &d);
  const cpu::durability_stats s = ex.durability();
  EXPECT_EQ(d.group_calls.load(), s.flushes);
  EXPECT_EQ(s.calls, s.flushes);
  EXPECT_EQ(d.single_calls.load(), 0u);
  EXPECT_EQ(d.unordered.load(), 0u);
  EXPECT_EQ(d.asked.load(), std::uint64_t(blocks) * threads * persist_line_bytes);
}

// Threads 0-31 store and release their flag; threads 32-63 acquire it and
// check that the releaser's store is durable by then.
struct release_after_durable {
  const slow_domain* d;
  void operator()(auto& t, slot* slots, std::uint32_t* flags, std::atomic<std::uint32_t>* violations) const {
    const std::uint32_t i = t.thread_rank() % 32;
    slot& s = slots[t.block_rank() * 32 + i];
    std::uint32_t& flag = flags[t.block_rank() * 32 + i];
    if (t.thread_rank() < 32) {
      s.value = 7;
      t.record_pm_write(d, &s, sizeof s);
      t.prel(scope::device, &flag, 1u);
    } else {
      t.spin_wait([&] { return t.pacq(scope::device, &flag) == 1u; });
      if (!d->durable(&s)) violations->fetch_add(1);
    }
  }
};

TEST(GroupCommit, AReleaseIsVisibleOnlyAfterTheReleasersStoresAreDurable) {
  std::vector<slot> slots(blocks * 32);
  std::vector<std::uint32_t> flags(blocks * 32, 0);
  slow_domain d;
  std::atomic<std::uint32_t> violations{0};
  cpu::executor ex({.workers = 2});
  ex.launch({dim3(blocks), dim3(64), 0, "release"}, release_after_durable{&d}, slots.data(), flags.data(),
            &violations);
  EXPECT_EQ(violations.load(), 0u);
  EXPECT_EQ(ex.durability().waits, std::uint64_t(blocks) * 32);
}

// Stores left unpersisted when a thread ends are durable when the launch returns.
struct store_only {
  const slow_domain* d;
  void operator()(auto& t, slot* slots) const {
    slot& s = slots[t.global_id()];
    s.value = 1;
    t.record_pm_write(d, &s, sizeof s);
  }
};

// The models need them durable only at the kernel's end, so the threads
// hand them over and end without waiting (no wait counted), and the launch
// returns after the flush.
TEST(GroupCommit, StoresAThreadLeavesAtItsEndAreDurableWhenTheLaunchReturns) {
  std::vector<slot> slots(blocks * threads);
  slow_domain d;
  cpu::executor ex({.workers = 2});
  ex.launch({dim3(blocks), dim3(threads), 0, "store"}, store_only{&d}, slots.data());
  for (const slot& s : slots) ASSERT_TRUE(d.durable(&s));
  const cpu::durability_stats s = ex.durability();
  EXPECT_EQ(s.waits, 0u);
  EXPECT_EQ(s.lines, std::uint64_t(blocks) * threads);
  EXPECT_GE(s.flushes, 1u);
}

// Nobody waits for those lines, so their failed flush fails the launch itself.
TEST(GroupCommit, AFailedFlushOfLinesLeftAtThreadsEndsFailsTheLaunch) {
  std::vector<slot> slots(blocks * threads);
  slow_domain d;
  d.fail = true;
  cpu::executor ex({.workers = 2});
  try {
    ex.launch({dim3(blocks), dim3(threads), 0, "store"}, store_only{&d}, slots.data());
    ADD_FAILURE() << "the failed flush went unreported";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("the device is gone"), std::string::npos) << e.what();
  }
  d.fail = false;  // a later launch is not failed by the earlier flush
  ex.launch({dim3(blocks), dim3(threads), 0, "store"}, store_only{&d}, slots.data());
  for (const slot& s : slots) ASSERT_TRUE(d.durable(&s));
}

TEST(GroupCommit, OffOrDeterministicEveryThreadFlushesItself) {
  std::vector<slot> slots(8 * 32);
  for (const cpu::executor_options& o : {cpu::executor_options{.workers = 2, .group_commit = 2},
                                         cpu::executor_options{.policy = cpu::schedule::deterministic, .seed = 3}}) {
    slow_domain d;
    d.delay = 0us;
    std::atomic<std::uint32_t> violations{0};
    cpu::executor ex(o);
    ex.launch({dim3(8), dim3(32), 0, "persist"}, store_and_persist{&d, durability_point::dfence}, slots.data(),
              &violations);
    EXPECT_EQ(violations.load(), 0u);
    EXPECT_EQ(d.calls, 8u * 32u);  // one flush each
    EXPECT_EQ(ex.durability().waits, 0u);
  }
}

TEST(GroupCommit, AFailedFlushFailsTheLaunchAndTheNextLaunchFlushesAgain) {
  std::vector<slot> slots(blocks * threads);
  slow_domain d;
  d.fail = true;
  std::atomic<std::uint32_t> violations{0};
  cpu::executor ex({.workers = 2});
  try {
    ex.launch({dim3(blocks), dim3(threads), 0, "persist"}, store_and_persist{&d, durability_point::gpm_persist},
              slots.data(), &violations);
    ADD_FAILURE() << "the failed flush went unreported";
  } catch (const kernel_error& e) {
    EXPECT_NE(std::string(e.what()).find("the device is gone"), std::string::npos) << e.what();
  }
  d.fail = false;
  ex.launch({dim3(blocks), dim3(threads), 0, "persist"}, store_and_persist{&d, durability_point::gpm_persist},
            slots.data(), &violations);
  EXPECT_EQ(violations.load(), 0u);
}

TEST(GroupCommit, BadSettingIsRefused) {
  EXPECT_THROW(cpu::resolve({.group_commit = 3}), config_error);
}

}  // namespace
