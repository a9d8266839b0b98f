#pragma once
// Which bytes of its pools a recovery read before writing them
// (read_tracker), as the image's child sends them to the checker: per pool
// file, the offsets of the granules read, in the order first read.
#include <cstdint>
#include <string>
#include <vector>

namespace gpmx::check {

struct pool_reads {
  struct file {
    std::string path;                    // as the recovery opened it
    std::vector<std::uint64_t> offsets;  // granule-aligned, each once
  };
  std::vector<file> files;
  bool complete = true;  // false: tracking stopped early (`note` says why)
  std::string note;
  std::string reader = "recovery";  // who read, for the report
};

// The text form that crosses the pipe from the image's child (no NUL bytes).
std::string encode(const pool_reads& r);
// Throws std::runtime_error naming what is malformed. Several texts one
// after another (processes appending to one file) merge: a file named
// twice keeps each offset once, complete only if every part was.
pool_reads decode_pool_reads(const std::string& text);

}  // namespace gpmx::check
