// Crash and restart for logs: a child process runs kernels in which every
// thread appends one entry per round (HCL) or blocks append to partitions
// (conventional); the parent kills it at random points and requires every
// entry whole, every tail consistent with the entries, and each thread's (or
// partition's) count equal to the last reported round or one more.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/conv_log.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "kill_child.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::pm;

constexpr std::uint32_t blocks = 4, threads = 64;

struct entry {
  std::uint32_t round, thread, check, pad;
};
GPMX_HD inline entry make_entry(std::uint32_t round, std::uint32_t thread) {
  return {round, thread, round * 2654435761u ^ thread, 0};
}

int crash_points() {
  const char* env = std::getenv("GPMX_CRASH_POINTS");
  return env ? std::atoi(env) : 200;
}

// Runs rounds from `start` in a child until killed; returns the last round it reported.
template <class Round>
std::uint32_t run_and_kill(std::mt19937_64& rng, std::uint32_t start, Round&& round) {
  const auto run = test::run_and_kill(rng, start, rng() % 3, 400, [&](auto report) {
    for (std::uint32_t r = start;; ++r) {
      round(r);
      report(r + 1);
    }
  });
  EXPECT_TRUE(run.killed) << "the child ended on its own";
  return std::uint32_t(run.last_reported);
}

TEST(LogCrash, HclEntriesAreWholeAndTailsConsistent) {
  scratch_dir dir;
  const auto path = dir / "h.log";
  // Room for 64 entries of 16 bytes per thread; the test clears when near full.
  { hcl_log::create(path, std::uint64_t(blocks) * threads * 16 * 64, blocks, threads, durability::msync); }
  std::mt19937_64 rng(7);
  std::uint32_t base = 0;  // rounds cleared so far (entries hold round - base)
  std::uint32_t confirmed = 0;
  for (int k = 0; k < crash_points(); ++k) {
    const std::uint32_t last = run_and_kill(rng, confirmed, [&](std::uint32_t r) {
      hcl_log log = hcl_log::open(path, durability::msync);
      cpu::executor ex({.workers = 1});
      ex.launch({dim3(blocks), dim3(threads)}, [](auto& t, hcl_view l, std::uint32_t round) {
        const entry e = make_entry(round, std::uint32_t(t.global_id()));
        l.insert(t, &e, sizeof e);
      }, log.view(), r);
    });
    hcl_log log = hcl_log::open(path, durability::msync);
    std::uint32_t max_count = 0;
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (std::uint32_t th = 0; th < threads; ++th) {
        const std::uint64_t bytes = log.size_of(b, th);
        ASSERT_EQ(bytes % sizeof(entry), 0u) << "a tail that is not a whole number of entries";
        const auto count = std::uint32_t(bytes / sizeof(entry));
        ASSERT_TRUE(count == last - base || count == last - base + 1)
            << "kill point " << k << ": thread " << th << " of block " << b << " holds " << count
            << " entries, last reported round " << last;
        max_count = std::max(max_count, count);
        const hcl_view v = log.view();
        for (std::uint32_t j = 0; j < count; ++j) {
          entry e{};
          for (std::uint32_t w = 0; w < 4; ++w)
            reinterpret_cast<std::uint32_t*>(&e)[w] = *v.word(b, th, j * 4 + w);
          const entry want = make_entry(base + j, b * threads + th);
          ASSERT_TRUE(e.round == want.round && e.thread == want.thread && e.check == want.check)
              << "entry " << j << " of thread " << th << " block " << b << " is torn or wrong";
        }
      }
    // Threads that finished round `last` are done with it everywhere only if
    // all of them did; otherwise the next child redoes round `last` for all,
    // which the HCL slot of a finished thread would log twice. Clear instead.
    log.clear();
    base = confirmed = max_count == last - base ? last : last + 1;
    // Every slot is empty again: the next rounds start a fresh count.
  }
}

TEST(LogCrash, ConventionalPartitionsHoldWholeEntries) {
  scratch_dir dir;
  const auto path = dir / "c.log";
  const std::uint32_t parts = 4;
  { conv_log::create(path, std::uint64_t(parts) * 4096 * 8, parts, durability::msync); }
  std::mt19937_64 rng(11);
  for (int k = 0; k < crash_points(); ++k) {
    run_and_kill(rng, 0, [&](std::uint32_t r) {
      conv_log log = conv_log::open(path, durability::msync);
      if (r == 0) log.clear();
      cpu::executor ex({.workers = 1});
      ex.launch({dim3(blocks), dim3(8)}, [](auto& t, conv_view l, std::uint32_t round) {
        const entry e = make_entry(round, std::uint32_t(t.global_id()));
        l.insert(t, &e, sizeof e);
      }, log.view(), r);
    });
    conv_log log = conv_log::open(path, durability::msync);
    const conv_view v = log.view();
    for (std::uint32_t p = 0; p < parts; ++p) {
      const std::uint64_t tail = log.size_of(p);
      ASSERT_EQ(tail % conv_view::record_bytes(sizeof(entry)), 0u) << "partition " << p;
      for (std::uint64_t at = 0; at < tail; at += conv_view::record_bytes(sizeof(entry))) {
        entry e{};
        std::memcpy(&e, v.data + p * v.partition_bytes + at, sizeof e);
        std::uint64_t size = 0;
        std::memcpy(&size, v.data + p * v.partition_bytes + at + conv_view::record_bytes(sizeof(entry)) - 8, 8);
        ASSERT_EQ(size, sizeof(entry)) << "partition " << p << " offset " << at;
        ASSERT_EQ(e.check, make_entry(e.round, e.thread).check) << "torn entry in partition " << p;
        ASSERT_EQ(e.thread / 8 % parts, p) << "entry in the wrong partition";
      }
    }
  }
}

}  // namespace
