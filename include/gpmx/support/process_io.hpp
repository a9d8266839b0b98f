#pragma once
// Bytes this process has caused to be read from and written to storage so
// far (Linux's /proc/self/io read_bytes and write_bytes). Reads count what
// the block layer fetched, kernel readahead included; writes are counted
// when a page of a file on a device is dirtied, by write(2) or through a
// mapping, so one 8-byte store into a clean mapped page counts 4096. Both
// are 0 for files on tmpfs. Benchmarks take differences around a run.
#include <cstdint>
#include <optional>

namespace gpmx {

struct process_io_bytes {
  std::uint64_t read = 0, written = 0;
};

// Empty where the kernel does not report them (no task I/O accounting).
std::optional<process_io_bytes> process_io();

}  // namespace gpmx
