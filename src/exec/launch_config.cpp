#include "gpmx/exec/launch_config.hpp"

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/memory_scope.hpp"

namespace gpmx {
namespace {

void check_extent(const launch_config& cfg, const char* what, const dim3& d, const dim3& max) {
  const char* axis[] = {"x", "y", "z"};
  const std::uint32_t v[] = {d.x, d.y, d.z};
  const std::uint32_t m[] = {max.x, max.y, max.z};
  for (int i = 0; i < 3; ++i) {
    if (v[i] == 0)
      throw config_error(fmt::format("kernel '{}': {}.{} is 0; every dimension must be at least 1",
                                     cfg.name, what, axis[i]));
    if (v[i] > m[i])
      throw config_error(fmt::format("kernel '{}': {}.{} = {} exceeds the limit {}", cfg.name, what,
                                     axis[i], v[i], m[i]));
  }
}

}  // namespace

void validate(const launch_config& cfg, const device_limits& limits) {
  check_extent(cfg, "block", cfg.block, limits.max_block);
  check_extent(cfg, "grid", cfg.grid, limits.max_grid);
  if (cfg.block.count() > limits.max_threads_per_block)
    throw config_error(fmt::format(
        "kernel '{}': block ({}, {}, {}) has {} threads; at most {} threads per block",
        cfg.name, cfg.block.x, cfg.block.y, cfg.block.z, cfg.block.count(),
        limits.max_threads_per_block));
  if (cfg.dynamic_shared_bytes > limits.max_dynamic_shared_bytes)
    throw config_error(fmt::format(
        "kernel '{}': dynamic shared memory of {} bytes exceeds the limit of {} bytes per block",
        cfg.name, cfg.dynamic_shared_bytes, limits.max_dynamic_shared_bytes));
}

const char* to_string(scope s) {
  switch (s) {
    case scope::block: return "block";
    case scope::device: return "device";
    case scope::system: return "system";
  }
  return "?";
}

const char* to_string(memory_order o) {
  switch (o) {
    case memory_order::relaxed: return "relaxed";
    case memory_order::acquire: return "acquire";
    case memory_order::release: return "release";
    case memory_order::acq_rel: return "acq_rel";
    case memory_order::seq_cst: return "seq_cst";
  }
  return "?";
}

}  // namespace gpmx
