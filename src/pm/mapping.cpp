#include "mapping.hpp"

#include <libpmem.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>
#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/observer.hpp"
#include "file_io.hpp"
#include "persist_journal.hpp"

namespace gpmx::pm {

group_sync_method group_sync() {
  static const group_sync_method m = [] {
    const char* e = std::getenv("GPMX_GROUP_SYNC");
    if (e == nullptr || *e == 0 || std::string_view(e) == "journal") return group_sync_method::journal;
    if (std::string_view(e) == "fdatasync") return group_sync_method::fdatasync;
    if (std::string_view(e) == "msync") return group_sync_method::msync;
    throw config_error(
        fmt::format("environment variable GPMX_GROUP_SYNC='{}' is not one of journal, fdatasync, msync", e));
  }();
  return m;
}

std::uint64_t journal_capacity() {
  static const std::uint64_t bytes = [] {
    const char* e = std::getenv("GPMX_JOURNAL_MIB");
    if (e == nullptr || *e == 0) return std::uint64_t(64) << 20;
    char* end = nullptr;
    errno = 0;
    const unsigned long long mib = std::strtoull(e, &end, 10);
    if (errno != 0 || *end != 0 || *e == '-' || mib < 2 || mib > 65536)
      throw config_error(fmt::format("environment variable GPMX_JOURNAL_MIB='{}' is not a whole number of MiB "
                                     "in [2, 65536]", e));
    return std::uint64_t(mib) << 20;
  }();
  return bytes;
}

mapping::mapping(const std::filesystem::path& path, const std::filesystem::path& shown, durability mode)
    : path_(shown), mode_(mode) {
  std::size_t len = 0;
  int is_pmem = 0;
  void* p = pmem_map_file(path.c_str(), 0, 0, 0, &len, &is_pmem);
  if (!p)
    throw pm_error(errc::io, fmt::format("{}: cannot map: {}", shown.string(), pmem_errormsg()));
  base_ = static_cast<std::byte*>(p);
  size_ = len;
  is_pmem_ = is_pmem != 0;
  struct statfs fs {};
  in_memory_fs_ = ::statfs(path.c_str(), &fs) == 0 &&
                  (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
  populate_if_small();
  const group_sync_method sync = group_sync();  // a bad GPMX_GROUP_SYNC is reported wherever the pool is
  if (syncs_pages() && !in_memory_fs_ && sync != group_sync_method::msync)
    sync_fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);  // -1: group flushes msync each range
  if (observer* o = host_observer()) o->pool_mapped(base_, size_, shown.string());
}

void mapping::journal_persists(const std::filesystem::path& pool_path, const std::uint8_t* uuid,
                               const journal_replay* replayed) {
  // A trace recorder's run keeps the former way: its directory is copied
  // into crash images, and a journal there would replay over them.
  if (sync_fd_ >= 0 && group_sync() == group_sync_method::journal && host_observer() == nullptr) {
    journal_ = std::make_unique<persist_journal>(pool_path, sync_fd_, base_, size_, uuid, journal_capacity(), replayed);
    return;
  }
  // Persists will not go to the journal: records left in it would replay
  // over them later.
  if (replayed != nullptr) persist_journal::empty_kept(pool_path, *replayed);
}

void mapping::populate_if_small() {
  // A small pool in memory gets its page tables at once: one system call
  // instead of a page fault per 16 pages touched. The checker opens a pool
  // per crash image; on gpKVS this removed a sixth of an image's page
  // faults (docs/check.md). Large pools, or pools on disk, fault in as used:
  // populating would read, or allocate, all of them.
  constexpr std::size_t most = std::size_t(8) << 20;
#ifdef MADV_POPULATE_WRITE
  if (in_memory_fs_ && size_ <= most) (void)::madvise(base_, size_, MADV_POPULATE_WRITE);  // a hint: failure is harmless
#endif
}

pool::journal_counts mapping::journal_stats() const {
  if (!journal_) return {};
  const persist_journal::counts c = journal_->stats();
  return {c.records, c.record_bytes, c.pool_syncs};
}

mapping::~mapping() {
  journal_.reset();  // syncs the pool and empties the journal while the file is open
  if (sync_fd_ >= 0) ::close(sync_fd_);
  if (!base_) return;
  if (observer* o = host_observer()) o->pool_unmapped(base_);
  pmem_unmap(base_, size_);
}

void mapping::persist(const void* p, std::uint64_t bytes, source_loc loc) const {
  check_inside(p, bytes);
  persisted_.fetch_add(bytes, std::memory_order_relaxed);
  if (observer* o = host_observer()) o->host_persist(p, bytes, loc);
  flush(p, bytes);
}

void mapping::persist_merged(const void* p, std::uint64_t bytes, std::uint64_t asked) const {
  check_inside(p, bytes);
  persisted_.fetch_add(asked, std::memory_order_relaxed);
  flush(p, bytes);
}

void mapping::persist_group(const persist_domain::merged_range* ranges, std::size_t n) const {
  std::uint64_t asked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    check_inside(ranges[i].p, ranges[i].bytes);
    asked += ranges[i].asked;
  }
  if (journal_) {
    thread_local std::vector<persist_journal::range> in_file;
    in_file.clear();
    for (std::size_t i = 0; i < n; ++i)
      in_file.push_back({std::uint64_t(static_cast<const std::byte*>(ranges[i].p) - base_), ranges[i].bytes});
    journal_->append(in_file);
    persisted_.fetch_add(asked, std::memory_order_relaxed);
    return;
  }
  // fdatasync writes back every dirty page of the file (the ranges and any
  // page other threads dirtied: durable early, which PM allows too) and
  // flushes the device once; an msync per range would flush it per range.
  if (n > 0 && ::fdatasync(sync_fd_) != 0)
    throw pm_error(errc::io, fmt::format("{}: fdatasync for {} ranges ({} bytes asked) failed: {}", path_.string(), n,
                                         asked, std::strerror(errno)));
  persisted_.fetch_add(asked, std::memory_order_relaxed);
}

