#pragma once
// Option values shared by several subcommands.
#include <string>

#include "gpmx/pm/pool.hpp"

namespace gpmx::cli {

inline constexpr const char* durability_help =
    "how persists reach the file: pmem (libpmem decides), msync, flush (cache-line flushes: PM, or "
    "DRAM-emulated PM on tmpfs) or none";
// Throws config_error (a usage error) naming the value when it is not one.
pm::durability parse_durability(const std::string& s);

}  // namespace gpmx::cli
