#include "hashmap/hashmap.hpp"

#include <random>
#include <unordered_set>
#include <fmt/format.h>

#include "gpmx/pm/crash_trigger.hpp"

namespace gpmx::apps::hashmap {
namespace {

constexpr std::uint32_t block = 256;
constexpr const char* pool_name = "hashmap.pool";
constexpr const char* log_name = "hashmap.log";
constexpr std::uint64_t no_slot = ~std::uint64_t(0);

// Words of region "txn".
enum txn_words : std::size_t { w_state = 0, w_rounds = 1, w_slots = 2, w_max_batch = 3 };

struct undo_entry {
  std::uint64_t slot;
  entry old;
  std::uint64_t round;
};

std::uint32_t blocks_for(std::uint64_t threads) { return std::uint32_t((threads + block - 1) / block); }

// Larger for a later round, and within a round for a lower index.
GPMX_HD inline std::uint64_t claim_tag(std::uint64_t epoch, std::uint64_t i) {
  return (epoch << 32) | (0xffffffffull - i);
}

// The undo-logged overwrite of one slot: the old content first. The seeded
// bug log_after_update writes the slot before it logs the old content.
template <class Ctx, class View>
GPMX_HD void overwrite_slot(Ctx& t, View& v, const pm::hcl_view& log, std::uint64_t s, const entry& old,
                            const entry& now, std::uint64_t round, pm::ordering order, bool log_after_update) {
  const undo_entry e{s, old, round};
  if (log_after_update) v[s] = now;
  log.insert(t, &e, sizeof e, order);  // persists before the slot changes
  if (!log_after_update) v[s] = now;
  // epoch: durable now; sbrp: durable by the kernel's end, before the next round.
  if (order == pm::ordering::epoch) t.gpm_persist();
}

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
  return store(std::move(pool), std::move(log));
}

std::uint64_t store::slots() const { return txn_word(w_slots); }

void store::begin_round(std::uint64_t r) {
  txn_word(w_rounds) = r + 1;  // recovery undoes rounds r, r - 1, ..., 0
  txn_.persist(w_rounds * 8, 8);
  crash_trigger::point();
}

void store::insert_batch(cpu::executor& ex, std::span<const entry> batch, pm::ordering o, bool log_after_update) {
  if (batch.size() > txn_word(w_max_batch))
    throw pm::pm_error(pm::errc::bad_argument, fmt::format("hashmap: batch of {} keys exceeds the maximum of {}",
                                                           batch.size(), txn_word(w_max_batch)));
  if (batch_in_flight()) throw pm::pm_error(pm::errc::bad_argument, "hashmap: a batch did not finish; recover first");
  const std::uint64_t committed = committed_batches(), n = batch.size(), nslots = slots();
  const pm::pm_span<entry> table = table_.span<entry>();
  const pm::hcl_view log = log_->view();
  begin_round(0);
  state_.set(committed, batch_phase::in_flight);
  std::vector<pending> now(n);
  std::vector<std::uint64_t> found(n, no_slot);
  if (n > 0) {
    // Round 0, reads: which keys are present, where the others aim.
    ex.launch({dim3(blocks_for(n)), dim3(block), 0, "hashmap_find"},
              [](auto& t, const entry* in, std::uint64_t count, pm::pm_span<entry> tab, std::uint64_t ns,
                 pending* out, std::uint64_t* at) {
                const std::uint64_t i = t.global_id();
                if (i >= count) return;
                const auto v = tab.bind(t);
                bool hit = false;
                std::uint64_t s = 0;
                out[i] = first_round(v, ns, in[i].key, in[i].value, s, hit);
                if (hit) at[i] = s;
              },
              batch.data(), n, table, nslots, now.data(), found.data());
    // Round 0, writes: new values of present keys, in place.
    ex.launch({dim3(blocks_for(n)), dim3(block), 0, "hashmap_update"},
              [](auto& t, const entry* in, std::uint64_t count, const std::uint64_t* at, pm::pm_span<entry> tab,
                 pm::hcl_view l, pm::ordering order, bool late_log) {
                const std::uint64_t i = t.global_id();
                if (i >= count || at[i] == no_slot) return;
                auto v = tab.bind(t);
                overwrite_slot(t, v, l, at[i], v[at[i]], in[i], 0, order, late_log);
              },
              batch.data(), n, found.data(), table, log, o, log_after_update);
  }
  std::erase_if(now, [](const pending& p) { return p.key == 0; });
  std::vector<pending> next;
  for (std::uint64_t round = 1; !now.empty(); ++round) {
    if (round > max_rounds)
      throw pm::pm_error(pm::errc::bad_argument,
                         fmt::format("hashmap: batch {} did not settle in {} rounds ({} entries still displaced): "
                                     "the table is too full; recover undoes the batch", committed, max_rounds,
                                     now.size()));
    begin_round(round);
    const std::uint64_t m = now.size(), epoch = ++claim_epoch_;
    next.assign(m, pending{0, 0, 0});
    ex.launch({dim3(blocks_for(m)), dim3(block), 0, "hashmap_claim"},
              [](auto& t, const pending* p, std::uint64_t count, std::uint64_t ns, std::uint64_t* claims,
                 std::uint64_t ep) {
                const std::uint64_t i = t.global_id();
                if (i >= count) return;
                t.atomic_max(&claims[slot_of(p[i].key, p[i].fn, ns)], claim_tag(ep, i));
              },
              now.data(), m, nslots, claims_.data(), epoch);
    ex.launch({dim3(blocks_for(m)), dim3(block), 0, "hashmap_place"},
              [](auto& t, const pending* p, std::uint64_t count, std::uint64_t ns, const std::uint64_t* claims,
                 std::uint64_t ep, pm::pm_span<entry> tab, pm::hcl_view l, std::uint64_t r, pm::ordering order,
                 bool late_log, pending* out) {
                const std::uint64_t i = t.global_id();
                if (i >= count) return;
                const pending me = p[i];
                const std::uint64_t s = slot_of(me.key, me.fn, ns);
                if (claims[s] != claim_tag(ep, i)) {  // lost: aim at the next hash function
                  out[i] = pending{me.key, me.value, (me.fn + 1) % hash_functions};
                  return;
                }
                auto v = tab.bind(t);
                const entry old = v[s];
                overwrite_slot(t, v, l, s, old, entry{me.key, me.value}, r, order, late_log);
                if (old.key != 0) out[i] = pending{old.key, old.value, next_fn_after(old.key, s, ns)};
              },
              now.data(), m, nslots, claims_.data(), epoch, table, log, round, o, log_after_update, next.data());
    std::erase_if(next, [](const pending& p) { return p.key == 0; });
    now.swap(next);
  }
  state_.set(committed, batch_phase::applied);  // every slot durable: keep the batch
  log_->clear();
  crash_trigger::point();
  state_.set(committed + 1, batch_phase::idle);
}

void store::undo_round(cpu::executor& ex, std::uint64_t r) {
  const pm::hcl_view log = log_->view();
  ex.launch({dim3(log.blocks), dim3(log.threads), 0, "hashmap_undo"},
            [](auto& t, pm::hcl_view l, pm::pm_span<entry> tab, std::uint64_t round) {
              auto v = tab.bind(t);
              // A thread logs at most once per round, in round order: its
              // newest entry is the only one of this round.
              while (!l.is_empty(t)) {
                undo_entry e{};
                l.read(t, &e, sizeof e);
                if (e.round != round) return;
                v[e.slot] = e.old;
                t.gpm_persist();  // restored before the entry goes
                l.remove(t, sizeof e);
              }
            },
            log, table_.span<entry>(), r);
}

bool store::recover(cpu::executor& ex) {
  if (!batch_in_flight()) return false;
  const std::uint64_t committed = committed_batches();
  if (state_.phase() == batch_phase::applied) {  // finish the commit
    log_->clear();
    crash_trigger::point();
    state_.set(committed + 1, batch_phase::idle);
    return true;
  }
  // Newest round first: a slot written in several rounds ends with the
  // content its round-0-most entry logged, the one from before the batch.
  for (std::uint64_t r = txn_word(w_rounds); r-- > 0;) undo_round(ex, r);
  state_.set(committed, batch_phase::idle);
  return true;
}

std::vector<std::uint64_t> store::lookup(cpu::executor& ex, std::span<const std::uint64_t> keys) {
  std::vector<std::uint64_t> out(keys.size(), 0);
  if (keys.empty()) return out;
  ex.launch({dim3(blocks_for(keys.size())), dim3(block), 0, "hashmap_lookup"},
            [](auto& t, const std::uint64_t* k, std::uint64_t n, pm::pm_span<entry> tab, std::uint64_t ns,
               std::uint64_t* o) {
              const std::uint64_t i = t.global_id();
              if (i >= n) return;
              const auto v = tab.bind(t);
              for (std::uint64_t f = 0; f < hash_functions; ++f) {
                const entry e = v[slot_of(k[i], f, ns)];
                if (e.key == k[i]) o[i] = e.value;
              }
            },
            keys.data(), std::uint64_t(keys.size()), table_.span<entry>(), slots(), out.data());
  return out;
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
