#pragma once
// A workload over GPU-initiated storage (BaM, docs/bam.md): its data lives
// in device files read and written by kernel threads through the page cache
// and the NVMe queues (or, for the baselines, by the host in tiles or
// through a mapping). Unlike the recoverable workloads nothing here is
// persistent memory: the data on the devices is the input, the result is
// checked against a host computation, and there is nothing to recover.
//
// prepare() writes the inputs under env::dir; execute() computes on them
// with one method and keeps the result there; verify() checks the result.
// `gpmx run` does prepare then execute; the benchmarks prepare once and
// execute every method.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/workload.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/storage/device_timing.hpp"
#include "gpmx/storage/page_cache.hpp"

namespace gpmx::apps::bam {

struct storage_env {
  cpu::executor& ex;
  std::filesystem::path dir;
  bool deterministic = false;  // controllers post completions in an order drawn from seed
  std::uint64_t seed = 1;
  std::function<void(double fraction_done)> progress = {};
  // The timed schedule (gpmx sim): the devices' timing; the controllers then
  // post completions in ex's virtual time. Only the methods that reach the
  // data through the NVMe queues run so (the host's tiles and the OS's page
  // faults have no model).
  std::optional<storage::device_timing> device = std::nullopt;
  // Kernels on this GPU (null: on ex). The controllers, agents attached to
  // ex, then serve the GPU's queues from host threads while each kernel
  // runs; the host-side steps (tiles, results) stay on the host.
  const gpu_session* gpu = nullptr;
  launch_target target() const { return launch_target(ex, gpu); }
  void report(double f) const {
    if (progress) progress(f);
  }
};

struct storage_run_report {
  std::string method;
  std::uint64_t operations = 0;  // what throughput counts (unit)
  std::string unit;
  double seconds = 0;            // the computation with its I/O, not the set-up of queues and cache
  std::string answer;            // one line: the result
  std::uint64_t bytes_used = 0;  // bytes of stored data the computation needed (amplification's denominator)
  std::uint64_t bytes_read = 0;  // bytes read from the devices (controllers, or the process's I/O counter)
  std::uint64_t bytes_written = 0;
  std::uint64_t io_commands = 0;  // NVMe commands (BaM methods)
  bool cached = false;            // whether cache holds this run's page cache counters
  storage::cache_counters cache;
  std::uint32_t launches = 0;
};

class storage_workload {
 public:
  virtual ~storage_workload() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  virtual std::vector<param_spec> parameters() const = 0;
  virtual params small_params() const = 0;
  // The names of parameter `method`'s values, in order.
  virtual std::vector<std::string> methods() const = 0;

  virtual void prepare(const storage_env& e, const params& p) = 0;
  // The data parameters are the prepared ones (kept in DIR/bam.meta); p
  // gives the rest (method, cache, queues, threads).
  virtual storage_run_report execute(const storage_env& e, const params& p) = 0;
  virtual verify_report verify(const storage_env& e) = 0;

  storage_run_report run(const storage_env& e, const params& p) {
    prepare(e, p);
    return execute(e, p);
  }
};

// In the order `gpmx list` prints them.
const std::vector<std::unique_ptr<storage_workload>>& storage_workloads();
// nullptr when there is none of that name.
storage_workload* find_storage_workload(std::string_view name);
// The defaults with `given` applied (config_error naming an unknown parameter).
params resolve_storage_params(const storage_workload& w, const params& given);

}  // namespace gpmx::apps::bam
