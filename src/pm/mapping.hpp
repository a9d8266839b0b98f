#pragma once
// A file mapped with libpmem, and persisting ranges of it under a
// durability setting.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>

#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/source_loc.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::pm {

class persist_journal;
struct journal_replay;

// How persists to a pool file on a device are made durable: appended to the
// pool's persist journal (the default; persist_journal.hpp), one fdatasync
// of the pool per group flush, or msync per merged range (the two former
// ways, kept to measure against). GPMX_GROUP_SYNC chooses; read once.
enum class group_sync_method { journal, fdatasync, msync };
group_sync_method group_sync();
// The journal's size: GPMX_JOURNAL_MIB (default 64), read once.
std::uint64_t journal_capacity();

class mapping {
 public:
  // Maps the whole existing file read-write. Errors name `shown`, the path
  // the user knows (create maps a temporary name first).
  mapping(const std::filesystem::path& path, const std::filesystem::path& shown, durability mode);
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;
  ~mapping();

  std::byte* base() const { return base_; }
  std::uint64_t size() const { return size_; }
  bool is_pmem() const { return is_pmem_; }
  // Whether the file lives in memory (tmpfs, ramfs): msync there writes no device.
  bool in_memory_fs() const { return in_memory_fs_; }
  durability mode() const { return mode_; }
  // Throws pm_error(io) if msync fails; a range outside the mapping is bad_argument.
  // `loc` is reported to a trace recorder watching the mapping (host persists).
  void persist(const void* p, std::uint64_t bytes, source_loc loc = source_loc::current()) const;
  // persist(p, bytes) on behalf of requests for `asked` bytes of the range
  // (group commit merges many threads' lines into one range): only `asked`
  // counts as persisted, so the count means what programs asked for.
  void persist_merged(const void* p, std::uint64_t bytes, std::uint64_t asked) const;
  // Whether a flush is an msync (the msync setting, or pmem on a file that
  // is not real PM).
  bool syncs_pages() const { return mode_ == durability::msync || (mode_ == durability::pmem && !is_pmem_); }
  // Whether group flushes go to the file at once: one journal record, or
  // one fdatasync of the file (a file on a device that syncs pages, unless
  // GPMX_GROUP_SYNC=msync).
  bool syncs_whole_file() const { return sync_fd_ >= 0; }
  // From now on, persists of a file on a device go through the persist
  // journal of the pool at `pool_path` (its name, once created), unless
  // GPMX_GROUP_SYNC or a trace recorder watching the host says otherwise.
  // Before the mapping is shared with other threads. `replayed`: what
  // replay found (its records are appended after, or, if this mapping does
  // not journal, synced into the pool and emptied).
  void journal_persists(const std::filesystem::path& pool_path, const std::uint8_t* uuid,
                        const journal_replay* replayed = nullptr);
  // Whether persists are appended to the pool's journal.
  bool journals() const { return journal_ != nullptr; }
  pool::journal_counts journal_stats() const;
  // Makes all the ranges durable for group commit with one journal record,
  // or one fdatasync of the file (one device flush for the group, where an
  // msync per range pays one each; docs/benchmarks.md measures all three).
  // Needs syncs_whole_file().
  void persist_group(const persist_domain::merged_range* ranges, std::size_t n) const;
  // Where a file write and one fdatasync beat stores and msync (a file on a
  // device under msync durability; writing through a shared mapping on ext4
  // costs a fault and a journal handle per page): write_and_sync may be
  // used. Not while a trace recorder watches the host (it sees stores).
  bool writes_through_file() const;
  // Returns the bytes written.
  std::uint64_t write_and_sync(std::span<const pool::file_write> pieces, const std::function<void()>& after_each,
                               const std::function<void()>& before_last) const;
  // Writes the pieces through the file and starts their writeback without
  // waiting for it (pool::write_behind).
  void write_behind(std::span<const pool::file_write> pieces) const;
  // Bytes asked to be persisted so far (under every setting, none included).
  std::uint64_t bytes_persisted() const { return persisted_.load(std::memory_order_relaxed); }

 private:
  void check_inside(const void* p, std::uint64_t bytes) const;
  // Refuses file writes to a pool that is not synced through its file, or
  // pieces outside the mapping.
  void check_file_writes(std::span<const pool::file_write> pieces) const;
  // After file writes: empties the journal if a record covers a piece.
  void forget_records_under(std::span<const pool::file_write> pieces) const;
  // Writes contiguous pieces together, a MiB at a time, starting the
  // writeback of each write of at least `early_writeback` bytes; calls
  // after_each after each write. Returns the bytes written.
  std::uint64_t write_runs(std::span<const pool::file_write> pieces, std::uint64_t early_writeback,
                           const std::function<void()>& after_each) const;
  void flush(const void* p, std::uint64_t bytes) const;
  void populate_if_small();
  std::filesystem::path path_;
  std::byte* base_ = nullptr;
  std::uint64_t size_ = 0;
  bool is_pmem_ = false;
  bool in_memory_fs_ = false;
  int sync_fd_ = -1;  // the file, open for fdatasync where group flushes use it
  std::unique_ptr<persist_journal> journal_;  // where persists go on a device, if journaled
  durability mode_;
  mutable std::atomic<std::uint64_t> persisted_{0};
};

}  // namespace gpmx::pm
