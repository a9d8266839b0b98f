#pragma once
// gpmx sim for the storage (BaM) workloads: the same kernels, queues and
// emulated controllers, in the timed schedule with a device model
// (docs/bam.md, "The device in the timed mode").
#include <cstdint>
#include <string>
#include <vector>

#include "gpmx/sim/config.hpp"

namespace gpmx::cli {

struct sim_storage_args {
  std::string workload, data, device, out;
  std::vector<std::string> param_texts;
  bool full_size = false, json = false, quiet = false;
};

// Returns false when a.workload is no storage workload.
bool sim_storage_workload(const sim_storage_args& a, const sim::sim_config& c);

}  // namespace gpmx::cli
