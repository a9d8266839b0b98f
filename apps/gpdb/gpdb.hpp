#pragma once
// gpDB (GPM section 4, Table 1): a relational table of rows of four 8-byte
// columns in PM, changed by batched transactions of INSERTs and UPDATEs.
// INSERT appends rows in parallel after the persisted row count; the count
// before the batch is kept (logged) in PM, so recovery cuts a partial append
// off. UPDATE undo-logs each old row with HCL before changing it; recovery
// restores the logged rows. One transaction word (batch_state.hpp) brackets
// every batch.
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
#include "gpdb/gpdb_kernels.hpp"  // row, update_op, updated, variant

namespace gpmx::apps::gpdb {

struct batch_ops {
  std::vector<update_op> updates;  // distinct rows, all below the batch's starting row count
  std::vector<row> inserts;        // appended in this order
};

struct shape {
  std::uint64_t initial_rows;  // loaded at set-up
  std::uint32_t inserts;       // per batch
  std::uint32_t updates;       // per batch
  std::uint32_t batches;
  std::uint64_t seed;
  std::uint64_t capacity() const { return initial_rows + std::uint64_t(inserts) * batches; }
  std::uint64_t rows_before(std::uint64_t batch) const { return initial_rows + std::uint64_t(inserts) * batch; }
};

// Row i of the table as set-up loads it.
row initial_row(std::uint64_t i, std::uint64_t seed);
// Batch b of the deterministic sequence.
batch_ops make_batch(const shape& s, std::uint64_t b);
// The sequential reference: applies batch b to `table` (its size is the row count).
void apply_reference(std::vector<row>& table, const batch_ops& ops, std::uint64_t b);

class table_store {
 public:
  // A table for `capacity` rows, the first `initial_rows` loaded and
  // persisted; a log for batches of at most max_ops operations.
  static table_store create(const std::filesystem::path& dir, const shape& s, pm::durability mode);
  static table_store open(const std::filesystem::path& dir, pm::durability mode);

  // One transactional batch (UPDATEs and INSERTs in one kernel).
  void run_batch(const launch_target& ex, const batch_ops& ops, pm::ordering o, variant v = variant::correct);
  // Undoes a batch in flight or finishes the commit of an applied one;
  // returns whether there was one. Crash-safe and idempotent.
  bool recover(const launch_target& ex);

  bool batch_in_flight() const { return state_.in_flight(); }
  std::uint64_t committed_batches() const { return state_.committed(); }
  std::uint64_t row_count() const;
  std::span<row> rows() const { return {table_.as<row>().data(), std::size_t(row_count())}; }
  std::uint64_t bytes_persisted() const;
  pm::pool& pool() { return *pool_; }

 private:
  table_store(std::unique_ptr<pm::pool> pool, std::unique_ptr<pm::hcl_log> log);
  std::uint64_t& txn_word(std::size_t i) const { return txn_.as<std::uint64_t>()[i]; }
  void set_txn_word(std::size_t i, std::uint64_t v);
  // Throws pm_error(corrupt_value) naming a word of "txn" a run cannot leave.
  void check_stored_words() const;

  std::unique_ptr<pm::pool> pool_;
  std::unique_ptr<pm::hcl_log> log_;
  pm::region table_, txn_;
  batch_state state_;
};

// The CPU-assisted baseline's kernel (GPM's CAP-mm): the same batch on a
// DRAM table whose first `rows` rows are live; nothing logged or persisted.
// The table must be kernel memory (kernel_vector) when ex is a GPU.
void run_batch_dram(const launch_target& ex, std::span<row> table, std::uint64_t rows, const batch_ops& ops,
                    std::uint64_t batch);

}  // namespace gpmx::apps::gpdb
