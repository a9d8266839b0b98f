// gpKVS as a workload (`gpmx run gpkvs`): batches of SETs, optionally mixed
// with GETs, against a table in PM; recovery undoes a batch in flight; the
// check replays the committed batches on the host.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <fmt/format.h>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpkvs/gpkvs.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/stored_value.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::apps {
namespace {

using gpkvs::kv_pair;
using clock_type = std::chrono::steady_clock;

constexpr const char* no_log_fence = "no-log-fence";

struct kvs_shape {
  std::uint32_t sets, batch, batches, sets_per_batch, gets_per_batch;
  std::uint64_t seed;
};

kvs_shape shape_of(const params& p) {
  auto get = [&](const char* n) { return p.at(n); };
  if (get("sets") == 0 || get("batch") == 0 || get("sets") > (1u << 26) || get("batch") > (1u << 22))
    throw config_error(fmt::format("gpkvs: sets={} and batch={} must be positive (at most 2^26 and 2^22)",
                                   get("sets"), get("batch")));
  if (get("get_percent") > 100) throw config_error(fmt::format("gpkvs: get_percent={} exceeds 100", get("get_percent")));
  kvs_shape s{};
  s.sets = std::uint32_t(get("sets"));
  s.batch = std::uint32_t(get("batch"));
  s.batches = std::uint32_t(get("batches"));
  s.gets_per_batch = std::uint32_t(std::uint64_t(s.batch) * get("get_percent") / 100);
  s.sets_per_batch = std::min(s.batch - s.gets_per_batch, s.sets);  // a batch names a set at most once
  s.seed = get("seed");
  return s;
}

std::vector<std::uint64_t> make_gets(const kvs_shape& s, std::uint64_t b) {
  std::mt19937_64 r(s.seed * 31 + b + 7);
  std::vector<std::uint64_t> keys(s.gets_per_batch);
  for (auto& k : keys) k = 1 + r() % (std::uint64_t(s.sets) * 4);
  return keys;
}

class gpkvs_workload final : public workload {
 public:
  std::string_view name() const override { return "gpkvs"; }
  std::string_view summary() const override {
    return "8-way set-associative key-value store; batched SETs undo-logged with HCL (GPM Figure 6)";
  }
  std::vector<param_spec> parameters() const override {
    return {{"sets", 1u << 14, "sets of 8 ways in the table"},
            {"batch", 4096, "operations per batch (GETs and SETs)"},
            {"batches", 16, "batches run"},
            {"get_percent", 0, "share of GETs in a batch, 0 to 100 (95 gives the 95:5 mix)"},
            {"seed", 1, "seed of the generated keys"}};
  }
  params small_params() const override {
    return {{"sets", 256}, {"batch", 64}, {"batches", 4}, {"get_percent", 0}, {"seed", 1}};
  }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{no_log_fence,
             "a SET undo-logs the old pair with HCL but leaves out the oFence after the log's tail, so the new pair "
             "can persist before the tail that names its undo entry",
             style::sbrp, "sbrp"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    const kvs_shape s = shape_of(p);
    (void)requested_bug(*this, e, st);
    const auto v = e.has_bug(no_log_fence) ? gpkvs::variant::no_log_fence : gpkvs::variant::correct;
    fresh_directory(e.dir);
    auto kvs = gpkvs::store::create(e.dir, {s.sets, std::max<std::uint32_t>(s.sets_per_batch, 1)}, e.mode);
    write_meta(kvs.pool(), name(), st, p);
    run_report r;
    r.unit = "ops";
    const std::uint64_t persisted_before = kvs.bytes_persisted();
    const auto start = clock_type::now();
    for (std::uint32_t b = 0; b < s.batches; ++b) {
      if (s.gets_per_batch > 0) (void)kvs.get_batch(e.ex, make_gets(s, b));
      kvs.set_batch(e.ex, gpkvs::make_batch(s.seed, b, s.sets_per_batch, s.sets), st, v);
      r.operations += s.gets_per_batch + s.sets_per_batch;
      e.report(double(b + 1) / s.batches);
    }
    r.seconds = seconds_since(start);
    r.batches = s.batches;
    r.bytes_persisted = kvs.bytes_persisted() - persisted_before;
    return r;
  }

