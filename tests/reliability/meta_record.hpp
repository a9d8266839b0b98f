#pragma once
// Tests that forge a workload's parameter record ("meta") store its checksum
// again after changing a word, as a writer would, so that the checks behind
// the checksum are the ones reached.
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "common/run_meta.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::test {

inline void reseal_meta(const std::filesystem::path& pool_file) {
  auto p = pm::pool::open(pool_file, pm::durability::none);
  std::byte* m = p.find("meta").data();
  const std::uint64_t sum = apps::meta_checksum(m);
  std::memcpy(m + apps::meta_checksum_offset, &sum, sizeof sum);
}

}  // namespace gpmx::test
