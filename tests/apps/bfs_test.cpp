// BFS: the generated and file inputs, levels against a sequential BFS in both
// styles, resuming over a partly run level, a store count that does not
// depend on the interleaving, verification catching a corrupted level, and
// parameter checks.
#include "bfs/bfs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "common/registry.hpp"
#include "common/run_meta.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "workload_harness.hpp"
#include "print_style.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

std::uint64_t degree(const bfs::graph& g, std::uint32_t v) { return g.offsets[v + 1] - g.offsets[v]; }

bool symmetric_and_simple(const bfs::graph& g) {
  for (std::uint32_t v = 0; v < g.nodes(); ++v)
    for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const std::uint32_t u = g.targets[e];
      if (u == v || (e > g.offsets[v] && g.targets[e - 1] >= u)) return false;  // self loop, duplicate, unsorted
      if (!std::binary_search(g.targets.begin() + std::ptrdiff_t(g.offsets[u]),
                              g.targets.begin() + std::ptrdiff_t(g.offsets[u + 1]), v))
        return false;
    }
  return true;
}

std::uint32_t depth(const std::vector<std::uint32_t>& levels) {
  std::uint32_t d = 0;
  for (std::uint32_t l : levels)
    if (l != bfs::unvisited) d = std::max(d, l);
  return d;
}

TEST(BfsGraph, RoadGraphIsALowDegreeGridWithLargeDiameter) {
  const bfs::graph g = bfs::make_road_graph(2500, 3, 1);
  ASSERT_EQ(g.nodes(), 2500u);
  EXPECT_TRUE(symmetric_and_simple(g));
  std::uint64_t high = 0;
  for (std::uint32_t v = 0; v < g.nodes(); ++v) high += degree(g, v) > 4;
  EXPECT_LE(high, 6u);  // only shortcut ends exceed the grid's 4
  EXPECT_GE(depth(bfs::reference_levels(g, 0)), 30u);  // a 50 x 50 grid is 98 deep without shortcuts
  EXPECT_EQ(bfs::make_road_graph(2500, 3, 1).targets, g.targets);
  EXPECT_NE(bfs::make_road_graph(2500, 3, 2).targets, g.targets);
}

TEST(BfsGraph, ScaleFreeGraphHasHubsAndTheMeanDegreeAsked) {
  const bfs::graph g = bfs::make_scale_free_graph(4096, 8, 1);
  ASSERT_EQ(g.nodes(), 4096u);
  EXPECT_TRUE(symmetric_and_simple(g));
  const double mean = double(g.targets.size()) / g.nodes();
  EXPECT_GT(mean, 4.0);  // duplicates and self loops removed from 8
  EXPECT_LE(mean, 8.0);
  std::uint64_t top = 0;
  for (std::uint32_t v = 0; v < g.nodes(); ++v) top = std::max(top, degree(g, v));
  EXPECT_GT(double(top), 20 * mean);
  EXPECT_LE(depth(bfs::reference_levels(g, 0)), 8u);
  EXPECT_EQ(bfs::make_scale_free_graph(4096, 8, 1).targets, g.targets);
}

TEST(BfsGraph, EdgeListFileIsReadWithCommentsAndRejectedWhenMalformed) {
  scratch_dir dir;
  {
    std::ofstream f(dir / "g.txt");
    f << "# a road\n0 1\n1\t2   # a comment\n\n2 0 17\n  5 2\n";
  }
  const bfs::graph g = bfs::read_edge_list(dir / "g.txt");
  ASSERT_EQ(g.nodes(), 6u);
  EXPECT_TRUE(symmetric_and_simple(g));
  EXPECT_EQ(g.targets.size(), 8u);  // 0-1, 1-2, 2-0, 5-2, both ways
  EXPECT_EQ(degree(g, 3), 0u);
  {
    std::ofstream f(dir / "bad.txt");
    f << "0 1\n1 x\n";
  }
  try {
    (void)bfs::read_edge_list(dir / "bad.txt");
    ADD_FAILURE() << "a malformed line was accepted";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)bfs::read_edge_list(dir / "absent.txt"), config_error);
}

class BfsStyles : public testing::TestWithParam<style> {};

