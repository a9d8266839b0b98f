// Persisting the bytes a thread stored rather than its whole lines: which
// bytes of a line a store marks, how group commit turns marked lines into
// ranges for a domain that persists stored bytes (a journal), and that such
// a domain gets exactly the threads' bytes while every store a thread made
// is still covered before it goes past its durability point.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "exec/group_commit.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/persist_domain.hpp"

namespace {
using namespace gpmx;
using cpu::detail::line_run;
using cpu::detail::merge_stored_bytes;
constexpr std::uint64_t whole = ~std::uint64_t(0);

TEST(StoredBytes, AStoreMarksTheBytesItCoversInEachLine) {
  // Line 2 is bytes [128, 192).
  EXPECT_EQ(stored_bytes_of(128, 8, 2), 0xffull);
  EXPECT_EQ(stored_bytes_of(136, 8, 2), 0xff00ull);
  EXPECT_EQ(stored_bytes_of(128 + 63, 1, 2), std::uint64_t(1) << 63);
  EXPECT_EQ(stored_bytes_of(128, 64, 2), whole);
  // A store across a line boundary marks the end of one and the start of the next.
  EXPECT_EQ(stored_bytes_of(184, 16, 2), 0xffull << 56);
  EXPECT_EQ(stored_bytes_of(184, 16, 3), 0xffull);
  // A store over several lines marks the middle ones whole.
  EXPECT_EQ(stored_bytes_of(100, 200, 2), whole);
}

using ranges = std::vector<persist_domain::merged_range>;
struct span {
  std::uintptr_t at, bytes, asked;
  bool operator==(const span&) const = default;
};
std::vector<span> spans_of(const ranges& r) {
  std::vector<span> out;
  for (const auto& x : r) out.push_back({reinterpret_cast<std::uintptr_t>(x.p), x.bytes, x.asked});
  return out;
}

TEST(StoredBytes, MergedRangesHoldTheStoredBytesAndJoinOnlySmallGaps) {
  ranges out;
  // Word 0 and word 4 of line 10: a 24-byte gap, more than 16: two ranges.
  std::vector<line_run> runs = {{nullptr, 10, 10, 0xffull | (0xffull << 32)}};
  merge_stored_bytes(runs.data(), runs.size(), 16, out);
  EXPECT_EQ(spans_of(out), (std::vector<span>{{640, 8, 8}, {672, 8, 8}}));
  // Words 0 and 2: an 8-byte gap is copied rather than given a range.
  runs = {{nullptr, 10, 10, 0xffull | (0xffull << 16)}};
  merge_stored_bytes(runs.data(), runs.size(), 16, out);
  EXPECT_EQ(spans_of(out), (std::vector<span>{{640, 24, 16}}));
  // The last word of a line and the first of the next are one range.
  runs = {{nullptr, 10, 10, 0xffull << 56}, {nullptr, 11, 11, 0xffull}};
  merge_stored_bytes(runs.data(), runs.size(), 16, out);
  EXPECT_EQ(spans_of(out), (std::vector<span>{{696, 16, 16}}));
  // Whole lines stay whole; two threads' words of one line, in either
  // order, and a run of whole lines over them make one range.
  runs = {{nullptr, 20, 20, 0xff00ull}, {nullptr, 20, 21, whole}, {nullptr, 20, 20, 0xffull}};
  merge_stored_bytes(runs.data(), runs.size(), 16, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(out[0].p), 1280u);
  EXPECT_EQ(out[0].bytes, 128u);
  // Far apart lines: a range each.
  runs = {{nullptr, 1, 1, 0xffull}, {nullptr, 100, 100, 0xffull << 8}};
  merge_stored_bytes(runs.data(), runs.size(), 16, out);
  EXPECT_EQ(spans_of(out), (std::vector<span>{{64, 8, 8}, {6408, 8, 8}}));
}

TEST(StoredBytes, RunsInHandOverOrderJoinOnlyWhereTheyTouch) {
  // A flush takes runs in the order threads handed them over, unsorted.
  ranges out;
  // A later line first, then an earlier one far away: a range each, in that
  // order, not one range over everything between them.
  std::vector<line_run> runs = {{nullptr, 100, 100, 0xffull}, {nullptr, 1, 1, 0xffull}};
  merge_stored_bytes(runs.data(), runs.size(), 16, out);
  EXPECT_EQ(spans_of(out), (std::vector<span>{{6400, 8, 8}, {64, 8, 8}}));
  // Word 2 of a line, then word 0: an 8-byte gap before the open range is
  // joined as one after it would be.
  runs = {{nullptr, 10, 10, 0xffull << 16}, {nullptr, 10, 10, 0xffull}};
  merge_stored_bytes(runs.data(), runs.size(), 16, out);
  EXPECT_EQ(spans_of(out), (std::vector<span>{{640, 24, 16}}));
  // Two threads' runs interleaved over two lines: a stretch joins only the
  // range open when it comes, so word 1 of line 10, coming after a word of
  // line 11 (104 bytes away), starts a range of its own.
  runs = {{nullptr, 10, 10, 0xffull}, {nullptr, 11, 11, 0xffull << 56}, {nullptr, 10, 10, 0xffull << 8}};
  merge_stored_bytes(runs.data(), runs.size(), 16, out);
  EXPECT_EQ(spans_of(out), (std::vector<span>{{640, 8, 8}, {760, 8, 8}, {648, 8, 8}}));
}

// A domain that persists stored bytes and shares flushes (a journal): it
// records the bytes each flush was given.
struct byte_domain final : persist_domain {
  bool shares_flushes() const override { return true; }
  bool persists_stored_bytes() const override { return true; }
  void persist_range(const void* p, std::size_t bytes) const override { note(p, bytes); }
  std::size_t persist_group(const merged_range* r, std::size_t n) const override {
    for (std::size_t i = 0; i < n; ++i) note(r[i].p, r[i].bytes);
    return 1;
  }
  void note(const void* p, std::size_t bytes) const {
    std::lock_guard lock(m);
    const auto* b = static_cast<const std::byte*>(p);
    for (std::size_t i = 0; i < bytes; ++i) durable.push_back(b + i);
    given += bytes;
  }
  bool covers(const void* p, std::size_t bytes) const {
    std::lock_guard lock(m);
    const auto* b = static_cast<const std::byte*>(p);
    for (std::size_t i = 0; i < bytes; ++i)
      if (std::find(durable.begin(), durable.end(), b + i) == durable.end()) return false;
    return true;
  }
  mutable std::mutex m;
  mutable std::vector<const std::byte*> durable;
  mutable std::size_t given = 0;
};

struct alignas(64) line {
  std::uint64_t word[8];
};

TEST(StoredBytes, AGroupFlushGivesSuchADomainTheStoredWordsOnlyAndCoversThemBeforeTheThreadGoesOn) {
  constexpr std::uint32_t blocks = 8, threads = 32;
  std::vector<line> lines(blocks * threads);
  byte_domain d;
  scoped_persist_domain registered(&d, lines.data(), lines.size() * sizeof(line));
  std::atomic<std::uint32_t> uncovered{0};
  cpu::executor ex({.workers = 2});
  // Each thread stores words 0 and 4 of its own line: 24-byte gaps between
  // them and to the next line's word 0, so a range each.
  ex.launch({dim3(blocks), dim3(threads), 0, "store_words"},
            [](auto& t, line* l, const byte_domain* dom, std::atomic<std::uint32_t>* bad) {
              line& mine = l[t.global_id()];
              for (int w : {0, 4}) {
                mine.word[w] = t.global_id() + 1;
                t.record_pm_write(dom, &mine.word[w], sizeof(std::uint64_t));
              }
              t.gpm_persist();
              if (!dom->covers(&mine.word[0], 8) || !dom->covers(&mine.word[4], 8)) bad->fetch_add(1);
            },
            lines.data(), &d, &uncovered);
  EXPECT_EQ(uncovered.load(), 0u);
  EXPECT_EQ(ex.durability().waits, std::uint64_t(blocks) * threads);
  // Two words of each line, not the line's 64 bytes.
  EXPECT_EQ(d.given, std::size_t(blocks) * threads * 16);
  EXPECT_FALSE(d.covers(&lines[0].word[2], 8));
}

}  // namespace
