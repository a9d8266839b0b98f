// HCL and conventional logs: inserts from many threads, LIFO read/remove,
// the striped layout, reopen, and every misuse as its own error.
#include <gtest/gtest.h>

#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/conv_log.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::pm;

struct entry12 {
  std::uint32_t a, b, c;
};
struct entry40 {
  std::uint64_t v[5];
};

pm_error cause_of(const kernel_error& e) {
  try {
    std::rethrow_exception(e.cause());
  } catch (const pm_error& p) {
    return p;
  } catch (...) {
  }
  return pm_error(errc::io, "cause was not a pm_error");
}

template <class F>
errc kernel_error_code(F&& launch) {
  try {
    launch();
  } catch (const kernel_error& e) {
    return cause_of(e).code();
  }
  return errc::io;  // no error: the caller's expectation fails
}

TEST(HclLog, InsertReadRemoveFromEveryThread) {
  scratch_dir dir;
  const std::uint32_t blocks = 6, threads = 96;
  hcl_log log = hcl_log::create(dir / "h.log", 1 << 20, blocks, threads, durability::msync);
  cpu::executor ex({.workers = 2});
  ex.launch({dim3(blocks), dim3(threads), 0, "hcl_insert"}, [](auto& t, hcl_view l) {
    const auto g = std::uint32_t(t.global_id());
    const entry12 a{g, g + 1, g + 2};
    entry40 b{};
    for (int i = 0; i < 5; ++i) b.v[i] = std::uint64_t(g) * 10 + std::uint64_t(i);
    l.insert(t, &a, sizeof a);
    l.insert(t, &b, sizeof b);
  }, log.view());
  for (std::uint32_t b = 0; b < blocks; ++b)
    for (std::uint32_t th = 0; th < threads; ++th) ASSERT_EQ(log.size_of(b, th), 12u + 40u);

  std::vector<int> ok(blocks * threads, 0);
  ex.launch({dim3(blocks), dim3(threads), 0, "hcl_undo"}, [](auto& t, hcl_view l, int* good) {
    const auto g = std::uint32_t(t.global_id());
    entry40 b{};
    l.read(t, &b, sizeof b);
    l.remove(t, sizeof b);
    entry12 a{};
    l.read(t, &a, sizeof a);
    l.remove(t, sizeof a);
    good[g] = b.v[4] == std::uint64_t(g) * 10 + 4 && a.a == g && a.c == g + 2 && l.is_empty(t);
  }, log.view(), ok.data());
  for (std::size_t i = 0; i < ok.size(); ++i) ASSERT_EQ(ok[i], 1) << "thread " << i;
}

