#include <gtest/gtest.h>

#include <set>

#include "gpmx/bench/exec_bench.hpp"

namespace {
using namespace gpmx::bench;

TEST(BenchReport, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({}), 0);
}

TEST(BenchReport, ExecBenchmarksProduceTheNamedFields) {
  exec_bench_options o;
  o.repeat = 1;
  o.fill_threads = 4096;
  o.reduce_elements = 4096;
  o.shuffle_threads = 1024;
  int steps = 0;
  o.progress = [&](const std::string&) { ++steps; };
  const auto results = run_exec_benchmarks(o);
  const auto json = to_json(results);
  ASSERT_TRUE(json.is_array());
  std::set<std::string> names;
  for (const auto& j : json) {
    names.insert(j.at("name").get<std::string>());
    EXPECT_GT(j.at("median_ns").get<double>(), 0.0);
  }
  for (const char* n : {"loop_fill", "kernel_fill_1w", "kernel_fill_2w", "block_reduce_1w", "warp_shuffle_1w"})
    EXPECT_TRUE(names.count(n)) << n;
  for (const auto& j : json) {
    const auto name = j.at("name").get<std::string>();
    if (name.rfind("kernel_fill", 0) == 0) {
      EXPECT_TRUE(j.contains("ratio_vs_loop")) << name;
    }
    if (name.rfind("block_reduce", 0) == 0) {
      EXPECT_TRUE(j.contains("ns_per_thread_barrier")) << name;
    }
  }
  EXPECT_GT(steps, 0);
  EXPECT_NE(to_table(results).find("kernel_fill_1w"), std::string::npos);
}

TEST(BenchReport, ZeroRepeatIsAnError) {
  exec_bench_options o;
  o.repeat = 0;
  EXPECT_THROW(run_exec_benchmarks(o), std::invalid_argument);
}

}  // namespace