bool mapping::writes_through_file() const { return sync_fd_ >= 0 && host_observer() == nullptr; }

namespace {
// A write through the file goes out in runs of at most this many bytes, so
// the device writes one run back while the next is copied into the page
// cache (the sync at the end then waits for less).
constexpr std::uint64_t writeback_run = std::uint64_t(1) << 20;
// Before a sync, runs at least this large have their writeback started at
// once; smaller ones wait for the sync, which sends them with what follows
// in one request.
constexpr std::uint64_t early_writeback_min = std::uint64_t(256) << 10;
}  // namespace

void mapping::check_file_writes(std::span<const pool::file_write> pieces) const {
  if (sync_fd_ < 0) throw pm_error(errc::bad_argument, fmt::format("{}: file writes asked for, but the pool is not a file "
                                                                   "synced with fdatasync", path_.string()));
  for (const pool::file_write& w : pieces) check_inside(w.dst, w.bytes);
}

void mapping::forget_records_under(std::span<const pool::file_write> pieces) const {
  if (!journal_) return;
  // A record holding older bytes of a piece must not replay over it (rare:
  // it empties the journal).
  std::vector<persist_journal::range> written;
  for (const pool::file_write& w : pieces) written.push_back({std::uint64_t(w.dst - base_), w.bytes});
  journal_->synced_by_file(written);
}

