// The checkpoint benchmark on a tiny size: both rows, their runs and the
// derived figures, and no files left behind. (No timing is asserted.)
#include <gtest/gtest.h>

#include <filesystem>

#include "gpmx/bench/pm_checkpoint_bench.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;

TEST(CheckpointBench, ReportsBothRowsWithTheirMetrics) {
  scratch_dir dir;
  std::vector<std::string> said;
  const auto rows = bench::run_checkpoint_benchmarks({.directory = dir.path(),
                                                      .bytes = 40000,
                                                      .elements = 3,
                                                      .repeat = 3,
                                                      .mode = pm::durability::none,
                                                      .workers = 2,
                                                      .progress = [&](const std::string& s) { said.push_back(s); }});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "pm_plain_copy_persist");
  EXPECT_EQ(rows[1].name, "pm_checkpoint_save");
  EXPECT_EQ(said.size(), 2u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.runs_ns.size(), 3u) << r.name;
    EXPECT_GT(r.median_ns, 0.0) << r.name;
    EXPECT_EQ(r.metrics.at("bytes"), 40000.0) << r.name;
    EXPECT_DOUBLE_EQ(r.metrics.at("bytes_per_s"), 40000.0 / (r.median_ns * 1e-9)) << r.name;
    EXPECT_NE(r.note.find("none"), std::string::npos) << r.note;
  }
  EXPECT_EQ(rows[1].metrics.at("workers"), 2.0);
  EXPECT_DOUBLE_EQ(rows[1].metrics.at("ratio_vs_plain"), rows[1].metrics.at("bytes_per_s") / rows[0].metrics.at("bytes_per_s"));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the benchmark left its pool files";
}

TEST(CheckpointBench, RejectsBadOptions) {
  bench::checkpoint_bench_options no_runs;
  no_runs.repeat = 0;
  EXPECT_THROW(bench::run_checkpoint_benchmarks(no_runs), std::invalid_argument);
  bench::checkpoint_bench_options too_small;
  too_small.bytes = 2;
  too_small.elements = 3;
  EXPECT_THROW(bench::run_checkpoint_benchmarks(too_small), std::invalid_argument);
}

}  // namespace
