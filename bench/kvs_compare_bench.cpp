#include "kvs_compare_bench.hpp"

#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <random>
#include <stdexcept>
#include <tuple>

#include "gpkvs/gpkvs.hpp"
#include "gpmx/support/process_io.hpp"
#include "gpmx/support/elapsed.hpp"
#include "gpmx/support/scratch_dir.hpp"
#ifdef GPMX_HAVE_ROCKSDB
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#endif

namespace gpmx::bench {
namespace {

using apps::gpkvs::kv_pair;

using batch_list = std::vector<std::vector<kv_pair>>;

// The timed batches (seed 1) and the warm-up ones (seed 2: the timed
// batches are the same with and without a warm-up).
batch_list make_batches(const kvs_compare_options& o, std::uint64_t seed, std::uint32_t count) {
  batch_list out;
  for (std::uint32_t b = 0; b < count; ++b) out.push_back(apps::gpkvs::make_batch(seed, b, o.batch, o.sets));
  return out;
}

// Bytes the runs of one store caused to be written to storage (0 where the
// kernel does not count them).
struct device_bytes {
  std::uint64_t bytes = 0;
  bool known = true;
};

double seconds_of(const std::function<void()>& f, device_bytes* written = nullptr) {
  const auto io_before = process_io();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  const double s = seconds_since(t0);
  if (written != nullptr) {
    const auto io_after = process_io();
    if (io_before && io_after) written->bytes += io_after->written - io_before->written;
    else written->known = false;
  }
  return s;
}

// One gpKVS run: a fresh table, every batch set and committed.
// How many threads shared each durable flush in the timed part, and how
// many flushes were made (group commit; zero when it is off).
struct flush_sharing {
  std::uint64_t waits = 0, flushes = 0, flush_ns = 0, journal_bytes = 0, sets = 0;
  double seconds = 0;
  void add(const cpu::durability_stats& before, const cpu::durability_stats& after, double s) {
    waits += after.waits - before.waits;
    flushes += after.flushes - before.flushes;
    flush_ns += after.flush_ns - before.flush_ns;
    seconds += s;
  }
  void put(result& r) const {
    r.metrics["threads_per_flush"] = flushes ? double(waits) / double(flushes) : 0.0;
    r.metrics["flushes_per_second"] = seconds > 0 ? double(flushes) / seconds : 0.0;
    // The flusher's busy share and one flush's mean time: whether the
    // device (near 1) or the threads between flushes bound the SETs/s.
    r.metrics["flusher_busy"] = seconds > 0 ? double(flush_ns) / 1e9 / seconds : 0.0;
    r.metrics["flush_ms"] = flushes ? double(flush_ns) / 1e6 / double(flushes) : 0.0;
    // What durability costs in bytes on a device: the journals' records
    // (heads, range tables, data) per SET; 0 where nothing is journaled.
    r.metrics["journal_bytes_per_set"] = sets ? double(journal_bytes) / double(sets) : 0.0;
  }
};

double time_gpkvs(const kvs_compare_options& o, cpu::executor& ex, const std::filesystem::path& dir,
                  const batch_list& warmup, const batch_list& batches, pm::ordering order, flush_sharing& sharing,
                  device_bytes& written) {
  std::filesystem::remove_all(dir);
  auto kvs = apps::gpkvs::store::create(dir, {o.sets, o.batch}, o.mode);
  for (const auto& b : warmup) kvs.set_batch(ex, b, order);
  const cpu::durability_stats before = ex.durability();
  const std::uint64_t journaled = kvs.journal_bytes();
  const double s = seconds_of([&] {
    for (const auto& b : batches) kvs.set_batch(ex, b, order);
  }, &written);
  sharing.add(before, ex.durability(), s);
  sharing.journal_bytes += kvs.journal_bytes() - journaled;
  for (const auto& b : batches) sharing.sets += b.size();
  const auto& last = batches.back();
  std::vector<std::uint64_t> keys;
  for (const kv_pair& p : last) keys.push_back(p.key);
  const auto got = kvs.get_batch(ex, keys);
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (got[i] != last[i].value)
      throw std::runtime_error(fmt::format("gpKVS read back {} for key {}, expected {}", got[i], keys[i], last[i].value));
  return s;
}

#ifdef GPMX_HAVE_ROCKSDB
std::string key_bytes(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 7; i >= 0; --i, v >>= 8) s[std::size_t(i)] = char(v & 0xff);  // big-endian: keys sort as numbers
  return s;
}

void check(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) throw std::runtime_error(fmt::format("RocksDB {}: {}", what, s.ToString()));
}