TEST_P(BfsStyles, LevelsEqualTheSequentialBfsOnBothGraphs) {
  for (const bfs::graph& g : {bfs::make_road_graph(900, 2, 3), bfs::make_scale_free_graph(1000, 6, 3)}) {
    scratch_dir dir;
    cpu::executor ex({.workers = 2});
    auto s = bfs::search::create(dir.path(), g, 5, pm::durability::none);
    const std::uint32_t levels = s.advance(ex, s.load_graph(), GetParam());
    const auto want = bfs::reference_levels(g, 5);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), s.levels().begin()));
    EXPECT_EQ(levels, depth(want) + 1);
    EXPECT_TRUE(s.finished());
  }
}

// Many blocks per level (a frontier of thousands): the sbrp release/acquire
// chain over every block, under a seeded single-worker schedule.
TEST_P(BfsStyles, DeterministicScheduleWithManyBlocksPerLevel) {
  scratch_dir dir;
  cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 4});
  const bfs::graph g = bfs::make_scale_free_graph(16384, 8, 2);
  auto s = bfs::search::create(dir.path(), g, 0, pm::durability::none);
  s.advance(ex, s.load_graph(), GetParam());
  const auto want = bfs::reference_levels(g, 0);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), s.levels().begin()));
}

// What a crash in the kernel after level 3's commit leaves: some level-4
// nodes already stored. Resuming from the committed level 3 unclaims them
// and runs that kernel again.
TEST_P(BfsStyles, ResumingRedoesAPartlyRunLevel) {
  scratch_dir dir;
  const bfs::graph g = bfs::make_road_graph(400, 1, 4);
  const auto want = bfs::reference_levels(g, 0);
  {
    auto s = bfs::search::create(dir.path(), g, 0, pm::durability::none);
    cpu::executor ex({.workers = 2});
    struct stop {};
    EXPECT_THROW(s.advance(ex, g, GetParam(), [](std::uint32_t l) { if (l == 3) throw stop{}; }), stop);
    ASSERT_EQ(s.where().level, 3u);
    std::uint32_t* level = s.level_data();
    for (std::uint32_t v = 0, stored = 0; v < g.nodes() && stored < 2; ++v)
      if (want[v] == 4) {
        level[v] = 4;
        ++stored;
      }
  }
  auto s = bfs::search::open(dir.path(), pm::durability::none);
  cpu::executor ex({.workers = 2});
  EXPECT_EQ(s.advance(ex, s.load_graph(), GetParam()), depth(want) + 1 - 3);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), s.levels().begin()));
}

// Each discovered node costs two PM stores and each level one commit store,
// whichever thread wins a node: the crash point count is fixed.
TEST_P(BfsStyles, StoreCountDoesNotDependOnTheInterleaving) {
  const bfs::graph g = bfs::make_scale_free_graph(3000, 8, 5);
  const auto want = bfs::reference_levels(g, 0);
  const auto reached = std::uint64_t(std::count_if(want.begin(), want.end(), [](auto l) { return l != bfs::unvisited; }));
  for (std::uint64_t seed : {0, 1, 2, 3}) {
    scratch_dir dir;
    cpu::executor ex(seed == 0 ? cpu::executor_options{.workers = 2}
                               : cpu::executor_options{.policy = cpu::schedule::deterministic, .seed = seed});
    auto s = bfs::search::create(dir.path(), g, 0, pm::durability::none);
    crash_trigger::arm(0, nullptr);
    const std::uint32_t levels = s.advance(ex, g, GetParam());
    const std::uint64_t points = crash_trigger::count();
    crash_trigger::disarm();
    EXPECT_EQ(points, 2 * (reached - 1) + levels) << "schedule seed " << seed;
  }
}

TEST_P(BfsStyles, WorkloadRunVerifiesAndCorruptionIsCaught) {
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  workload& w = find_workload("bfs");
  const env e{ex, dir.path(), pm::durability::none};
  for (std::uint64_t kind : {0, 1}) {
    const run_report r = w.run(e, resolve_params(w, {{"graph", kind}, {"nodes", 500}}), GetParam());
    EXPECT_GT(r.batches, 2u);
    EXPECT_GT(r.operations, 500u);
    EXPECT_GT(r.bytes_persisted, 0u);
    const verify_report v = w.verify(e);
    EXPECT_TRUE(v.ok) << v.detail;
    EXPECT_EQ(v.checked, 500u);
  }
  {
    auto s = bfs::search::open(dir.path(), pm::durability::none);
    s.level_data()[42] += 1;
  }
  const verify_report v = w.verify(e);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("node 42 has level"), std::string::npos) << v.detail;
}

