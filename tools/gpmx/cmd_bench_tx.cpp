// gpmx bench tx: the transaction benchmarks with helper warps off, on and
// adaptive at each emulated NVRAM bandwidth (docs/transactions.md).
#include <fmt/format.h>

#include <memory>

#include "bench_output.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/sim/config.hpp"
#include "tx_bench.hpp"

namespace gpmx::cli {

void register_bench_tx(CLI::App& bench) {
  auto* cmd = bench.add_subcommand(
      "tx", "Transactions (A1, A2, H1, H2, B1, B2) with helper warps off, on and adaptive at each NVRAM bandwidth");
  struct args {
    bench::tx_bench_options o;
    bool json = false, timed = false;
    std::string out, dir, sim_config = "sbrp-table1", backend = "cpu";
    std::vector<std::string> param_texts, sets;
  };
  auto a = std::make_shared<args>();
  cmd->add_option("--config", a->o.configs, fmt::format("configurations ({})", fmt::join(bench::tx_bench_configs(), ", ")))
      ->capture_default_str();
  auto* nvram = cmd->add_option("--nvram-mbps", a->o.bandwidths_mbps,
                                "emulated NVRAM write bandwidths in MB/s (0: no throttle; with --backend cuda the kernels' "
                                "PM stores are charged on the GPU; default there: 0 only)")
                    ->capture_default_str();
  cmd->add_option("--repeat", a->o.repeat, "runs per row (median reported)")->capture_default_str();
  cmd->add_option("--threshold-mbps", a->o.threshold_mbps,
                  "adaptive rows: the bandwidth monitor's threshold in MB/s (0: the workload's, the paper's 200)")
      ->capture_default_str();
  cmd->add_flag("--calibrate", a->o.calibrate,
                "first calibrate the threshold at each bandwidth with the paper's write-pressure test (helpers off "
                "and on at growing thread counts) and give it to the adaptive rows");
  cmd->add_option("--calibration", a->o.calibration,
                  "the adaptive rows' thresholds from an earlier calibration's JSON (--calibrate-only --json --out "
                  "FILE), one per bandwidth");
  cmd->add_flag("--calibrate-only", a->o.calibrate_only, "the calibration rows alone (implies --calibrate)");
  cmd->add_option("--workers", a->o.workers, "executor workers (0: the default)")->capture_default_str();
  cmd->add_flag("--small", a->o.small, "the workloads' test sizes instead of the paper's");
  cmd->add_flag("!--no-baseline", a->o.baseline, "skip the libpmemobj CPU baseline rows");
  cmd->add_option("-p,--param", a->param_texts, "NAME=VALUE over every configuration's parameters, repeatable "
                                                "(say blocks=60 for a shorter timed sweep)");
  cmd->add_flag("--timed", a->timed, "run every row in the timed mode: simulated time with NVM writes at the row's "
                                     "bandwidth (one run each; no baseline)");
  cmd->add_option("--sim-config", a->sim_config, "--timed: the simulated GPU (gpmx sim --list-configs)")
      ->capture_default_str();
  cmd->add_option("--set", a->sets, "--timed: KEY=VALUE over the simulated GPU's configuration, repeatable");
  add_backend_option(cmd, a->backend,
                     "where kernels run: cpu, or cuda (GPU 0; pools in host memory across PCIe, throttled on the "
                     "GPU when --nvram-mbps names a bandwidth; files default to /dev/shm)");
  cmd->add_option("--dir", a->dir, "directory for the pools (default: the temporary directory; /dev/shm is best)");
  cmd->add_flag("--json", a->json, "print JSON instead of a table");
  cmd->add_option("--out", a->out, "also write the JSON to this file");
  cmd->callback([a, nvram] {
    a->o.directory = a->dir;
    const bool gpu = a->backend == "cuda";
    if (gpu && a->dir.empty()) a->o.directory = "/dev/shm";  // a GPU maps tmpfs pages only (gpu_session.hpp)
    if (gpu && nvram->count() == 0) a->o.bandwidths_mbps = {0};  // the link's own speed
    for (const std::string& t : a->param_texts) apps::parse_param(t, a->o.overrides);
    if (!a->timed && !a->sets.empty()) throw config_error("bench tx: --set configures the simulated GPU; add --timed");
    if (a->timed) {
      sim::sim_config c = sim::named_config(a->sim_config);
      for (const std::string& kv : a->sets) sim::apply_setting(c, kv);
      sim::validate(c);
      a->o.timed = c;
    }
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    const auto session = open_backend(a->backend, "bench");
    a->o.gpu = session.get();
    print_results(bench::run_tx_benchmarks(a->o), a->json, a->out);
  });
}

}  // namespace gpmx::cli
