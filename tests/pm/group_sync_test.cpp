// Group commit on a pool in a file on a device (not tmpfs), msync
// durability: the flusher makes each flush durable with one fdatasync of the
// file, however many ranges it holds, and a checkpoint save on such a file
// makes all its chunks durable with one sync after the copy. Skips (saying
// so) where the temporary directory is in memory.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/checkpoint.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "on_a_device.hpp"

namespace {
using namespace gpmx;
using test::in_memory;
using test::store_then_persist;

// The file's bytes at `offset`, read through the file, not the mapping.
std::vector<std::uint64_t> file_words(const std::filesystem::path& path, std::uint64_t offset, std::size_t n) {
  std::vector<std::uint64_t> out(n);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::pread(fd, out.data(), n * 8, off_t(offset)), ssize_t(n * 8));
  ::close(fd);
  return out;
}

// Extents of the file that are reserved but unwritten; -1 where the file
// system cannot say (no FIEMAP).
int unwritten_extents(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  constexpr unsigned max_extents = 256;
  std::vector<std::byte> buf(sizeof(fiemap) + max_extents * sizeof(fiemap_extent));
  auto* m = reinterpret_cast<fiemap*>(buf.data());
  m->fm_length = FIEMAP_MAX_OFFSET;
  m->fm_flags = FIEMAP_FLAG_SYNC;
  m->fm_extent_count = max_extents;
  const int rc = ::ioctl(fd, FS_IOC_FIEMAP, m);
  ::close(fd);
  if (rc != 0) return -1;
  int n = 0;
  for (unsigned i = 0; i < m->fm_mapped_extents; ++i) n += (m->fm_extents[i].fe_flags & FIEMAP_EXTENT_UNWRITTEN) != 0;
  return n;
}

TEST(GroupSync, OneFdatasyncPerFlushOfAFileOnADevice) {
  scratch_dir dir;
  if (in_memory(dir.path())) GTEST_SKIP() << "the temporary directory is in memory: no device to sync";
  const auto path = dir.path() / "g.pool";
  pm::pool pool = pm::pool::create(path, 8 << 20, {.mode = pm::durability::msync});
  const std::uint32_t threads = 2048;
  pm::region r = pool.create_region("words", std::uint64_t(threads) * 64 * 8);
  const std::uint64_t before = pool.bytes_persisted();
  cpu::executor ex({.workers = 2, .group_commit = 1});
  ex.launch({dim3(threads / 256), dim3(256)}, store_then_persist{}, r.span<std::uint64_t>());
  const cpu::durability_stats s = ex.durability();
  ASSERT_GT(s.flushes, 0u);
  EXPECT_EQ(s.waits, threads);
  EXPECT_EQ(s.calls, s.flushes);  // one call (the fdatasync) per flush: one pool
  // What was asked for: a journal is given each thread's stored word, a
  // file sync the lines around them.
  const std::uint64_t asked = pool.journals() ? sizeof(std::uint64_t) : 64;
  EXPECT_EQ(pool.bytes_persisted() - before, std::uint64_t(threads) * asked);
  const auto words = file_words(path, r.offset(), std::size_t(threads) * 64);
  for (std::uint32_t i = 0; i < threads; ++i) ASSERT_EQ(words[std::size_t(i) * 64], i + 1) << i;
}

