// read_tracker: which granules of a pool a process reads before writing
// them, from host code and from a kernel reading through a PM view.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "gpmx/check/read_tracker.hpp"
#include "shape_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::shapes;

// The offsets recorded for the pool file, in the order first read.
std::vector<std::uint64_t> offsets_of(const check::pool_reads& r, const std::filesystem::path& file) {
  for (const check::pool_reads::file& f : r.files)
    if (std::filesystem::path(f.path) == file) return f.offsets;
  return {};
}

bool has(const std::vector<std::uint64_t>& v, std::uint64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

struct read_two_kernel {
  template <class Ctx>
  void operator()(Ctx& t, pm::pm_span<std::uint64_t> words, pm::pm_span<std::uint64_t> out) const {
    auto w = words.bind(t);
    auto o = out.bind(t);
    o[0] = w[5] + w[6];  // reads words 5 and 6, writes word 0 (first written: not a read)
  }
};

TEST(ReadTracker, NotesGranulesReadBeforeWrittenFromHostAndKernel) {
  if (!check::read_tracker::available()) GTEST_SKIP() << "read tracking is not available in this build";
  const scratch_dir dir;
  const std::filesystem::path file = dir.path() / pool_name;
  {
    pm::pool p = pm::pool::create(file, 1 << 20, {.mode = pm::durability::none});
    pm::region r = p.create_region(region_name, 16 * 8);
    for (unsigned i = 0; i < 16; ++i) r.as<std::uint64_t>()[i] = i;
  }
  check::pool_reads reads;
  std::uint64_t words_at = 0, sum = 0;
  {
    check::read_tracker tracker;
    pm::pool p = pm::pool::open(file, pm::durability::none);
    const pm::region r = p.find(region_name);
    words_at = std::uint64_t(r.data() - p.base());
    std::uint64_t* w = r.as<std::uint64_t>().data();
    w[3] = 30;                        // written first: not a read
    sum = w[3] + w[2] + w[9];         // 2 and 9 read; 3 read after this process wrote it
    std::uint64_t copy[4];
    std::memcpy(copy, w + 10, sizeof copy);  // vector loads: words 10 to 13 all read
    sum += copy[0] + copy[3];
    cpu::executor ex({.workers = 1});
    ex.launch({dim3(1), dim3(1), 0, "read two"}, read_two_kernel{}, r.span<std::uint64_t>(), r.span<std::uint64_t>());
    reads = tracker.finish();
    EXPECT_EQ(w[0], 11u);  // the kernel ran: 5 + 6
    sum += w[14];          // after finish: not noted
  }
  EXPECT_EQ(sum, 30u + 2 + 9 + 10 + 13 + 14);
  EXPECT_TRUE(reads.complete) << reads.note;
  const std::vector<std::uint64_t> got = offsets_of(reads, file);
  ASSERT_FALSE(got.empty()) << "no reads of " << file;
  for (unsigned i : {2, 9, 5, 6, 10, 11, 12, 13}) EXPECT_TRUE(has(got, words_at + 8 * i)) << "word " << i;
  for (unsigned i : {3, 0, 14, 1}) EXPECT_FALSE(has(got, words_at + 8 * i)) << "word " << i;
  EXPECT_EQ(std::count(got.begin(), got.end(), words_at + 16), 1);  // each granule once
}

TEST(ReadTracker, StopsAtItsLimitAndSaysSo) {
  if (!check::read_tracker::available()) GTEST_SKIP() << "read tracking is not available in this build";
  const scratch_dir dir;
  const std::filesystem::path file = dir.path() / pool_name;
  { pm::pool::create(file, 1 << 20, {.mode = pm::durability::none}).create_region(region_name, 64 * 8); }
  check::read_tracker tracker(8, 4);
  pm::pool p = pm::pool::open(file, pm::durability::none);
  std::uint64_t sum = 0;
  for (std::uint64_t v : p.find(region_name).as<std::uint64_t>()) sum += v;  // runs on, untracked
  EXPECT_EQ(sum, 0u);
  const check::pool_reads r = tracker.finish();
  EXPECT_FALSE(r.complete);
  EXPECT_NE(r.note.find("stopped after 4 accesses"), std::string::npos) << r.note;
}

TEST(ReadTracker, OneAtATimeAndNotBesideARecorder) {
  if (!check::read_tracker::available()) GTEST_SKIP() << "read tracking is not available in this build";
  {
    check::read_tracker first;
    EXPECT_THROW(check::read_tracker second, std::runtime_error);
  }
  trace::recorder rec;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .observer = &rec});
  EXPECT_THROW(check::read_tracker t, std::runtime_error);
}

TEST(ReadTrackerDeathTest, AFaultOutsideThePoolsStillKills) {
  if (!check::read_tracker::available()) GTEST_SKIP() << "read tracking is not available in this build";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Killed by SIGSEGV; under AddressSanitizer, whose handler the tracker
  // passes the fault on to, its report and then exit status 1, or SIGABRT
  // with abort_on_error=1 (the asan test preset's setting).
#if defined(__SANITIZE_ADDRESS__)
  constexpr bool under_asan = true;
#else
  constexpr bool under_asan = false;
#endif
  const auto died_of_the_fault = [](int status) {
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) return true;
    if (!under_asan) return false;
    return (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
  };
  EXPECT_EXIT(
      {
        // A page of its own, closed: not a pool, so the tracker passes the fault on.
        void* page = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        check::read_tracker tracker;
        *static_cast<volatile int*>(page) = 1;
      },
      died_of_the_fault, "");
}

TEST(PoolReads, RoundTripAndMalformedInput) {
  check::pool_reads r;
  r.complete = false;
  r.note = "tracking stopped after 4 accesses";
  r.files.push_back({"a/b.pool", {0, 8, 0x1000}});
  r.files.push_back({"c.pool", {}});
  const check::pool_reads back = check::decode_pool_reads(check::encode(r));
  EXPECT_FALSE(back.complete);
  EXPECT_EQ(back.note, r.note);
  ASSERT_EQ(back.files.size(), 2u);
  EXPECT_EQ(back.files[0].path, "a/b.pool");
  EXPECT_EQ(back.files[0].offsets, (std::vector<std::uint64_t>{0, 8, 0x1000}));
  EXPECT_TRUE(back.files[1].offsets.empty());
  EXPECT_THROW(check::decode_pool_reads("C1\n10\n"), std::runtime_error);         // an offset before any file
  EXPECT_THROW(check::decode_pool_reads("C1\nFx\nzz\n"), std::runtime_error);     // not hex
}

TEST(PoolReads, TextsOneAfterAnotherMerge) {
  // Two processes of one command appending to one file: recover, then verify.
  check::pool_reads a;
  a.files.push_back({"x.pool", {0, 8}});
  check::pool_reads b;
  b.complete = false;
  b.note = "tracking stopped after 4 accesses";
  b.reader = "the verify command";
  b.files.push_back({"x.pool", {8, 16}});
  b.files.push_back({"y.pool", {0}});
  const check::pool_reads m = check::decode_pool_reads(check::encode(a) + check::encode(b));
  EXPECT_FALSE(m.complete);
  EXPECT_EQ(m.note, b.note);
  EXPECT_EQ(m.reader, "the verify command");
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.files[0].offsets, (std::vector<std::uint64_t>{0, 8, 16}));
  EXPECT_EQ(m.files[1].path, "y.pool");
}

}  // namespace
