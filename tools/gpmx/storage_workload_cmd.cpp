#include "storage_workload_cmd.hpp"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "bam/storage_workload.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "common/directory_lock.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "kv_table.hpp"
#include "progress_bar.hpp"

namespace gpmx::cli {
namespace {

void add_run_rows(kv_result& r, const apps::bam::storage_run_report& rep) {
  r.add("method", "method", rep.method, rep.method);
  r.add("answer", "answer", rep.answer, rep.answer);
  r.add("operations", "operations", rep.operations, fmt::format("{} {}", rep.operations, rep.unit));
  r.add("unit", "unit", rep.unit, rep.unit);
  r.add("seconds", "seconds", rep.seconds, fmt::format("{:.3f}", rep.seconds));
  const double rate = rep.seconds > 0 ? double(rep.operations) / rep.seconds : 0;
  r.add("throughput", "operations_per_second", rate, fmt::format("{:.0f} {}/s", rate, rep.unit));
  r.add("bytes used", "bytes_used", rep.bytes_used, human_bytes(rep.bytes_used));
  r.add("bytes read", "bytes_read", rep.bytes_read, human_bytes(rep.bytes_read));
  r.add("bytes written", "bytes_written", rep.bytes_written, human_bytes(rep.bytes_written));
  const double amplification = rep.bytes_used > 0 ? double(rep.bytes_read) / double(rep.bytes_used) : 0;
  r.add("I/O amplification", "io_amplification", amplification, fmt::format("{:.3f} (bytes read / used)", amplification));
  r.add("NVMe commands", "io_commands", rep.io_commands, fmt::format("{}", rep.io_commands));
  r.add("launches", "launches", rep.launches, fmt::format("{}", rep.launches));
  if (!rep.cached) return;
  const auto& c = rep.cache;
  r.add("cache", "cache",
        nlohmann::json{{"hits", c.hits}, {"misses", c.misses}, {"evictions", c.evictions},
                       {"write_backs", c.write_backs}, {"reads", c.reads}, {"writes", c.writes}},
        fmt::format("{} hits, {} misses, {} evictions, {} write-backs", c.hits, c.misses, c.evictions,
                    c.write_backs));
}

}  // namespace

bool run_storage_workload(const storage_command& c, std::string_view verb) {
  apps::bam::storage_workload* w = apps::bam::find_storage_workload(c.workload);
  if (w == nullptr) return false;
  if (verb == "recover")
    throw config_error(fmt::format("{} is a storage workload: its data on the devices is its input and it keeps no "
                                   "persistent state, so there is nothing to recover (run it again)",
                                   c.workload));
  for (const std::string& o : c.inapplicable)
    throw config_error(fmt::format("{} does not apply to storage workload {} (it keeps no persistent memory)", o,
                                   c.workload));
  const std::filesystem::path dir = std::filesystem::path(c.data) / c.workload;
  const auto lock = apps::lock_workload_directory(dir, verb == "run");
  // verify reads the files on the host: it needs no GPU.
  const std::unique_ptr<gpu_session> gpu = verb == "run" ? open_backend(c.backend) : nullptr;
  cpu::executor ex({.workers = c.workers});
  std::optional<progress_bar> bar(std::in_place, fmt::format("{} {}", verb, c.workload), !c.quiet && !c.json);
  apps::bam::storage_env e{ex, dir, false, 1, [&bar](double f) { bar->update(f); }};
  e.gpu = gpu.get();
  kv_result r;
  r.add("workload", "workload", c.workload, c.workload);
  if (verb == "run") {
    const std::string device = kernels_run_on(gpu.get());
    r.add("backend", "backend", device, device);
  }
  if (verb == "run") {
    apps::params given;
    for (const std::string& t : c.param_texts) apps::parse_param(t, given);
    const apps::params p = apps::bam::resolve_storage_params(*w, given);
    std::string shown;
    for (const auto& [k, v] : p) shown += fmt::format("{}{}={}", shown.empty() ? "" : " ", k, v);
    r.add("parameters", "parameters", p, shown);
    r.add("data", "data", dir.string(), dir.string());
    const auto rep = w->run(e, p);
    bar.reset();
    add_run_rows(r, rep);
    print_result(r, c.json);
    return true;
  }
  const apps::verify_report rep = w->verify(e);
  bar.reset();
  r.add("verified", "ok", rep.ok, rep.ok ? "yes" : "NO");
  r.add("checked", "checked", rep.checked, fmt::format("{}", rep.checked));
  r.add("detail", "detail", rep.detail, rep.detail);
  print_result(r, c.json);
  if (!rep.ok) throw exit_request{exit_check_failed};
  return true;
}

}  // namespace gpmx::cli
