#include "sim_storage.hpp"

#include <chrono>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "bam/storage_workload.hpp"
#include "commands.hpp"
#include "common/directory_lock.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/sim/report.hpp"
#include "progress_bar.hpp"
#include "sim_sizes.hpp"

namespace gpmx::cli {

bool sim_storage_workload(const sim_storage_args& a, const sim::sim_config& c) {
  apps::bam::storage_workload* w = apps::bam::find_storage_workload(a.workload);
  if (w == nullptr) return false;
  apps::params given = a.full_size ? apps::params{} : w->small_params();
  for (const std::string& t : a.param_texts) apps::parse_param(t, given);
  const apps::params p = apps::bam::resolve_storage_params(*w, given);
  note_test_sizes(a.workload, a.param_texts, a.full_size, a.quiet || a.json);
  const storage::device_timing device = storage::device_timing::named(a.device);
  const std::filesystem::path dir = std::filesystem::path(a.data) / a.workload;
  const auto lock = apps::lock_workload_directory(dir, true);

  sim::gpu_model gpu(c);
  std::optional<apps::bam::storage_run_report> rep;
  const auto t0 = std::chrono::steady_clock::now();
  {
    const sim::canonical_kernel_memory placement;  // cycles independent of the host's heap
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    std::optional<progress_bar> bar(std::in_place, fmt::format("sim {}", a.workload), !a.quiet && !a.json);
    const apps::bam::storage_env e{ex, dir, false, 1, [&bar](double f) { bar->update(f); }, device};
    rep = w->run(e, p);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Verified on the cpu schedule: checking is not part of the simulated run.
  cpu::executor check_ex;
  const apps::verify_report v = w->verify({check_ex, dir});

  sim::run_summary sum{a.workload, "storage", p, wall, v.ok, v.detail, a.full_size};
  nlohmann::json j = sim::report_json(gpu, sum);
  j["storage"] = {{"device", device.name},
                  {"latency_us", device.latency_us},
                  {"iops", device.iops},
                  {"method", rep->method},
                  {"answer", rep->answer},
                  {"io_commands", rep->io_commands},
                  {"bytes_read", rep->bytes_read},
                  {"bytes_written", rep->bytes_written}};
  if (rep->cached)
    j["storage"]["cache"] = {{"hits", rep->cache.hits},           {"misses", rep->cache.misses},
                             {"evictions", rep->cache.evictions}, {"write_backs", rep->cache.write_backs},
                             {"full_sweeps", rep->cache.full_sweeps}};
  if (!a.out.empty()) std::ofstream(a.out) << j.dump(2) << "\n";
  if (a.json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", sim::report_table(gpu, sum));
    fmt::print("storage: {} ({} us, {:.0f} IOPS), method {}: {} NVMe commands, {} bytes read, {} written\n  {}\n",
               device.name, device.latency_us, device.iops, rep->method, rep->io_commands, rep->bytes_read,
               rep->bytes_written, rep->answer);
  }
  if (!v.ok) throw exit_request{exit_check_failed};
  return true;
}

}  // namespace gpmx::cli
