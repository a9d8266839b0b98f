// The stored words of the workloads other than gpKVS and gpDB (logged
// indices, heads and tails, markers, progress words, the graph, checkpoint
// tables and epochs) are checked before recovery or verification use them:
// each test corrupts one word of the files a real run left, killed part-way,
// and expects status 3 naming the file, region, field and value, with every
// file unchanged.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "pm/checkpoint_layout.hpp"
#include "pm/checkpoint_reseal.hpp"
#include "reliability/crashed_runs.hpp"
#include "reliability/gpmx_process.hpp"
#include "reliability/meta_record.hpp"

namespace {
using namespace gpmx;
namespace fs = std::filesystem;

using test::crashed_run;
using test::crashed_run_with_entries;

// `command` of W must exit 3 naming every word of `expected`, leaving every
// file as it was.
void expect_refused(const fs::path& cwd, const std::string& command, const std::string& w,
                    const std::vector<std::string>& expected) {
  const auto before = test::snapshot(cwd / "gpmx-data");
  const auto r = test::run_gpmx({command, w, "--quiet"}, cwd);
  EXPECT_EQ(r.status, 3) << command << ": " << r.output;
  for (const std::string& word : expected) EXPECT_NE(r.output.find(word), std::string::npos) << r.output;
  EXPECT_TRUE(before == test::snapshot(cwd / "gpmx-data")) << "files changed by a refused " << command;
}

template <class T>
void store_word(const fs::path& pool_file, const char* region, std::uint64_t byte_offset, T value) {
  auto p = pm::pool::open(pool_file, pm::durability::none);
  std::memcpy(p.find(region).data() + byte_offset, &value, sizeof value);
}

template <class T>
T load_word(const fs::path& pool_file, const char* region, std::uint64_t byte_offset) {
  auto p = pm::pool::open(pool_file, pm::durability::none);
  T v;
  std::memcpy(&v, p.find(region).data() + byte_offset, sizeof v);
  return v;
}

// --- hashmap: undo entries are (slot, key, value, round), 8 four-byte HCL words.
const std::vector<std::string> small_hashmap = {"-p", "slots=256", "-p", "batch=32", "-p", "batches=4"};

// f(view, block, thread, first) on the newest entry of the first busy log
// slot, whose first word is the HCL word `first`; entries are `entry_words`
// four-byte words.
template <class F>
void change_newest_undo_entry(const fs::path& log_file, std::uint32_t entry_words, F&& f) {
  auto log = pm::hcl_log::open(log_file, pm::durability::none);
  const pm::hcl_view v = log.view();
  for (std::uint64_t b = 0; b < v.blocks; ++b)
    for (std::uint32_t t = 0; t < v.threads; ++t)
      if (const std::uint32_t tail = v.tails[v.slot(b, t)]; tail >= entry_words) {
        f(v, b, t, tail - entry_words);
        return;
      }
  ADD_FAILURE() << "the crashed run left no log entry";
}

TEST(CorruptWorkloadPm, HashmapUndoEntryOutsideTheTableIsRefused) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_run_with_entries(d.path(), "hashmap", small_hashmap, 300, 40, 8));
  change_newest_undo_entry(d / "gpmx-data/hashmap/hashmap.log", 8,
                           [](const pm::hcl_view& v, std::uint64_t b, std::uint32_t t, std::uint32_t first) {
                             *v.word(b, t, first) = 256;  // the first slot past the table
                             *v.word(b, t, first + 1) = 0;
                           });
  expect_refused(d.path(), "recover", "hashmap", {"hashmap.log", "gpmx.hcl.data", "slot of an undo entry", "256"});
}

TEST(CorruptWorkloadPm, HashmapUndoEntryOfARoundNeverBegunIsRefused) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_run_with_entries(d.path(), "hashmap", small_hashmap, 300, 40, 8));
  change_newest_undo_entry(d / "gpmx-data/hashmap/hashmap.log", 8,
                           [](const pm::hcl_view& v, std::uint64_t b, std::uint32_t t, std::uint32_t first) {
                             *v.word(b, t, first + 6) = 4000;
                             *v.word(b, t, first + 7) = 0;
                           });
  expect_refused(d.path(), "recover", "hashmap", {"hashmap.log", "round of an undo entry", "4000"});
}

// --- gpdb: undo entries are (row index, old row), 10 four-byte HCL words.
TEST(CorruptWorkloadPm, GpdbUndoEntryPastTheLoggedRowsIsRefused) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(
      crashed_run_with_entries(d.path(), "gpdb", {"-p", "rows=256", "-p", "batch=32", "-p", "batches=3"}, 100, 20, 10));
  change_newest_undo_entry(d / "gpmx-data/gpdb/gpdb.log", 10,
                           [](const pm::hcl_view& v, std::uint64_t b, std::uint32_t t, std::uint32_t first) {
                             *v.word(b, t, first) = 1000000;  // far past the table's capacity
                             *v.word(b, t, first + 1) = 0;
                           });
  expect_refused(d.path(), "recover", "gpdb",
                 {"gpdb.log", "gpmx.hcl.data", "row of an undo entry", "1000000", "the batch began with"});
}

