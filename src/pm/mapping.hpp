#pragma once
// A file mapped with libpmem, and persisting ranges of it under a
// durability setting.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>

#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/source_loc.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::pm {

// How a group commit flush of a file on a device is made durable:
// fdatasync once per file (the default), or msync per merged range (the
// former way, kept to measure against). GPMX_GROUP_SYNC chooses; read once.
enum class group_sync_method { fdatasync, msync };
group_sync_method group_sync();

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
  // Whether group flushes use one fdatasync of the file (a file on a
  // device that syncs pages, GPMX_GROUP_SYNC=fdatasync).
  bool syncs_whole_file() const { return sync_fd_ >= 0; }
  // Makes all the ranges durable for group commit with one fdatasync of the
  // file (one device flush for the group, where an msync per range pays one
  // each; docs/benchmarks.md measures both). Needs syncs_whole_file().
  void persist_group(const persist_domain::merged_range* ranges, std::size_t n) const;
  // Where a file write and one fdatasync beat stores and msync (a file on a
  // device under msync durability; writing through a shared mapping on ext4
  // costs a fault and a journal handle per page): write_and_sync may be
  // used. Not while a trace recorder watches the host (it sees stores).
  bool writes_through_file() const;
  // Returns the bytes written.
  std::uint64_t write_and_sync(std::span<const pool::file_write> pieces, const std::function<void()>& after_each) const;
  // Bytes asked to be persisted so far (under every setting, none included).
  std::uint64_t bytes_persisted() const { return persisted_.load(std::memory_order_relaxed); }

 private:
  void check_inside(const void* p, std::uint64_t bytes) const;
  void flush(const void* p, std::uint64_t bytes) const;
  void populate_if_small();
  std::filesystem::path path_;
  std::byte* base_ = nullptr;
  std::uint64_t size_ = 0;
  bool is_pmem_ = false;
  bool in_memory_fs_ = false;
  int sync_fd_ = -1;  // the file, open for fdatasync where group flushes use it
  durability mode_;
  mutable std::atomic<std::uint64_t> persisted_{0};
};

}  // namespace gpmx::pm
