// gpmx bench tx: the transaction benchmarks with helper warps off, on and
// adaptive at each emulated NVRAM bandwidth (docs/transactions.md).
#include <fmt/format.h>

#include <memory>

#include "bench_output.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "tx_bench.hpp"

namespace gpmx::cli {

void register_bench_tx(CLI::App& bench) {
  auto* cmd = bench.add_subcommand(
      "tx", "Transactions (A1, A2, H1, H2, B1, B2) with helper warps off, on and adaptive at each NVRAM bandwidth");
  struct args {
    bench::tx_bench_options o;
    bool json = false;
    std::string out, dir;
  };
  auto a = std::make_shared<args>();
  cmd->add_option("--config", a->o.configs, fmt::format("configurations ({})", fmt::join(bench::tx_bench_configs(), ", ")))
      ->capture_default_str();
  cmd->add_option("--nvram-mbps", a->o.bandwidths_mbps, "emulated NVRAM write bandwidths in MB/s (0: no throttle)")
      ->capture_default_str();
  cmd->add_option("--repeat", a->o.repeat, "runs per row (median reported)")->capture_default_str();
  cmd->add_option("--threshold-mbps", a->o.threshold_mbps,
                  "adaptive rows: the bandwidth monitor's threshold in MB/s (0: the workload's, the paper's 200)")
      ->capture_default_str();
  cmd->add_option("--workers", a->o.workers, "executor workers (0: the default)")->capture_default_str();
  cmd->add_flag("--small", a->o.small, "the workloads' test sizes instead of the paper's");
  cmd->add_flag("!--no-baseline", a->o.baseline, "skip the libpmemobj CPU baseline rows");
  cmd->add_option("--dir", a->dir, "directory for the pools (default: the temporary directory; /dev/shm is best)");
  cmd->add_flag("--json", a->json, "print JSON instead of a table");
  cmd->add_option("--out", a->out, "also write the JSON to this file");
  cmd->callback([a] {
    a->o.directory = a->dir;
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    print_results(bench::run_tx_benchmarks(a->o), a->json, a->out);
  });
}

}  // namespace gpmx::cli
