// The persist journal of a pool on a device: what a crash leaves only in
// the journal is put back at the next open, nothing newer is rolled back
// by it, a torn or foreign journal is handled, and group commit writes one
// record per flush. A crash is a forked child that ends with _exit (no
// destructor runs); a lost page-cache write is the pool's bytes overwritten
// through the file afterwards. Runs in a directory on a device: the
// temporary directory, or the working directory when that is in memory.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "on_a_device.hpp"
#include "pm/persist_journal.hpp"

namespace {
using namespace gpmx;
using test::in_memory;
using test::store_then_persist;
namespace fs = std::filesystem;

// Makes d a scratch directory on a device; false where there is none.
bool on_a_device(std::optional<scratch_dir>& d) {
  d.emplace();
  if (!in_memory(d->path())) return true;
  d.emplace(fs::current_path(), "journal");
  return !in_memory(d->path());
}

// Runs body in a child, which must end with crash() while its pools are
// still open: the process ends without running a destructor.
[[noreturn]] void crash() { ::_exit(0); }
void crash_after(const std::function<void()>& body) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      body();
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(5);  // the body returned: its pools were closed cleanly
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child failed";
}

void write_file(const fs::path& p, std::uint64_t offset, const void* data, std::size_t n) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, data, n, off_t(offset)), ssize_t(n));
  ::close(fd);
}

std::uint64_t read_word(const fs::path& p, std::uint64_t offset) {
  std::uint64_t w = 0;
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::pread(fd, &w, 8, off_t(offset)), 8);
  ::close(fd);
  return w;
}

// As if the page cache lost the pool's writes to these words: garbage in the file.
void lose_words(const fs::path& p, std::uint64_t offset, std::size_t words) {
  const std::vector<std::uint64_t> garbage(words, 0xdeaddeaddeaddeadull);
  write_file(p, offset, garbage.data(), words * 8);
}

// The region "data" of the fixture's pool, as words.
std::uint64_t* words(pm::pool& p) { return reinterpret_cast<std::uint64_t*>(p.find("data").data()); }

struct journal_fixture : ::testing::Test {
  void SetUp() override {
    if (!on_a_device(dir)) GTEST_SKIP() << "no directory on a device (temporary and working directories are in memory)";
    path = dir->path() / "j.pool";
    pm::pool p = pm::pool::create(path, 4 << 20, {.mode = pm::durability::msync});
    if (!p.journals()) GTEST_SKIP() << "persists are not journaled here (GPMX_GROUP_SYNC is set)";
    offset = p.create_region("data", 1 << 20).offset();
  }
  pm::pool reopen() const { return pm::pool::open(path, pm::durability::msync); }
  std::optional<scratch_dir> dir;
  fs::path path;
  std::uint64_t offset = 0;
};

using PersistJournal = journal_fixture;

TEST_F(PersistJournal, APersistLostFromThePoolFileIsReplayedAtOpen) {
  crash_after([&] {
    pm::pool p = reopen();
    auto* w = words(p);
    for (int i = 0; i < 8; ++i) w[i * 512] = 100 + i;  // eight pages, one word each
    for (int i = 0; i < 8; ++i) p.persist(&w[i * 512], 8);
    crash();
  });
  for (int i = 0; i < 8; ++i) lose_words(path, offset + i * 4096, 1);
  ASSERT_TRUE(fs::exists(pm::persist_journal::path_for(path)));
  pm::pool p = reopen();
  const std::uint64_t* w = words(p);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(w[i * 512], std::uint64_t(100 + i)) << i;
  EXPECT_EQ(read_word(path, offset + 7 * 4096), 107u) << "replay made the file hold it";
}

TEST_F(PersistJournal, ReplayIsTheLastPersistedValueAndAnUnpersistedStoreMayBeLost) {
  crash_after([&] {
    pm::pool p = reopen();
    auto* w = words(p);
    w[0] = 1;
    p.persist(w, 8);
    w[0] = 2;
    p.persist(w, 8);
    w[0] = 3;  // never persisted
    crash();
  });
  pm::pool p = reopen();
  EXPECT_EQ(words(p)[0], 2u);
}

TEST_F(PersistJournal, AReopenedPoolAppendsAfterTheRecordsItReplayed) {
  crash_after([&] {
    pm::pool p = reopen();
    auto* w = words(p);
    w[0] = 31;
    p.persist(w, 8);
    crash();
  });
  crash_after([&] {
    pm::pool p = reopen();  // replays, keeps the record
    auto* w = words(p);
    if (w[0] != 31) ::_exit(4);
    w[512] = 32;
    p.persist(&w[512], 8);
    crash();
  });
  lose_words(path, offset, 1);
  lose_words(path, offset + 4096, 1);
  pm::pool p = reopen();
  const std::uint64_t* w = words(p);
  EXPECT_EQ(w[0], 31u) << "the first crash's record was lost by the second run";
  EXPECT_EQ(w[512], 32u);
}

