#include "gpkvs.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <fmt/format.h>

#include "common/careless_hcl.hpp"
#include "common/undo_entry_bounds.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/stored_value.hpp"

namespace gpmx::apps::gpkvs {
namespace {

constexpr std::uint32_t block = 256;
constexpr const char* pool_name = "gpkvs.pool";
constexpr const char* log_name = "gpkvs.log";

// Limits create() enforces, so open() can tell a stored size it never wrote.
constexpr std::uint64_t max_sets = 1u << 26;
constexpr std::uint64_t max_batch_pairs = 1u << 22;

// The undo log has one thread per way of every pair of a batch.
std::uint32_t log_blocks(std::uint32_t max_batch) { return (max_batch * ways + block - 1) / block; }
}  // namespace

store::store(std::unique_ptr<pm::pool> pool, std::unique_ptr<pm::hcl_log> log, params p)
    : pool_(std::move(pool)),
      log_(std::move(log)),
      p_(p),
      table_(pool_->find("table")),
      txn_(pool_->find("txn")),
      state_(txn_, 0) {}

store store::create(const std::filesystem::path& dir, params p, pm::durability mode) {
  if (p.sets == 0 || p.max_batch == 0 || p.sets > max_sets || p.max_batch > max_batch_pairs)
    throw pm::pm_error(pm::errc::bad_argument,
                       fmt::format("gpkvs: {} sets and batches of {}; must be 1 to {} and 1 to {}", p.sets,
                                   p.max_batch, max_sets, max_batch_pairs));
  std::filesystem::create_directories(dir);
  const std::uint64_t table_bytes = std::uint64_t(p.sets) * ways * sizeof(kv_pair);
  auto pool = std::make_unique<pm::pool>(pm::pool::create(dir / pool_name, table_bytes + (1 << 20), {.mode = mode}));
  pool->create_region("table", table_bytes);
  pm::region txn = pool->create_region("txn", 64);
  const std::uint64_t params_words[2] = {p.sets, p.max_batch};
  std::memcpy(txn.data() + 16, params_words, sizeof params_words);
  txn.persist();
  const std::uint32_t blocks = log_blocks(p.max_batch);
  auto log = std::make_unique<pm::hcl_log>(
      pm::hcl_log::create(dir / log_name, std::uint64_t(blocks) * block * 4 * sizeof(undo_entry), blocks, block, mode));
  return store(std::move(pool), std::move(log), p);
}

store store::open(const std::filesystem::path& dir, pm::durability mode) {
  auto pool = std::make_unique<pm::pool>(pm::pool::open(dir / pool_name, mode));
  const auto& file = pool->path();
  const pm::region txn = pool->find("txn");
  if (txn.size() < 32) pm::throw_corrupt_value(file, "txn", "size", txn.size(), "expected at least 32 bytes");
  std::uint64_t params_words[2];
  std::memcpy(params_words, txn.data() + 16, sizeof params_words);
  const params p{std::uint32_t(pm::check_stored(file, "txn", "sets (word 2)", params_words[0], 1, max_sets)),
                 std::uint32_t(pm::check_stored(file, "txn", "max_batch (word 3)", params_words[1], 1, max_batch_pairs))};
  const std::uint64_t table_bytes = pool->find("table").size();
  if (table_bytes != std::uint64_t(p.sets) * ways * sizeof(kv_pair))
    pm::throw_corrupt_value(file, "table", "size", table_bytes,
                            fmt::format("{} sets of {} ways need {} bytes", p.sets, ways, std::uint64_t(p.sets) * ways * sizeof(kv_pair)));
  auto log = std::make_unique<pm::hcl_log>(pm::hcl_log::open(dir / log_name, mode));
  const pm::hcl_view lv = log->view();
  if (lv.threads != block || lv.blocks != log_blocks(p.max_batch))
    pm::throw_corrupt_region(log->file().path(), "gpmx.log.meta",
                             fmt::format("a log of {} blocks of {} threads, but batches of {} pairs use {} of {}",
                                         lv.blocks, lv.threads, p.max_batch, log_blocks(p.max_batch), block));
  store out(std::move(pool), std::move(log), p);
  out.state_.check(file);
  return out;
}

// The transaction word is txn[0] (common/batch_state.hpp).
bool store::batch_in_flight() const { return state_.in_flight(); }
std::uint64_t store::committed_batches() const { return state_.committed(); }

void store::set_batch(const launch_target& ex, std::span<const kv_pair> batch, pm::ordering o, variant var) {
  if (batch.size() > p_.max_batch)
    throw pm::pm_error(pm::errc::bad_argument,
                       fmt::format("gpkvs: batch of {} pairs exceeds the table's maximum of {}", batch.size(), p_.max_batch));
  if (batch_in_flight())
    throw pm::pm_error(pm::errc::bad_argument, "gpkvs: a batch did not finish; recover first");
  const std::uint64_t committed = committed_batches();
  state_.set(committed, batch_phase::in_flight);  // from here a crash leaves the batch to undo
  const auto threads = std::uint32_t(batch.size()) * ways;
  const std::uint32_t blocks = (threads + block - 1) / block;
  const auto in = ex.input(batch);
  ex.launch({dim3(blocks), dim3(block), 0, "gpkvs_set"}, set_kernel{}, in.span(), table_.span<kv_pair>(), p_.sets,
            log_->view(), o, var);
  state_.set(committed, batch_phase::applied);  // the pairs are durable: keep the batch
  log_->clear();
  crash_trigger::point();
  state_.set(committed + 1, batch_phase::idle);
}

std::vector<std::uint64_t> store::get_batch(const launch_target& ex, std::span<const std::uint64_t> keys) {
  if (keys.empty()) return {};
  const auto in = ex.input(keys);
  kernel_vector<std::uint64_t> out(keys.size(), 0);
  ex.launch({dim3(std::uint32_t((keys.size() + block - 1) / block)), dim3(block), 0, "gpkvs_get"}, get_kernel{},
            in.span(), table_.span<kv_pair>(), p_.sets, global_span<std::uint64_t>(out.data(), out.size()));
  return {out.begin(), out.end()};
}

bool store::recover(const launch_target& ex) {
  if (!batch_in_flight()) return false;
  const std::uint64_t committed = committed_batches();
  if (state_.phase() == batch_phase::applied) {  // finish the commit
    log_->clear();
    crash_trigger::point();
    state_.set(committed + 1, batch_phase::idle);
    return true;
  }
  // Every entry names a slot of the table, or undoing it would write elsewhere.
  const std::uint64_t slots = table_.size() / sizeof(kv_pair);
  const std::vector<std::uint64_t> occupied = apps::require_undo_indices_below<undo_entry>(
      *log_, slots, "slot", fmt::format("the table has {} slots", slots), [](const undo_entry& e) { return e.slot; });
  apps::launch_over_occupied_slots(ex, occupied, "gpkvs_recover", recover_kernel{}, log_->view(), table_.span<kv_pair>());
  state_.set(committed, batch_phase::idle);
  return true;
}

void set_batch_dram(const launch_target& ex, std::span<kv_pair> table, std::uint32_t sets, std::span<const kv_pair> batch) {
  const auto threads = std::uint32_t(batch.size()) * ways;
  if (threads == 0) return;
  const auto in = ex.input(batch);
  ex.launch({dim3((threads + block - 1) / block), dim3(block), 0, "gpkvs_set_dram"}, set_dram_kernel{}, in.span(),
            global_span<kv_pair>(table.data(), table.size()), sets);
}

std::vector<std::uint64_t> get_batch_dram(const launch_target& ex, std::span<const kv_pair> table, std::uint32_t sets,
                                          std::span<const std::uint64_t> keys) {
  if (keys.empty()) return {};
  const auto in = ex.input(keys);
  kernel_vector<std::uint64_t> out(keys.size(), 0);
  ex.launch({dim3(std::uint32_t((keys.size() + block - 1) / block)), dim3(block), 0, "gpkvs_get_dram"},
            get_kernel{}, in.span(), global_span<const kv_pair>(table.data(), table.size()), sets,
            global_span<std::uint64_t>(out.data(), out.size()));
  return {out.begin(), out.end()};
}

std::vector<kv_pair> make_batch(std::uint64_t seed, std::uint64_t b, std::uint32_t n, std::uint32_t sets) {
  std::mt19937_64 r(seed * 0x9e3779b97f4a7c15ull + b * 1000003 + 17);
  std::vector<kv_pair> out;
  std::vector<bool> used(sets, false);
  const std::uint32_t want = std::min(n, sets);
  // Keys come from a small range so that batches update keys already
  // stored; when a batch nearly fills the table, some sets may have no key
  // in it, so after many draws the range widens (else this would not end).
  for (std::uint64_t draws = 0; out.size() < want; ++draws) {
    const std::uint64_t range = draws < 64 * std::uint64_t(sets) ? std::uint64_t(sets) * 4 : (1ull << 40);
    const std::uint64_t key = 1 + r() % range;
    const std::uint32_t s = set_of(key, sets);
    if (used[s]) continue;
    used[s] = true;
    out.push_back({key, b * 1000000 + out.size() + 1});
  }
  return out;
}

std::uint64_t store::bytes_persisted() const { return pool_->bytes_persisted() + log_->file().bytes_persisted(); }
std::uint64_t store::journal_bytes() const {
  return pool_->journal_stats().record_bytes + log_->file().journal_stats().record_bytes;
}

void apply_reference(std::vector<kv_pair>& table, std::uint32_t sets, std::span<const kv_pair> batch) {
  for (const kv_pair& p : batch) {
    kv_pair* set = table.data() + std::uint64_t(set_of(p.key, sets)) * ways;
    set[choose_way(set, p.key)] = p;
  }
}

}  // namespace gpmx::apps::gpkvs
