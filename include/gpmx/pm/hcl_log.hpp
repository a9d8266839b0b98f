#pragma once
// Hierarchical coalesced logging (GPM section 5.2): every logging thread
// owns a slot whose place follows from its block, warp and lane, so inserts
// take no lock. The 4-byte words of the 32 lanes of a warp are striped: word
// j of every lane's stream lies in one 128-byte line, so a warp-wide append
// writes whole lines. Each thread's tail (words committed) is persisted after
// the entry, so an entry is in the log whole or not at all.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "gpmx/pm/log_fail.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::pm {

// What kernels receive: trivially copyable, pass it by value.
struct hcl_view {
  std::uint32_t* data = nullptr;   // striped entry words
  std::uint32_t* tails = nullptr;  // words committed, per thread
  std::uint32_t blocks = 0, threads = 0;  // the geometry the log was made for
  std::uint32_t capacity_words = 0;       // per thread
  const persist_domain* domain = nullptr;

  GPMX_HD std::uint32_t warps_per_block() const { return (threads + 31) / 32; }
  GPMX_HD std::uint64_t slot(std::uint64_t block, std::uint32_t rank) const {
    return block * warps_per_block() * 32 + rank;
  }
  // Word j of the stream of slot s: slot(block, rank) = warp * 32 + lane.
  GPMX_HD std::uint32_t* slot_word(std::uint64_t s, std::uint32_t j) const {
    return data + ((s / 32) * capacity_words + j) * 32 + s % 32;
  }
  // Word j of the stream of (block, rank).
  GPMX_HD std::uint32_t* word(std::uint64_t block, std::uint32_t rank, std::uint32_t j) const {
    return slot_word(slot(block, rank), j);
  }

  template <class Ctx>
  GPMX_HD void insert(Ctx& t, const void* src, std::size_t bytes, ordering o = ordering::epoch) const {
    const std::uint64_t s = checked_slot(t);
    const std::uint32_t words = std::uint32_t((bytes + 3) / 4);
    if (words > capacity_words) detail::log_fail(errc::log_entry_too_large, "HCL", "entry of {} bytes exceeds the {}-byte slot", bytes, std::uint64_t(capacity_words) * 4);
    const std::uint32_t tail = checked_tail(s);
    if (tail + words > capacity_words) detail::log_fail(errc::log_full, "HCL", "entry of {} bytes does not fit: {} bytes of the slot are used", bytes, std::uint64_t(tail) * 4);
    const auto* in = static_cast<const unsigned char*>(src);
    for (std::uint32_t k = 0; k < words; ++k) {
      std::uint32_t w = 0;
      const std::size_t n = bytes - std::size_t(k) * 4 < 4 ? bytes - std::size_t(k) * 4 : 4;
      memcpy(&w, in + std::size_t(k) * 4, n);
      std::uint32_t* dst = word(t.block_rank(), t.thread_rank(), tail + k);
      *dst = w;
      note_pm_store(t, domain, dst, 4);
    }
    order_persists(t, o);  // the entry persists before the tail names it
    tails[s] = tail + words;
    note_pm_store(t, domain, &tails[s], 4);
    order_persists(t, o);
  }

  // Copies the thread's most recent entry of `bytes` bytes into dst.
  template <class Ctx>
  GPMX_HD void read(Ctx& t, void* dst, std::size_t bytes) const {
    const std::uint64_t s = checked_slot(t);
    const std::uint32_t tail = checked_tail(s);
    if (tail < (bytes + 3) / 4) detail::log_fail(errc::log_empty, "HCL", "read of {} bytes, but only {} bytes are logged", bytes, std::uint64_t(tail) * 4);
    read_slot(s, tail, dst, bytes);
  }

  // Drops the thread's most recent entry of `bytes` bytes.
  template <class Ctx>
  GPMX_HD void remove(Ctx& t, std::size_t bytes, ordering o = ordering::epoch) const {
    const std::uint64_t s = checked_slot(t);
    const std::uint32_t words = std::uint32_t((bytes + 3) / 4);
    const std::uint32_t tail = checked_tail(s);
    if (tail < words) detail::log_fail(errc::log_empty, "HCL", "remove of {} bytes, but only {} bytes are logged", bytes, std::uint64_t(tail) * 4);
    truncate_slot(t, s, tail - words, o);
  }

