// gpmx bench checkpoint: the checkpointing workloads under CAP-fs, CAP-mm
// and gpmx checkpoints, as a table or JSON.
#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "commands.hpp"
#include "checkpoint_workload_bench.hpp"
#include "cli_args.hpp"

namespace gpmx::cli {

void register_bench_workload_checkpoints(CLI::App& bench) {
  auto* cmd = bench.add_subcommand(
      "checkpoint", "Checkpointing workloads (blk, hotspot, cfd, dnn): CAP-fs, CAP-mm and gpmx checkpoints");
  struct args {
    bench::checkpoint_workload_bench_options o;
    bool json = false;
    std::string out, dir, backend = "cpu";
  };
  auto a = std::make_shared<args>();
  cmd->add_option("--repeat", a->o.repeat, "measured checkpoints and restores per method (median reported)")
      ->capture_default_str();
  cmd->add_option("--dir", a->dir, "directory for the files (default: the temporary directory)");
  add_backend_option(cmd, a->backend, "where iterations and gpmx's copy run: cpu, or cuda (files default to /dev/shm)");
  cmd->add_flag("--json", a->json, "print JSON instead of a table");
  cmd->add_option("--out", a->out, "also write the JSON to this file");
  cmd->callback([a] {
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    a->o.directory = a->dir;
    const auto session = open_backend(a->backend, "bench");
    a->o.gpu = session.get();
    if (session && a->dir.empty()) a->o.directory = "/dev/shm";  // a GPU maps tmpfs pages only (gpu_session.hpp)
    const auto results = bench::run_checkpoint_workload_benchmarks(a->o);
    const auto j = bench::to_json(results);
    if (a->json) fmt::print("{}\n", j.dump(2));
    else fmt::print("{}", bench::to_table(results));
    if (!a->out.empty()) {
      std::ofstream f(a->out);
      if (!(f << j.dump(2) << "\n")) throw std::runtime_error("cannot write " + a->out);
    }
  });
}

}  // namespace gpmx::cli
