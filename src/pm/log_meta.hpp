#pragma once
// The metadata region of a log file. It is created last, so a log whose
// creation was interrupted has no metadata and is refused by open.
#include <cstdint>
#include <filesystem>
#include <string>

#include "gpmx/pm/pool.hpp"

namespace gpmx::pm::log_meta {

inline constexpr const char* region_name = "gpmx.log.meta";
enum kind : std::uint64_t { hcl = 1, conventional = 2 };

struct record {
  std::uint64_t kind;
  std::uint64_t blocks, threads, capacity_words;  // HCL
  std::uint64_t partitions, partition_bytes;      // conventional
  std::uint64_t checksum;
};

// Creates the pool file for a log with the given regions' sizes.
pool create_pool(const std::filesystem::path& path, std::uint64_t data_bytes, std::uint64_t tail_bytes,
                 durability mode);
// Writes and persists the metadata region (the last step of creation).
void write(pool& p, record r);
// Reads and checks the metadata; `expected` is the kind the caller opens.
record read(pool& p, kind expected);
// The kind of log in p (checks the metadata as read does).
kind kind_of(pool& p);

}  // namespace gpmx::pm::log_meta