TEST(GroupSync, APoolOnADeviceWritesPiecesThroughTheFileAndSyncsOnce) {
  scratch_dir dir;
  if (in_memory(dir.path())) GTEST_SKIP() << "the temporary directory is in memory: no device to sync";
  const auto path = dir.path() / "w.pool";
  pm::pool pool = pm::pool::create(path, 1 << 20, {.mode = pm::durability::msync});
  ASSERT_TRUE(pool.prefers_file_writes());
  pm::region r = pool.create_region("data", 64 * 1024);
  std::vector<std::uint64_t> a(1000, 0), b(3000, 0);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = i + 7;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = i * 11;
  // 1,500 one-word pieces right after `a` (more than IOV_MAX buffers in
  // one run), then `b` apart from them, at 32 KiB.
  std::vector<std::uint64_t> words(1500);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = i ^ 0x5555;
  const std::uint64_t before = pool.bytes_persisted();
  std::vector<pm::pool::file_write> pieces{{r.data(), reinterpret_cast<const std::byte*>(a.data()), a.size() * 8}};
  for (std::size_t i = 0; i < words.size(); ++i)
    pieces.push_back({r.data() + (a.size() + i) * 8, reinterpret_cast<const std::byte*>(&words[i]), 8});
  pieces.push_back({r.data() + 32 * 1024, reinterpret_cast<const std::byte*>(b.data()), b.size() * 8});
  int writes = 0;
  pool.write_durably(pieces, [&] { ++writes; });
  EXPECT_EQ(writes, 2) << "one write for the pieces that follow one another, one for b";
  EXPECT_EQ(pool.bytes_persisted() - before, (a.size() + words.size() + b.size()) * 8);
  EXPECT_EQ(file_words(path, r.offset(), a.size()), a);
  EXPECT_EQ(file_words(path, r.offset() + a.size() * 8, words.size()), words);
  EXPECT_EQ(file_words(path, r.offset() + 32 * 1024, b.size()), b);
  EXPECT_EQ(r.as<std::uint64_t>()[4096 + 2999], 2999u * 11) << "the mapping sees what the file got";
  const std::vector<pm::pool::file_write> outside{{r.data() + (1 << 20), reinterpret_cast<const std::byte*>(a.data()), 8}};
  EXPECT_THROW(pool.write_durably(outside), pm::pm_error);
}

// Large writes go out a MiB at a time (the device writes one back while
// the next is copied); the last piece is written after before_last ran.
TEST(GroupSync, AWriteThroughTheFileGoesOutInMiBRunsAndItsLastPieceAfterBeforeLast) {
  scratch_dir dir;
  if (in_memory(dir.path())) GTEST_SKIP() << "the temporary directory is in memory: no device to sync";
  const auto path = dir.path() / "m.pool";
  pm::pool pool = pm::pool::create(path, 8 << 20, {.mode = pm::durability::msync});
  pm::region r = pool.create_region("data", 4 << 20);
  std::vector<std::uint64_t> big((5 << 20) / 16), small(100);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i * 0x9e3779b97f4a7c15ull;
  std::uint64_t last = 0;
  const std::vector<pm::pool::file_write> pieces{
      {r.data(), reinterpret_cast<const std::byte*>(big.data()), big.size() * 8},  // 2.5 MiB: three runs
      {r.data() + big.size() * 8, reinterpret_cast<const std::byte*>(small.data()), small.size() * 8},
      {r.data() + (3 << 20), reinterpret_cast<const std::byte*>(&last), 8}};
  int writes = 0, writes_before_last = -1;
  pool.write_durably(pieces, [&] { ++writes; }, [&] {
    writes_before_last = writes;
    last = 0xfeedull;
  });
  EXPECT_EQ(writes_before_last, 3) << "MiB, MiB, then the last half MiB with the piece that follows it";
  EXPECT_EQ(writes, 4);
  EXPECT_EQ(file_words(path, r.offset(), big.size()), big);
  EXPECT_EQ(file_words(path, r.offset() + big.size() * 8, small.size()), small);
  EXPECT_EQ(file_words(path, r.offset() + (3 << 20), 1), std::vector<std::uint64_t>{0xfeedull});
}

TEST(GroupSync, APoolInMemoryOrWithoutSyncsPrefersStores) {
  scratch_dir dir;
  pm::pool flushed = pm::pool::create(dir.path() / "f.pool", 1 << 20, {.mode = pm::durability::flush});
  EXPECT_FALSE(flushed.prefers_file_writes());
  if (std::filesystem::exists("/dev/shm")) {
    scratch_dir shm("/dev/shm", "group-sync");
    pm::pool in_memory_pool = pm::pool::create(shm.path() / "m.pool", 1 << 20, {.mode = pm::durability::msync});
    EXPECT_FALSE(in_memory_pool.prefers_file_writes());
  }
}

