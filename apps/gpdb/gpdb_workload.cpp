// gpDB as a workload (`gpmx run gpdb`): batches of INSERTs and UPDATEs on a
// PM table (update_percent picks the mix: 0 gives GPM's gpDB (I), 100 its
// gpDB (U)); recovery undoes a batch in flight; the check replays the
// committed batches on the host. Has a CAP-mm baseline.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>
#include <fmt/format.h>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpdb/gpdb.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::apps {
namespace {

using gpdb::row;
using clock_type = std::chrono::steady_clock;

constexpr const char* log_tail_first = "log-tail-first";

gpdb::shape shape_of(const params& p) {
  const std::uint64_t rows = p.at("rows"), batch = p.at("batch"), batches = p.at("batches");
  const std::uint64_t pct = p.at("update_percent");
  if (rows > (1ull << 28)) throw config_error(fmt::format("gpdb: rows={} exceeds 2^28", rows));
  if (batch == 0 || batch > (1u << 22)) throw config_error(fmt::format("gpdb: batch={} must be 1 to 2^22", batch));
  if (batches > (1u << 20)) throw config_error(fmt::format("gpdb: batches={} exceeds 2^20", batches));
  if (pct > 100) throw config_error(fmt::format("gpdb: update_percent={} exceeds 100", pct));
  gpdb::shape s{};
  s.initial_rows = rows;
  s.updates = std::uint32_t(batch * pct / 100);
  s.inserts = std::uint32_t(batch - s.updates);
  s.batches = std::uint32_t(batches);
  s.seed = p.at("seed");
  if (s.updates > rows)
    throw config_error(fmt::format("gpdb: update_percent={} gives {} UPDATEs per batch, more than rows={}: a batch "
                                   "updates distinct rows", pct, s.updates, rows));
  if (s.capacity() > (1ull << 28))
    throw config_error(fmt::format("gpdb: rows + batches x INSERTs = {} exceeds 2^28", s.capacity()));
  return s;
}

std::uint64_t cap_chunk_rows(const params& p, const gpdb::shape& s) {
  const std::uint64_t c = p.at("cap_chunk_rows");
  return c == 0 ? std::max<std::uint64_t>(s.capacity(), 1) : c;
}

class gpdb_workload final : public workload {
 public:
  std::string_view name() const override { return "gpdb"; }
  std::string_view summary() const override {
    return "relational table in PM; batched INSERTs (row count logged) and UPDATEs (old rows HCL-logged) (GPM gpDB)";
  }
  std::vector<param_spec> parameters() const override {
    return {{"rows", 1u << 16, "rows loaded at set-up (four 8-byte columns each)"},
            {"batch", 512, "operations per batch"},
            {"batches", 8, "batches run"},
            {"update_percent", 50, "share of UPDATEs in a batch, 0 to 100 (0: INSERT only, 100: UPDATE only)"},
            {"cap_chunk_rows", 1024, "CAP-mm copies and persists every chunk of this many rows a batch changed "
                                     "(0: the whole table)"},
            {"seed", 1, "seed of the generated rows and updates"}};
  }
  params small_params() const override {
    return {{"rows", 256}, {"batch", 32}, {"batches", 3}, {"update_percent", 50}, {"cap_chunk_rows", 64},
            {"seed", 1}};
  }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{log_tail_first,
             "an UPDATE reserves its undo-log entry by persisting the log's tail first and only then writes and "
             "persists the entry, so a crash between leaves a tail that names an entry never written",
             style::epoch, "epoch"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    const gpdb::shape s = shape_of(p);
    (void)requested_bug(*this, e, st);
    const auto v = e.has_bug(log_tail_first) ? gpdb::variant::log_tail_first : gpdb::variant::correct;
    fresh_directory(e.dir);
    auto db = gpdb::table_store::create(e.dir, s, e.mode);
    write_meta(db.pool(), name(), st, p);
    run_report r;
    r.unit = "rows";
    const std::uint64_t before = db.bytes_persisted();
    const auto start = clock_type::now();
    for (std::uint32_t b = 0; b < s.batches; ++b) {
      db.run_batch(e.ex, gpdb::make_batch(s, b), st, v);
      r.operations += std::uint64_t(s.inserts) + s.updates;
      e.report(double(b + 1) / s.batches);
    }
    r.seconds = seconds_since(start);
    r.batches = s.batches;
    r.bytes_persisted = db.bytes_persisted() - before;
    return r;
  }

  recover_report recover(const env& e) override {
    require_file(e.dir, "gpdb.pool", name());
    auto db = gpdb::table_store::open(e.dir, e.mode);
    (void)read_meta(db.pool(), *this);
    const auto start = clock_type::now();
    const std::uint64_t committed = db.committed_batches();
    recover_report r;
    r.repaired = db.recover(e.ex);
    r.seconds = seconds_since(start);
    r.what = !r.repaired ? fmt::format("no batch in flight; {} batches committed", committed)
             : db.committed_batches() > committed
                 ? fmt::format("batch {} had persisted whole: its commit finished", committed)
                 : fmt::format("batch {} was undone (updated rows restored, row count back to {})", committed,
                               db.row_count());
    return r;
  }

