// Values read back from PM are checked before recovery or verification use
// them: a corrupt word is refused with a message naming the file, region and
// field, exit status 3, and no file changes. Each test corrupts the files a
// real run left (killed part-way where recovery has work to do).
#include <gtest/gtest.h>

#include <cstring>

#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "reliability/crashed_runs.hpp"
#include "reliability/gpmx_process.hpp"
#include "reliability/meta_record.hpp"

namespace {
using namespace gpmx;
namespace fs = std::filesystem;

const std::vector<std::string> small_kvs = {"-p", "sets=256", "-p", "batch=64", "-p", "batches=6"};

// A gpKVS run killed in the middle of a batch with a whole undo entry (slot,
// key, value: six words) in its log.
void crashed_kvs(const fs::path& cwd) {
  ASSERT_NO_FATAL_FAILURE(test::crashed_run_with_entries(cwd, "gpkvs", small_kvs, 700, 40, 6));
}

// The (block, thread) of a log slot holding at least one entry.
std::pair<std::uint64_t, std::uint32_t> busy_slot(pm::hcl_log& log) {
  const pm::hcl_view v = log.view();
  for (std::uint64_t b = 0; b < v.blocks; ++b)
    for (std::uint32_t t = 0; t < v.threads; ++t)
      if (log.size_of(b, t) > 0) return {b, t};
  ADD_FAILURE() << "the crashed run left no log entry";
  return {0, 0};
}

// Recover (or verify) must refuse with status 3 naming every word of
// `expected`, leaving every file as it was.
void expect_refused(const fs::path& cwd, const std::string& command, const std::vector<std::string>& expected) {
  const auto before = test::snapshot(cwd / "gpmx-data");
  const auto r = test::run_gpmx({command, "gpkvs", "--quiet"}, cwd);
  EXPECT_EQ(r.status, 3) << r.output;
  for (const std::string& word : expected) EXPECT_NE(r.output.find(word), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("map::at"), std::string::npos) << r.output;
  EXPECT_TRUE(before == test::snapshot(cwd / "gpmx-data")) << "files changed by a refused " << command;
}

TEST(CorruptPm, HclTailPastCapacityIsRefused) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_kvs(d.path()));
  {
    auto log = pm::hcl_log::open(d / "gpmx-data/gpkvs/gpkvs.log", pm::durability::none);
    const auto [b, t] = busy_slot(log);
    const pm::hcl_view v = log.view();
    v.tails[v.slot(b, t)] = 0x7fffffff;
  }
  expect_refused(d.path(), "recover", {"gpkvs.log", "gpmx.hcl.tails", "tail of lane", "2147483647"});
}

TEST(CorruptPm, UndoEntryNamingASlotOutsideTheTableIsRefused) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_kvs(d.path()));
  {
    auto log = pm::hcl_log::open(d / "gpmx-data/gpkvs/gpkvs.log", pm::durability::none);
    const auto [b, t] = busy_slot(log);
    const pm::hcl_view v = log.view();
    const std::uint32_t tail = v.tails[v.slot(b, t)];
    ASSERT_GE(tail, 6u) << "no whole entry in the busy slot";
    // The newest entry's slot word (entries are slot, key, value: six words);
    // 2048 is the first slot past the 256 x 8 table, over its "meta" region.
    *v.word(b, t, tail - 6) = 2048;
    *v.word(b, t, tail - 5) = 0;
  }
  expect_refused(d.path(), "recover", {"gpkvs.log", "slot of an undo entry", "2048", "2048 slots"});
}

template <class F>
void change_region(const fs::path& pool_file, const char* region, F&& f) {
  auto p = pm::pool::open(pool_file, pm::durability::none);
  f(p.find(region).data());
}

TEST(CorruptPm, ZeroStoredTableSizeIsRefused) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_kvs(d.path()));
  change_region(d / "gpmx-data/gpkvs/gpkvs.pool", "txn", [](std::byte* txn) { std::memset(txn + 16, 0, 8); });
  expect_refused(d.path(), "verify", {"gpkvs.pool", "'txn'", "sets (word 2)", "holds 0"});
  expect_refused(d.path(), "recover", {"gpkvs.pool", "'txn'", "sets (word 2)", "holds 0"});
}

