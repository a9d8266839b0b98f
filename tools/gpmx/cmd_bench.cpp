// gpmx bench exec: the executor benchmarks, as a table or JSON.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "bench_output.hpp"
#include "commands.hpp"
#include "gpmx/bench/exec_bench.hpp"
#include "gpmx/bench/pm_bench.hpp"
#include "gpmx/bench/pm_checkpoint_bench.hpp"
#include "gpmx/bench/storage_bench.hpp"
#include "gpmx/exec/errors.hpp"
#include "cli_args.hpp"

namespace gpmx::cli {
namespace {

void register_bench_pm(CLI::App& bench) {
  auto* pm = bench.add_subcommand("pm", "Benchmark persistent memory: HCL vs conventional logs, fence costs");
  struct args {
    bench::pm_bench_options o;
    bool json = false, logs_only = false, fences_only = false, checkpoints_only = false;
    std::string out, disk;
    std::uint64_t checkpoint_bytes = 64ull << 20;
    std::string backend = "cpu";
  };
  auto a = std::make_shared<args>();
  pm->add_option("--repeat", a->o.repeat, "measured runs per figure (median reported)")->capture_default_str();
  pm->add_option("--log-threads", a->o.log_threads, "logging thread counts")->capture_default_str();
  pm->add_option("--log-durability", a->o.log_durability, "pmem, msync, flush or none")->capture_default_str();
  pm->add_option("--disk-dir", a->disk, "directory on disk for the files (default: the temporary directory)");
  pm->add_option("--fence-iterations", a->o.persist_iterations, "fences timed per figure")->capture_default_str();
  pm->add_flag("--logs-only", a->logs_only, "only the logging benchmarks");
  pm->add_flag("--fences-only", a->fences_only, "only the fence benchmarks");
  pm->add_flag("--checkpoints-only", a->checkpoints_only, "only the checkpoint benchmarks");
  pm->add_option("--checkpoint-bytes", a->checkpoint_bytes, "bytes of one checkpoint")->capture_default_str();
  add_backend_option(pm, a->backend, "where the log, fence and checkpoint kernels run: cpu, or cuda (GPU 0, tmpfs only)");
  pm->add_flag("--json", a->json, "print JSON instead of a table");
  pm->add_option("--out", a->out, "also write the JSON to this file");
  pm->callback([a] {
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    a->o.disk_dir = a->disk;
    const bool all = !a->logs_only && !a->fences_only && !a->checkpoints_only;
    const auto session = open_backend(a->backend, "bench");
    a->o.gpu = session.get();
    std::vector<bench::result> results;
    auto add = [&](std::vector<bench::result> more) { results.insert(results.end(), more.begin(), more.end()); };
    if (all || a->logs_only) add(bench::run_log_benchmarks(a->o));
    if (all || a->fences_only) add(bench::run_persist_benchmarks(a->o));
    if (all || a->checkpoints_only) {
      // Checkpoint against a plain copy + persist of the same bytes, msync
      // durability, once on disk and once on tmpfs.
      for (const bool shm : {false, true}) {
        if (shm && !std::filesystem::exists(a->o.shm_dir)) continue;
        if (session && !shm) continue;  // a GPU cannot map a disk file's pages (gpu_session.hpp)
        bench::checkpoint_bench_options c;
        c.directory = shm ? a->o.shm_dir : a->o.disk_dir;
        c.bytes = a->checkpoint_bytes;
        c.repeat = a->o.repeat;
        c.mode = pm::durability::msync;
        c.progress = a->o.progress;
        c.gpu = a->o.gpu;
        auto rows = bench::run_checkpoint_benchmarks(c);
        for (auto& r : rows) r.name += shm ? "_shm" : "_disk";
        add(std::move(rows));
      }
    }
    print_results(results, a->json, a->out);
  });
}

void register_bench_storage(CLI::App& bench) {
  auto* cmd = bench.add_subcommand(
      "storage", "Benchmark GPU-initiated storage: reads and writes through the NVMe queues vs fio, the cache's hit path");
  struct args {
    bench::storage_bench_options o;
    bool json = false, no_fio = false, no_hit_path = false;
    std::string out, backend = "cpu";
  };
  auto a = std::make_shared<args>();
  cmd->add_option("--pattern", a->o.patterns, "access patterns, fio's names (repeatable)")
      ->capture_default_str()
      ->check(CLI::IsMember({"randread", "read", "randwrite", "write"}));
  cmd->add_option("--dir", a->o.dir, "directory for the backing file (default: the temporary directory)");
  cmd->add_option("--file-mib", a->o.file_mib, "backing file size in MiB")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--block", a->o.block_bytes, "read sizes in bytes (512 or 4096)")
      ->capture_default_str()
      ->check(CLI::IsMember({512u, 4096u}));
  cmd->add_option("--threads", a->o.threads, "kernel thread counts")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--queues", a->o.queues, "queue pairs")->capture_default_str()->check(CLI::Range(1u, 1024u));
  cmd->add_option("--depth", a->o.depth, "entries per queue")->capture_default_str()->check(CLI::Range(2u, 65536u));
  cmd->add_option("--ring-entries", a->o.ring_entries, "the controller's reads in flight at most")
      ->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
  cmd->add_option("--controllers", a->o.controllers,
                  "controllers serving the device, each its own thread and share of the queue pairs")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--reads", a->o.reads_per_thread, "commands per thread")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--workers", a->o.workers,
                  "executor workers (0: GPMX_WORKERS, else every core but one per controller for the queue rows, "
                  "every core for the hit path)")
      ->capture_default_str();
  cmd->add_option("--repeat", a->o.repeat,
                  "rounds per pattern and block: one fio run, then one run per thread count (medians reported; "
                  "ratio_vs_fio pairs each run with its round's fio run)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-fio", a->no_fio, "skip the fio reference");
  cmd->add_flag("--no-hit-path", a->no_hit_path, "skip the cache hit-path rows");
  cmd->add_flag("--stages", a->o.stages,
                "also sample, every 200 us, how many commands wait at each step of the queue rows (stage_* metrics: "
                "a host thread of its own, which takes some CPU)");
  cmd->add_option("--timed", a->o.timed_device,
                  "instead: 512 B random reads in the timed schedule against this device model (optane-p5800x, "
                  "nand-ssd)");
  cmd->add_option("--timed-devices", a->o.timed_devices, "device counts of the timed rows")->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  cmd->add_option("--timed-threads", a->o.timed_threads, "thread counts of the timed rows")->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timed-reads", a->o.timed_reads, "reads per thread in the timed rows")->capture_default_str()
      ->check(CLI::PositiveNumber);
  add_backend_option(cmd, a->backend,
                     "where the kernel threads run: cpu, or cuda (GPU 0; the controller serves its queues from the "
                     "host)");
  cmd->add_flag("--json", a->json, "print JSON instead of a table");
  cmd->add_option("--out", a->out, "also write the JSON to this file");
  cmd->callback([a] {
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    a->o.fio = !a->no_fio;
    a->o.hit_path = !a->no_hit_path;
    const auto session = open_backend(a->backend, "bench");
    a->o.gpu = session.get();
    print_results(bench::run_storage_benchmarks(a->o), a->json, a->out);
  });
}

}  // namespace

