#pragma once
// The pool file's layout. Every field is a little-endian 8-byte word (or a
// whole number of them), so that any update can tear only at 8-byte words.
//
//   [0, 4096)                 header (written once, at creation)
//   [table_offset, +bytes)    namespace table copy A
//   [+bytes, +2*bytes)        namespace table copy B
//   [data_offset, pool_size)  region data, 4 KiB aligned
//
// The namespace table is double-buffered: an update writes the copy that is
// not current with sequence + 1 and a checksum; open takes the valid copy
// with the highest sequence. A torn update leaves its copy invalid, so the
// other (previous) state is found.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gpmx::pm::format {

inline constexpr char magic[8] = {'G', 'P', 'M', 'X', 'P', 'O', 'O', 'L'};
inline constexpr std::uint64_t version = 1;
inline constexpr std::uint64_t header_bytes = 4096;

struct header {
  char magic[8];
  std::uint64_t version;
  std::uint64_t features;  // none defined yet; a reader rejects bits it does not know
  std::uint8_t uuid[16];
  std::uint64_t created_ns;
  std::uint64_t pool_size;
  std::uint64_t table_offset;
  std::uint64_t table_bytes;  // of one copy
  std::uint64_t table_capacity;
  std::uint64_t data_offset;
  std::uint64_t checksum;  // of every byte above
};
static_assert(sizeof(header) % 8 == 0);

struct table_head {
  std::uint64_t sequence;
  std::uint64_t count;
  std::uint64_t checksum;  // of sequence, count and the first `count` entries
  std::uint64_t reserved;
};

struct entry {
  char name[48];  // NUL-terminated, at most 47 characters
  std::uint64_t offset;
  std::uint64_t size;
  std::uint64_t flags;
  std::uint64_t reserved;
};
static_assert(sizeof(entry) == 80 && sizeof(table_head) == 32);

inline std::uint64_t table_bytes_for(std::uint64_t capacity) {
  const std::uint64_t raw = sizeof(table_head) + capacity * sizeof(entry);
  return (raw + 4095) / 4096 * 4096;
}

// FNV-1a, 64 bit: detects torn and corrupted metadata (not an adversary).
inline std::uint64_t checksum(const void* data, std::size_t bytes, std::uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

inline std::uint64_t header_checksum(const header& h) { return checksum(&h, offsetof(header, checksum)); }

inline std::uint64_t table_checksum(const table_head& t, const entry* entries) {
  std::uint64_t h = checksum(&t.sequence, sizeof t.sequence);
  h = checksum(&t.count, sizeof t.count, h);
  return checksum(entries, std::size_t(t.count) * sizeof(entry), h);
}

}  // namespace gpmx::pm::format