TEST_F(PersistJournal, APoolOpenedWithoutJournalingEmptiesWhatItReplayed) {
  crash_after([&] {
    pm::pool p = reopen();
    auto* w = words(p);
    w[0] = 41;
    p.persist(w, 8);
    crash();
  });
  {
    pm::pool p = pm::pool::open(path, pm::durability::none);  // not journaled: replays, syncs, empties
    EXPECT_FALSE(p.journals());
    auto* w = words(p);
    EXPECT_EQ(w[0], 41u);
    w[0] = 42;  // a store no record may roll back later
  }
  pm::pool p = reopen();
  EXPECT_EQ(words(p)[0], 42u);
}

TEST_F(PersistJournal, ACleanCloseLeavesNothingToReplay) {
  std::array<std::uint8_t, 16> uuid{};
  {
    pm::pool p = reopen();
    uuid = p.uuid();
    auto* w = words(p);
    w[0] = 5;
    p.persist(w, 8);
    w[1] = 6;  // not persisted: a clean close keeps it, as without the journal
  }
  const auto r = pm::persist_journal::replay(path, uuid.data());
  EXPECT_FALSE(r.foreign);
  EXPECT_EQ(r.records, 0u) << "the close synced the pool and emptied the journal";
  pm::pool p = reopen();
  const std::uint64_t* w = words(p);
  EXPECT_EQ(w[0], 5u);
  EXPECT_EQ(w[1], 6u);
}

TEST_F(PersistJournal, ATornLastRecordIsNotApplied) {
  crash_after([&] {
    pm::pool p = reopen();
    auto* w = words(p);
    w[0] = 11;
    p.persist(w, 8);
    w[512] = 22;
    p.persist(&w[512], 8);
    crash();
  });
  // Each record: 48-byte head, one 16-byte range, 8 data bytes = 72 bytes.
  const fs::path j = pm::persist_journal::path_for(path);
  const std::uint64_t second = pm::persist_journal::records_start + 72;
  const std::uint64_t flipped = read_word(j, second + 64) ^ 1;
  write_file(j, second + 64, &flipped, 8);
  lose_words(path, offset, 1);
  lose_words(path, offset + 4096, 1);
  pm::pool p = reopen();
  const std::uint64_t* w = words(p);
  EXPECT_EQ(w[0], 11u);
  EXPECT_EQ(w[512], 0xdeaddeaddeaddeadull) << "a record that fails its checksum was applied";
}

