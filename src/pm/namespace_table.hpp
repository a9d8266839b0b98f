#pragma once
// The crash-safe namespace table: two copies in the pool file, the current
// one chosen by sequence number among those whose checksum holds.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "format.hpp"

namespace gpmx::pm {

class namespace_table {
 public:
  using persist_fn = std::function<void(const void*, std::size_t)>;

  // Writes an empty table (copy A current, copy B invalid) into `copies`.
  static void format_empty(std::byte* copies, std::uint64_t table_bytes);

  // Loads the current copy; throws pm_error(checksum_mismatch) naming
  // `where` when neither copy is valid.
  namespace_table(std::byte* copies, std::uint64_t table_bytes, std::uint64_t capacity, persist_fn persist,
                  std::string where);

  const std::vector<format::entry>& entries() const { return entries_; }
  std::uint64_t sequence() const { return sequence_; }
  // Makes `next` the table: writes the other copy, persists it. If the
  // process dies during commit, a later open finds the old table or the new.
  void commit(std::vector<format::entry> next);

 private:
  std::byte* copy(int i) const { return copies_ + std::uint64_t(i) * table_bytes_; }
  // Whether copy i is valid; if so its sequence and entries.
  bool read_copy(int i, std::uint64_t& sequence, std::vector<format::entry>& out) const;

  std::byte* copies_;
  std::uint64_t table_bytes_;
  std::uint64_t capacity_;
  persist_fn persist_;
  std::string where_;
  int current_ = 0;
  std::uint64_t sequence_ = 0;
  std::vector<format::entry> entries_;
};

}  // namespace gpmx::pm