TEST(CorruptWorkloadPm, HashmapStoredSlotCountIsCheckedAgainstTheTable) {
  scratch_dir d;
  crashed_run(d.path(), "hashmap", small_hashmap, 300);
  store_word<std::uint64_t>(d / "gpmx-data/hashmap/hashmap.pool", "txn", 16, 1u << 20);
  expect_refused(d.path(), "verify", "hashmap", {"hashmap.pool", "'table'", "size"});
  expect_refused(d.path(), "recover", "hashmap", {"hashmap.pool", "'table'", "size"});
}

// --- multiqueue: a queue's record is 8 words: head, tail, logged head and
// tail, logged batch, done batch.
const std::vector<std::string> small_queues = {"-p", "queues=4", "-p", "threads=8", "-p", "capacity=32",
                                               "-p", "elems=12", "-p", "batches=6"};

TEST(CorruptWorkloadPm, MultiqueueLoggedTailPastTheCapacityIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "multiqueue", small_queues, 7);
  const fs::path pool = d / "gpmx-data/multiqueue/multiqueue.pool";
  const auto head = load_word<std::uint64_t>(pool, "queues", 2 * 8);
  store_word<std::uint64_t>(pool, "queues", 3 * 8, head + 33);
  expect_refused(d.path(), "recover", "multiqueue",
                 {"multiqueue.pool", "'queues'", "logged tail of queue 0", std::to_string(head + 33)});
}

TEST(CorruptWorkloadPm, MultiqueueHeadPastTheTailIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "multiqueue", small_queues, 7);
  store_word<std::uint64_t>(d / "gpmx-data/multiqueue/multiqueue.pool", "queues", 8 * 8 * 1, 1ull << 40);
  expect_refused(d.path(), "verify", "multiqueue", {"multiqueue.pool", "tail of queue 1"});
}

// --- scan, prefix-sum: markers and stage words.
const std::vector<std::string> small_native = {"-p", "elements=4096", "-p", "threads=4", "-p", "per_thread=256"};

TEST(CorruptWorkloadPm, ScanMarkerPastTheLastPassIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "scan", small_native, 3);
  store_word<std::uint64_t>(d / "gpmx-data/scan/scan.pool", "progress", 8, 1ull << 32);
  expect_refused(d.path(), "recover", "scan", {"scan.pool", "'progress'", "pass marker of array 1", "4294967296"});
  expect_refused(d.path(), "verify", "scan", {"scan.pool", "pass marker of array 1"});
}

TEST(CorruptWorkloadPm, RecordedElementsDifferentFromTheRegionsAreRefused) {
  scratch_dir d;
  crashed_run(d.path(), "reduction", small_native, 3);
  // meta: magic, style, count, name[40], then (name[40], value) entries in
  // name order: elements, per_thread, seed, threads.
  store_word<std::uint64_t>(d / "gpmx-data/reduction/reduction.pool", "meta", 24 + 40 + 40, 1u << 20);
  test::reseal_meta(d / "gpmx-data/reduction/reduction.pool");
  expect_refused(d.path(), "verify", "reduction", {"reduction.pool", "'input'", "size", "the recorded elements"});
}

TEST(CorruptWorkloadPm, PrefixSumStageWordNamingNoStageIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "prefix-sum", small_native, 3);
  store_word<std::uint64_t>(d / "gpmx-data/prefix-sum/prefix_sum.pool", "stage", 0, 7);
  expect_refused(d.path(), "recover", "prefix-sum", {"prefix_sum.pool", "'stage'", "stage word", "holds 7"});
}

// --- srad: progress words 0 (iterations done x 2 + step), 1 rows, 2 cols.
const std::vector<std::string> small_srad = {"-p", "rows=16", "-p", "cols=16", "-p", "iterations=3"};

TEST(CorruptWorkloadPm, SradProgressPastTheLastIterationIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "srad", small_srad, 2);
  store_word<std::uint64_t>(d / "gpmx-data/srad/srad.pool", "progress", 0, 2 * 5);
  expect_refused(d.path(), "recover", "srad", {"srad.pool", "'progress'", "progress word (word 0)", "holds 10"});
  expect_refused(d.path(), "verify", "srad", {"srad.pool", "progress word (word 0)", "holds 10"});
}

TEST(CorruptWorkloadPm, SradStoredRowsDifferentFromTheRecordedAreRefused) {
  scratch_dir d;
  crashed_run(d.path(), "srad", small_srad, 2);
  store_word<std::uint64_t>(d / "gpmx-data/srad/srad.pool", "progress", 8, 0);
  expect_refused(d.path(), "verify", "srad", {"srad.pool", "'progress'", "rows (word 1)", "holds 0"});
}

// --- bfs: the graph and the committed frontier.
const std::vector<std::string> small_bfs = {"-p", "nodes=300"};

