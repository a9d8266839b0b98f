#pragma once
// The size of a region a workload created from its recorded parameters. The
// namespace table's checksum guards a region's size, but not the recorded
// parameters the size is compared with: a region of another size means the
// parameters (or the file) are damaged, and indexing it by them would leave
// the region.
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/stored_value.hpp"

namespace gpmx::apps {

// Region `name` of pool, when it holds exactly `bytes`; otherwise throws
// pm_error(corrupt_value) naming the pool, the region and both sizes.
inline pm::region region_of_size(pm::pool& pool, std::string_view name, std::uint64_t bytes, std::string_view why) {
  pm::region r = pool.find(name);
  if (r.size() != bytes)
    pm::throw_corrupt_value(pool.path(), name, "size", r.size(), fmt::format("{} need {} bytes", why, bytes));
  return r;
}

}  // namespace gpmx::apps
