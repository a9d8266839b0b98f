#pragma once
// Where a storage workload's arrays live on its devices: one file per device
// (DIR/device0, device1, ...), each array a range of whole cache lines
// starting at the same block on every device, its pages striped over the
// devices (page p on device p mod n, at page p / n of the range there), as
// the page cache's stripe layout reads them (gpmx/storage/page_cache.hpp).
// The host writes the inputs and reads the outputs through the same map.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpmx::apps::bam {

inline constexpr std::uint32_t lba_bytes = 512;

struct stored_array {
  std::string name;
  std::uint64_t bytes = 0;
  std::uint64_t pages = 0;      // cache lines over all devices
  std::uint64_t first_lba = 0;  // on every device
};

struct storage_layout {
  std::uint32_t devices = 1;
  std::uint32_t line_bytes = 4096;
  std::vector<stored_array> arrays;
  std::uint64_t device_bytes = 0;  // each device file

  // Arrays of these sizes, one after another; throws config_error naming a
  // bad device count or line size.
  static storage_layout plan(std::uint32_t devices, std::uint32_t line_bytes,
                             const std::vector<std::pair<std::string, std::uint64_t>>& arrays);
  // Throws config_error naming `name` when there is no such array.
  const stored_array& find(std::string_view name) const;
  std::filesystem::path device_path(const std::filesystem::path& dir, std::uint32_t device) const;
  std::uint64_t total_bytes() const;  // every array's bytes
};

// Creates the device files, zero-filled, at their full size.
void create_devices(const std::filesystem::path& dir, const storage_layout& l);
// The host's writes and reads of bytes [offset, offset + data.size()) of an array.
void write_array(const std::filesystem::path& dir, const storage_layout& l, std::string_view name, std::uint64_t offset,
                 std::span<const std::byte> data);
void read_array(const std::filesystem::path& dir, const storage_layout& l, std::string_view name, std::uint64_t offset,
                std::span<std::byte> data);
// Writes words [0, count) of array `name` as 8-byte values gen(i), a chunk
// at a time (generated inputs larger than memory wants no whole copy).
template <class Gen>
void write_generated(const std::filesystem::path& dir, const storage_layout& l, std::string_view name,
                     std::uint64_t count, Gen&& gen) {
  const std::uint64_t chunk = std::uint64_t(1) << 18;
  std::vector<std::uint64_t> values(chunk < count ? chunk : count);
  for (std::uint64_t first = 0; first < count; first += chunk) {
    const std::uint64_t n = count - first < chunk ? count - first : chunk;
    for (std::uint64_t i = 0; i < n; ++i) values[i] = gen(first + i);
    write_array(dir, l, name, first * 8, std::as_bytes(std::span(values.data(), n)));
  }
}

// Makes the device files durable (fdatasync each).
void sync_devices(const std::filesystem::path& dir, const storage_layout& l);
// Makes the device files durable and drops their pages from the OS page
// cache, so that the next reads come from the device (a run measured right
// after the inputs were written would otherwise read memory).
void settle_devices(const std::filesystem::path& dir, const storage_layout& l);

}  // namespace gpmx::apps::bam