TEST(CorruptPm, ImpossibleTransactionPhaseIsRefused) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_kvs(d.path()));
  change_region(d / "gpmx-data/gpkvs/gpkvs.pool", "txn", [](std::byte* txn) { txn[0] |= std::byte{3}; });
  expect_refused(d.path(), "recover", {"gpkvs.pool", "'txn'", "transaction word", "phase bits"});
}

// Region "meta": magic, style, count, the workload's name (40 bytes), then
// (name[40], value) entries in name order: batch, batches, get_percent, seed,
// sets; a checksum last. Tests of the checks behind the checksum reseal it.
constexpr std::size_t meta_entries = 24 + 40;
constexpr std::size_t meta_entry_bytes = 48;

TEST(CorruptPm, HugeRecordedParameterIsACorruptPoolNotABadArgument) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_kvs(d.path()));
  change_region(d / "gpmx-data/gpkvs/gpkvs.pool", "meta", [](std::byte* m) {
    const std::uint64_t huge = 1ull << 40;
    std::memcpy(m + meta_entries + 4 * meta_entry_bytes + 40, &huge, 8);
  });
  test::reseal_meta(d / "gpmx-data/gpkvs/gpkvs.pool");
  expect_refused(d.path(), "verify", {"gpkvs.pool", "'meta'", "recorded parameters", "sets=1099511627776"});
}

TEST(CorruptPm, RecordedSizeDifferentFromTheTableIsRefused) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_kvs(d.path()));
  change_region(d / "gpmx-data/gpkvs/gpkvs.pool", "meta", [](std::byte* m) {
    const std::uint64_t sets = 4096;  // valid for a run, but not this table's
    std::memcpy(m + meta_entries + 4 * meta_entry_bytes + 40, &sets, 8);
  });
  test::reseal_meta(d / "gpmx-data/gpkvs/gpkvs.pool");
  expect_refused(d.path(), "verify", {"gpkvs.pool", "'meta'", "sets=4096", "256 sets"});
}

TEST(CorruptPm, CorruptParameterNameIsNamedPrintably) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_kvs(d.path()));
  change_region(d / "gpmx-data/gpkvs/gpkvs.pool", "meta", [](std::byte* m) { m[meta_entries + 2] = std::byte{1}; });
  test::reseal_meta(d / "gpmx-data/gpkvs/gpkvs.pool");
  expect_refused(d.path(), "verify", {"gpkvs.pool", "'meta'", "ba\\x01ch", "not a parameter"});
  expect_refused(d.path(), "recover", {"gpkvs.pool", "'meta'", "ba\\x01ch", "not a parameter"});
}

// A word changed within its valid range passes every range check; the
// record's checksum catches it.
TEST(CorruptPm, InRangeParameterChangeIsCaughtByTheChecksum) {
  scratch_dir d;
  ASSERT_NO_FATAL_FAILURE(crashed_kvs(d.path()));
  change_region(d / "gpmx-data/gpkvs/gpkvs.pool", "meta", [](std::byte* m) {
    m[meta_entries + 3 * meta_entry_bytes + 40] ^= std::byte{1};  // another seed
  });
  expect_refused(d.path(), "verify", {"gpkvs.pool", "'meta'", "checksum"});
  expect_refused(d.path(), "recover", {"gpkvs.pool", "'meta'", "checksum"});
}

// gpDB: the same log checks, and its row counts.
TEST(CorruptPm, GpdbRowCountPastCapacityIsRefused) {
  scratch_dir d;
  const auto r = test::run_gpmx({"run", "gpdb", "-p", "rows=256", "-p", "batch=32", "-p", "batches=3", "--quiet"},
                                d.path());
  ASSERT_EQ(r.status, 0) << r.output;
  change_region(d / "gpmx-data/gpdb/gpdb.pool", "txn", [](std::byte* txn) {
    const std::uint64_t rows = 1ull << 50;
    std::memcpy(txn + 8, &rows, 8);
  });
  const auto before = test::snapshot(d / "gpmx-data");
  const auto v = test::run_gpmx({"verify", "gpdb", "--quiet"}, d.path());
  EXPECT_EQ(v.status, 3) << v.output;
  EXPECT_NE(v.output.find("row count (word 1)"), std::string::npos) << v.output;
  EXPECT_TRUE(before == test::snapshot(d / "gpmx-data"));
}

}  // namespace
