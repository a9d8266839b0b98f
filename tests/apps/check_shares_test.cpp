// A check split into shares, as the ranks of gpmx check --mpi split it,
// merges into the report of one process checking every image: for a
// seeded bug with several causes and for correct code, and when a share is
// lost and its images are checked again in a second round (image_owners).
#include <gtest/gtest.h>

#include <ostream>

#include "checker/workload_check.hpp"
#include "common/registry.hpp"
#include "gpmx/check/findings.hpp"
#include "gpmx/scale/image_owners.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {

using namespace gpmx;

std::vector<std::string> described(const check::check_report& r) {
  std::vector<std::string> out;
  for (const check::check_failure& f : r.failures) {
    std::string one = f.cause + "|" + f.crash_at + "|" + f.verdict + "|" + f.trusted + "|" +
                      std::to_string(f.lost_count) + "|" + std::to_string(f.kept_count) + "|" +
                      std::to_string(f.images) + "|" + std::to_string(f.position) + "|" + f.kept_at;
    for (const std::string& s : f.lost) one += "|lost " + s;
    for (const std::string& s : f.kept) one += "|kept " + s;
    for (const std::string& s : f.why) one += "|why " + s;
    out.push_back(std::move(one));
  }
  return out;
}

struct subject {
  std::string workload, bug;
  apps::style s;
  check::persist_model m;
};

void PrintTo(const subject& c, std::ostream* os) {
  *os << c.workload << (c.bug.empty() ? " (correct)" : " --bug " + c.bug) << " under " << check::to_string(c.m);
}

class CheckShares : public testing::TestWithParam<subject> {
 protected:
  check::check_options options(const scratch_dir& sc, const std::string& name) const {
    check::check_options o;
    o.model = GetParam().m;
    o.max_images = 300;
    o.jobs = 2;
    o.root = sc / "traced";
    o.work_dir = sc / (name + "-images");
    o.keep_failures = sc / "kept";
    return o;
  }
};

TEST_P(CheckShares, MergeIntoTheSingleProcessReport) {
  const subject& c = GetParam();
  apps::workload& w = apps::find_workload(c.workload);
  const scratch_dir sc({}, "check-shares-" + c.workload);
  const check::check_options whole_options = options(sc, "whole");
  const trace::trace t = apps::trace_workload(w, apps::resolve_params(w, w.small_params()), c.s, c.bug, 1,
                                              whole_options.root);
  const check::image_target target = apps::workload_target(w);
  const check::check_report whole = check::check_trace(t, target, whole_options);

  // Three "ranks": rank 1 is lost after round 0, its images checked again
  // by ranks 0 and 2; its own round-0 findings are dropped, as rank 0 drops them.
  const check::check_options o0 = options(sc, "rank0"), o1 = options(sc, "rank1"), o2 = options(sc, "rank2");
  check::check_session rank0(t, target, o0), rank1(t, target, o1), rank2(t, target, o2);
  scale::image_owners owners(3);
  const auto share = [&](unsigned r) {
    return [&owners, r](std::uint64_t image) { return owners.checks_now(r, image); };
  };
  std::vector<check::findings> used = {rank0.check_share(share(0)), rank2.check_share(share(2))};
  const check::findings dropped = rank1.check_share(share(1));
  owners.lose({1});
  used.push_back(rank0.check_share(share(0)));
  used.push_back(rank2.check_share(share(2)));
  std::size_t checked = 0;
  for (const check::findings& f : used) checked += f.images_checked;
  EXPECT_EQ(checked, whole.images) << "every image checked exactly once by the ranks still there";
  EXPECT_GT(dropped.images_checked, 0u);

  const check::check_report merged = rank0.report(used);
  EXPECT_EQ(merged.images, whole.images);
  EXPECT_EQ(merged.failed_images, whole.failed_images);
  EXPECT_EQ(merged.complete, whole.complete);
  EXPECT_EQ(merged.coverage.single_drops, whole.coverage.single_drops);
  EXPECT_EQ(described(merged), described(whole));
  if (c.bug.empty()) {
    EXPECT_TRUE(whole.failures.empty());
  } else {
    EXPECT_GT(whole.failures.size(), 1u) << "the comparison needs several causes";
  }
}

INSTANTIATE_TEST_SUITE_P(
    SeededBugAndCorrectCode, CheckShares,
    testing::Values(subject{"gpdb", "log-tail-first", apps::style::epoch, check::persist_model::epoch},
                    subject{"gpkvs", "", apps::style::sbrp, check::persist_model::sbrp}),
    [](const testing::TestParamInfo<subject>& p) {
      return p.param.bug.empty() ? p.param.workload + "_correct" : p.param.workload + "_seeded_bug";
    });

}  // namespace
