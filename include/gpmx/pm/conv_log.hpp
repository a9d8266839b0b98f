#pragma once
// Conventional logging (GPM section 5.2): the log is split into partitions
// and each insert appends to one partition under that partition's lock. An
// entry is its payload (padded to 8 bytes) followed by its size, so the most
// recent entry can be read and removed from the tail; the tail is persisted
// after the entry, so an entry is in the log whole or not at all.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/pm/log_fail.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::pm {

struct conv_view {
  std::byte* data = nullptr;        // partitions, partition_bytes each
  std::uint64_t* tails = nullptr;   // bytes used, per partition (in PM)
  std::uint32_t* locks = nullptr;   // one per partition (volatile memory)
  std::uint32_t partitions = 0;
  std::uint64_t partition_bytes = 0;
  const persist_domain* domain = nullptr;

  static constexpr GPMX_HD std::uint64_t record_bytes(std::uint64_t bytes) { return (bytes + 7) / 8 * 8 + 8; }

  // partition < 0 picks the calling block's partition (block rank modulo the count).
  template <class Ctx>
  GPMX_HD void insert(Ctx& t, const void* src, std::size_t bytes, int partition = -1,
                      ordering o = ordering::epoch) const {
    const std::uint32_t p = pick(t, partition);
    const std::uint64_t rec = record_bytes(bytes);
    if (rec > partition_bytes) detail::log_fail(errc::log_entry_too_large, "conventional", "entry of {} bytes exceeds the {}-byte partition", bytes, partition_bytes);
    lock(t, p);
    const std::uint64_t tail = tails[p];
    if (tail + rec > partition_bytes) {
      unlock(t, p);
      detail::log_fail(errc::log_full, "conventional", "entry of {} bytes does not fit: {} bytes of the partition are used", bytes, tail);
    }
    std::byte* at = data + p * partition_bytes + tail;
    memcpy(at, src, bytes);
    const std::uint64_t size = bytes;
    memcpy(at + rec - 8, &size, 8);
    note_pm_store(t, domain, at, rec);
    order_persists(t, o);  // the entry persists before the tail names it
    tails[p] = tail + rec;
    note_pm_store(t, domain, &tails[p], 8);
    order_persists(t, o);
    unlock(t, p);
  }

  // Copies the partition's most recent entry (which must be `bytes` long).
  template <class Ctx>
  GPMX_HD void read(Ctx& t, void* dst, std::size_t bytes, int partition = -1) const {
    const std::uint32_t p = pick(t, partition);
    lock(t, p);
    const std::byte* at = last_entry(t, p, bytes, "read of {} bytes from empty partition {}");
    memcpy(dst, at, bytes);
    unlock(t, p);
  }

  template <class Ctx>
  GPMX_HD void remove(Ctx& t, std::size_t bytes, int partition = -1, ordering o = ordering::epoch) const {
    const std::uint32_t p = pick(t, partition);
    lock(t, p);
    last_entry(t, p, bytes, "remove of {} bytes from empty partition {}");
    tails[p] -= record_bytes(bytes);
    note_pm_store(t, domain, &tails[p], 8);
    order_persists(t, o);
    unlock(t, p);
  }

  template <class Ctx>
  GPMX_HD std::uint64_t size(Ctx& t, int partition = -1) const { return tails[pick(t, partition)]; }
  template <class Ctx>
  GPMX_HD bool is_empty(Ctx& t, int partition = -1) const { return size(t, partition) == 0; }

 private:
  template <class Ctx>
  GPMX_HD std::uint32_t pick(Ctx& t, int partition) const {
    if (partition >= int(partitions)) detail::log_fail(errc::bad_argument, "conventional", "partition {} of {}", std::uint64_t(partition), partitions);
    return partition < 0 ? std::uint32_t(t.block_rank() % partitions) : std::uint32_t(partition);
  }
  template <class Ctx>
  GPMX_HD void lock(Ctx& t, std::uint32_t p) const {
    t.spin_wait([&] { return t.atomic_cas(&locks[p], 0u, 1u, memory_order::acquire) == 0u; });
  }
  template <class Ctx>
  GPMX_HD void unlock(Ctx& t, std::uint32_t p) const {
    t.atomic_store(&locks[p], 0u, memory_order::release);
  }
  // The most recent entry of partition p, checked to be `bytes` long; unlocks
  // on error. `empty_message` says which operation found the partition empty.
  template <class Ctx>
  GPMX_HD const std::byte* last_entry(Ctx& t, std::uint32_t p, std::size_t bytes, const char* empty_message) const {
    const std::uint64_t tail = tails[p];
    if (tail == 0) {
      unlock(t, p);
      detail::log_fail(errc::log_empty, "conventional", empty_message, bytes, p);
    }
    // A tail or size word a crash cannot leave: reading with it would leave the partition.
    if (tail > partition_bytes || tail % 8 != 0) {
      unlock(t, p);
      detail::log_fail(errc::corrupt_value, "conventional", "the tail {} lies outside the {}-byte partition", tail, partition_bytes);
    }
    std::uint64_t size = 0;
    memcpy(&size, data + p * partition_bytes + tail - 8, 8);
    if (size > tail - 8) {
      unlock(t, p);
      detail::log_fail(errc::corrupt_value, "conventional", "the last entry's size {} exceeds the {} bytes before it", size, tail - 8);
    }
    if (size != bytes) {
      unlock(t, p);
      detail::log_fail(errc::bad_argument, "conventional", "the last entry is {} bytes, not {}", size, bytes);
    }
    return data + p * partition_bytes + tail - record_bytes(size);
  }
};

class conv_log {
 public:
  static conv_log create(const std::filesystem::path& path, std::uint64_t bytes, std::uint32_t partitions,
                         durability mode = durability::pmem);
  static conv_log open(const std::filesystem::path& path, durability mode = durability::pmem);

  conv_view view() const { return view_; }
  void clear(int partition = -1);  // -1: every partition
  std::uint64_t size_of(std::uint32_t partition) const;
  pool& file() { return *pool_; }

 private:
  conv_log(std::unique_ptr<pool> p, conv_view v, kernel_vector<std::uint32_t> locks)
      : pool_(std::move(p)), view_(v), locks_(std::move(locks)) {}
  std::unique_ptr<pool> pool_;
  conv_view view_;
  kernel_vector<std::uint32_t> locks_;
};

}  // namespace gpmx::pm