void register_bench(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "Run benchmarks");
  bench->require_subcommand(1);
  auto* exec = bench->add_subcommand("exec", "Benchmark the cpu executor (kernels vs loops, barriers, shuffles)");
  struct args {
    bench::exec_bench_options o;
    bool json = false;
    std::string out;
  };
  auto a = std::make_shared<args>();
  exec->add_option("--repeat", a->o.repeat, "measured runs per benchmark (median reported)")->capture_default_str();
  exec->add_option("--fill-threads", a->o.fill_threads, "threads of the barrier-free kernel")->capture_default_str();
  exec->add_option("--reduce-elements", a->o.reduce_elements, "elements of the block reduction")->capture_default_str();
  exec->add_option("--shuffle-threads", a->o.shuffle_threads, "threads of the warp shuffle reduction")->capture_default_str();
  exec->add_option("--max-workers", a->o.max_workers, "largest worker count measured (powers of two from 1)")->capture_default_str();
  exec->add_flag("--json", a->json, "print JSON instead of a table");
  exec->add_option("--out", a->out, "also write the JSON to this file");
  exec->callback([a] {
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    print_results(bench::run_exec_benchmarks(a->o), a->json, a->out);
  });
  register_bench_pm(*bench);
  register_bench_storage(*bench);
  register_bench_workloads(*bench);
  register_bench_workload_checkpoints(*bench);
  register_bench_tx(*bench);
  register_bench_check(*bench);
}

}  // namespace gpmx::cli
