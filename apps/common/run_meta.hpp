#pragma once
// A workload's parameters and style, kept in its pool (region "meta") so that
// recover and verify need only the directory. Workloads write the meta region
// after the rest of their set-up: a pool whose meta reads back is complete.
#include <filesystem>
#include <string_view>

#include "common/workload.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::apps {

struct run_meta {
  style s = style::epoch;
  params p;
  std::uint64_t get(std::string_view name) const;  // throws config_error when absent
};

// Creates region "meta" holding the workload's name, s and p, and persists
// its completion word last.
void write_meta(pm::pool& pool, std::string_view workload, style s, const params& p);
// Throws pm::pm_error naming the pool when there is no complete meta region,
// or when it was written by another workload.
run_meta read_meta(pm::pool& pool, std::string_view workload);

// Removes dir and everything in it, then creates it empty: run() starts fresh.
void fresh_directory(const std::filesystem::path& dir);
// Throws pm::pm_error(missing_region) naming the workload when dir holds no
// file `file`: the workload was never run there.
void require_file(const std::filesystem::path& dir, std::string_view file, std::string_view workload);

}  // namespace gpmx::apps
