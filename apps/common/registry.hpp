#pragma once
// Every workload gpmx knows, by command-line name.
#include <memory>
#include <string_view>
#include <vector>

#include "common/workload.hpp"

namespace gpmx::apps {

// In the order `gpmx list` prints them.
const std::vector<std::unique_ptr<workload>>& all_workloads();
// Throws config_error naming `name` and listing the known workloads.
workload& find_workload(std::string_view name);

}  // namespace gpmx::apps
