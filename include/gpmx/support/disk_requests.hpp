#pragma once
// The request counters of the block device that holds a file (Linux's
// /sys/dev/block/MAJ:MIN/stat): requests completed and sectors moved, as
// the device saw them after the block layer merged neighbouring I/O. A
// benchmark takes differences around a run to report how large the
// requests that reached the device were. The counters are the device's,
// so other processes' I/O in the same window counts too.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace gpmx {

struct disk_requests {
  std::uint64_t reads = 0, read_sectors = 0;    // completed read requests, 512-byte sectors read
  std::uint64_t writes = 0, write_sectors = 0;  // the same for writes
};

// The fields of one stat line (the kernel's Documentation/block/stat.rst
// order); empty when the line has fewer than seven numbers.
std::optional<disk_requests> parse_disk_stat(std::string_view line);

// The counters of the device holding `file`; empty where there is none
// (tmpfs, overlay and other file systems without a block device of their own).
std::optional<disk_requests> read_disk_requests(const std::filesystem::path& file);

// Mean KiB per request between two readings, of writes or reads; 0 when
// no request completed in between.
double kib_per_request(const disk_requests& before, const disk_requests& after, bool writes);

}  // namespace gpmx