INSTANTIATE_TEST_SUITE_P(BothStyles, BfsStyles, testing::Values(style::epoch, style::sbrp),
                         [](const auto& i) { return std::string(to_string(i.param)); });

TEST(Bfs, VerifyAsksForRecoveryUntilRecoverFinishes) {
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  workload& w = find_workload("bfs");
  const env e{ex, dir.path(), pm::durability::none};
  const params p = resolve_params(w, {{"nodes", 400}});
  {
    const bfs::graph g = bfs::make_road_graph(400, std::uint32_t(p.at("shortcuts")), p.at("seed"));
    auto s = bfs::search::create(dir.path(), g, 0, pm::durability::none);
    write_meta(s.pool(), "bfs", style::sbrp, p);
    struct stop {};
    EXPECT_THROW(s.advance(ex, g, style::sbrp, [](std::uint32_t l) { if (l == 5) throw stop{}; }), stop);
  }
  verify_report v = w.verify(e);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("recover first"), std::string::npos) << v.detail;
  const recover_report r = w.recover(e);
  EXPECT_TRUE(r.repaired);
  EXPECT_NE(r.what.find("resumed at level 5"), std::string::npos) << r.what;
  v = w.verify(e);
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_FALSE(w.recover(e).repaired);
}

// graph=2: the file is read once by run; recover and verify use the pool's copy.
TEST(Bfs, EdgeListFromTheEnvironmentIsCopiedIntoThePool) {
  scratch_dir dir, files;
  const bfs::graph g = bfs::make_road_graph(200, 2, 9);
  {
    std::ofstream f(files / "road.txt");
    f << "# road 200\n";
    for (std::uint32_t v = 0; v < g.nodes(); ++v)
      for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
        if (v < g.targets[e]) f << v << ' ' << g.targets[e] << '\n';
  }
  cpu::executor ex({.workers = 2});
  workload& w = find_workload("bfs");
  const env e{ex, dir.path(), pm::durability::none};
  ::setenv("GPMX_BFS_EDGE_LIST", (files / "road.txt").c_str(), 1);
  w.run(e, resolve_params(w, {{"graph", 2}, {"source", 7}}), style::epoch);
  ::unsetenv("GPMX_BFS_EDGE_LIST");
  std::filesystem::remove(files / "road.txt");
  const verify_report v = w.verify(e);
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_EQ(v.checked, 200u);
  auto s = bfs::search::open(dir.path(), pm::durability::none);
  const auto want = bfs::reference_levels(g, 7);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), s.levels().begin()));
}

TEST(Bfs, BadParametersAreRejectedByName) {
  scratch_dir dir;
  cpu::executor ex({.workers = 1});
  workload& w = find_workload("bfs");
  const env e{ex, dir.path(), pm::durability::none};
  ::unsetenv("GPMX_BFS_EDGE_LIST");
  const std::vector<std::pair<params, const char*>> bad = {
      {{{"graph", 3}}, "graph=3"},
      {{{"nodes", 1}}, "nodes=1"},
      {{{"graph", 1}, {"degree", 0}}, "degree=0"},
      {{{"nodes", 100}, {"shortcuts", 101}}, "shortcuts=101"},
      {{{"nodes", 100}, {"source", 100}}, "source=100"},
      {{{"graph", 2}}, "GPMX_BFS_EDGE_LIST"}};
  for (const auto& [given, name] : bad) {
    try {
      w.run(e, resolve_params(w, given), style::epoch);
      ADD_FAILURE() << name << " was accepted";
    } catch (const config_error& err) {
      EXPECT_NE(std::string(err.what()).find(name), std::string::npos) << err.what();
    }
  }
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(BfsSeededBug, NoDiscoveryPersistRunVerifies) {
  test::expect_seeded_bug_run_verifies("bfs", "no-discovery-persist");
}

}  // namespace
