#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/source_loc.hpp"

namespace gpmx {

// What a device accepts; the defaults are CUDA's limits for sm_80/sm_90.
struct device_limits {
  std::uint32_t max_threads_per_block = 1024;
  dim3 max_block{1024, 1024, 64};
  dim3 max_grid{2147483647u, 65535u, 65535u};
  std::size_t static_shared_bytes = 48 * 1024;        // per block, __shared__ arrays
  std::size_t max_dynamic_shared_bytes = 227 * 1024;  // per block, with opt-in
};

struct launch_config {
  dim3 grid;
  dim3 block;
  std::size_t dynamic_shared_bytes = 0;
  std::string name = "kernel";  // used in every error about this launch
  // Where the launch was written: a default member initializer takes the
  // place of the braces that make the config (`ex.launch({grid, block, 0,
  // "name"}, ...)`), so the trace can name the line of a launch.
  source_loc site = source_loc::current();
};

// Throws config_error naming the first value CUDA would reject.
void validate(const launch_config& cfg, const device_limits& limits = {});

}  // namespace gpmx
