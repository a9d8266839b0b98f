#pragma once
// gpKVS against RocksDB on the same file system, in one run: the same
// batched SETs of 8-byte keys and values; gpKVS persists each SET (undo log
// entry, then the pair) and commits the batch, RocksDB writes each batch as
// one WriteBatch with its write-ahead log synced once (WriteOptions::sync).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/bench/report.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::bench {

struct kvs_compare_options {
  std::filesystem::path dir;  // both stores' files; empty: the temporary directory
  std::uint32_t sets = 1 << 16;
  std::uint32_t batch = 4096;
  std::uint32_t batches = 16;
  // Untimed batches each store takes first, after it is created: a fresh
  // store's first batch maps its files' pages (gpKVS: a fault on every
  // page of its table and log), which a GPU's registration of the pool, or
  // a store that has been running, has already done.
  std::uint32_t warmup = 0;
  unsigned repeat = 3;
  pm::durability mode = pm::durability::msync;
  unsigned workers = 0;
  std::function<void(const std::string&)> progress;
};

// Whether this build has RocksDB (Debian's librocksdb-dev).
bool have_rocksdb();
// Rows gpkvs_epoch_sets, gpkvs_sbrp_sets and rocksdb_sets, each with
// operations_per_second; the gpKVS rows carry vs_rocksdb. Throws when the
// build has no RocksDB or a store reads back a wrong value.
std::vector<result> run_kvs_vs_rocksdb(const kvs_compare_options& o);

}  // namespace gpmx::bench