// Recovery visits only the slots a crash left occupied, from threads whose
// ranks have nothing to do with the logging threads'.
TEST(HclLog, OccupiedSlotsAreReadAndTruncatedByAnyThread) {
  scratch_dir dir;
  const std::uint32_t blocks = 3, threads = 40;  // 40: a padded second warp
  hcl_log log = hcl_log::create(dir / "h.log", 1 << 18, blocks, threads, durability::msync);
  cpu::executor ex({.workers = 2});
  EXPECT_TRUE(log.occupied_slots().empty());
  // Threads 7 and 33 of block 1 and thread 39 of block 2 log 1, 2 and 3 entries.
  ex.launch({dim3(blocks), dim3(threads), 0, "hcl_some"}, [](auto& t, hcl_view l) {
    const std::uint32_t b = t.block_rank(), r = t.thread_rank();
    const std::uint32_t n = b == 1 && r == 7 ? 1 : b == 1 && r == 33 ? 2 : b == 2 && r == 39 ? 3 : 0;
    for (std::uint32_t k = 0; k < n; ++k) {
      const entry12 e{b, r, k};
      l.insert(t, &e, sizeof e);
    }
  }, log.view());
  const hcl_view v = log.view();
  const std::vector<std::uint64_t> slots = log.occupied_slots();
  ASSERT_EQ(slots, (std::vector<std::uint64_t>{v.slot(1, 7), v.slot(1, 33), v.slot(2, 39)}));
  // One thread of a one-thread launch per slot reads every entry newest
  // first and cuts the slot to its oldest entry.
  std::vector<std::uint32_t> seen;
  for (const std::uint64_t s : slots)
    ex.launch({dim3(1), dim3(1), 0, "hcl_slot_undo"}, [&seen](auto& t, hcl_view l, std::uint64_t slot) {
      for (std::uint32_t end = l.tail_of_slot(slot); end >= 3; end -= 3) {
        entry12 e{};
        l.read_slot(slot, end, &e, sizeof e);
        seen.insert(seen.end(), {e.a, e.b, e.c});
      }
      l.truncate_slot(t, slot, 3);
    }, v, s);
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{1, 7, 0, 1, 33, 1, 1, 33, 0, 2, 39, 2, 2, 39, 1, 2, 39, 0}));
  EXPECT_EQ(log.size_of(1, 7), 12u);
  EXPECT_EQ(log.size_of(1, 33), 12u);
  EXPECT_EQ(log.size_of(2, 39), 12u);
  // A padding lane, a slot past the geometry, a read or a truncation past
  // the tail: each is its own error, nothing written.
  auto run = [&](auto kernel) { return kernel_error_code([&] { ex.launch({dim3(1), dim3(1)}, kernel, v); }); };
  EXPECT_EQ(run([](auto&, hcl_view l) { (void)l.tail_of_slot(l.slot(0, 40)); }), errc::log_geometry);
  EXPECT_EQ(run([](auto&, hcl_view l) { (void)l.tail_of_slot(l.slot(3, 0)); }), errc::log_geometry);
  EXPECT_EQ(run([](auto&, hcl_view l) {
              entry12 e{};
              l.read_slot(l.slot(1, 7), 6, &e, sizeof e);
            }),
            errc::log_empty);
  EXPECT_EQ(run([](auto& t, hcl_view l) { l.truncate_slot(t, l.slot(1, 7), 6); }), errc::log_empty);
  EXPECT_EQ(log.size_of(1, 7), 12u);
}

TEST(HclLog, AWarpsWordsShareOne128ByteLine) {
  scratch_dir dir;
  hcl_log log = hcl_log::create(dir / "h.log", 1 << 18, 2, 64, durability::none);
  const hcl_view v = log.view();
  for (std::uint32_t b = 0; b < 2; ++b)
    for (std::uint32_t w = 0; w < 2; ++w)
      for (std::uint32_t j = 0; j < 3; ++j) {
        const auto first = reinterpret_cast<std::uintptr_t>(v.word(b, w * 32, j));
        EXPECT_EQ(first % 128, 0u);
        for (std::uint32_t lane = 0; lane < 32; ++lane)
          EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.word(b, w * 32 + lane, j)), first + lane * 4);
      }
}

TEST(HclLog, EntriesSurviveReopen) {
  scratch_dir dir;
  {
    hcl_log log = hcl_log::create(dir / "h.log", 1 << 16, 1, 32, durability::msync);
    cpu::executor ex({.workers = 1});
    ex.launch({dim3(1), dim3(32)}, [](auto& t, hcl_view l) {
      const std::uint64_t x = t.thread_rank() * 7;
      l.insert(t, &x, sizeof x);
    }, log.view());
  }
  hcl_log log = hcl_log::open(dir / "h.log");
  std::vector<std::uint64_t> got(32, 0);
  cpu::executor ex({.workers = 1});
  ex.launch({dim3(1), dim3(32)}, [](auto& t, hcl_view l, std::uint64_t* out) { l.read(t, &out[t.thread_rank()], 8); },
            log.view(), got.data());
  for (std::uint64_t i = 0; i < 32; ++i) EXPECT_EQ(got[i], i * 7);
  log.clear();
  EXPECT_EQ(log.size_of(0, 5), 0u);
  EXPECT_THROW(conv_log::open(dir / "h.log"), pm_error);  // an HCL log is not a conventional one
}

