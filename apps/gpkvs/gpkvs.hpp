#pragma once
// gpKVS (GPM section 4, Figure 6): a MegaKV-style 8-way set-associative
// table of 8-byte keys and values in PM. A batch of SETs is one kernel: a
// group of 8 threads looks at the 8 ways of the key's set, the thread whose
// way is chosen undo-logs the old pair with HCL, writes the new pair and
// persists it. A persisted transaction flag brackets the batch; recovery
// undoes a batch the flag says did not finish.
//
// Batches must not name one set twice (two groups would race for its ways,
// as on a GPU); make_batch in the tests builds such batches.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "common/batch_state.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpkvs/gpkvs_kernels.hpp"  // kv_pair, ways, variant, set_of, choose_way

namespace gpmx::apps::gpkvs {

struct params {
  std::uint32_t sets = 1 << 14;
  std::uint32_t max_batch = 4096;  // pairs per batch
};

class store {
 public:
  static store create(const std::filesystem::path& dir, params p, pm::durability mode = pm::durability::msync);
  static store open(const std::filesystem::path& dir, pm::durability mode = pm::durability::msync);

  // One transactional batch of SETs (at most max_batch pairs). epoch: the
  // undo entry, its tail and the pair are ordered by gpm_persist; sbrp: by
  // oFence, and the kernel's end makes the pairs durable before the commit.
  void set_batch(const launch_target& ex, std::span<const kv_pair> batch, pm::ordering o = pm::ordering::epoch,
                 variant v = variant::correct);
  // Values of the keys (0 where absent), by a GET kernel.
  std::vector<std::uint64_t> get_batch(const launch_target& ex, std::span<const std::uint64_t> keys);
  // Undoes a batch that did not finish (or completes the commit of one whose
  // pairs were all durable); returns whether there was one.
  // Itself crash-safe: recovering twice is recovering once.
  bool recover(const launch_target& ex);
  bool batch_in_flight() const;
  // Batches committed since the table was created.
  std::uint64_t committed_batches() const;
  // Bytes persisted through the table and the log since this object opened them.
  std::uint64_t bytes_persisted() const;
  // Bytes the table's and the log's persist journals have written (0 where
  // persists are not journaled).
  std::uint64_t journal_bytes() const;

  std::span<const kv_pair> table() const { return {table_.as<kv_pair>().data(), table_.size() / sizeof(kv_pair)}; }
  const params& parameters() const { return p_; }
  pm::pool& pool() { return *pool_; }

 private:
  store(std::unique_ptr<pm::pool> pool, std::unique_ptr<pm::hcl_log> log, params p);

  std::unique_ptr<pm::pool> pool_;
  std::unique_ptr<pm::hcl_log> log_;
  params p_;
  pm::region table_, txn_;
  batch_state state_;  // txn[0]: committed batches and the phase of the next
};

// The CPU-assisted baseline's kernels (GPM's CAP-mm): the same SET and GET
// batches on a table in DRAM (sets x ways pairs), nothing logged or persisted.
// The table must be kernel memory (kernel_vector) when ex is a GPU.
void set_batch_dram(const launch_target& ex, std::span<kv_pair> table, std::uint32_t sets, std::span<const kv_pair> batch);
std::vector<std::uint64_t> get_batch_dram(const launch_target& ex, std::span<const kv_pair> table, std::uint32_t sets,
                                          std::span<const std::uint64_t> keys);

// Batch b of a deterministic sequence of SETs: n pairs with distinct sets,
// keys drawn from 4 x sets values (so keys repeat and full sets evict).
std::vector<kv_pair> make_batch(std::uint64_t seed, std::uint64_t b, std::uint32_t n, std::uint32_t sets);

// The table a sequence of batches gives, computed sequentially on the host
// with the kernel's placement rules: the consistency check's reference.
void apply_reference(std::vector<kv_pair>& table, std::uint32_t sets, std::span<const kv_pair> batch);

}  // namespace gpmx::apps::gpkvs
