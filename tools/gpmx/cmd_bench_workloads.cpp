// gpmx bench workloads: throughput of every workload in both styles, bytes
// persisted against CAP-mm and restoration latency; gpmx bench kvs: gpKVS
// against RocksDB; gpmx bench bam: the BaM workloads' methods side by side.
#include <fmt/format.h>
#include <memory>

#include "bam_bench.hpp"
#include "bench_output.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "kvs_compare_bench.hpp"
#include "workload_bench.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::cli {
namespace {

void register_workloads(CLI::App& bench) {
  struct args {
    bench::workload_bench_options o;
    std::string dir, durability = "msync", out, backend = "cpu";
    bool json = false, throughput = false, amplification = false, restoration = false;
  };
  auto a = std::make_shared<args>();
  auto* sub = bench.add_subcommand(
      "workloads", "Workloads: throughput in both styles, write amplification vs CAP-mm, restoration latency");
  sub->add_option("--only", a->o.workloads, "workloads to measure (repeatable; default all)");
  sub->add_option("--repeat", a->o.repeat, "runs per figure (median reported)")->capture_default_str();
  sub->add_option("--dir", a->dir, "directory for the files (default: the temporary directory)");
  sub->add_option("--durability", a->durability, durability_help)->capture_default_str();
  sub->add_option("--workers", a->o.workers, "executor worker threads (default: every core)");
  sub->add_flag("--small", a->o.small, "the workloads' test sizes (a quick check that everything runs)");
  add_backend_option(sub, a->backend, "where kernels run: cpu, or cuda (GPU 0; files default to /dev/shm)");
  sub->add_flag("--throughput", a->throughput, "only the throughput figures");
  sub->add_flag("--amplification", a->amplification, "only the CAP-mm comparison");
  sub->add_flag("--restoration", a->restoration, "only the restoration latency");
  sub->add_flag("--json", a->json, "print JSON instead of a table");
  sub->add_option("--out", a->out, "also write the JSON to this file");
  sub->callback([a] {
    a->o.dir = a->dir;
    a->o.mode = parse_durability(a->durability);
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    const bool all = !a->throughput && !a->amplification && !a->restoration;
    const bool gpu = a->backend == "cuda";
    if (gpu && a->dir.empty()) a->o.dir = "/dev/shm";  // a GPU maps tmpfs pages only (gpu_session.hpp)
    std::vector<bench::result> rows;
    auto add = [&](std::vector<bench::result> more) { rows.insert(rows.end(), more.begin(), more.end()); };
    // Restoration forks, so it runs before this process starts any thread
    // or opens a GPU session (each child opens its own).
    a->o.restoration_on_gpu = gpu;
    if (all || a->restoration) add(bench::run_restoration_latency(a->o));
    const auto session = open_backend(a->backend, "bench");
    a->o.gpu = session.get();
    if (all || a->throughput) add(bench::run_workload_throughput(a->o));
    if (all || a->amplification) add(bench::run_write_amplification(a->o));
    print_results(rows, a->json, a->out);
  });
}

void register_kvs(CLI::App& bench) {
  struct args {
    bench::kvs_compare_options o;
    std::string dir, durability = "msync", out;
    bool json = false;
  };
  auto a = std::make_shared<args>();
  auto* sub = bench.add_subcommand("kvs", "gpKVS against RocksDB: the same batched SETs, on the same file system");
  sub->add_option("--sets", a->o.sets, "gpKVS sets (8 ways each)")->capture_default_str();
  sub->add_option("--batch", a->o.batch, "SETs per batch")->capture_default_str();
  sub->add_option("--batches", a->o.batches, "batches per run")->capture_default_str();
  sub->add_option("--warmup", a->o.warmup,
                  "untimed batches each new store takes before the timed ones (a fresh store's first batch maps "
                  "its files' pages)")
      ->capture_default_str();
  sub->add_option("--repeat", a->o.repeat, "runs of each store (median reported)")->capture_default_str();
  sub->add_option("--dir", a->dir, "directory for both stores (default: the temporary directory)");
  sub->add_option("--durability", a->durability, durability_help)->capture_default_str();
  sub->add_option("--workers", a->o.workers, "executor worker threads (default: every core)");
  sub->add_flag("--json", a->json, "print JSON instead of a table");
  sub->add_option("--out", a->out, "also write the JSON to this file");
  sub->callback([a] {
    if (a->o.sets == 0 || a->o.batch == 0 || a->o.batches == 0 || a->o.repeat == 0 || a->o.batch > a->o.sets)
      throw config_error(fmt::format("--sets {} --batch {} --batches {} --repeat {}: all positive, batch <= sets",
                                     a->o.sets, a->o.batch, a->o.batches, a->o.repeat));
    a->o.dir = a->dir;
    a->o.mode = parse_durability(a->durability);
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    print_results(bench::run_kvs_vs_rocksdb(a->o), a->json, a->out);
  });
}

void register_bam(CLI::App& bench) {
  struct args {
    bench::bam_bench_options o;
    std::string dir, out, backend = "cpu";
    bool json = false;
  };
  auto a = std::make_shared<args>();
  auto* sub = bench.add_subcommand(
      "bam", "BaM workloads: graph ablation (none/naive/coalesced/reuse/mmap), queries Q0-Q5 and vectorAdd against "
             "tiling and mmap");
  sub->add_option("--only", a->o.parts, "parts to measure: graph, query, vectoradd (repeatable; default all)");
  sub->add_option("--repeat", a->o.repeat, "runs per method (median reported)")->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--uncached-repeat", a->o.uncached_repeat, "runs of the no-cache graph method")
      ->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--dir", a->dir, "directory for the device files (default: the temporary directory)");
  sub->add_option("--workers", a->o.workers, "executor worker threads (default: every core)");
  sub->add_option("--graph-nodes", a->o.graph_nodes, "nodes of the scale-free graph")->capture_default_str();
  sub->add_option("--graph-cache-kib", a->o.graph_cache_kib, "page cache of the graph runs (KiB)")->capture_default_str();
  sub->add_option("--graph-threads", a->o.graph_threads, "kernel threads of the graph runs")->capture_default_str();
  sub->add_option("--rows", a->o.rows, "rows of the taxi-like table")->capture_default_str();
  sub->add_option("--elements", a->o.elements, "elements per vector of vectorAdd")->capture_default_str();
  sub->add_option("--controllers", a->o.controllers,
                  "emulated controllers per device, each a host thread serving its share of the queue pairs")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  sub->add_flag("--small", a->o.small, "the workloads' test sizes (a quick check that everything runs)");
  add_backend_option(sub, a->backend, "where kernels run: cpu, or cuda (GPU 0; controllers serve its queues from "
                                      "host threads)");
  sub->add_flag("--json", a->json, "print JSON instead of a table");
  sub->add_option("--out", a->out, "also write the JSON to this file");
  sub->callback([a] {
    a->o.dir = a->dir;
    const auto session = open_backend(a->backend, "bench");
    a->o.gpu = session.get();
    a->o.progress = [](const std::string& s) { fmt::print(stderr, "bench: {}\n", s); };
    print_results(bench::run_bam_benchmarks(a->o), a->json, a->out);
  });
}

}  // namespace

void register_bench_workloads(CLI::App& bench) {
  register_workloads(bench);
  register_kvs(bench);
  register_bam(bench);
}

}  // namespace gpmx::cli
