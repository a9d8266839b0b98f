#include "bfs/bfs.hpp"

#include <algorithm>
#include <cstring>
#include <vector>
#include <fmt/format.h>

#include "bfs/bfs_kernels.hpp"
#include "gpmx/pm/errors.hpp"
#include "gpmx/pm/stored_value.hpp"

namespace gpmx::apps::bfs {
namespace {

constexpr std::uint32_t block = 256;
constexpr const char* pool_name = "bfs.pool";

// Region "progress": word 0 the commit word (pack_progress), then nodes,
// edges (directed, both ways counted) and source.
enum progress_word { commit_word = 0, nodes_word, edges_word, source_word };

}  // namespace

search::search(std::unique_ptr<pm::pool> pool)
    : pool_(std::move(pool)), offsets_(pool_->find("offsets")), targets_(pool_->find("targets")),
      cost_(pool_->find("cost")), frontier_(pool_->find("frontier")), progress_(pool_->find("progress")) {
  const auto& file = pool_->path();
  if (progress_.size() < 32)
    pm::throw_corrupt_value(file, "progress", "size", progress_.size(), "expected at least 32 bytes");
  const auto words = progress_.as<std::uint64_t>();
  nodes_ = std::uint32_t(pm::check_stored(file, "progress", "nodes (word 1)", words[nodes_word], 1, max_nodes));
  const std::uint64_t n = nodes_;
  // Every region exactly as create() sized it, so the checks below stay inside them.
  edges_ = pm::check_stored(file, "progress", "edges (word 2)", words[edges_word], 0,
                            std::max<std::uint64_t>(targets_.size() / 4, 1));
  source_ = std::uint32_t(pm::check_stored(file, "progress", "source (word 3)", words[source_word], 0, n - 1));
  const auto sized = [&](const pm::region& r, std::uint64_t bytes, const char* what) {
    if (r.size() != bytes)
      pm::throw_corrupt_value(file, r.name(), "size", r.size(), fmt::format("{} need {} bytes", what, bytes));
  };
  sized(offsets_, (n + 1) * 8, "the offsets of the stored nodes");
  sized(targets_, std::max<std::uint64_t>(edges_, 1) * 4, "the stored edges");
  sized(cost_, n * 4, "the levels of the stored nodes");
  sized(frontier_, 2 * n * 4, "two frontiers of the stored nodes");
  check_graph();
  check_progress();
}

// The graph is set-up data, written once; offsets that leave the targets or a
// target that is no node would send the level kernel outside its regions.
void search::check_graph() const {
  const auto& file = pool_->path();
  const auto o = offsets_.as<const std::uint64_t>();
  const auto t = targets_.as<const std::uint32_t>();
  if (o[0] != 0) pm::throw_corrupt_value(file, "offsets", "offset of node 0", o[0], "expected 0");
  for (std::uint64_t v = 0; v < nodes_; ++v)
    pm::check_stored(file, "offsets", fmt::format("offset of node {}", v + 1), o[v + 1], o[v], edges_);
  if (o[nodes_] != edges_)
    pm::throw_corrupt_value(file, "offsets", fmt::format("offset of node {}", nodes_), o[nodes_],
                            fmt::format("expected the {} stored edges", edges_));
  for (std::uint64_t e = 0; e < edges_; ++e)
    pm::check_stored(file, "targets", fmt::format("target of edge {}", e), t[e], 0, nodes_ - 1);
}

// The committed level and its frontier: a level past the node count, a
// frontier larger than the graph or naming no node cannot be left by a run.
void search::check_progress() const {
  const auto& file = pool_->path();
  const std::uint64_t w = progress_.as<std::uint64_t>()[commit_word];
  const progress p = where();
  if (p.level > nodes_ || p.frontier_size > nodes_)
    pm::throw_corrupt_value(file, "progress", "commit word (word 0)", w,
                            fmt::format("level and frontier size are at most the {} nodes", nodes_));
  const auto frontier = frontier_.as<const std::uint32_t>().subspan((p.level % 2) * std::uint64_t(nodes_), nodes_);
  for (std::uint32_t i = 0; i < p.frontier_size; ++i)
    pm::check_stored(file, "frontier", fmt::format("node {} of the level-{} frontier", i, p.level), frontier[i], 0,
                     nodes_ - 1);
}

search search::create(const std::filesystem::path& dir, const graph& g, std::uint32_t source, pm::durability mode) {
  const std::uint64_t n = g.nodes(), m = g.targets.size();
  const std::uint64_t bytes = (n + 1) * 8 + std::max<std::uint64_t>(m, 1) * 4 + n * 4 + 2 * n * 4;
  auto pool = std::make_unique<pm::pool>(pm::pool::create(dir / pool_name, bytes + (1 << 20), {.mode = mode}));
  pm::region offsets = pool->create_region("offsets", (n + 1) * 8);
  pm::region targets = pool->create_region("targets", std::max<std::uint64_t>(m, 1) * 4);
  pm::region cost = pool->create_region("cost", n * 4);
  pm::region frontier = pool->create_region("frontier", 2 * n * 4);
  pm::region prog = pool->create_region("progress", 64);
  std::memcpy(offsets.data(), g.offsets.data(), (n + 1) * 8);
  if (m > 0) std::memcpy(targets.data(), g.targets.data(), m * 4);
  std::fill_n(cost.as<std::uint32_t>().data(), n, unvisited);
  cost.as<std::uint32_t>()[source] = 0;
  frontier.as<std::uint32_t>()[0] = source;
  const std::uint64_t words[4] = {pack_progress(0, 1), n, m, source};
  std::memcpy(prog.data(), words, sizeof words);
  for (const pm::region& r : {offsets, targets, cost, frontier, prog}) r.persist();
  return search(std::move(pool));
}

search search::open(const std::filesystem::path& dir, pm::durability mode) {
  return search(std::make_unique<pm::pool>(pm::pool::open(dir / pool_name, mode)));
}

graph search::load_graph() const {
  graph g;
  const auto* o = offsets_.as<std::uint64_t>().data();
  const auto* t = targets_.as<std::uint32_t>().data();
  g.offsets.assign(o, o + nodes_ + 1);
  g.targets.assign(t, t + edges_);
  return g;
}

progress search::where() const {
  const std::uint64_t w = progress_.as<std::uint64_t>()[commit_word];
  return {std::uint32_t(w >> 32), std::uint32_t(w)};
}

std::span<const std::uint32_t> search::levels() const { return {cost_.as<std::uint32_t>().data(), nodes_}; }

std::uint32_t search::advance(const launch_target& ex, const graph& g, pm::ordering o,
                              const std::function<void(std::uint32_t)>& after_level, bool no_discovery_persist) {
  const std::uint64_t n = nodes_;
  // Claim flags from the committed levels: a node a crashed level had
  // reached (level + 1 already stored) is unclaimed and is found again.
  kernel_vector<std::uint32_t> visited(n);
  const std::uint32_t committed = where().level;
  const auto cost = levels();
  for (std::uint64_t v = 0; v < n; ++v) visited[v] = cost[v] <= committed ? 1 : 0;
  kernel_vector<std::uint32_t> counters(2), released((n + block - 1) / block, 0);
  const auto offsets = ex.input(std::span<const std::uint64_t>(g.offsets));
  const auto targets = ex.input(std::span<const std::uint32_t>(g.targets));
  const auto frontiers = frontier_.span<std::uint32_t>();
  std::uint32_t ran = 0;
  for (progress p = where(); p.frontier_size > 0; p = where(), ++ran) {
    level_args a{};
    a.level = p.level;
    a.frontier_size = p.frontier_size;
    a.blocks = (p.frontier_size + block - 1) / block;
    a.frontier_in = frontiers.subspan((p.level % 2) * n, n);
    a.frontier_out = frontiers.subspan(((p.level + 1) % 2) * n, n);
    a.cost = cost_.span<std::uint32_t>();
    a.progress = pm::pm_ptr<std::uint64_t>(progress_.as<std::uint64_t>().data(), progress_.domain());
    a.offsets = offsets.span();
    a.targets = targets.span();
    a.visited = visited.data();
    counters.assign(2, 0);
    a.next_size = &counters[0];
    a.blocks_done = &counters[1];
    a.block_released = released.data();
    a.o = o;
    a.no_discovery_persist = no_discovery_persist;
    ex.launch({dim3(a.blocks), dim3(block), 0, "bfs_level"}, level_kernel{}, a);
    if (where().level != p.level + 1)
      throw pm::pm_error(pm::errc::bad_argument, fmt::format("bfs: level {} did not commit", p.level));
    if (after_level) after_level(p.level + 1);
  }
  return ran;
}

}  // namespace gpmx::apps::bfs
