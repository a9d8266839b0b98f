// The threshold's calibration (bench/tx_calibrate.hpp): the grids it
// sweeps, the crossover rule on made-up points, and a whole calibration in
// the timed mode on test sizes.
#include "tx_calibrate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "gpmx/exec/errors.hpp"
#include "gpmx/sim/config.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::bench {
namespace {

calibration_point at(std::uint64_t threads, double mbps, double off_ns, double on_ns) {
  return {threads, mbps, off_ns, on_ns};
}

TEST(TxCalibration, GridsGrowBlocksOfOneWarpThenTheCommittersOfTheWholeGrid) {
  const std::vector<calibration_grid> g = calibration_grids(30, 256);
  std::vector<std::uint64_t> threads;
  for (const calibration_grid& c : g) threads.push_back(std::uint64_t(c.blocks) * c.threads);
  EXPECT_EQ(threads, (std::vector<std::uint64_t>{32, 64, 128, 256, 512, 960, 1920, 3840, 7680}));
  EXPECT_EQ(g[4].blocks, 16u);
  EXPECT_EQ(g[4].threads, 32u);
  EXPECT_EQ(g[5].blocks, 30u);
  EXPECT_EQ(g.back().blocks, 30u);
  EXPECT_EQ(g.back().threads, 256u);
  const std::vector<calibration_grid> one = calibration_grids(1, 64);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[1].threads, 64u);
}

TEST(TxCalibration, TheThresholdSitsBetweenTheLastLosingAndFirstWinningPressure) {
  // Helpers lose at 32 and 64 threads, win from 128 on (and lost once at
  // 256: the crossover is where they win at every heavier pressure).
  const std::vector<calibration_point> p = {at(32, 100, 10, 20), at(64, 200, 10, 12), at(128, 400, 10, 8),
                                            at(256, 800, 10, 11), at(512, 900, 10, 5), at(1024, 950, 10, 4)};
  ASSERT_EQ(crossover_of(p), std::optional<std::size_t>(4));
  const std::optional<double> t = threshold_from(p);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(*t, std::sqrt(800.0 * 900.0));
}

TEST(TxCalibration, NoThresholdWhereHelpersLoseAtTheHeaviestPressure) {
  const std::vector<calibration_point> p = {at(32, 100, 10, 5), at(64, 200, 10, 11)};
  EXPECT_FALSE(crossover_of(p).has_value());
  EXPECT_FALSE(threshold_from(p).has_value());
  EXPECT_FALSE(threshold_from({}).has_value());
}

TEST(TxCalibration, HelpersWinningEverywhereSwitchOnAtAnyPersistence) {
  const std::vector<calibration_point> p = {at(32, 100, 10, 5), at(64, 200, 10, 4)};
  EXPECT_EQ(crossover_of(p), std::optional<std::size_t>(0));
  EXPECT_EQ(threshold_from(p), std::optional<double>(1.0));
}

TEST(TxCalibration, AThresholdBecomesTheWorkloadsParameter) {
  EXPECT_EQ(threshold_param_mbps(2607.6), 2608u);
  EXPECT_EQ(threshold_param_mbps(0.2), 1u);  // 0 would switch on at no persistence at all
  EXPECT_EQ(threshold_param_mbps(std::nullopt), std::uint64_t(std::numeric_limits<std::uint32_t>::max()));
}

// In the timed mode on test sizes: a row per thread count with the
// monitor's bandwidth, growing with the threads, and the threshold row.
TEST(TxCalibration, ATimedCalibrationReportsEveryPressureAndTheThreshold) {
  tx_bench_options o;
  o.small = true;
  o.timed = sim::named_config("sbrp-table1");
  o.overrides["per_thread"] = 8;
  std::vector<result> rows;
  const std::optional<double> t = calibrate_threshold(o, 1600, rows);
  ASSERT_EQ(rows.size(), 3u + 1);  // 1 and 2 blocks of 32, 2 of 64, then the threshold
  EXPECT_EQ(rows[0].name, "calibrate_1600MBps_32t");
  EXPECT_EQ(rows[2].name, "calibrate_1600MBps_128t");
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_GT(rows[k].metrics.at("off_persist_mbps"), 0) << rows[k].name;
    EXPECT_GT(rows[k].metrics.at("on_over_off"), 0) << rows[k].name;
  }
  EXPECT_GT(rows[2].metrics.at("off_persist_mbps"), rows[0].metrics.at("off_persist_mbps"));
  EXPECT_EQ(rows[3].name, "calibrate_1600MBps_threshold");
  EXPECT_EQ(rows[3].metrics.at("threshold_mbps"), t ? *t : -1.0);
}

TEST(TxCalibration, ASavedCalibrationGivesEachBandwidthItsThreshold) {
  scratch_dir dir;
  const std::filesystem::path file = dir / "cal.json";
  std::ofstream(file) << R"([{"name": "calibrate_1600MBps_32t", "threshold_mbps": 5.0, "nvram_mbps": 1.0},
    {"name": "calibrate_1600MBps_threshold", "threshold_mbps": 812.5, "nvram_mbps": 1600.0},
    {"name": "calibrate_484GBps_threshold", "threshold_mbps": -1.0, "nvram_mbps": 484000.0}])";
  const auto t = read_calibration(file);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.at(1600), std::optional<double>(812.5));
  EXPECT_FALSE(t.at(484000).has_value());
  std::ofstream(file) << "[]";
  EXPECT_THROW((void)read_calibration(file), config_error);
  EXPECT_THROW((void)read_calibration(dir / "missing.json"), config_error);
}

}  // namespace
}  // namespace gpmx::bench
