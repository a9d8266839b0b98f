#pragma once
// The trace file: a compact binary form of a trace (layout in docs/trace.md).
// Reading validates everything and names the offset of the first fault.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpmx/support/error.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::trace {

inline constexpr char file_magic[8] = {'G', 'P', 'M', 'X', 'T', 'R', 'C', '\0'};
// 2: pool images and host events; 3: persist_range, agent_step; 4: addresses
// independent of the recording process (src/trace/file_addresses.hpp);
// 5: warp_collective.
inline constexpr std::uint32_t file_version = 5;
// The oldest version this build reads: version 2 differs only in lacking
// version 3's event kinds, version 3 in holding the process's addresses,
// version 4 in lacking warp_collective.
inline constexpr std::uint32_t oldest_file_version = 2;
inline constexpr std::size_t header_bytes = 32;
inline constexpr std::size_t record_bytes = 144;

// A file (or buffer) that is not a valid trace: corrupt, truncated, or of
// another version. offset() is where reading found the fault.
class trace_file_error : public error {
 public:
  trace_file_error(const std::string& what, std::uint64_t offset)
      : error(error_code::trace_format, what), offset_(offset) {}
  std::uint64_t offset() const { return offset_; }

 private:
  std::uint64_t offset_;
};

// The file holds addresses independent of the recording process: pool i at
// (i + 1) << 40 with every address inside it at its offset, other addresses
// numbered by first appearance (docs/trace.md, "Addresses"). decode(encode(t))
// is with_file_addresses(t).
std::vector<std::uint8_t> encode(const trace& t);
trace with_file_addresses(const trace& t);
// `origin` names the source of the bytes in error messages (a file name).
trace decode(std::span<const std::uint8_t> bytes, std::string_view origin = "trace");

// Throw trace_file_error, or gpmx::error (io) when the file cannot be opened or written.
void write_trace(const trace& t, const std::filesystem::path& path);
trace read_trace(const std::filesystem::path& path);

}  // namespace gpmx::trace
