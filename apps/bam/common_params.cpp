#include "bam/common_params.hpp"

#include <fmt/format.h>

#include "bam/run_files.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::apps::bam {

std::vector<param_spec> with_storage_parameters(std::vector<param_spec> own, std::uint64_t default_method,
                                                std::uint64_t default_cache_kib) {
  const std::vector<param_spec> common = {
      {"devices", 1, "device files the data is striped over (page p on device p mod n)"},
      {"line", 4096, "cache line and I/O size in bytes: a power of two, 512 to 65536"},
      {"method", default_method, "how kernels reach the data (gpmx list shows the names)"},
      {"cache_kib", default_cache_kib, "page cache size in KiB (BaM methods)"},
      {"queues", 4, "NVMe queue pairs per device"},
      {"controllers", 1, "emulated controllers per device, each a host thread serving its share of the queue pairs"},
      {"depth", 256, "entries per queue"},
      {"threads", 4096, "kernel threads"}};
  own.insert(own.end(), common.begin(), common.end());
  return own;
}

params small_storage_params(params own, std::uint64_t line, std::uint64_t method, std::uint64_t cache_kib,
                            std::uint64_t threads) {
  own.insert({{"devices", 1}, {"line", line}, {"method", method}, {"cache_kib", cache_kib}, {"queues", 2},
              {"controllers", 1}, {"depth", 64}, {"threads", threads}});
  return own;
}

void check_layout_parameters(const params& p) {
  check_range(p, "devices", 1, 64);
  check_range(p, "line", 512, 65536);
  const std::uint64_t line = p.at("line");
  if ((line & (line - 1)) != 0) throw config_error(fmt::format("line={} is not a power of two", line));
}

void check_runtime_parameters(const params& p, std::uint64_t methods) {
  check_range(p, "method", 0, methods - 1);
  check_range(p, "cache_kib", 1, std::uint64_t(1) << 24);
  check_range(p, "queues", 1, 1024);
  check_range(p, "controllers", 1, 1024);
  if (p.at("controllers") > p.at("queues"))
    throw config_error(fmt::format("controllers={} exceeds queues={}: each controller serves at least one queue pair",
                                   p.at("controllers"), p.at("queues")));
  check_range(p, "depth", 2, 65536);
  check_range(p, "threads", 32, std::uint64_t(1) << 24);
}

stack_options stack_options_of(const storage_env& e, const params& runtime, const params& data) {
  const std::uint64_t lines = runtime.at("cache_kib") * 1024 / data.at("line");
  if (lines == 0)
    throw config_error(fmt::format("cache_kib={} holds no {}-byte line", runtime.at("cache_kib"), data.at("line")));
  if (e.device && runtime.at("controllers") != 1)
    throw config_error(fmt::format("controllers={}: the timed mode models one device per controller (controllers=1)",
                                   runtime.at("controllers")));
  return {.queues_per_device = std::uint32_t(runtime.at("queues")),
          .controllers_per_device = std::uint32_t(runtime.at("controllers")),
          .depth = std::uint32_t(runtime.at("depth")),
          .cache_lines = std::uint32_t(lines),
          .deterministic = e.deterministic,
          .seed = e.seed,
          .timing = e.device};
}

void require_timed_method(const storage_env& e, bool through_queues, std::string_view name) {
  if (e.device && !through_queues)
    throw config_error(fmt::format("method={} has no model in the timed mode (the host's reads and the OS's page "
                                   "faults are not simulated): use a method that goes through the NVMe queues",
                                   name));
}

bool kernels_reach_mappings(const storage_env& e) { return e.gpu == nullptr || e.gpu->reaches_pageable_memory(); }

void require_gpu_reaches_mapping(const storage_env& e, std::string_view name) {
  if (!kernels_reach_mappings(e))
    throw gpu_unavailable(fmt::format("method={} has kernels read a mapped file, but {} cannot use pageable host "
                                      "memory (cudaDevAttrPageableMemoryAccess is 0: no HMM in this driver); use "
                                      "method=bam or tiling on this GPU",
                                      name, e.gpu->description()));
}

launch_config grid_of(const params& runtime, const char* name) {
  const std::uint64_t threads = runtime.at("threads");
  return {dim3(std::uint32_t((threads + 255) / 256)), dim3(256), 0, name};
}

}  // namespace gpmx::apps::bam
