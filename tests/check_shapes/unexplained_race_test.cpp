// A protocol no ordering rule can fix: two threads each store and persist
// one half of a pair with no hand-off between them, and recovery wants both
// halves equal. Any image that keeps one half and loses the other fails;
// no missing fence explains it, so the report says what recovery read:
// the half it read whose store was lost.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gpmx/check/read_tracker.hpp"
#include "shape_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::shapes;

struct pair_kernel {
  template <class Ctx>
  void operator()(Ctx& t, pm::pm_span<std::uint64_t> words) const {
    words.bind(t)[t.global_id()] = 5;  // the half of this thread
    t.gpm_persist();
  }
};

trace::trace record_pair(const std::filesystem::path& dir, std::uint64_t seed) {
  return record(dir, seed, 2, [&](cpu::executor& ex, pm::pool&, pm::region& r) {
    ex.launch({dim3(1), dim3(2), 0, "pair"}, pair_kernel{}, r.span<std::uint64_t>());
  });
}

check::image_verdict verify_pair(const words& w) {
  if (w[0] == w[1]) return {true, {}};
  return {false, fmt::format("the halves differ: {} and {}", w[0], w[1])};
}

TEST(UnexplainedRace, TheReportNamesTheLostStoreRecoveryRead) {
  if (!check::read_tracker::available()) GTEST_SKIP() << "read tracking is not available in this build";
  const check::image_target target = [](const std::filesystem::path& d) { return verify_pair(image_words(d)); };
  const check::image_target traced = [](const std::filesystem::path& d) {
    check::read_tracker tracker;
    check::image_verdict v = verify_pair(image_words(d));
    v.reads = tracker.finish();
    return v;
  };
  for (check::persist_model m : {check::persist_model::epoch, check::persist_model::sbrp}) {
    const scratch_dir dir;
    const trace::trace t = record_pair(dir.path(), 1);
    const scratch_dir images;
    check::check_options o;
    o.model = m;
    o.jobs = 2;
    o.root = dir.path();
    o.work_dir = images.path() / "images";
    o.traced_target = traced;
    const check::check_report r = check::check_trace(t, target, o);
    ASSERT_FALSE(r.failures.empty()) << "under " << check::to_string(m);
    for (const check::check_failure& f : r.failures) {
      RecordProperty("cause", f.cause);
      EXPECT_NE(f.cause.find("no missing rule found"), std::string::npos) << f.cause;
      EXPECT_NE(f.reads.find("recovery read"), std::string::npos) << f.reads;
      EXPECT_NE(f.reads.find("in 1 of them the latest store was lost"), std::string::npos) << f.reads;
      ASSERT_EQ(f.read_lost.size(), 1u) << f.reads;
      EXPECT_NE(f.read_lost[0].find("unexplained_race_test.cpp:20"), std::string::npos) << f.read_lost[0];
      EXPECT_NE(f.read_lost[0].find("the bytes from before the program's stores in its place"), std::string::npos)
          << f.read_lost[0];
      EXPECT_NE(f.cause.find(f.reads), std::string::npos) << "the cause carries the reads: " << f.cause;
    }
  }
}

TEST(UnexplainedRace, WithoutATracedTargetTheReadsAreNotClaimed) {
  const scratch_dir dir;
  const trace::trace t = record_pair(dir.path(), 1);
  const check::check_report r = check_shape(t, dir.path(), check::persist_model::epoch,
                                            [](const std::filesystem::path& d) { return verify_pair(image_words(d)); });
  ASSERT_FALSE(r.failures.empty());
  for (const check::check_failure& f : r.failures) {
    EXPECT_TRUE(f.reads.empty()) << f.reads;
    EXPECT_TRUE(f.read_lost.empty());
  }
}

}  // namespace
