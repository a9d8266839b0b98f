#pragma once
// The redo records a committed transaction leaves in an NVRAM log, as 8-byte
// entries (kernel code and host code share this file):
//
//   header  seq (32 bits) | write count (16) | header magic (16)
//   data    word index (32) | value (32), one per word written
//   mark    seq (32) | check (32), written only after the header and data
//           are durable (a persist fence between them)
//
// The check binds the mark to its record and to the log's epoch (the
// number of truncations so far), so recovery accepts a record only when its
// mark was written for exactly that header and data in the current epoch: a
// torn record, a record left from an earlier epoch, or stale bytes after the
// end of a log all fail it (a forged match needs a 32-bit collision).
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

// Folds one entry into a record's running check (start with check_start).
GPMX_HD constexpr std::uint64_t check_start(std::uint64_t epoch) { return mix64(epoch ^ 0x5eed0fc0ffee5eedull); }
GPMX_HD constexpr std::uint64_t check_step(std::uint64_t h, log_entry e) { return mix64(h ^ e) + 0x9e3779b97f4a7c15ull; }
// The mark that ends a record whose entries folded into h. Never zero, so an
// unwritten entry is never a mark.
GPMX_HD constexpr log_entry make_mark(std::uint32_t seq, std::uint64_t h) {
  return (log_entry(seq) << 32) | (std::uint32_t(h >> 32) | 1u);
}
GPMX_HD constexpr std::uint32_t mark_seq(log_entry e) { return std::uint32_t(e >> 32); }

}  // namespace gpmx::stm
