#pragma once
// Parameters every storage workload takes, and what they make: the layout's
// devices and line size (data parameters: fixed when prepared), the cache,
// queues and threads of a run (free per run).
#include <cstdint>
#include <string_view>
#include <vector>

#include "bam/storage_stack.hpp"
#include "bam/storage_workload.hpp"
#include "common/workload.hpp"
#include "gpmx/exec/launch_config.hpp"

namespace gpmx::apps::bam {

std::vector<param_spec> layout_parameters();   // devices, line
std::vector<param_spec> runtime_parameters(std::uint64_t default_method, std::uint64_t default_cache_kib);
void check_layout_parameters(const params& p);
void check_runtime_parameters(const params& p, std::uint64_t methods);
stack_options stack_options_of(const storage_env& e, const params& runtime, const params& data);
// Throws config_error when e is timed and `method` (named `name`) does not
// reach the data through the NVMe queues.
void require_timed_method(const storage_env& e, bool through_queues, std::string_view name);
// `threads` threads (rounded up to whole blocks of 256), at least one block.
launch_config grid_of(const params& runtime, const char* name);

}  // namespace gpmx::apps::bam
