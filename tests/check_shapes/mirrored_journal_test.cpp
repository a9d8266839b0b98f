// A bug that needs two lost stores: each thread journals a record twice (a
// primary and a mirror copy, each a value and its complement) before it
// commits. Recovery takes whichever copy is intact, so losing one copy is
// harmless; the bug (no persist between the copies and the commit) shows
// only when both copies are lost and the commit is not, which no drop-one
// image holds.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "shape_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::shapes;

constexpr unsigned threads = 4;
constexpr std::size_t slot_words = 8;  // primary value, check, mirror value, check, commit, home

// The commit store, in a function of its own so the test knows its line.
inline constexpr std::uint32_t commit_line = __LINE__ + 3;
template <class Words>
void commit(const Words& w, std::size_t base) {
  w[base + 4] = 1;
}

struct journal_kernel {
  bool persist_before_commit = true;
  template <class Ctx>
  void operator()(Ctx& t, pm::pm_span<std::uint64_t> words) const {
    auto w = words.bind(t);
    const std::size_t base = t.global_id() * slot_words;
    const std::uint64_t v = 1000 + t.global_id();
    w[base + 0] = v;
    w[base + 1] = ~v;
    w[base + 2] = v;
    w[base + 3] = ~v;
    if (persist_before_commit) t.gpm_persist();
    commit(w, base);
    t.gpm_persist();
    w[base + 5] = v;  // apply
    t.gpm_persist();
  }
};

trace::trace record_journal(const std::filesystem::path& dir, std::uint64_t seed, bool correct) {
  return record(dir, seed, threads * slot_words, [&](cpu::executor& ex, pm::pool&, pm::region& r) {
    ex.launch({dim3(1), dim3(threads), 0, "journal"}, journal_kernel{correct}, r.span<std::uint64_t>());
  });
}

// Redo from an intact copy of every committed record; then each slot is
// either untouched or applied.
check::image_verdict recover_journal(const std::filesystem::path& dir) {
  words w = image_words(dir);
  for (unsigned i = 0; i < threads; ++i) {
    std::uint64_t* s = w.data() + i * slot_words;
    if (s[4] != 1) {
      if (s[5] != 0) return {false, fmt::format("slot {} applied without a commit", i)};
      continue;
    }
    const bool primary = s[0] != 0 && s[1] == ~s[0], mirror = s[2] != 0 && s[3] == ~s[2];
    if (!primary && !mirror) return {false, fmt::format("slot {} committed but neither copy is intact", i)};
    s[5] = primary ? s[0] : s[2];
    if (s[5] != 1000 + i) return {false, fmt::format("slot {} recovered {} instead of {}", i, s[5], 1000 + i)};
  }
  return {true, {}};
}

TEST(MirroredJournal, CorrectVersionReportsNothingUnderEveryModelAndSeed) {
  const auto correct = [](const std::filesystem::path& d, std::uint64_t seed) { return record_journal(d, seed, true); };
  expect_no_failure(correct, recover_journal);
}

TEST(MirroredJournal, DropOneAloneMissesTheBugAndSaysWhatItCovered) {
  const scratch_dir dir;
  const check::check_report r = check_shape(record_journal(dir.path(), 1, false), dir.path(),
                                            check::persist_model::epoch, recover_journal,
                                            check::image_strategy::drop_one);
  EXPECT_EQ(r.failed_images, 0u) << causes_of(r);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.coverage.single_drops, r.coverage.single_drops_total);
  EXPECT_NE(check::describe_coverage(r).find("single drops: complete"), std::string::npos)
      << check::describe_coverage(r);
  EXPECT_EQ(check::describe_coverage(r).find("pairs"), std::string::npos);
}

TEST(MirroredJournal, TheDefaultSearchFindsTheTwoStoreLossOnEverySeed) {
  for (std::uint64_t seed : {1, 2, 3})
    for (check::persist_model m : {check::persist_model::epoch, check::persist_model::sbrp}) {
      const scratch_dir dir;
      const check::check_report r = check_shape(record_journal(dir.path(), seed, false), dir.path(), m, recover_journal);
      ASSERT_FALSE(r.failures.empty()) << "seed " << seed << " under " << check::to_string(m) << ": "
                                       << check::describe_coverage(r);
      EXPECT_NE(r.failures.front().verdict.find("neither copy is intact"), std::string::npos)
          << r.failures.front().verdict;
      EXPECT_GE(r.failures.front().lost_count, 2u);
      // The pair named is the commit kept and a copy lost, not two words of the copies.
      EXPECT_NE(r.failures.front().cause.find(fmt::format("the store at mirrored_journal_test.cpp:{}", commit_line)),
                std::string::npos)
          << r.failures.front().cause;
      RecordProperty("cause", r.failures.front().cause);  // the report as a user sees it, in the XML output
      EXPECT_GT(r.coverage.pairs, 0u);
      EXPECT_LE(r.coverage.pairs, r.coverage.pairs_total);
      const std::string said = check::describe_coverage(r);
      EXPECT_NE(said.find("pairs: "), std::string::npos) << said;
      EXPECT_NE(said.find("random multi-loss images: "), std::string::npos) << said;
    }
}

}  // namespace
