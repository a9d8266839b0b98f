// run_in_child's ways to crash a child: at its Nth crash point, at a time,
// and some microseconds after its Nth point while it goes on (how the
// restoration bench lands kills inside GPU kernels). Shared memory tells
// what the child did before it died; this process starts no thread.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "common/crash_run.hpp"
#include "gpmx/pm/crash_trigger.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

// A counter the child raises and the parent reads after the child died.
class shared_counter {
 public:
  shared_counter() {
    void* p = ::mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cannot map a shared page");
    c_ = new (p) std::atomic<int>(0);
  }
  ~shared_counter() { ::munmap(c_, sizeof *c_); }
  std::atomic<int>& operator*() { return *c_; }

 private:
  std::atomic<int>* c_;
};

TEST(CrashRun, StopsAtTheCrashPointAndDoesNothingAfterIt) {
  shared_counter after;
  const child_outcome out = run_in_child(3, [&] {
    for (int i = 0; i < 5; ++i) crash_trigger::point();
    *after = 1;
  });
  EXPECT_TRUE(out.killed);
  EXPECT_FALSE(out.failed) << out.error;
  EXPECT_EQ(out.points, 3u);
  EXPECT_EQ(*after, 0);
}

TEST(CrashRun, DelayedKillLetsTheChildGoOnThenKillsIt) {
  shared_counter after;
  const auto start = std::chrono::steady_clock::now();
  const child_outcome out = run_in_child(
      2,
      [&] {
        for (int i = 0; i < 3; ++i) crash_trigger::point();
        *after = 1;  // past the crash point: a delayed kill lets it get here
        std::this_thread::sleep_for(std::chrono::seconds(30));
      },
      0, 20000);
  EXPECT_TRUE(out.killed);
  EXPECT_FALSE(out.failed) << out.error;
  EXPECT_EQ(out.points, 2u);
  EXPECT_EQ(*after, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));  // not the child's 30 s
}

TEST(CrashRun, DelayedKillOfAChildThatEndsFirstIsNeitherKilledNorFailed) {
  const auto start = std::chrono::steady_clock::now();
  const child_outcome out = run_in_child(1, [] { crash_trigger::point(); }, 0, 30'000'000);
  EXPECT_FALSE(out.killed);
  EXPECT_FALSE(out.failed) << out.error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));  // not the 30 s delay
}

TEST(CrashRun, DelayedKillReportsAChildThatFailsAfterItsPoint) {
  const child_outcome out = run_in_child(
      1, [] {
        crash_trigger::point();
        throw std::runtime_error("broken after the point");
      },
      0, 30'000'000);
  EXPECT_FALSE(out.killed);
  EXPECT_TRUE(out.failed);
}

TEST(CrashRun, TimedKillStopsAChildWhereverItIs) {
  const child_outcome out = run_in_child(0, [] { std::this_thread::sleep_for(std::chrono::seconds(30)); }, 50);
  EXPECT_TRUE(out.killed);
  EXPECT_TRUE(out.timed_out);
  EXPECT_FALSE(out.failed);
}

}  // namespace
