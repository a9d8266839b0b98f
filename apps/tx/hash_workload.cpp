// Hash-table inserts as a workload (`gpmx run tx-hash`): H1 is 15 M base and
// 35 M extended entries with 4 inserts per committer (524,288 with the
// paper's 512 x 256 grid; the paper: 500 K), the default; H2 is
// -p base=1000000 -p extended=3000000 -p per_thread=7 (917,504; the paper:
// 900 K).
#include <fmt/format.h>

#include <unordered_map>

#include "tx/hash.hpp"
#include "tx/tx_workload.hpp"

namespace gpmx::apps::tx {
namespace {

constexpr std::uint64_t max_entries = std::uint64_t(1) << 27;

hash::table_shape table_of(const params& p) {
  const auto get = [&](const char* name) {
    const auto it = p.find(name);
    return it == p.end() ? std::uint64_t(0) : it->second;
  };
  const std::uint64_t base = get("base"), extended = get("extended");
  if (base < 1 || extended < hash::max_probes + 1 || base + extended > max_entries)
    throw config_error(fmt::format("tx-hash: base={} and extended={} are not a base of at least 1 and an extended "
                                   "table of at least {} entries, {} entries at most in all",
                                   base, extended, hash::max_probes + 1, max_entries));
  return {std::uint32_t(base), std::uint32_t(extended)};
}

std::uint32_t words_of(const params& p) { return std::uint32_t(table_of(p).words()); }

// Where a lookup of `key` stops: the entry holding it, or the first empty
// entry on its probe sequence (or the last probed when every probe is taken).
std::uint64_t lookup(const hash::table_shape& t, std::span<const std::uint32_t> home, std::uint32_t key) {
  std::uint64_t entry = hash::base_slot(t, key);
  std::uint32_t e = hash::extended_start(t, key);
  for (std::uint32_t probe = 0; home[hash::key_word(std::uint32_t(entry))] != 0 &&
                                home[hash::key_word(std::uint32_t(entry))] != key && probe < hash::max_probes;
       ++probe) {
    entry = t.base + e;
    e = e + 1 == t.extended ? 0 : e + 1;
  }
  return entry;
}

class hash_workload final : public workload {
 public:
  std::string_view name() const override { return "tx-hash"; }
  std::string_view summary() const override {
    return "hash-table inserts with linear probing as durable GPU transactions (helper-warp paper H1/H2)";
  }
  std::vector<param_spec> parameters() const override {
    return with_tx_parameters({{"base", 15000000, "base table entries (H1: 15 M; H2: 1 M)"},
                               {"extended", 35000000, "extended table entries (H1: 35 M; H2: 3 M)"}},
                              4);
  }
  params small_params() const override {
    return resolve_params(*this, {{"base", 512}, {"extended", 4096}, {"blocks", 3}, {"threads", 64},
                                  {"per_thread", 3}, {"batches", 2}, {"ring", 64}});
  }
  std::vector<seeded_bug> seeded_bugs() const override { return tx_seeded_bugs(); }

  run_report run(const env& e, const params& p, style st) override {
    (void)requested_bug(*this, e, st);
    const hash::table_shape t = table_of(p);
    // Checked before create_heap empties the directory.
    const std::uint64_t inserts = tx_shape_of(name(), p).transactions();
    if (2 * inserts > std::uint64_t(t.base) + t.extended)
      throw config_error(fmt::format("tx-hash: {} inserts would fill more than half of {} base and {} extended "
                                     "entries (long probe runs)",
                                     inserts, t.base, t.extended));
    opened_heap h = create_heap(e, *this, p, st, std::uint32_t(t.words()), hash::body::max_writes,
                                [](std::span<std::uint32_t>) {});  // all entries empty (zeroed)
    const tx_shape& s = h.shape;
    const tx_stats stats = run_batches(e, h.heap, s, st, hash::body{t, s.committer_count(), s.per_thread, s.seed},
                                       faults_of(e), e.has_bug(bug_truncate_first));
    return report_of(stats, h, "inserts");
  }

  recover_report recover(const env& e) override {
    opened_heap h = open_heap(e, *this, words_of, hash::body::max_writes);
    return recover_heap(h.heap);
  }

  verify_report verify(const env& e) override {
    opened_heap h = open_heap(e, *this, words_of, hash::body::max_writes);
    verify_report v = check_promises(h.heap);
    if (!v.ok) return v;
    v.ok = false;
    const hash::table_shape t = table_of(h.meta.p);
    const tx_shape& s = h.shape;
    std::unordered_map<std::uint32_t, std::uint64_t> inserted;  // key -> insert index
    inserted.reserve(s.transactions());
    for (std::uint64_t i = 0; i < s.transactions(); ++i) inserted.emplace(hash::key_of(s.seed, i), i);
    const auto home = h.heap.home();
    std::unordered_map<std::uint32_t, std::uint64_t> where;  // key -> entry holding it
    const std::uint64_t entries = std::uint64_t(t.base) + t.extended;
    for (std::uint64_t entry = 0; entry < entries; ++entry) {
      const std::uint32_t key = home[hash::key_word(std::uint32_t(entry))];
      const std::uint32_t value = home[hash::key_word(std::uint32_t(entry)) + 1];
      if (key == 0) {
        if (value != 0) return fail(v, fmt::format("empty entry {} holds value {:#x}", entry, value));
        continue;
      }
      if (!inserted.contains(key)) return fail(v, fmt::format("entry {} holds key {:#x}, which no insert made", entry, key));
      if (value != hash::value_of(key))
        return fail(v, fmt::format("entry {} holds key {:#x} with value {:#x}, not {:#x}", entry, key, value,
                                   hash::value_of(key)));
      if (const auto [it, fresh] = where.emplace(key, entry); !fresh)
        return fail(v, fmt::format("key {:#x} is in entries {} and {}", key, it->second, entry));
      if (const std::uint64_t found = lookup(t, home, key); found != entry)
        return fail(v, fmt::format("key {:#x} is in entry {}, but a lookup stops at entry {}", key, entry, found));
    }
    if (where.size() != h.heap.applied_upto())
      return fail(v, fmt::format("the table holds {} keys, but {} inserts were applied", where.size(),
                                 h.heap.applied_upto()));
    v.ok = true;
    v.checked = where.size();
    v.detail = h.heap.applied_upto() == s.transactions()
                   ? fmt::format("all {} keys inserted, each once, each where a lookup finds it", where.size())
                   : fmt::format("{} of {} inserts applied (a prefix in commit order); each key once, each where a "
                                 "lookup finds it",
                                 where.size(), s.transactions());
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_tx_hash_workload() { return std::make_unique<hash_workload>(); }

}  // namespace gpmx::apps::tx
