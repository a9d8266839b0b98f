// A missing persist in another thread: every lane of a block stores its
// word, the lanes meet at a barrier (or a syncwarp), and lane 0 commits.
// Under epoch the meeting orders nothing durable: each lane must persist its
// word before the hand-off. The report names the storing lane, the
// committing lane and the hand-off. Under sbrp both kinds of meeting order
// the lanes' stores before lane 0's commit, so the same code is correct.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "shape_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::shapes;

constexpr unsigned lanes = 8;
constexpr std::size_t commit_word = lanes;

struct gather_kernel {
  bool persist_before_barrier = true;
  bool warp_handoff = false;  // syncwarp instead of syncthreads
  template <class Ctx>
  void operator()(Ctx& t, pm::pm_span<std::uint64_t> words) const {
    auto w = words.bind(t);
    w[t.thread_rank()] = 100 + t.thread_rank();
    if (persist_before_barrier) t.gpm_persist();
    if (warp_handoff) t.syncwarp(0xffu);
    else t.syncthreads();
    if (t.thread_rank() == 0) {
      w[commit_word] = 1;
      t.gpm_persist();
    }
  }
};

trace::trace record_gather(const std::filesystem::path& dir, std::uint64_t seed, bool correct, bool warp = false) {
  return record(dir, seed, lanes + 1, [&](cpu::executor& ex, pm::pool&, pm::region& r) {
    ex.launch({dim3(1), dim3(lanes), 0, "gather"}, gather_kernel{correct, warp}, r.span<std::uint64_t>());
  });
}

check::image_verdict verify_gather(const std::filesystem::path& dir) {
  const words w = image_words(dir);
  if (w[commit_word] != 1) return {true, {}};
  for (unsigned i = 0; i < lanes; ++i)
    if (w[i] != 100 + i) return {false, fmt::format("committed, but word {} holds {}", i, w[i])};
  return {true, {}};
}

TEST(CrossThreadPersist, CorrectVersionReportsNothingUnderEveryModelAndSeed) {
  const auto correct = [](const std::filesystem::path& d, std::uint64_t seed) { return record_gather(d, seed, true); };
  expect_no_failure(correct, verify_gather);
}

TEST(CrossThreadPersist, TheReportNamesBothThreadsAndTheHandOff) {
  for (std::uint64_t seed : {1, 2}) {
    const scratch_dir dir;
    const check::check_report r =
        check_shape(record_gather(dir.path(), seed, false), dir.path(), check::persist_model::epoch, verify_gather);
    ASSERT_FALSE(r.failures.empty()) << "seed " << seed;
    bool named = false;
    for (const check::check_failure& f : r.failures) {
      EXPECT_EQ(f.cause.find("protocol itself"), std::string::npos) << f.cause;
      EXPECT_FALSE(f.trusted.empty());
      if (f.cause.find("before the hand-off is missing") == std::string::npos) continue;
      named = true;
      RecordProperty("cause", f.cause);  // the report as a user sees it, in the XML output
      EXPECT_NE(f.cause.find("barrier"), std::string::npos) << f.cause;
      EXPECT_NE(f.cause.find("by block 0 warp 0 lane 0"), std::string::npos) << f.cause;  // the committing lane
      EXPECT_NE(f.cause.find("a gpm_persist or dfence in block 0 warp 0 lane"), std::string::npos) << f.cause;
      EXPECT_NE(f.trusted.find("cross_thread_test.cpp"), std::string::npos) << f.trusted;
    }
    EXPECT_TRUE(named) << causes_of(r);
  }
}

// Under sbrp the syncwarp orders every other lane's word before lane 0's
// commit, so the only failures left are lane 0's own word (a lane's stores
// across its own barrier stay unordered); under epoch every lane's is one.
TEST(CrossThreadPersist, AWarpHandOffIsNamedUnderEpochAndOrdersOtherLanesUnderSbrp) {
  for (check::persist_model m : every_model()) {
    const scratch_dir dir;
    const check::check_report correct = check_shape(record_gather(dir.path(), 1, true, true), dir.path(), m, verify_gather);
    EXPECT_EQ(correct.failed_images, 0u) << check::to_string(m) << ": " << causes_of(correct);
  }
  for (check::persist_model m : {check::persist_model::epoch, check::persist_model::sbrp}) {
    const scratch_dir dir;
    const check::check_report r = check_shape(record_gather(dir.path(), 1, false, true), dir.path(), m, verify_gather);
    ASSERT_FALSE(r.failures.empty()) << check::to_string(m);
    bool handoff = false;
    for (const check::check_failure& f : r.failures) {
      const bool named = f.cause.find("(warp_collective): a gpm_persist or dfence in block 0 warp 0 lane") !=
                         std::string::npos;
      handoff = handoff || named;
      if (named) {  // the syncwarp is named by its line
        EXPECT_NE(f.cause.find("the hand-off at cross_thread_test.cpp:"), std::string::npos) << f.cause;
      }
      if (m == check::persist_model::sbrp) {
        EXPECT_NE(f.cause.find("before it in the same thread did not"), std::string::npos) << f.cause;
      }
    }
    EXPECT_EQ(handoff, m == check::persist_model::epoch) << causes_of(r);
  }
}

}  // namespace
