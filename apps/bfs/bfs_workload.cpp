// BFS as a workload (`gpmx run bfs`): a level-synchronous search whose levels,
// frontier and level count persist every iteration; recovery resumes from the
// last committed level; the check compares every level with a sequential BFS.
//
// Inputs (parameter graph): 0 a road-network-like grid with shortcuts, 1 a
// scale-free R-MAT graph, 2 the edge-list file named by the environment
// variable GPMX_BFS_EDGE_LIST (read once by run and copied into the pool, so
// recover and verify do not need it).
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>

#include "bfs/bfs.hpp"
#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::apps {
namespace {

using clock_type = std::chrono::steady_clock;

constexpr const char* pool_file = "bfs.pool";
constexpr const char* no_discovery_persist = "no-discovery-persist";
constexpr const char* edge_list_variable = "GPMX_BFS_EDGE_LIST";
enum graph_kind : std::uint64_t { road = 0, scale_free = 1, edge_list = 2 };

void check_params(const params& p) {
  const std::uint64_t kind = p.at("graph"), nodes = p.at("nodes"), degree = p.at("degree");
  if (kind > edge_list)
    throw config_error(fmt::format("bfs: graph={} must be 0 (road grid), 1 (scale-free) or 2 (edge list in {})", kind,
                                   edge_list_variable));
  if (kind != edge_list && (nodes < 2 || nodes > bfs::max_nodes))
    throw config_error(fmt::format("bfs: nodes={} must be 2 to {}", nodes, bfs::max_nodes));
  if (kind == scale_free && (degree == 0 || degree > 64))
    throw config_error(fmt::format("bfs: degree={} must be 1 to 64", degree));
  if (kind == road && p.at("shortcuts") > nodes)
    throw config_error(fmt::format("bfs: shortcuts={} exceeds nodes={}", p.at("shortcuts"), nodes));
}

bfs::graph make_graph(const params& p) {
  return bfs::make_input_graph(p.at("graph"), std::uint32_t(p.at("nodes")), std::uint32_t(p.at("shortcuts")),
                               std::uint32_t(p.at("degree")), p.at("seed"), edge_list_variable, "bfs");
}

// Edges a search from source scans: the degrees of the nodes it reaches.
std::uint64_t edges_scanned(const bfs::graph& g, std::span<const std::uint32_t> levels) {
  std::uint64_t edges = 0;
  for (std::uint32_t v = 0; v < g.nodes(); ++v)
    if (levels[v] != bfs::unvisited) edges += g.offsets[v + 1] - g.offsets[v];
  return edges;
}

class bfs_workload final : public workload {
 public:
  std::string_view name() const override { return "bfs"; }
  std::string_view summary() const override {
    return "level-synchronous BFS persisting levels, frontier and level count every iteration (GPM Table 1)";
  }
  std::vector<param_spec> parameters() const override {
    return {{"graph", road, "input: 0 road-like grid, 1 scale-free R-MAT, 2 edge list file named by GPMX_BFS_EDGE_LIST"},
            {"nodes", 6000, "nodes of a generated graph"},
            {"degree", 8, "scale-free graph: mean degree"},
            {"shortcuts", 4, "road graph: random long edges added to the grid"},
            {"source", 0, "the node the search starts from"},
            {"seed", 1, "seed of the generated graph"}};
  }
  params small_params() const override {
    return {{"graph", road}, {"nodes", 300}, {"degree", 8}, {"shortcuts", 2}, {"source", 0}, {"seed", 1}};
  }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{no_discovery_persist,
             "the level kernel's threads leave out their gpm_persist before the block barrier, so the level's commit "
             "word, which the last thread persists, can be durable before other threads' levels and frontier slots",
             style::epoch, "epoch"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    check_params(p);
    (void)requested_bug(*this, e, st);
    const bool unpersisted = e.has_bug(no_discovery_persist);
    const bfs::graph g = make_graph(p);
    if (p.at("source") >= g.nodes())
      throw config_error(fmt::format("bfs: source={} is not a node of the {}-node graph", p.at("source"), g.nodes()));
    fresh_directory(e.dir);
    auto s = bfs::search::create(e.dir, g, std::uint32_t(p.at("source")), e.mode);
    write_meta(s.pool(), name(), st, p);
    run_report r;
    r.unit = "edges";
    const std::uint64_t before = s.bytes_persisted();
    const auto start = clock_type::now();
    // The search's depth is unknown ahead: progress is the share of nodes reached.
    std::uint64_t reached = 1;
    r.batches = s.advance(
        e.ex, g, st,
        [&](std::uint32_t) {
          reached += s.where().frontier_size;
          e.report(double(reached) / g.nodes());
        },
        unpersisted);
    r.seconds = seconds_since(start);
    r.operations = edges_scanned(g, s.levels());
    r.bytes_persisted = s.bytes_persisted() - before;
    e.report(1.0);
    return r;
  }

  recover_report recover(const env& e) override {
    require_file(e.dir, pool_file, name());
    auto s = bfs::search::open(e.dir, e.mode);
    const run_meta m = read_meta(s.pool(), *this);
    const bfs::progress at = s.where();
    const auto start = clock_type::now();
    const std::uint32_t ran = s.advance(e.ex, s.load_graph(), m.s);
    recover_report r;
    r.seconds = seconds_since(start);
    r.repaired = ran > 0;
    r.what = !r.repaired ? fmt::format("the search had finished ({} levels)", at.level)
                         : fmt::format("resumed at level {} (frontier of {} nodes), ran {} more levels", at.level,
                                       at.frontier_size, ran);
    return r;
  }

  verify_report verify(const env& e) override {
    require_file(e.dir, pool_file, name());
    auto s = bfs::search::open(e.dir, e.mode);
    (void)read_meta(s.pool(), *this);
    verify_report v;
    const bfs::progress at = s.where();
    if (!s.finished()) {
      v.detail = fmt::format("level {} (frontier of {} nodes) is the last committed: recover first", at.level,
                             at.frontier_size);
      return v;
    }
    const auto want = bfs::reference_levels(s.load_graph(), s.source());
    const auto got = s.levels();
    std::uint32_t deepest = 0;
    for (std::uint32_t node = 0; node < want.size(); ++node) {
      if (got[node] != want[node]) {
        auto text = [](std::uint32_t l) { return l == bfs::unvisited ? std::string("unreached") : std::to_string(l); };
        v.detail = fmt::format("node {} has level {}; the sequential BFS from {} gives {}", node, text(got[node]),
                               s.source(), text(want[node]));
        return v;
      }
      if (want[node] != bfs::unvisited) deepest = std::max(deepest, want[node]);
    }
    if (at.level != deepest + 1) {
      v.detail = fmt::format("the committed level count is {}, but the deepest level is {}", at.level, deepest);
      return v;
    }
    v.ok = true;
    v.checked = want.size();
    v.detail = fmt::format("the levels of all {} nodes ({} levels deep) equal the sequential BFS from node {}",
                           want.size(), deepest, s.source());
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_bfs_workload() { return std::make_unique<bfs_workload>(); }

}  // namespace gpmx::apps
