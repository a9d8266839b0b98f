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

// A workload's own parameters followed by devices and line (the layout),
// then method, cache_kib, queues, depth and threads.
std::vector<param_spec> with_storage_parameters(std::vector<param_spec> own, std::uint64_t default_method,
                                                std::uint64_t default_cache_kib);
// A workload's own test sizes with the common ones: one device, lines of
// `line` bytes, `method`, a cache of `cache_kib`, 2 queues of depth 64,
// `threads` threads.
params small_storage_params(params own, std::uint64_t line, std::uint64_t method, std::uint64_t cache_kib,
                            std::uint64_t threads);
void check_layout_parameters(const params& p);
void check_runtime_parameters(const params& p, std::uint64_t methods);
stack_options stack_options_of(const storage_env& e, const params& runtime, const params& data);
// Throws config_error when e is timed and `method` (named `name`) does not
// reach the data through the NVMe queues.
void require_timed_method(const storage_env& e, bool through_queues, std::string_view name);
// Whether e's kernels can read a file mapping: on the cpu executor, or on a
// GPU that faults in pageable host memory.
bool kernels_reach_mappings(const storage_env& e);
// Throws gpu_unavailable unless kernels_reach_mappings(e), naming method
// `name` (mmap), which reads through one.
void require_gpu_reaches_mapping(const storage_env& e, std::string_view name);
// `threads` threads (rounded up to whole blocks of 256), at least one block.
launch_config grid_of(const params& runtime, const char* name);

}  // namespace gpmx::apps::bam
