#pragma once
// A workload's parameters and style, kept in its pool (region "meta") so that
// recover and verify need only the directory. Workloads write the meta region
// after the rest of their set-up: a pool whose meta reads back is complete.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/workload.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/stored_value.hpp"

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
// when it was written by another workload, or (corrupt_value) when a stored
// word is one write_meta never writes for w: a checksum that does not match
// the record, a style other than epoch or sbrp, a parameter count or name
// other than w's own.
run_meta read_meta(pm::pool& pool, const workload& w);
// The checksum write_meta stores with the record that starts at `meta` (the
// region's first byte). Tests that forge a record use it to reach the checks
// behind the checksum.
std::uint64_t meta_checksum(const std::byte* meta);
// Where in the record the checksum word is.
inline constexpr std::size_t meta_checksum_offset = 24 + 40 + 32 * 48;

// Runs validate() (a workload's check of its parameters) on parameters read
// back from pool's meta region. They passed the same check when the run
// wrote them, so a config_error now means the stored words are corrupt: it
// becomes a pm_error(corrupt_value) naming the pool and the region, and the
// command line reports it as a fault of the data (exit 3), not of the
// user's arguments.
template <class Validate>
auto check_recorded(const pm::pool& pool, Validate&& validate) -> decltype(validate()) {
  try {
    return validate();
  } catch (const config_error& e) {
    pm::throw_corrupt_region(pool.path(), "meta", std::string("the recorded parameters are not valid: ") + e.what());
  }
}

// Removes dir and everything in it, then creates it empty: run() starts fresh.
void fresh_directory(const std::filesystem::path& dir);
// Throws pm::pm_error(missing_region) naming the workload when dir holds no
// file `file`: the workload was never run there.
void require_file(const std::filesystem::path& dir, std::string_view file, std::string_view workload);

}  // namespace gpmx::apps