TEST(HclLog, MisuseIsADistinctError) {
  scratch_dir dir;
  hcl_log log = hcl_log::create(dir / "h.log", 32 * 4 * 4, 1, 32, durability::none);  // 4 words per thread
  cpu::executor ex({.workers = 1});
  const hcl_view v = log.view();
  EXPECT_EQ(kernel_error_code([&] {
              ex.launch({dim3(1), dim3(1)}, [](auto& t, hcl_view l) {
                const entry40 e{};
                l.insert(t, &e, sizeof e);
              }, v);
            }),
            errc::log_entry_too_large);
  EXPECT_EQ(kernel_error_code([&] {
              ex.launch({dim3(1), dim3(1)}, [](auto& t, hcl_view l) {
                const entry12 e{};
                l.insert(t, &e, sizeof e);
                l.insert(t, &e, sizeof e);
              }, v);
            }),
            errc::log_full);
  log.clear();
  EXPECT_EQ(kernel_error_code([&] {
              ex.launch({dim3(1), dim3(1)}, [](auto& t, hcl_view l) {
                std::uint32_t x;
                l.read(t, &x, 4);
              }, v);
            }),
            errc::log_empty);
  EXPECT_EQ(kernel_error_code([&] {
              ex.launch({dim3(2), dim3(1)}, [](auto& t, hcl_view l) {
                const std::uint32_t x = 1;
                l.insert(t, &x, 4);
              }, v);
            }),
            errc::log_geometry);
  EXPECT_THROW(hcl_log::create(dir / "tiny.log", 16, 1, 32), pm_error);
}

TEST(ConvLog, ConcurrentInsertsLandWholeInTheirPartitions) {
  scratch_dir dir;
  const std::uint32_t parts = 4, blocks = 16, threads = 64;
  conv_log log = conv_log::create(dir / "c.log", 1 << 20, parts, durability::msync);
  cpu::executor ex({.workers = 2});
  ex.launch({dim3(blocks), dim3(threads), 0, "conv_insert"}, [](auto& t, conv_view l) {
    const entry12 e{std::uint32_t(t.global_id()), 0xabcd, 0x1234};
    l.insert(t, &e, sizeof e);
  }, log.view());
  for (std::uint32_t p = 0; p < parts; ++p)
    EXPECT_EQ(log.size_of(p), conv_view::record_bytes(12) * threads * (blocks / parts)) << p;
  // Each block pops as many entries as it pushed; every entry is whole.
  std::vector<int> bad(1, 0);
  ex.launch({dim3(blocks), dim3(threads), 0, "conv_pop"}, [](auto& t, conv_view l, int* wrong) {
    entry12 e{};
    l.read(t, &e, sizeof e);  // read and remove race with other blocks: lock per call
    l.remove(t, sizeof e);
    if (e.b != 0xabcd || e.c != 0x1234 || e.a >= 16 * 64) t.atomic_add(wrong, 1);
  }, log.view(), bad.data());
  EXPECT_EQ(bad[0], 0);
  for (std::uint32_t p = 0; p < parts; ++p) EXPECT_EQ(log.size_of(p), 0u);
}

TEST(ConvLog, MisuseIsADistinctError) {
  scratch_dir dir;
  conv_log log = conv_log::create(dir / "c.log", 64, 2, durability::none);  // 32 bytes per partition
  cpu::executor ex({.workers = 1});
  const conv_view v = log.view();
  auto run = [&](auto kernel) { return kernel_error_code([&] { ex.launch({dim3(1), dim3(1)}, kernel, v); }); };
  EXPECT_EQ(run([](auto& t, conv_view l) {
              const entry40 e{};
              l.insert(t, &e, sizeof e, 0);
            }),
            errc::log_entry_too_large);
  EXPECT_EQ(run([](auto& t, conv_view l) {
              const entry12 e{};
              l.insert(t, &e, sizeof e, 1);
              l.insert(t, &e, sizeof e, 1);
            }),
            errc::log_full);
  EXPECT_EQ(run([](auto& t, conv_view l) {
              std::uint64_t x;
              l.read(t, &x, 8, 0);
            }),
            errc::log_empty);
  EXPECT_EQ(run([](auto& t, conv_view l) {
              std::uint64_t x;
              l.read(t, &x, 8, 1);  // the entry there is 12 bytes
            }),
            errc::bad_argument);
  EXPECT_EQ(run([](auto& t, conv_view l) {
              std::uint64_t x = 0;
              l.insert(t, &x, 8, 7);
            }),
            errc::bad_argument);
  // The failed operations released their locks: a later insert succeeds.
  log.clear();
  ex.launch({dim3(1), dim3(1)}, [](auto& t, conv_view l) {
    const std::uint64_t x = 5;
    l.insert(t, &x, 8, 1);
  }, v);
  EXPECT_EQ(log.size_of(1), 16u);
}

}  // namespace