TEST(GroupSync, CheckpointSaveOnADeviceSyncsOnceAfterTheCopy) {
  scratch_dir dir;
  if (in_memory(dir.path())) GTEST_SKIP() << "the temporary directory is in memory: no device to sync";
  const auto path = dir.path() / "c.cp";
  std::vector<std::uint64_t> a(1 << 16), b(3000);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = i * 3;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = ~i;
  auto cp = pm::checkpoint::create(path, (a.size() + b.size()) * 8 + 4096, 2, 1, pm::durability::msync);
  cp.register_buffer(0, a.data(), a.size() * 8);
  cp.register_buffer(0, b.data(), b.size() * 8);
  cpu::executor ex({.workers = 2});
  cp.save(0, ex);
  std::fill(a.begin(), a.end(), 0);
  std::fill(b.begin(), b.end(), 0);
  cp.restore(0, ex);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], i * 3) << i;
  for (std::size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], ~i) << i;
  EXPECT_EQ(cp.epoch(0), 1u);
}

// Elements whose sizes leave alignment gaps between them still go out as
// one write (the gaps written as zeros), then the seal.
TEST(GroupSync, CheckpointSaveOnADeviceWritesItsCopyInOneWrite) {
  scratch_dir dir;
  if (in_memory(dir.path())) GTEST_SKIP() << "the temporary directory is in memory: no device to sync";
  std::vector<std::vector<std::uint32_t>> elements{std::vector<std::uint32_t>(1001), std::vector<std::uint32_t>(3),
                                                   std::vector<std::uint32_t>(4096), std::vector<std::uint32_t>(17)};
  std::uint32_t v = 1;
  for (auto& e : elements)
    for (auto& x : e) x = v++ * 2654435761u;
  const auto want = elements;
  cpu::executor ex({.workers = 2});
  {
    auto cp = pm::checkpoint::create(dir.path() / "g.cp", 64 * 1024, std::uint32_t(elements.size()), 1,
                                     pm::durability::msync);
    for (auto& e : elements) cp.register_buffer(0, e.data(), e.size() * 4);
    crash_trigger::arm(0, nullptr);  // count only
    cp.save(0, ex);
    const std::uint64_t writes = crash_trigger::count();
    crash_trigger::disarm();
    EXPECT_EQ(writes, 2u) << "a crash point after each write: the copy, then its seal";
  }
  {  // The epoch word was written behind the save (the file holds it).
    const auto meta = pm::pool::open(dir.path() / "g.cp", pm::durability::none).find("gpmcp.meta").offset();
    EXPECT_EQ(file_words(dir.path() / "g.cp", meta + 128, 1), std::vector<std::uint64_t>{1});
  }
  for (auto& e : elements) std::fill(e.begin(), e.end(), 0u);
  // Reopened: the copy's seal must match what the file holds.
  auto cp = pm::checkpoint::open(dir.path() / "g.cp", pm::durability::msync);
  for (auto& e : elements) cp.register_buffer(0, e.data(), e.size() * 4);
  cp.restore(0, ex);
  EXPECT_EQ(elements, want);
}

// A checkpoint's pool is created with its blocks written (its saves sync
// them through the file); a plain pool's are only reserved.
TEST(GroupSync, ACheckpointPoolHasNoUnwrittenBlocks) {
  scratch_dir dir;
  if (in_memory(dir.path())) GTEST_SKIP() << "the temporary directory is in memory: no blocks to write";
  const auto plain = dir.path() / "plain.pool";
  { pm::pool p = pm::pool::create(plain, 4 << 20, {.mode = pm::durability::msync}); }
  const int reserved = unwritten_extents(plain);
  if (reserved <= 0) GTEST_SKIP() << "this file system reports no unwritten extents (FIEMAP): nothing to compare";
  { pm::pool p = pm::pool::create(dir.path() / "written.pool", 4 << 20, {.mode = pm::durability::msync, .write_blocks = true}); }
  EXPECT_EQ(unwritten_extents(dir.path() / "written.pool"), 0);
  { auto cp = pm::checkpoint::create(dir.path() / "c.cp", 1 << 20, 2, 2, pm::durability::msync); }
  EXPECT_EQ(unwritten_extents(dir.path() / "c.cp"), 0);
}

}  // namespace