void write_batch(rocksdb::DB& db, const std::vector<kv_pair>& b) {
  rocksdb::WriteOptions wo;
  wo.sync = true;  // the write-ahead log is synced once per batch
  rocksdb::WriteBatch wb;
  for (const kv_pair& p : b) check(wb.Put(key_bytes(p.key), key_bytes(p.value)), "put");
  check(db.Write(wo, &wb), "write");
}

double time_rocksdb(const std::filesystem::path& dir, const batch_list& warmup, const batch_list& batches,
                    device_bytes& written) {
  std::filesystem::remove_all(dir);
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  check(rocksdb::DB::Open(options, dir.string(), &raw), "open");
  std::unique_ptr<rocksdb::DB> db(raw);
  for (const auto& b : warmup) write_batch(*db, b);
  const double s = seconds_of([&] {
    for (const auto& b : batches) write_batch(*db, b);
  }, &written);
  for (const kv_pair& p : batches.back()) {
    std::string v;
    check(db->Get(rocksdb::ReadOptions(), key_bytes(p.key), &v), "get");
    if (v != key_bytes(p.value)) throw std::runtime_error(fmt::format("RocksDB read back a wrong value for key {}", p.key));
  }
  check(db->Close(), "close");
  return s;
}
#endif

}  // namespace

bool have_rocksdb() {
#ifdef GPMX_HAVE_ROCKSDB
  return true;
#else
  return false;
#endif
}

std::vector<result> run_kvs_vs_rocksdb(const kvs_compare_options& o) {
#ifndef GPMX_HAVE_ROCKSDB
  (void)o;
  throw std::runtime_error("this gpmx was built without RocksDB: install librocksdb-dev and reconfigure");
#else
  if (o.batch == 0 || o.batches == 0 || o.sets == 0 || o.batch > o.sets)
    throw std::invalid_argument(fmt::format("kvs comparison: sets={} batch={} batches={}: all positive, batch <= sets",
                                            o.sets, o.batch, o.batches));
  const scratch_dir d(o.dir, "kvs-compare");
  const auto batches = make_batches(o, 1, o.batches), warmup = make_batches(o, 2, o.warmup);
  const double ops = double(o.batch) * o.batches;
  cpu::executor ex({.workers = o.workers});
  std::vector<double> epoch_ns, sbrp_ns, rocks_ns;
  flush_sharing epoch_sharing, sbrp_sharing;
  device_bytes epoch_written, sbrp_written, rocks_written;
  for (unsigned i = 0; i < o.repeat; ++i) {  // interleaved, so drift hits all three alike
    if (o.progress) o.progress(fmt::format("kvs comparison: run {} of {}", i + 1, o.repeat));
    epoch_ns.push_back(
        1e9 * time_gpkvs(o, ex, d.path() / "gpkvs", warmup, batches, pm::ordering::epoch, epoch_sharing, epoch_written));
    sbrp_ns.push_back(
        1e9 * time_gpkvs(o, ex, d.path() / "gpkvs", warmup, batches, pm::ordering::sbrp, sbrp_sharing, sbrp_written));
    rocks_ns.push_back(1e9 * time_rocksdb(d.path() / "rocksdb", warmup, batches, rocks_written));
  }
  const std::string shape =
      fmt::format("{} batches of {} SETs, {} sets of 8 ways{}", o.batches, o.batch, o.sets,
                  o.warmup ? fmt::format(", timed after {} untimed batch(es) on each new store", o.warmup) : "");
  std::vector<result> rows;
  result rocks = make_result("rocksdb_sets", rocks_ns, "RocksDB, one WriteBatch per batch, WAL synced: " + shape);
  rocks.metrics["operations_per_second"] = ops / (rocks.median_ns / 1e9);
  // Storage bytes per SET, averaged over every run (tmpfs writes none).
  const auto per_set = [&](const device_bytes& w, result& r) {
    if (w.known) r.metrics["device_bytes_per_set"] = double(w.bytes) / (ops * o.repeat);
  };
  per_set(rocks_written, rocks);
  const bool grouped = ex.options().group_commit == 1;
  for (auto [name, runs, sharing, written] :
       {std::tuple{"gpkvs_epoch_sets", &epoch_ns, &epoch_sharing, &epoch_written},
        std::tuple{"gpkvs_sbrp_sets", &sbrp_ns, &sbrp_sharing, &sbrp_written}}) {
    result r = make_result(name, *runs,
                           fmt::format("gpKVS, undo-logged SET batches (group commit {}): {}",
                                       grouped ? "on" : "off", shape));
    r.metrics["operations_per_second"] = ops / (r.median_ns / 1e9);
    r.metrics["vs_rocksdb"] = rocks.median_ns / r.median_ns;
    sharing->put(r);
    per_set(*written, r);
    rows.push_back(std::move(r));
  }
  rows.push_back(std::move(rocks));
  return rows;
#endif
}

}  // namespace gpmx::bench
