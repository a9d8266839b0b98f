#pragma once
// A checkpoint's layout inside its pool file. Every field is an aligned
// little-endian 8-byte word, so an update can tear only between words.
//
// Region "gpmcp.meta":
//   [0, 128)                 header (written once, at create, checksummed)
//   per group g, at 128 + g * group_record_bytes:
//     [0, 8)                 epoch: the flip word (0: never saved; else the
//                            consistent copy is epoch % 2)
//     [128, 136)             count: elements recorded (the commit word of a
//                            registration)
//     [136, 136 + 8 * E)     size of each recorded element
// Region "gpmcp.g<g>": two copies of copy_stride bytes; in each, element i
//   starts at the sum of the 128-rounded sizes of elements 0..i-1, and the
//   copy's last 128 bytes hold its seal: the epoch of the save that wrote
//   it and a checksum of that epoch and the elements' bytes. A copy is
//   valid when its seal matches; restore takes the valid copy with the
//   highest epoch, so a save on a device needs one sync (copy and seal),
//   not a second for the epoch word.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "content_hash.hpp"
#include "format.hpp"

namespace gpmx::pm::cp_layout {

inline constexpr char magic[8] = {'G', 'P', 'M', 'X', 'C', 'K', 'P', 'T'};
inline constexpr std::uint64_t version = 2;  // 2: a seal per copy
inline constexpr std::uint64_t element_alignment = 128;  // GPM: bandwidth to NVM and over PCIe
inline constexpr std::uint64_t header_bytes = 128;
inline constexpr const char* meta_region = "gpmcp.meta";

struct header {
  char magic[8];
  std::uint64_t version;
  std::uint64_t groups;
  std::uint64_t elements;        // per group
  std::uint64_t bytes_per_copy;  // user data one group may hold, per copy
  std::uint64_t copy_stride;
  std::uint64_t group_record_bytes;
  std::uint64_t checksum;  // of every field above
};
static_assert(sizeof(header) <= header_bytes);

inline std::uint64_t header_checksum(const header& h) { return format::checksum(&h, offsetof(header, checksum)); }

constexpr std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

inline constexpr std::uint64_t seal_bytes = 128;  // a line of its own

// Room for `bytes` of data in up to `elements` elements, each padded to 128
// bytes (at most 127 bytes of padding each), and the seal; page-rounded so
// that persisting one copy never touches the other's pages.
constexpr std::uint64_t copy_stride(std::uint64_t bytes, std::uint64_t elements) {
  return align_up(align_up(bytes, element_alignment) + elements * element_alignment + seal_bytes, 4096);
}

// A copy's seal, at copy_stride - seal_bytes inside the copy.
struct seal {
  std::uint64_t epoch;     // the save that wrote the copy; 0: none
  std::uint64_t checksum;  // seal_checksum of epoch and the elements
};
constexpr std::uint64_t seal_offset(std::uint64_t stride) { return stride - seal_bytes; }

// A seal's checksum: the epoch, then the bytes of each element (of the
// given sizes) in order, the i-th read at element(i).
template <class Element>
std::uint64_t seal_checksum(std::uint64_t epoch, std::span<const std::uint64_t> sizes, Element element) {
  std::uint64_t sum = content_hash(&epoch, sizeof epoch, 0x5be0cd19137e2179ull);
  for (std::size_t i = 0; i < sizes.size(); ++i) sum = content_hash(element(i), sizes[i], sum);
  return sum;
}

// The epoch word on its own 128-byte line, then count and sizes.
constexpr std::uint64_t group_record_bytes(std::uint64_t elements) {
  return 128 + align_up(8 + 8 * elements, 128);
}

constexpr std::uint64_t meta_bytes(std::uint64_t groups, std::uint64_t elements) {
  return header_bytes + groups * group_record_bytes(elements);
}

inline std::string data_region(std::uint64_t group) { return "gpmcp.g" + std::to_string(group); }

// Offsets of the elements inside one copy.
inline std::uint64_t element_offset(std::span<const std::uint64_t> sizes, std::size_t i) {
  std::uint64_t at = 0;
  for (std::size_t k = 0; k < i; ++k) at += align_up(sizes[k], element_alignment);
  return at;
}

// The words of group g's record, inside the metadata region.
struct group_words {
  std::uint64_t* epoch;
  std::uint64_t* count;
  std::uint64_t* sizes;
};
inline group_words words_of(std::byte* meta, std::uint64_t elements, std::uint64_t g) {
  std::byte* rec = meta + header_bytes + g * group_record_bytes(elements);
  return {reinterpret_cast<std::uint64_t*>(rec), reinterpret_cast<std::uint64_t*>(rec + 128),
          reinterpret_cast<std::uint64_t*>(rec + 136)};
}

}  // namespace gpmx::pm::cp_layout