  // Slot-addressed access, for recovery that visits only the slots a crash
  // left occupied (hcl_log::occupied_slots) from threads of any geometry.
  // A slot is slot(block, rank) of the thread that logged into it.
  GPMX_HD std::uint32_t tail_of_slot(std::uint64_t s) const { return checked_tail(checked_slot_index(s)); }
  // Copies the entry of `bytes` bytes that ends at word `end` of slot s.
  GPMX_HD void read_slot(std::uint64_t s, std::uint32_t end, void* dst, std::size_t bytes) const {
    const std::uint32_t tail = checked_tail(checked_slot_index(s));
    const std::uint32_t words = std::uint32_t((bytes + 3) / 4);
    if (end > tail || end < words) detail::log_fail(errc::log_empty, "HCL", "read of an entry ending at byte {} of a slot, but {} bytes are logged", std::uint64_t(end) * 4, std::uint64_t(tail) * 4);
    auto* out = static_cast<unsigned char*>(dst);
    for (std::uint32_t k = 0; k < words; ++k) {
      const std::uint32_t w = *slot_word(s, end - words + k);
      const std::size_t n = bytes - std::size_t(k) * 4 < 4 ? bytes - std::size_t(k) * 4 : 4;
      memcpy(out + std::size_t(k) * 4, &w, n);
    }
  }
  // Cuts slot s back to its first `words` words (entries past them drop).
  template <class Ctx>
  GPMX_HD void truncate_slot(Ctx& t, std::uint64_t s, std::uint32_t words, ordering o = ordering::epoch) const {
    if (words > checked_tail(checked_slot_index(s))) detail::log_fail(errc::log_empty, "HCL", "truncate to {} bytes, past the {} bytes logged", std::uint64_t(words) * 4, std::uint64_t(tails[s]) * 4);
    tails[s] = words;
    note_pm_store(t, domain, &tails[s], 4);
    order_persists(t, o);
  }

  template <class Ctx>
  GPMX_HD std::size_t size(Ctx& t) const { return std::size_t(tails[checked_slot(t)]) * 4; }
  template <class Ctx>
  GPMX_HD bool is_empty(Ctx& t) const { return tails[checked_slot(t)] == 0; }

 private:
  // A tail past the slot's capacity cannot be written by insert: the log is
  // corrupt, and reading with it would leave the slot's stream.
  GPMX_HD std::uint32_t checked_tail(std::uint64_t s) const {
    const std::uint32_t tail = tails[s];
    if (tail > capacity_words) detail::log_fail(errc::corrupt_value, "HCL", "a tail holds {} words, past the slot's {}", tail, capacity_words);
    return tail;
  }
  // A slot of the geometry: inside it and not a padding lane of a block
  // whose thread count is not a multiple of 32.
  GPMX_HD std::uint64_t checked_slot_index(std::uint64_t s) const {
    const std::uint64_t per_block = std::uint64_t(warps_per_block()) * 32;
    if (s >= blocks * per_block || s % per_block >= threads)
      detail::log_fail(errc::log_geometry, "HCL", "slot {} lies outside the log's geometry ({} threads per block)", s, threads);
    return s;
  }
  template <class Ctx>
  GPMX_HD std::uint64_t checked_slot(Ctx& t) const {
    if (t.block_rank() >= blocks || t.thread_rank() >= threads)
      detail::log_fail(errc::log_geometry, "HCL", "thread {} of block {} lies outside the log's geometry", t.thread_rank(), t.block_rank());
    return slot(t.block_rank(), t.thread_rank());
  }
};

// The host side: a log in its own pool file.
class hcl_log {
 public:
  // `bytes` of entry space shared evenly by blocks x threads logging threads.
  static hcl_log create(const std::filesystem::path& path, std::uint64_t bytes, std::uint32_t blocks,
                        std::uint32_t threads, durability mode = durability::pmem);
  // Checks the stored geometry against the regions' sizes and every tail
  // against the slot's capacity: pm_error(corrupt_value) names the field.
  static hcl_log open(const std::filesystem::path& path, durability mode = durability::pmem);

  hcl_view view() const { return view_; }
  // Empties every thread's slot (one persisted store per tail line).
  void clear();
  // Every slot that holds entries, in slot order: what recovery must visit.
  std::vector<std::uint64_t> occupied_slots() const;
  // Bytes logged by (block, thread); for recovery code and tests.
  std::uint64_t size_of(std::uint64_t block, std::uint32_t thread) const;
  // Reads every logged entry of `bytes` bytes, without writing, and calls
  // visit(block, thread, entry) on each: recovery checks what it would undo
  // with before it changes anything. Throws pm_error(corrupt_value) naming
  // the file when a thread's tail is not a whole number of such entries.
  void for_each_entry(std::size_t bytes,
                      const std::function<void(std::uint64_t block, std::uint32_t thread, const void* entry)>& visit) const;
  pool& file() { return *pool_; }

 private:
  hcl_log(std::unique_ptr<pool> p, hcl_view v) : pool_(std::move(p)), view_(v) {}
  std::unique_ptr<pool> pool_;
  hcl_view view_;
};

}  // namespace gpmx::pm
