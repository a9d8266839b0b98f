// Waiting for an emulated device (device_wait.hpp): a kernel thread whose
// persist the domain hands a finishing time parks until then while its
// worker runs other threads; host threads and deterministic schedules get
// no such hand-over and the domain blocks. forget_pm_stores drops the lines
// another thread made durable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/device_wait.hpp"
#include "gpmx/exec/persist_domain.hpp"

namespace {
using namespace gpmx;
using namespace std::chrono_literals;

// A device that finishes every persist `delay` after it is asked; it hands
// the wait to a kernel thread where it can, else it blocks.
struct slow_domain final : persist_domain {
  explicit slow_domain(std::chrono::microseconds d) : delay(d) {}
  void persist_range(const void*, std::size_t) const override {
    const auto done = device_clock::now() + delay;
    if (defer_device_wait(done)) {
      deferred.fetch_add(1);
      return;
    }
    blocked.fetch_add(1);
    std::this_thread::sleep_until(done);
  }
  std::chrono::microseconds delay;
  mutable std::atomic<int> deferred{0}, blocked{0};
};

struct log_word {
  std::uint64_t value;
  std::int64_t persisted_ns;  // when the persist returned, on the device clock
  std::uint32_t other_ran;    // what thread 0 saw of thread 1 once its persist returned
};

// Thread 0 persists (and so waits for the device); thread 1 only sets a
// flag. With one worker, thread 1 runs during thread 0's wait only if that
// wait parks thread 0.
struct persist_then_look {
  void operator()(auto& t, log_word* w, std::uint32_t* flag, const persist_domain* d) const {
    if (t.thread_rank() == 0) {
      w->value = 42;
      t.record_pm_write(d, &w->value, sizeof w->value);
      const auto asked = device_clock::now();
      t.gpm_persist();
      w->persisted_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(device_clock::now() - asked).count();
      w->other_ran = t.atomic_load(flag, memory_order::acquire, scope::block);
    } else if (t.thread_rank() == 1) {
      t.atomic_store(flag, 1u, memory_order::release, scope::block);
    }
  }
};

TEST(DeviceWait, AKernelThreadParksAndItsWorkerRunsOthers) {
  log_word w{};
  std::uint32_t flag = 0;
  slow_domain d(20ms);
  scoped_persist_domain registered(&d, &w, sizeof w);
  cpu::executor ex({.workers = 1});
  ex.launch({dim3(1), dim3(32), 0, "park"}, persist_then_look{}, &w, &flag, static_cast<const persist_domain*>(&d));
  EXPECT_EQ(d.deferred.load(), 1);
  EXPECT_EQ(d.blocked.load(), 0);
  EXPECT_EQ(w.other_ran, 1u) << "the worker ran no other thread while thread 0 waited for the device";
  // The persist returned no earlier than the device finished.
  EXPECT_GE(w.persisted_ns, std::chrono::nanoseconds(20ms).count());
}

TEST(DeviceWait, TheDeterministicScheduleBlocksInstead) {
  log_word w{};
  std::uint32_t flag = 0;
  slow_domain d(5ms);
  scoped_persist_domain registered(&d, &w, sizeof w);
  cpu::executor ex({.workers = 1, .policy = cpu::schedule::deterministic, .seed = 3});
  ex.launch({dim3(1), dim3(32), 0, "park"}, persist_then_look{}, &w, &flag, static_cast<const persist_domain*>(&d));
  EXPECT_EQ(d.deferred.load(), 0);
  EXPECT_EQ(d.blocked.load(), 1);
  EXPECT_GE(w.persisted_ns, std::chrono::nanoseconds(5ms).count());
}

// Every thread of many blocks parks at once: the worker admits blocks only
// while their stacks fit the process's mappings (vm.max_map_count), where
// it used to run out of them (mmap failed, then malloc) and end the process.
struct every_thread_persists {
  void operator()(auto& t, std::uint64_t* words, const persist_domain* d) const {
    std::uint64_t& w = words[t.global_id() % 64];
    t.record_pm_write(d, &w, sizeof w);
    t.gpm_persist();
  }
};

TEST(DeviceWait, ManyParkedThreadsStayWithinTheProcessMappings) {
  std::vector<std::uint64_t> words(64, 0);
  slow_domain d(200ms);  // long enough for every worker to fill all its resident slots
  scoped_persist_domain registered(&d, words.data(), words.size() * sizeof(std::uint64_t));
  cpu::executor ex({.workers = 2});
  ex.launch({dim3(256), dim3(256), 0, "many"}, every_thread_persists{}, words.data(),
            static_cast<const persist_domain*>(&d));
  EXPECT_EQ(d.deferred.load(), 256 * 256);
}

TEST(DeviceWait, AHostThreadIsRefusedAndOnlyAScopeRecordsTheLatestDeadline) {
  const auto now = device_clock::now();
  EXPECT_FALSE(defer_device_wait(now));
  {
    device_wait_scope scope;
    EXPECT_FALSE(scope.deadline().has_value());
    EXPECT_TRUE(defer_device_wait(now + 2ms));
    EXPECT_TRUE(defer_device_wait(now + 1ms));
    ASSERT_TRUE(scope.deadline().has_value());
    EXPECT_EQ(*scope.deadline(), now + 2ms);
  }
  EXPECT_FALSE(defer_device_wait(now));
}

// Each lane stores its word of a shared range; lane 0 persists the range;
// every lane forgets it and reports what it still has pending.
struct store_drain_forget {
  void operator()(auto& t, std::uint64_t* words, std::uint64_t* outside, std::uint32_t* pending,
                  const persist_domain* d) const {
    const std::uint32_t lane = t.lane_id();
    words[lane] = lane + 1;
    t.record_pm_write(d, &words[lane], sizeof(std::uint64_t));
    if (lane == 5) {  // a store elsewhere, which the range does not cover
      *outside = 7;
      t.record_pm_write(d, outside, sizeof *outside);
    }
    t.syncwarp();
    if (lane == 0) t.persist_range(words, 32 * sizeof(std::uint64_t));
    t.syncwarp();
    t.forget_pm_stores(words, 32 * sizeof(std::uint64_t));
    pending[lane] = std::uint32_t(t.pending_pm_lines().size());
  }
};

TEST(DeviceWait, ForgottenStoresAreNotFlushedAgain) {
  struct alignas(64) block {
    std::uint64_t words[32];
    std::uint64_t pad[8];
    std::uint64_t outside;
  } b{};
  std::uint32_t pending[32] = {};
  struct counting final : persist_domain {
    void persist_range(const void*, std::size_t bytes) const override { flushed.fetch_add(bytes); }
    mutable std::atomic<std::size_t> flushed{0};
  } d;
  scoped_persist_domain registered(&d, &b, sizeof b);
  cpu::executor ex({.workers = 1});
  ex.launch({dim3(1), dim3(32), 0, "forget"}, store_drain_forget{}, b.words, &b.outside, pending,
            static_cast<const persist_domain*>(&d));
  for (std::uint32_t lane = 0; lane < 32; ++lane) EXPECT_EQ(pending[lane], lane == 5 ? 1u : 0u) << "lane " << lane;
  // The range once, then lane 5's one line at its end: nothing flushed twice.
  EXPECT_EQ(d.flushed.load(), 32 * sizeof(std::uint64_t) + persist_line_bytes);
}

}  // namespace
