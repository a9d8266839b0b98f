// The cuckoo hashmap as a workload (`gpmx run hashmap`): batches of inserts
// into a PM table; recovery undoes a batch in flight; the check replays the
// committed batches on the host, slot by slot, and also checks that every
// key holds the value of its last insert.
#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <fmt/format.h>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/elapsed.hpp"
#include "hashmap/hashmap.hpp"

namespace gpmx::apps {
namespace {

using hashmap::entry;
using clock_type = std::chrono::steady_clock;

constexpr const char* log_after_update = "log-after-update";

struct hm_shape {
  std::uint64_t slots, key_space, seed;
  std::uint32_t batch, batches;
};

hm_shape shape_of(const params& p) {
  hm_shape s{};
  s.slots = p.at("slots");
  if (s.slots < 2 || s.slots > (1ull << 28)) throw config_error(fmt::format("hashmap: slots={} must be 2 to 2^28", s.slots));
  s.key_space = s.slots / 2;  // the table is at most half full
  const std::uint64_t batch = p.at("batch"), batches = p.at("batches");
  if (batch == 0 || batch > s.key_space)
    throw config_error(fmt::format("hashmap: batch={} must be 1 to slots/2 = {} (a batch has distinct keys, drawn "
                                   "from slots/2 values)", batch, s.key_space));
  if (batches > (1u << 20)) throw config_error(fmt::format("hashmap: batches={} exceeds 2^20", batches));
  s.batch = std::uint32_t(batch);
  s.batches = std::uint32_t(batches);
  s.seed = p.at("seed");
  return s;
}

class hashmap_workload final : public workload {
 public:
  std::string_view name() const override { return "hashmap"; }
  std::string_view summary() const override {
    return "cuckoo hashmap in PM; batched inserts in deterministic rounds, every overwritten slot HCL-logged (SBRP HM)";
  }
  std::vector<param_spec> parameters() const override {
    return {{"slots", 1u << 16, "slots of the table (keys are drawn from slots/2 values: at most half full)"},
            {"batch", 512, "distinct keys per batch"},
            {"batches", 8, "batches run"},
            {"seed", 1, "seed of the generated keys"}};
  }
  params small_params() const override { return {{"slots", 256}, {"batch", 32}, {"batches", 4}, {"seed", 1}}; }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{log_after_update,
             "a winning thread overwrites its slot first and only then undo-logs the slot's old content, so the "
             "persist that makes the log entry durable makes the new slot durable too, before the log's tail names "
             "the entry",
             style::epoch, "epoch"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    const hm_shape s = shape_of(p);
    (void)requested_bug(*this, e, st);
    const bool late_log = e.has_bug(log_after_update);
    fresh_directory(e.dir);
    auto hm = hashmap::store::create(e.dir, s.slots, s.batch, e.mode);
    write_meta(hm.pool(), name(), st, p);
    run_report r;
    r.unit = "inserts";
    const std::uint64_t before = hm.bytes_persisted();
    const auto start = clock_type::now();
    for (std::uint32_t b = 0; b < s.batches; ++b) {
      hm.insert_batch(e.ex, hashmap::make_batch(s.seed, b, s.batch, s.key_space), st, late_log);
      r.operations += s.batch;
      e.report(double(b + 1) / s.batches);
    }
    r.seconds = seconds_since(start);
    r.batches = s.batches;
    r.bytes_persisted = hm.bytes_persisted() - before;
    return r;
  }

  recover_report recover(const env& e) override {
    require_file(e.dir, "hashmap.pool", name());
    auto hm = hashmap::store::open(e.dir, e.mode);
    (void)read_meta(hm.pool(), *this);
    const auto start = clock_type::now();
    const std::uint64_t committed = hm.committed_batches();
    recover_report r;
    r.repaired = hm.recover(e.ex);
    r.seconds = seconds_since(start);
    r.what = !r.repaired ? fmt::format("no batch in flight; {} batches committed", committed)
             : hm.committed_batches() > committed
                 ? fmt::format("batch {} had persisted whole: its commit finished", committed)
                 : fmt::format("batch {} was undone round by round; {} batches committed", committed, committed);
    return r;
  }

  verify_report verify(const env& e) override {
    require_file(e.dir, "hashmap.pool", name());
    auto hm = hashmap::store::open(e.dir, e.mode);
    const run_meta m = read_meta(hm.pool(), *this);
    const hm_shape s = check_recorded(hm.pool(), [&] { return shape_of(m.p); });
    if (s.slots != hm.slots())  // the replay would read past the table
      pm::throw_corrupt_region(hm.pool().path(), "meta", fmt::format("the recorded slots={} differ from the table's {} slots",
                                                                     s.slots, hm.slots()));
    verify_report v;
    const std::uint64_t committed = hm.committed_batches();
    if (hm.batch_in_flight()) {
      v.detail = fmt::format("batch {} is in flight: recover first", committed);
      return v;
    }
    if (committed > s.batches) {
      v.detail = fmt::format("{} batches committed, but the run has only {}", committed, s.batches);
      return v;
    }
    std::vector<entry> ref(s.slots, entry{0, 0});
    std::unordered_map<std::uint64_t, std::uint64_t> last;  // key -> value of its last insert
    for (std::uint64_t b = 0; b < committed; ++b) {
      const auto batch = hashmap::make_batch(s.seed, b, s.batch, s.key_space);
      if (!hashmap::apply_reference(ref, batch)) {
        v.detail = fmt::format("the replay of batch {} did not settle (the table is too full)", b);
        return v;
      }
      for (const entry& x : batch) last[x.key] = x.value;
    }
    const auto table = hm.table();
    for (std::uint64_t i = 0; i < s.slots; ++i)
      if (!(table[i] == ref[i])) {
        v.detail = fmt::format("slot {} holds key {} value {}; the replay of {} batches has key {} value {}", i,
                               table[i].key, table[i].value, committed, ref[i].key, ref[i].value);
        return v;
      }
    const auto occupied = std::uint64_t(std::count_if(table.begin(), table.end(), [](const entry& x) { return x.key != 0; }));
    if (occupied != last.size()) {
      v.detail = fmt::format("{} slots are occupied, but {} distinct keys were inserted", occupied, last.size());
      return v;
    }
    // Every key inserted, looked up by the kernel: the value of its last insert.
    std::vector<std::uint64_t> keys;
    for (const auto& kv : last) keys.push_back(kv.first);
    const auto values = hm.lookup(e.ex, keys);
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (values[i] != last[keys[i]]) {
        v.detail = fmt::format("lookup of key {} returned {}, but its last insert wrote {}", keys[i], values[i],
                               last[keys[i]]);
        return v;
      }
    v.ok = true;
    v.checked = keys.size();
    v.detail = fmt::format("{} slots and {} keys after {} committed batches match the sequential replay", s.slots,
                           keys.size(), committed);
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_hashmap_workload() { return std::make_unique<hashmap_workload>(); }

}  // namespace gpmx::apps