TEST_F(PersistJournal, AJournalWithNoValidHeaderStopsTheOpenAndWritesNothing) {
  crash_after([&] {
    pm::pool p = reopen();
    auto* w = words(p);
    w[0] = 9;
    p.persist(w, 8);
    crash();
  });
  lose_words(path, offset, 1);
  const fs::path j = pm::persist_journal::path_for(path);
  const std::vector<char> zeros(1024, 0);
  write_file(j, 0, zeros.data(), zeros.size());
  try {
    pm::pool::open(path, pm::durability::msync);
    FAIL() << "opened a pool whose journal is damaged";
  } catch (const pm::pm_error& e) {
    EXPECT_EQ(e.code(), pm::errc::checksum_mismatch);
    EXPECT_NE(std::string(e.what()).find(j.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_word(path, offset), 0xdeaddeaddeaddeadull);
  fs::remove(j);  // the way out the message names
  pm::pool p = reopen();
  EXPECT_EQ(words(p)[0], 0xdeaddeaddeaddeadull);
}

TEST_F(PersistJournal, AnotherPoolsJournalAtThePathIsIgnored) {
  crash_after([&] {
    pm::pool p = reopen();
    auto* w = words(p);
    w[0] = 77;
    p.persist(w, 8);
    crash();
  });
  fs::remove(path);
  {
    pm::pool fresh = pm::pool::create(path, 4 << 20, {.mode = pm::durability::msync});
    ASSERT_EQ(fresh.create_region("data", 1 << 20).offset(), offset);
  }
  pm::pool p = reopen();
  EXPECT_EQ(words(p)[0], 0u);
}

// A record holds 1, then a write through the file (`write` puts 2 in the
// word) and a crash: the reopened pool must hold 2, not the record's 1.
void expect_file_write_not_rolled_back(const journal_fixture& f,
                                       const std::function<void(pm::pool&, const pm::pool::file_write&)>& write) {
  crash_after([&] {
    pm::pool p = f.reopen();
    auto* w = words(p);
    w[0] = 1;
    p.persist(w, 8);
    ASSERT_TRUE(p.prefers_file_writes());
    static const std::uint64_t two = 2;
    write(p, {p.find("data").data(), reinterpret_cast<const std::byte*>(&two), 8});
    crash();
  });
  pm::pool p = f.reopen();
  EXPECT_EQ(words(p)[0], 2u);
}

TEST_F(PersistJournal, FileWritesOverJournaledBytesAreNotRolledBack) {
  expect_file_write_not_rolled_back(*this, [](pm::pool& p, const pm::pool::file_write& piece) {
    p.write_durably({&piece, 1});
  });
}

// The same for a write behind the file (a checkpoint's epoch word): its
// bytes reach the file at once, unsynced.
TEST_F(PersistJournal, WritesBehindOverJournaledBytesAreNotRolledBack) {
  expect_file_write_not_rolled_back(*this, [](pm::pool& p, const pm::pool::file_write& piece) {
    p.write_behind({&piece, 1});
  });
}

TEST_F(PersistJournal, AFullJournalSyncsThePoolAndStartsOver) {
  int pool_fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(pool_fd, 0);
  pm::pool p = reopen();
  const std::array<std::uint8_t, 16> uuid = p.uuid();
  auto* w = words(p);
  {
    // 2 MiB, the least: records of 64 KiB (a quarter of the records' room at most) fill it after 31.
    pm::persist_journal j(path, pool_fd, p.base(), p.size(), uuid.data(), 2 << 20);
    for (std::uint64_t i = 0; i < 40; ++i) {
      w[0] = i;
      j.append(std::vector<pm::persist_journal::range>{{offset, 64 << 10}});
    }
    const auto c = j.stats();
    EXPECT_EQ(c.records, 40u);
    EXPECT_EQ(c.pool_syncs, 1u);
    // A record larger than 1 MiB is not written: the pool is synced instead.
    j.append(std::vector<pm::persist_journal::range>{{offset, (1 << 20) + 8}});
    EXPECT_EQ(j.stats().records, 40u);
    EXPECT_EQ(j.stats().pool_syncs, 2u);
  }
  ::close(pool_fd);
}

// Group commit: a launch's persists go to the journal in few records, and
// what they made durable survives losing the pool's pages.
TEST_F(PersistJournal, GroupCommitFlushesAreRecordsThatReplay) {
  const std::uint32_t threads = 1024;
  crash_after([&] {
    pm::pool p = reopen();
    pm::region r = p.find("data");
    cpu::executor ex({.workers = 2, .group_commit = 1});
    ex.launch({dim3(threads / 256), dim3(256)}, store_then_persist{}, r.span<std::uint64_t>());
    const cpu::durability_stats s = ex.durability();
    if (s.waits != threads || s.calls != s.flushes) ::_exit(4);
    crash();
  });
  for (std::uint32_t i = 0; i < threads; ++i) lose_words(path, offset + std::uint64_t(i) * 512, 1);
  pm::pool p = reopen();
  const std::uint64_t* w = words(p);
  for (std::uint32_t i = 0; i < threads; ++i) ASSERT_EQ(w[std::size_t(i) * 64], i + 1) << i;
}

// A group flush records the words threads stored, not their lines: each
// thread's one word (lines 512 bytes apart) is a 16-byte range entry and 8
// bytes of data, and a neighbour word nobody persisted is not in a record.
TEST_F(PersistJournal, GroupCommitRecordsTheStoredWordsNotTheirLines) {
  const std::uint32_t threads = 1024;
  crash_after([&] {
    pm::pool p = reopen();
    pm::region r = p.find("data");
    words(p)[1] = 7;  // the neighbour of thread 0's word, stored by the host, never persisted
    cpu::executor ex({.workers = 2, .group_commit = 1});
    ex.launch({dim3(threads / 256), dim3(256)}, store_then_persist{}, r.span<std::uint64_t>());
    const pm::pool::journal_counts c = p.journal_stats();
    if (c.records == 0 || c.record_bytes != 48 * c.records + 24 * std::uint64_t(threads)) ::_exit(4);
    crash();
  });
  lose_words(path, offset, 2);
  for (std::uint32_t i = 1; i < threads; ++i) lose_words(path, offset + std::uint64_t(i) * 512, 1);
  pm::pool p = reopen();
  const std::uint64_t* w = words(p);
  for (std::uint32_t i = 0; i < threads; ++i) ASSERT_EQ(w[std::size_t(i) * 64], i + 1) << i;
  EXPECT_EQ(w[1], 0xdeaddeaddeaddeadull);
}

}  // namespace
