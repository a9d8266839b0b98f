#pragma once
// Level-synchronous BFS with native persistence (GPM section 4, Table 1): the
// graph (CSR), every node's level ("cost") and the frontier live in PM; one
// kernel per level discovers the next frontier, persists the new nodes'
// levels and frontier entries, and its last block commits one word holding
// the new level and the frontier's size. The frontier is double-buffered, so
// a crash loses at most the level in flight, which recovery redoes.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>

#include "bfs/graph.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::apps::bfs {

struct progress {
  std::uint32_t level = 0;          // levels up to this one are complete
  std::uint32_t frontier_size = 0;  // nodes at `level`; 0: the search is finished
};

class search {
 public:
  // A pool in dir holding g, source at level 0 and a frontier of {source}.
  static search create(const std::filesystem::path& dir, const graph& g, std::uint32_t source, pm::durability mode);
  static search open(const std::filesystem::path& dir, pm::durability mode);

  // The graph copied from PM into device memory (read once, as GPM does).
  graph load_graph() const;
  // Runs (or resumes) levels until the frontier is empty; after_level gets
  // each committed level. Returns the levels run. no_discovery_persist runs
  // the seeded bug of that name (bfs_kernels.hpp).
  std::uint32_t advance(const launch_target& ex, const graph& g, pm::ordering o,
                        const std::function<void(std::uint32_t level)>& after_level = {},
                        bool no_discovery_persist = false);

  progress where() const;
  bool finished() const { return where().frontier_size == 0; }
  std::uint32_t source() const { return source_; }
  std::span<const std::uint32_t> levels() const;
  std::uint64_t bytes_persisted() const { return pool_->bytes_persisted(); }
  pm::pool& pool() { return *pool_; }
  // The raw mapping, for tests that corrupt a level on purpose.
  std::uint32_t* level_data() { return cost_.as<std::uint32_t>().data(); }

 private:
  explicit search(std::unique_ptr<pm::pool> pool);
  // Throw pm_error(corrupt_value) naming a stored word a run cannot leave.
  void check_graph() const;
  void check_progress() const;

  std::unique_ptr<pm::pool> pool_;
  pm::region offsets_, targets_, cost_, frontier_, progress_;
  std::uint32_t nodes_ = 0, source_ = 0;
  std::uint64_t edges_ = 0;
};

}  // namespace gpmx::apps::bfs
