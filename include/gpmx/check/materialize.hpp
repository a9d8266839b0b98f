#pragma once
// Turning an image (a set of granule-stores) into the bytes of the pool file.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpmx/check/persist_order.hpp"

namespace gpmx::check {

// Where the pool was mapped in the traced process: trace addresses in
// [base, base + length) are file offsets [0, length).
// Only stores of events [first_event, end_event) count (an address range can
// be mapped again later, to another file).
struct pool_mapping {
  std::uint64_t base = 0;
  std::uint64_t length = 0;
  std::uint64_t first_event = 0;
  std::uint64_t end_event = never;
};

// The pool file after a crash that left `image`: `before` (the file before
// the traced run, `length` bytes) with the image's granule-stores applied in
// trace order, so for each granule its co-last chosen store wins. Stores
// wholly outside the mapping belong to other mappings and are skipped; a
// store straddling its edge, or a chosen store whose bytes the trace did not
// keep (only the first 64 of a store are recorded), is an error.
std::vector<std::byte> materialize_image(const trace::trace& t, const persist_order& order, const store_set& image,
                                         const pool_mapping& pool, std::span<const std::byte> before);

// A pool file rebuilt from a trace's pool images (trace::pools).
struct pool_file {
  std::string path;  // as the traced program named it
  std::vector<std::byte> bytes;
};
// Every file the trace mapped before `position`, after a crash there that
// left `image`: its bytes when first mapped (extended with zeros to its
// largest mapping) with the image's stores through each of its mappings
// applied in trace order.
std::vector<pool_file> materialize_pools(const trace::trace& t, const persist_order& order, const store_set& image,
                                         std::uint64_t position);
// The same into `out`, whose buffers are reused: no allocation when the
// files are those of the last call (the checker makes thousands of images).
void materialize_pools_into(const trace::trace& t, const persist_order& order, const store_set& image,
                            std::uint64_t position, std::vector<pool_file>& out);
}  // namespace gpmx::check
