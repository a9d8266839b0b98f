#pragma once
// The redo records a committed transaction leaves in an NVRAM log, as 8-byte
// entries (kernel code and host code share this file):
//
//   header  seq (32 bits) | write count (16) | header magic (16)
//   data    word index (32) | value (32), one per word written
//   mark    seq (32) | check (32), written only after the header and data
//           are durable (a persist fence between them)
//
// The check binds the mark to its record's header (sequence number and
// size) and to the log's epoch (the number of truncations so far): a mark
// left from an earlier epoch, or stale bytes after the end of a log, fail
// it (a forged match needs a 32-bit collision). It does not cover the data
// on purpose: the persist fence before the mark is what makes the data
// durable first, and a check over the data would hide a missing fence from
// the crash checker (the seeded bug mark-with-records).
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/support/hash_mix.hpp"

namespace gpmx::stm {

using log_entry = std::uint64_t;

inline constexpr std::uint32_t header_magic = 0x7e51;
// Entries a record of `writes` words takes: header, data, mark.
GPMX_HD constexpr std::uint32_t record_entries(std::uint32_t writes) { return writes + 2; }

GPMX_HD constexpr log_entry make_header(std::uint32_t seq, std::uint32_t writes) {
  return (log_entry(seq) << 32) | (log_entry(writes & 0xffff) << 16) | header_magic;
}
GPMX_HD constexpr bool is_header(log_entry e) { return (e & 0xffff) == header_magic; }
GPMX_HD constexpr std::uint32_t header_seq(log_entry e) { return std::uint32_t(e >> 32); }
GPMX_HD constexpr std::uint32_t header_writes(log_entry e) { return std::uint32_t((e >> 16) & 0xffff); }

GPMX_HD constexpr log_entry make_data(std::uint32_t word, std::uint32_t value) {
  return (log_entry(word) << 32) | value;
}
GPMX_HD constexpr std::uint32_t data_word(log_entry e) { return std::uint32_t(e >> 32); }
GPMX_HD constexpr std::uint32_t data_value(log_entry e) { return std::uint32_t(e); }

// The check a record's mark carries.
GPMX_HD constexpr std::uint64_t mark_check(std::uint64_t epoch, log_entry header) {
  return mix64(mix64(epoch ^ 0x5eed0fc0ffee5eedull) ^ header);
}
// The mark that ends a record with check h. Never zero, so an unwritten
// entry is never a mark.
GPMX_HD constexpr log_entry make_mark(std::uint32_t seq, std::uint64_t h) {
  return (log_entry(seq) << 32) | (std::uint32_t(h >> 32) | 1u);
}
GPMX_HD constexpr std::uint32_t mark_seq(log_entry e) { return std::uint32_t(e >> 32); }

}  // namespace gpmx::stm
