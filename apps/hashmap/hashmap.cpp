#include "hashmap/hashmap.hpp"

#include <cstring>
#include <random>
#include <string>
#include <unordered_set>
#include <fmt/format.h>

#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/stored_value.hpp"
#include "hashmap/hashmap_kernels.hpp"

namespace gpmx::apps::hashmap {
namespace {

constexpr std::uint32_t block = 256;
constexpr const char* pool_name = "hashmap.pool";
constexpr const char* log_name = "hashmap.log";

// Words of region "txn".
enum txn_words : std::size_t { w_state = 0, w_rounds = 1, w_slots = 2, w_max_batch = 3 };

std::uint32_t blocks_for(std::uint64_t threads) { return std::uint32_t((threads + block - 1) / block); }

}  // namespace

store::store(std::unique_ptr<pm::pool> pool, std::unique_ptr<pm::hcl_log> log)
    : pool_(std::move(pool)),
      log_(std::move(log)),
      table_(pool_->find("table")),
      txn_(pool_->find("txn")),
      state_(txn_, w_state * 8),
      claims_(slots(), 0) {}

store store::create(const std::filesystem::path& dir, std::uint64_t slots, std::uint32_t max_batch,
                    pm::durability mode) {
  const std::uint64_t table_bytes = slots * sizeof(entry);
  auto pool = std::make_unique<pm::pool>(pm::pool::create(dir / pool_name, table_bytes + (1 << 20), {.mode = mode}));
  pool->create_region("table", table_bytes);
  pm::region txn = pool->create_region("txn", 64);
  txn.as<std::uint64_t>()[w_slots] = slots;
  txn.as<std::uint64_t>()[w_max_batch] = max_batch;
  txn.persist();
  // A thread logs at most once per round.
  const std::uint32_t blocks = blocks_for(max_batch);
  auto log = std::make_unique<pm::hcl_log>(pm::hcl_log::create(
      dir / log_name, std::uint64_t(blocks) * block * (max_rounds + 1) * sizeof(undo_entry), blocks, block, mode));
  return store(std::move(pool), std::move(log));
}

store store::open(const std::filesystem::path& dir, pm::durability mode) {
  auto pool = std::make_unique<pm::pool>(pm::pool::open(dir / pool_name, mode));
  auto log = std::make_unique<pm::hcl_log>(pm::hcl_log::open(dir / log_name, mode));
  check_stored_words(*pool, *log);
  return store(std::move(pool), std::move(log));
}

// Every word of "txn" a crash can leave, against the regions and the log
// create() made for it; anything else is a damaged file.
void store::check_stored_words(pm::pool& pool, pm::hcl_log& log) {
  const auto& file = pool.path();
  const pm::region txn = pool.find("txn");
  if (txn.size() < 32) pm::throw_corrupt_value(file, "txn", "size", txn.size(), "expected at least 32 bytes");
  const auto w = txn.as<const std::uint64_t>();
  const std::uint64_t table_bytes = pool.find("table").size();
  const std::uint64_t slots = pm::check_stored(file, "txn", "slots (word 2)", w[w_slots], 2, 1ull << 28);
  if (table_bytes != slots * sizeof(entry))
    pm::throw_corrupt_value(file, "table", "size", table_bytes,
                            fmt::format("{} slots need {} bytes", slots, slots * sizeof(entry)));
  const std::uint64_t max_batch = pm::check_stored(file, "txn", "max_batch (word 3)", w[w_max_batch], 1, slots / 2);
  pm::check_stored(file, "txn", "rounds begun (word 1)", w[w_rounds], 0, max_rounds + 1);
  batch_state(txn, w_state * 8).check(file);
  const pm::hcl_view lv = log.view();
  if (lv.threads != block || lv.blocks != blocks_for(max_batch))
    pm::throw_corrupt_region(log.file().path(), "gpmx.log.meta",
                             fmt::format("a log of {} blocks of {} threads, but batches of {} keys use {} of {}",
                                         lv.blocks, lv.threads, max_batch, blocks_for(max_batch), block));
}

std::uint64_t store::slots() const { return txn_word(w_slots); }

void store::begin_round(std::uint64_t r) {
  txn_word(w_rounds) = r + 1;  // recovery undoes rounds r, r - 1, ..., 0
  txn_.persist(w_rounds * 8, 8);
  crash_trigger::point();
}

void store::insert_batch(const launch_target& ex, std::span<const entry> batch, pm::ordering o, bool log_after_update) {
  if (batch.size() > txn_word(w_max_batch))
    throw pm::pm_error(pm::errc::bad_argument, fmt::format("hashmap: batch of {} keys exceeds the maximum of {}",
                                                           batch.size(), txn_word(w_max_batch)));
  if (batch_in_flight()) throw pm::pm_error(pm::errc::bad_argument, "hashmap: a batch did not finish; recover first");
  const std::uint64_t committed = committed_batches(), n = batch.size(), nslots = slots();
  const pm::pm_span<entry> table = table_.span<entry>();
  const pm::hcl_view log = log_->view();
  begin_round(0);
  state_.set(committed, batch_phase::in_flight);
  kernel_vector<pending> now(n);
  kernel_vector<std::uint64_t> found(n, no_slot);
  if (n > 0) {
    const auto input = ex.input(batch.first(n));
    const global_span<const entry> in = input.span();
    // Round 0, reads: which keys are present, where the others aim.
    ex.launch({dim3(blocks_for(n)), dim3(block), 0, "hashmap_find"}, find_kernel{}, in, table, nslots,
              global_span<pending>(now.data(), now.size()), global_span<std::uint64_t>(found.data(), found.size()));
    // Round 0, writes: new values of present keys, in place.
    ex.launch({dim3(blocks_for(n)), dim3(block), 0, "hashmap_update"}, update_kernel{}, in,
              global_span<const std::uint64_t>(found.data(), found.size()), table, log, o, log_after_update);
  }
  std::erase_if(now, [](const pending& p) { return p.key == 0; });
  kernel_vector<pending> next;
  for (std::uint64_t round = 1; !now.empty(); ++round) {
    if (round > max_rounds)
      throw pm::pm_error(pm::errc::bad_argument,
                         fmt::format("hashmap: batch {} did not settle in {} rounds ({} entries still displaced): "
                                     "the table is too full; recover undoes the batch", committed, max_rounds,
                                     now.size()));
    begin_round(round);
    const std::uint64_t m = now.size(), epoch = ++claim_epoch_;
    next.assign(m, pending{0, 0, 0});
    const global_span<const pending> pend(now.data(), m);
    ex.launch({dim3(blocks_for(m)), dim3(block), 0, "hashmap_claim"}, claim_kernel{}, pend, nslots, claims_.data(),
              epoch);
    ex.launch({dim3(blocks_for(m)), dim3(block), 0, "hashmap_place"}, place_kernel{}, pend, nslots,
              global_span<const std::uint64_t>(claims_.data(), claims_.size()), epoch, table, log, round, o,
              log_after_update, global_span<pending>(next.data(), next.size()));
    std::erase_if(next, [](const pending& p) { return p.key == 0; });
    now.swap(next);
  }
  state_.set(committed, batch_phase::applied);  // every slot durable: keep the batch
  log_->clear();
  crash_trigger::point();
  state_.set(committed + 1, batch_phase::idle);
}

void store::undo_round(const launch_target& ex, std::uint64_t r) {
  apps::launch_over_occupied_slots(ex, log_->occupied_slots(), "hashmap_undo", undo_kernel{}, log_->view(), table_.span<entry>(), r);
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
  // Every entry names a slot of the table and a round begun, or undoing it
  // would write elsewhere (or never happen).
  const std::uint64_t nslots = slots(), rounds = txn_word(w_rounds);
  log_->for_each_entry(sizeof(undo_entry), [&](std::uint64_t b, std::uint32_t t, const void* raw) {
    undo_entry e;
    std::memcpy(&e, raw, sizeof e);
    const std::string who = fmt::format("of an undo entry of thread {} of block {}", t, b);
    pm::check_stored(log_->file().path(), "gpmx.hcl.data", "slot " + who, e.slot, 0, nslots - 1);
    if (rounds > 0) pm::check_stored(log_->file().path(), "gpmx.hcl.data", "round " + who, e.round, 0, rounds - 1);
    else pm::throw_corrupt_value(log_->file().path(), "gpmx.hcl.data", "round " + who, e.round, "no round was begun");
  });
  // Newest round first: a slot written in several rounds ends with the
  // content its round-0-most entry logged, the one from before the batch.
  for (std::uint64_t r = txn_word(w_rounds); r-- > 0;) undo_round(ex, r);
  state_.set(committed, batch_phase::idle);
  return true;
}

std::vector<std::uint64_t> store::lookup(const launch_target& ex, std::span<const std::uint64_t> keys) {
  const auto in = ex.input(keys);
  kernel_vector<std::uint64_t> out(keys.size(), 0);
  if (keys.empty()) return {};
  ex.launch({dim3(blocks_for(keys.size())), dim3(block), 0, "hashmap_lookup"}, lookup_kernel{},
            in.span(), table_.span<entry>(), slots(),
            global_span<std::uint64_t>(out.data(), out.size()));
  return {out.begin(), out.end()};
}

std::uint64_t store::bytes_persisted() const { return pool_->bytes_persisted() + log_->file().bytes_persisted(); }

std::vector<entry> make_batch(std::uint64_t seed, std::uint64_t b, std::uint32_t n, std::uint64_t key_space) {
  std::mt19937_64 r(seed * 0x9e3779b97f4a7c15ull + b * 1000003 + 29);
  std::vector<entry> out;
  std::unordered_set<std::uint64_t> used;
  while (out.size() < n) {
    const std::uint64_t key = 1 + r() % key_space;
    if (used.insert(key).second) out.push_back({key, ((b + 1) << 32) | out.size()});
  }
  return out;
}

}  // namespace gpmx::apps::hashmap
