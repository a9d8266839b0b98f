#pragma once
// Bytes this process has caused to be written to storage so far (Linux's
// /proc/self/io write_bytes: counted when a page of a file on a device is
// dirtied, by write(2) or through a mapping, so one 8-byte store into a
// clean mapped page counts 4096). Benchmarks take differences around a
// run to show how many bytes reach the device per operation.
#include <cstdint>
#include <optional>

namespace gpmx::bench {

// Empty where the kernel does not report it (no task I/O accounting).
std::optional<std::uint64_t> process_write_bytes();

}  // namespace gpmx::bench
