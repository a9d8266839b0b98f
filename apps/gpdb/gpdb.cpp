#include "gpdb/gpdb.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <unordered_set>
#include <fmt/format.h>

#include "common/careless_hcl.hpp"
#include "common/undo_entry_bounds.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/stored_value.hpp"
#include "gpmx/support/hash_mix.hpp"

namespace gpmx::apps::gpdb {
namespace {

constexpr std::uint32_t block = 256;
constexpr const char* pool_name = "gpdb.pool";
constexpr const char* log_name = "gpdb.log";

// Words of region "txn".
enum txn_words : std::size_t { w_state = 0, w_rows = 1, w_rows_logged = 2, w_capacity = 3, w_max_ops = 4 };


std::uint32_t blocks_for(std::uint64_t threads) { return std::uint32_t((threads + block - 1) / block); }

}  // namespace

row initial_row(std::uint64_t i, std::uint64_t seed) { return row{i, mix64(i ^ (seed << 32)), i * 3, 0}; }

batch_ops make_batch(const shape& s, std::uint64_t b) {
  std::mt19937_64 r(s.seed * 0x9e3779b97f4a7c15ull + b * 7919 + 3);
  batch_ops ops;
  const std::uint64_t rows = s.rows_before(b);
  // Distinct rows: a partial shuffle when the batch covers much of the
  // table, rejection otherwise.
  if (std::uint64_t(s.updates) * 2 > rows) {
    std::vector<std::uint64_t> all(rows);
    std::iota(all.begin(), all.end(), 0);
    for (std::uint32_t i = 0; i < s.updates; ++i) std::swap(all[i], all[i + r() % (rows - i)]);
    for (std::uint32_t i = 0; i < s.updates; ++i) ops.updates.push_back({all[i], 1 + r() % 1000});
  } else {
    std::unordered_set<std::uint64_t> used;
    while (ops.updates.size() < s.updates) {
      const std::uint64_t x = r() % rows;
      if (used.insert(x).second) ops.updates.push_back({x, 1 + r() % 1000});
    }
  }
  for (std::uint32_t j = 0; j < s.inserts; ++j) {
    const std::uint64_t id = rows + j;
    ops.inserts.push_back(row{id, mix64(id ^ (s.seed << 32)), r() % 1000000, b + 1});
  }
  return ops;
}

void apply_reference(std::vector<row>& table, const batch_ops& ops, std::uint64_t b) {
  for (const update_op& u : ops.updates) table[u.row] = updated(table[u.row], u, b);
  table.insert(table.end(), ops.inserts.begin(), ops.inserts.end());
}

table_store::table_store(std::unique_ptr<pm::pool> pool, std::unique_ptr<pm::hcl_log> log)
    : pool_(std::move(pool)),
      log_(std::move(log)),
      table_(pool_->find("table")),
      txn_(pool_->find("txn")),
      state_(txn_, w_state * 8) {}

table_store table_store::create(const std::filesystem::path& dir, const shape& s, pm::durability mode) {
  const std::uint64_t max_ops = std::max<std::uint64_t>(std::uint64_t(s.inserts) + s.updates, 1);
  const std::uint64_t table_bytes = std::max<std::uint64_t>(s.capacity(), 1) * sizeof(row);
  auto pool = std::make_unique<pm::pool>(pm::pool::create(dir / pool_name, table_bytes + (1 << 20), {.mode = mode}));
  pm::region table = pool->create_region("table", table_bytes);
  row* rows = table.as<row>().data();
  for (std::uint64_t i = 0; i < s.initial_rows; ++i) rows[i] = initial_row(i, s.seed);
  table.persist(0, s.initial_rows * sizeof(row));
  pm::region txn = pool->create_region("txn", 64);
  std::uint64_t* w = txn.as<std::uint64_t>().data();
  w[w_rows] = w[w_rows_logged] = s.initial_rows;
  w[w_capacity] = s.capacity();
  w[w_max_ops] = max_ops;
  txn.persist();
  const std::uint32_t blocks = blocks_for(max_ops);
  auto log = std::make_unique<pm::hcl_log>(pm::hcl_log::create(
      dir / log_name, std::uint64_t(blocks) * block * 2 * sizeof(undo_entry), blocks, block, mode));
  return table_store(std::move(pool), std::move(log));
}

table_store table_store::open(const std::filesystem::path& dir, pm::durability mode) {
  auto pool = std::make_unique<pm::pool>(pm::pool::open(dir / pool_name, mode));
  auto log = std::make_unique<pm::hcl_log>(pm::hcl_log::open(dir / log_name, mode));
  table_store out(std::move(pool), std::move(log));
  out.check_stored_words();
  return out;
}

// What create() and run_batch() can leave: capacity and max_ops sized to the
// regions and the log, row counts within capacity.
void table_store::check_stored_words() const {
  const auto& file = pool_->path();
  if (txn_.size() < 40) pm::throw_corrupt_value(file, "txn", "size", txn_.size(), "expected at least 40 bytes");
  const std::uint64_t capacity = table_.size() / sizeof(row);
  pm::check_stored(file, "txn", "capacity (word 3)", txn_word(w_capacity), 0, capacity);
  pm::check_stored(file, "txn", "row count (word 1)", txn_word(w_rows), 0, txn_word(w_capacity));
  pm::check_stored(file, "txn", "logged row count (word 2)", txn_word(w_rows_logged), 0, txn_word(w_rows));
  const pm::hcl_view lv = log_->view();
  pm::check_stored(file, "txn", "max_ops (word 4)", txn_word(w_max_ops), 1, std::uint64_t(lv.blocks) * lv.threads);
  if (lv.threads != block || lv.blocks != blocks_for(txn_word(w_max_ops)))
    pm::throw_corrupt_region(log_->file().path(), "gpmx.log.meta",
                             fmt::format("a log of {} blocks of {} threads, but batches of {} operations use {} of {}",
                                         lv.blocks, lv.threads, txn_word(w_max_ops), blocks_for(txn_word(w_max_ops)),
                                         block));
  state_.check(file);
}

std::uint64_t table_store::row_count() const { return txn_word(w_rows); }

void table_store::set_txn_word(std::size_t i, std::uint64_t v) {
  txn_word(i) = v;
  txn_.persist(i * 8, 8);
  crash_trigger::point();
}

void table_store::run_batch(const launch_target& ex, const batch_ops& ops, pm::ordering o, variant var) {
  const std::uint64_t n = ops.updates.size() + ops.inserts.size();
  const std::uint64_t rows = row_count();
  if (n > txn_word(w_max_ops) || rows + ops.inserts.size() > txn_word(w_capacity))
    throw pm::pm_error(pm::errc::bad_argument,
                       fmt::format("gpdb: a batch of {} operations ({} INSERTs onto {} rows) exceeds the table's "
                                   "limits ({} operations, {} rows)", n, ops.inserts.size(), rows,
                                   txn_word(w_max_ops), txn_word(w_capacity)));
  if (batch_in_flight()) throw pm::pm_error(pm::errc::bad_argument, "gpdb: a batch did not finish; recover first");
  const std::uint64_t committed = committed_batches();
  set_txn_word(w_rows_logged, rows);  // INSERT's undo: the row count before the batch
  state_.set(committed, batch_phase::in_flight);
  if (n > 0) {
    const auto updates = ex.input(std::span<const update_op>(ops.updates));
    const auto inserts = ex.input(std::span<const row>(ops.inserts));
    ex.launch({dim3(blocks_for(n)), dim3(block), 0, "gpdb_batch"}, batch_kernel{}, updates.span(), inserts.span(),
              table_.span<row>(), rows, committed, log_->view(), o, var);
  }
  set_txn_word(w_rows, rows + ops.inserts.size());  // still in flight: recovery cuts back
  state_.set(committed, batch_phase::applied);      // every row durable: keep the batch
  log_->clear();
  crash_trigger::point();
  state_.set(committed + 1, batch_phase::idle);
}

bool table_store::recover(const launch_target& ex) {
  if (!batch_in_flight()) return false;
  const std::uint64_t committed = committed_batches();
  if (state_.phase() == batch_phase::applied) {  // finish the commit
    log_->clear();
    crash_trigger::point();
    state_.set(committed + 1, batch_phase::idle);
    return true;
  }
  // Every entry names a row below the logged count (UPDATEs change loaded
  // rows only), or undoing it would write elsewhere.
  const std::uint64_t rows_before = txn_word(w_rows_logged);
  const std::vector<std::uint64_t> occupied = apps::require_undo_indices_below<undo_entry>(
      *log_, rows_before, "row", fmt::format("the batch began with {} rows", rows_before),
      [](const undo_entry& e) { return e.index; });
  apps::launch_over_occupied_slots(ex, occupied, "gpdb_recover", recover_kernel{}, log_->view(), table_.span<row>());
  set_txn_word(w_rows, txn_word(w_rows_logged));  // cut a partial append off
  state_.set(committed, batch_phase::idle);
  return true;
}

std::uint64_t table_store::bytes_persisted() const {
  return pool_->bytes_persisted() + log_->file().bytes_persisted();
}

void run_batch_dram(const launch_target& ex, std::span<row> table, std::uint64_t rows, const batch_ops& ops,
                    std::uint64_t batch) {
  const std::uint64_t n = ops.updates.size() + ops.inserts.size();
  if (n == 0) return;
  const auto updates = ex.input(std::span<const update_op>(ops.updates));
  const auto inserts = ex.input(std::span<const row>(ops.inserts));
  ex.launch({dim3(blocks_for(n)), dim3(block), 0, "gpdb_batch_dram"}, batch_dram_kernel{}, updates.span(),
            inserts.span(), global_span<row>(table.data(), table.size()), rows, batch);
}

}  // namespace gpmx::apps::gpdb