  recover_report recover(const env& e) override {
    require_file(e.dir, "gpkvs.pool", name());
    auto kvs = gpkvs::store::open(e.dir, e.mode);
    (void)read_meta(kvs.pool(), *this);
    const auto start = clock_type::now();
    const std::uint64_t committed = kvs.committed_batches();
    recover_report r;
    r.repaired = kvs.recover(e.ex);
    r.seconds = seconds_since(start);
    r.what = !r.repaired ? fmt::format("no batch in flight; {} batches committed", committed)
             : kvs.committed_batches() > committed
                 ? fmt::format("batch {} had persisted whole: its commit finished", committed)
                 : fmt::format("batch {} was undone; {} batches committed", committed, committed);
    return r;
  }

  verify_report verify(const env& e) override {
    require_file(e.dir, "gpkvs.pool", name());
    auto kvs = gpkvs::store::open(e.dir, e.mode);
    const run_meta m = read_meta(kvs.pool(), *this);
    const kvs_shape s = check_recorded(kvs.pool(), [&] { return shape_of(m.p); });
    if (s.sets != kvs.parameters().sets)  // the replay would read past the table
      pm::throw_corrupt_region(kvs.pool().path(), "meta",
                               fmt::format("the recorded sets={} differ from the table's {} sets", s.sets,
                                           kvs.parameters().sets));
    verify_report v;
    if (kvs.batch_in_flight()) {
      v.detail = fmt::format("batch {} is in flight: recover first", kvs.committed_batches());
      return v;
    }
    const std::uint64_t committed = kvs.committed_batches();
    if (committed > s.batches) {
      v.detail = fmt::format("{} batches committed, but the run has only {}", committed, s.batches);
      return v;
    }
    std::vector<kv_pair> ref(std::size_t(s.sets) * gpkvs::ways);
    for (std::uint64_t b = 0; b < committed; ++b)
      gpkvs::apply_reference(ref, s.sets, gpkvs::make_batch(s.seed, b, s.sets_per_batch, s.sets));
    const auto table = kvs.table();
    for (std::size_t i = 0; i < ref.size(); ++i) {
      if (!(table[i] == ref[i])) {
        v.detail = fmt::format("slot {} (set {}, way {}) holds key {} value {}; the replay of {} batches has key {} "
                               "value {}", i, i / gpkvs::ways, i % gpkvs::ways, table[i].key, table[i].value,
                               committed, ref[i].key, ref[i].value);
        return v;
      }
    }
    // Every key the replay holds, read back by the GET kernel.
    std::vector<std::uint64_t> keys, expected;
    for (const kv_pair& p : ref)
      if (p.key != 0) keys.push_back(p.key), expected.push_back(p.value);
    const auto values = kvs.get_batch(e.ex, keys);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (values[i] != expected[i]) {
        v.detail = fmt::format("GET of key {} returned {}, expected {}", keys[i], values[i], expected[i]);
        return v;
      }
    }
    v.ok = true;
    v.checked = keys.size();
    v.detail = fmt::format("{} keys after {} committed batches match the sequential replay", keys.size(), committed);
    return v;
  }

  bool has_cap_mm() const override { return true; }
  run_report run_cap_mm(const env& e, const params& p) override {
    const kvs_shape s = shape_of(p);
    fresh_directory(e.dir);
    auto pool = pm::pool::create(e.dir / "gpkvs-cap.pool", std::uint64_t(s.sets) * gpkvs::ways * sizeof(kv_pair) + (1 << 20),
                                 {.mode = e.mode});
    pm::region table = pool.create_region("table", std::uint64_t(s.sets) * gpkvs::ways * sizeof(kv_pair));
    kernel_vector<kv_pair> dram(std::size_t(s.sets) * gpkvs::ways);
    run_report r;
    r.unit = "ops";
    const std::uint64_t before = pool.bytes_persisted();
    const auto start = clock_type::now();
    for (std::uint32_t b = 0; b < s.batches; ++b) {
      if (s.gets_per_batch > 0) (void)gpkvs::get_batch_dram(e.ex, dram, s.sets, make_gets(s, b));
      gpkvs::set_batch_dram(e.ex, dram, s.sets, gpkvs::make_batch(s.seed, b, s.sets_per_batch, s.sets));
      std::memcpy(table.data(), dram.data(), table.size());  // the whole structure, every batch
      table.persist();
      r.operations += s.gets_per_batch + s.sets_per_batch;
      e.report(double(b + 1) / s.batches);
    }
    r.seconds = seconds_since(start);
    r.batches = s.batches;
    r.bytes_persisted = pool.bytes_persisted() - before;
    return r;
  }
};

}  // namespace

std::unique_ptr<workload> make_gpkvs_workload() { return std::make_unique<gpkvs_workload>(); }

}  // namespace gpmx::apps