  verify_report verify(const env& e) override {
    require_file(e.dir, "gpdb.pool", name());
    auto db = gpdb::table_store::open(e.dir, e.mode);
    const run_meta m = read_meta(db.pool(), *this);
    const gpdb::shape s = check_recorded(db.pool(), [&] { return shape_of(m.p); });
    verify_report v;
    const std::uint64_t committed = db.committed_batches();
    if (db.batch_in_flight()) {
      v.detail = fmt::format("batch {} is in flight: recover first", committed);
      return v;
    }
    if (committed > s.batches) {
      v.detail = fmt::format("{} batches committed, but the run has only {}", committed, s.batches);
      return v;
    }
    std::vector<row> ref;
    for (std::uint64_t i = 0; i < s.initial_rows; ++i) ref.push_back(gpdb::initial_row(i, s.seed));
    for (std::uint64_t b = 0; b < committed; ++b) gpdb::apply_reference(ref, gpdb::make_batch(s, b), b);
    if (db.row_count() != ref.size()) {
      v.detail = fmt::format("the table has {} rows; the replay of {} batches has {}", db.row_count(), committed,
                             ref.size());
      return v;
    }
    const auto rows = db.rows();
    for (std::size_t i = 0; i < ref.size(); ++i)
      if (!(rows[i] == ref[i])) {
        v.detail = fmt::format("row {} holds (id {}, key {}, value {}, stamp {}); the replay of {} batches has (id {}, "
                               "key {}, value {}, stamp {})", i, rows[i].id, rows[i].key, rows[i].value,
                               rows[i].stamp, committed, ref[i].id, ref[i].key, ref[i].value, ref[i].stamp);
        return v;
      }
    v.ok = true;
    v.checked = ref.size();
    v.detail = fmt::format("{} rows after {} committed batches match the sequential replay", ref.size(), committed);
    return v;
  }

  bool has_cap_mm() const override { return true; }
  // The batch computed on a DRAM table, then every chunk of rows it changed
  // copied to PM and persisted from the host (CAP cannot persist single rows
  // from inside a kernel), then the row count.
  run_report run_cap_mm(const env& e, const params& p) override {
    const gpdb::shape s = shape_of(p);
    const std::uint64_t chunk = cap_chunk_rows(p, s);
    fresh_directory(e.dir);
    const std::uint64_t table_bytes = std::max<std::uint64_t>(s.capacity(), 1) * sizeof(row);
    auto pool = pm::pool::create(e.dir / "gpdb-cap.pool", table_bytes + (1 << 20), {.mode = e.mode});
    pm::region table = pool.create_region("table", table_bytes);
    pm::region count = pool.create_region("count", 64);
    kernel_vector<row> dram(std::max<std::uint64_t>(s.capacity(), 1));
    for (std::uint64_t i = 0; i < s.initial_rows; ++i) dram[i] = gpdb::initial_row(i, s.seed);
    std::memcpy(table.data(), dram.data(), s.initial_rows * sizeof(row));
    table.persist();
    run_report r;
    r.unit = "rows";
    const std::uint64_t before = pool.bytes_persisted();
    const auto start = clock_type::now();
    std::uint64_t rows = s.initial_rows;
    for (std::uint32_t b = 0; b < s.batches; ++b) {
      const gpdb::batch_ops ops = gpdb::make_batch(s, b);
      gpdb::run_batch_dram(e.ex, dram, rows, ops, b);
      std::set<std::uint64_t> chunks;
      for (const auto& u : ops.updates) chunks.insert(u.row / chunk);
      for (std::uint64_t i = 0; i < ops.inserts.size(); ++i) chunks.insert((rows + i) / chunk);
      rows += ops.inserts.size();
      for (const std::uint64_t c : chunks) {
        const std::uint64_t first = c * chunk, n = std::min(chunk, rows - first);
        std::memcpy(table.data() + first * sizeof(row), dram.data() + first, n * sizeof(row));
        table.persist(first * sizeof(row), n * sizeof(row));
      }
      count.as<std::uint64_t>()[0] = rows;
      count.persist(0, 8);
      r.operations += std::uint64_t(s.inserts) + s.updates;
      e.report(double(b + 1) / s.batches);
    }
    r.seconds = seconds_since(start);
    r.batches = s.batches;
    r.bytes_persisted = pool.bytes_persisted() - before;
    return r;
  }
};

}  // namespace

std::unique_ptr<workload> make_gpdb_workload() { return std::make_unique<gpdb_workload>(); }

}  // namespace gpmx::apps