std::uint64_t mapping::write_runs(std::span<const pool::file_write> ps, std::uint64_t early_writeback,
                                  const std::function<void()>& after_each) const {
  std::uint64_t total = 0;
  std::vector<iovec> run;
  std::size_t i = 0;
  std::uint64_t in_piece = 0;  // bytes of ps[i] already written
  while (i < ps.size()) {
    if (ps[i].bytes == 0) {
      ++i;
      continue;
    }
    const std::byte* const start = ps[i].dst + in_piece;
    std::uint64_t bytes = 0;
    run.clear();
    while (i < ps.size() && ps[i].dst + in_piece == start + bytes && bytes < writeback_run) {
      const std::uint64_t take = std::min(ps[i].bytes - in_piece, writeback_run - bytes);
      run.push_back({const_cast<std::byte*>(ps[i].src + in_piece), take});
      bytes += take;
      in_piece += take;
      if (in_piece == ps[i].bytes) ++i, in_piece = 0;
    }
    const std::uint64_t offset = std::uint64_t(start - base_);
    if (const int err = pwritev_all(sync_fd_, run, offset))
      throw pm_error(errc::io, fmt::format("{}: writing {} bytes at offset {} failed: {}", path_.string(), bytes,
                                           offset, std::strerror(err)));
    // Advisory: a failed writeback is reported by the next fdatasync.
    if (bytes >= early_writeback) ::sync_file_range(sync_fd_, off_t(offset), off_t(bytes), SYNC_FILE_RANGE_WRITE);
    total += bytes;
    if (after_each) after_each();
  }
  return total;
}

void mapping::write_behind(std::span<const pool::file_write> pieces) const {
  check_file_writes(pieces);
  write_runs(pieces, 0, {});
  forget_records_under(pieces);
}

std::uint64_t mapping::write_and_sync(std::span<const pool::file_write> pieces, const std::function<void()>& after_each,
                                      const std::function<void()>& before_last) const {
  check_file_writes(pieces);
  // Pieces whose destinations follow one another go out as one pwritev:
  // a save of many small elements costs one system call, as CAP-fs's one
  // write of its staging buffer.
  std::uint64_t total = 0;
  if (before_last && !pieces.empty()) {
    total += write_runs(pieces.first(pieces.size() - 1), early_writeback_min, after_each);
    before_last();
    total += write_runs(pieces.last(1), early_writeback_min, after_each);
  } else {
    total += write_runs(pieces, early_writeback_min, after_each);
  }
  if (::fdatasync(sync_fd_) != 0)
    throw pm_error(errc::io, fmt::format("{}: fdatasync after writing {} bytes failed: {}", path_.string(), total,
                                         std::strerror(errno)));
  forget_records_under(pieces);
  persisted_.fetch_add(total, std::memory_order_relaxed);
  return total;
}

void mapping::check_inside(const void* p, std::uint64_t bytes) const {
  const auto* b = static_cast<const std::byte*>(p);
  if (b < base_ || b + bytes > base_ + size_)
    throw pm_error(errc::bad_argument,
                   fmt::format("{}: persist of {} bytes at offset {} lies outside the {}-byte mapping",
                               path_.string(), bytes, b - base_, size_));
}

void mapping::flush(const void* p, std::uint64_t bytes) const {
  const auto* b = static_cast<const std::byte*>(p);
  if (bytes == 0 || mode_ == durability::none) return;
  if ((mode_ == durability::pmem && is_pmem_) || mode_ == durability::flush) {
    pmem_persist(p, bytes);
    return;
  }
  // On tmpfs and ramfs an msync makes nothing more durable: Linux's fsync
  // there is a no-op (the page cache is the file, with no device behind
  // it), so the system call is skipped and the stores are exactly as
  // durable as after it (they survive a crash of the process, not of the
  // machine).
  if (in_memory_fs_) return;
  if (journal_) {
    const persist_journal::range r{std::uint64_t(b - base_), bytes};
    journal_->append({&r, 1});
    return;
  }
  if (pmem_msync(p, bytes) != 0)
    throw pm_error(errc::io, fmt::format("{}: msync of {} bytes at offset {} failed: {}", path_.string(),
                                         bytes, b - base_, std::strerror(errno)));
}

}  // namespace gpmx::pm