TEST(CorruptWorkloadPm, BfsTargetThatIsNoNodeIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "bfs", small_bfs, 3);
  store_word<std::uint32_t>(d / "gpmx-data/bfs/bfs.pool", "targets", 4 * 5, 300);
  expect_refused(d.path(), "recover", "bfs", {"bfs.pool", "'targets'", "target of edge 5", "holds 300"});
}

TEST(CorruptWorkloadPm, BfsFrontierNodeThatIsNoNodeIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "bfs", small_bfs, 3);
  const fs::path pool = d / "gpmx-data/bfs/bfs.pool";
  const auto commit = load_word<std::uint64_t>(pool, "progress", 0);
  const std::uint64_t level = commit >> 32;
  ASSERT_GT(commit & 0xffffffffu, 0u) << "the crashed run had finished";
  store_word<std::uint32_t>(pool, "frontier", (level % 2) * 300 * 4, 1000000);
  expect_refused(d.path(), "recover", "bfs", {"bfs.pool", "'frontier'", "frontier", "holds 1000000"});
}

// --- checkpoints (hotspot): the group table, the epoch and the saved
// iteration count. gpmcp.meta: a 128-byte header (copy_stride at byte 40),
// then group 0: epoch at 128, element count at 256, sizes from 264. Each
// copy ends with its seal (epoch, checksum): a changed copy fails it unless
// resealed, as a writer that damaged the data and then sealed it would.
const std::vector<std::string> small_hotspot = {"-p", "rows=48", "-p", "cols=64", "-p", "iterations=6",
                                                "-p", "interval=2"};

TEST(CorruptWorkloadPm, CheckpointElementSizeOfZeroIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "hotspot", small_hotspot, 7);
  store_word<std::uint64_t>(d / "gpmx-data/hotspot/hotspot.cp", "gpmcp.meta", 264 + 8, 0);
  expect_refused(d.path(), "recover", "hotspot", {"hotspot.cp", "'gpmcp.meta'", "size of element 1 of group 0", "holds 0"});
}

TEST(CorruptWorkloadPm, CheckpointIterationCountPastTheRunIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "hotspot", small_hotspot, 7);
  const fs::path cp = d / "gpmx-data/hotspot/hotspot.cp";
  const auto epoch = load_word<std::uint64_t>(cp, "gpmcp.meta", 128);
  ASSERT_GT(epoch, 0u) << "the crashed run saved nothing";
  const auto stride = load_word<std::uint64_t>(cp, "gpmcp.meta", 40);
  store_word<std::uint64_t>(cp, "gpmcp.g0", (epoch % 2) * stride, 1000);
  // Unsealed, the damage is caught by the seal.
  expect_refused(d.path(), "recover", "hotspot", {"hotspot.cp", "no copy holds a sealed save"});
  // Resealed, by the check of the count itself.
  test::reseal_copy(cp, 0, epoch % 2, epoch);
  expect_refused(d.path(), "recover", "hotspot", {"hotspot.cp", "saved iteration count", "holds 1000"});
  expect_refused(d.path(), "verify", "hotspot", {"hotspot.cp", "saved iteration count", "holds 1000"});
}

TEST(CorruptWorkloadPm, CheckpointEpochBehindItsSavesIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "hotspot", small_hotspot, 7);
  const fs::path cp = d / "gpmx-data/hotspot/hotspot.cp";
  const auto stride = load_word<std::uint64_t>(cp, "gpmcp.meta", 40);
  // Copy 1 says iteration 4 (two saves), but epoch 1 names it (sealed so,
  // and copy 0's seal gone, so that no newer sealed copy takes over).
  store_word<std::uint64_t>(cp, "gpmcp.g0", stride, 4);
  test::reseal_copy(cp, 0, 1, 1);
  store_word<std::uint64_t>(cp, "gpmcp.g0", pm::cp_layout::seal_offset(stride), 0);
  store_word<std::uint64_t>(cp, "gpmcp.meta", 128, 1);
  expect_refused(d.path(), "recover", "hotspot", {"hotspot.cp", "'gpmcp.meta'", "epoch of group 0", "holds 1"});
}

// Found by fuzz_workload (fuzz/corpus/fuzz_workload/cfd-iterations-in-range):
// cfd's recorded iteration count changed from 6 to 4201883, a value a run may
// record, made recover run millions of iterations. The record's checksum
// refuses it at once. meta entries in name order: interval, iterations, nx,
// ny, seed.
TEST(CorruptWorkloadPm, RecordedIterationCountChangedWithinItsRangeIsRefused) {
  scratch_dir d;
  crashed_run(d.path(), "cfd", {"-p", "nx=48", "-p", "ny=32", "-p", "iterations=6", "-p", "interval=2"}, 5);
  store_word<std::uint64_t>(d / "gpmx-data/cfd/cfd.pool", "meta", 24 + 40 + 48 + 40, 4201883);
  expect_refused(d.path(), "recover", "cfd", {"cfd.pool", "'meta'", "checksum"});
  expect_refused(d.path(), "verify", "cfd", {"cfd.pool", "'meta'", "checksum"});
}

}  // namespace
