#include "gpmx/bench/pm_bench.hpp"

#include <chrono>
#include <fmt/format.h>
#include <random>
#include <stdexcept>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/conv_log.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::bench {
namespace {
namespace fs = std::filesystem;

struct log_entry {  // gpKVS's undo record: key, value, set, way
  std::uint64_t key, value;
  std::uint32_t set, way;
};

fs::path disk_dir(const pm_bench_options& o) { return o.disk_dir.empty() ? fs::temp_directory_path() : o.disk_dir; }

// The kernels, as named objects so that nvcc can launch them on a GPU.
struct hcl_insert {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::hcl_view l) const {
    const log_entry e{t.global_id(), t.global_id() * 3, 7, 1};
    l.insert(t, &e, sizeof e);
  }
};
struct conv_insert {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::conv_view l) const {
    const log_entry e{t.global_id(), t.global_id() * 3, 7, 1};
    l.insert(t, &e, sizeof e);
  }
};
// One thread writes nlines lines, then persists them, n times.
struct persist_loop {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::pm_span<std::uint64_t> v, unsigned nlines, unsigned n, bool use_gpm) const {
    auto s = v.bind(t);
    for (unsigned it = 0; it < n; ++it) {
      for (unsigned l = 0; l < nlines; ++l) s[l * 8] = it + l;
      if (use_gpm) t.gpm_persist();
      else t.dfence();
    }
  }
};

}  // namespace

std::vector<result> run_log_benchmarks(const pm_bench_options& o) {
  if (o.repeat == 0) throw std::invalid_argument("bench pm: --repeat must be at least 1");
  const pm::durability mode = pm::durability_from_string(o.log_durability);
  const fs::path dir = fs::exists(o.shm_dir) ? o.shm_dir : disk_dir(o);
  std::vector<result> out;
  cpu::executor cpu_ex;
  const launch_target ex(cpu_ex, o.gpu);
  const std::string where = kernels_run_on(o.gpu);
  for (const std::uint64_t n : o.log_threads) {
    const std::uint32_t block = 256;
    const auto blocks = std::uint32_t((n + block - 1) / block);
    const std::uint64_t threads = std::uint64_t(blocks) * block;
    const launch_config cfg{dim3(blocks), dim3(block), 0, "log_insert"};
    double hcl_ns = 0;
    {
      if (o.progress) o.progress(fmt::format("HCL log, {} threads", threads));
      const scratch_dir f(dir, "bench-hcl");
      pm::hcl_log log = pm::hcl_log::create(f / "log", threads * 64, blocks, block, mode);
      result r = make_result(fmt::format("log_hcl_{}", threads), time_runs(0, o.repeat, [&] {
                        log.clear();
                        ex.launch(cfg, hcl_insert{}, log.view());
                      }),
                      fmt::format("{} threads each insert one 24-byte entry ({} durability, {}, {})", threads,
                                  o.log_durability, dir.string(), where));
      hcl_ns = r.median_ns;
      r.metrics["threads"] = double(threads);
      r.metrics["inserts_per_s"] = double(threads) / (r.median_ns * 1e-9);
      r.metrics["ns_per_insert"] = r.median_ns / double(threads);
      out.push_back(std::move(r));
    }
    {
      if (o.progress) o.progress(fmt::format("conventional log, {} threads", threads));
      const scratch_dir f(dir, "bench-conv");
      const std::uint32_t partitions = 64;
      // Blocks use partition block % partitions: size each for its blocks' entries.
      const std::uint64_t per_partition = (blocks + partitions - 1) / partitions * block *
                                          pm::conv_view::record_bytes(sizeof(log_entry));
      pm::conv_log log = pm::conv_log::create(f / "log", per_partition * partitions, partitions, mode);
      result r = make_result(fmt::format("log_conv_{}", threads), time_runs(0, o.repeat, [&] {
                        log.clear();
                        ex.launch(cfg, conv_insert{}, log.view());
                      }),
                      fmt::format("the same inserts into {} partitions under locks", partitions));
      r.metrics["threads"] = double(threads);
      r.metrics["inserts_per_s"] = double(threads) / (r.median_ns * 1e-9);
      r.metrics["ns_per_insert"] = r.median_ns / double(threads);
      r.metrics["hcl_speedup"] = r.median_ns / hcl_ns;
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<result> run_persist_benchmarks(const pm_bench_options& o) {
  if (o.repeat == 0) throw std::invalid_argument("bench pm: --repeat must be at least 1");
  std::vector<result> out;
  std::vector<std::pair<std::string, fs::path>> places;
  if (fs::exists(o.shm_dir)) places.emplace_back("shm", o.shm_dir);
  // A GPU cannot map a disk file's pages on Linux 6.5 and later (gpu_session.hpp).
  if (o.gpu == nullptr || places.empty()) places.emplace_back("disk", disk_dir(o));
  cpu::executor cpu_ex({.workers = 1});
  const launch_target ex(cpu_ex, o.gpu);
  for (const auto& [place, dir] : places)
    for (const pm::durability mode : {pm::durability::pmem, pm::durability::msync, pm::durability::none})
      for (const unsigned lines : {1u, 8u, 64u})
        for (const bool gpm : {false, true}) {
          const std::string op = gpm ? "gpm_persist" : "dfence";
          if (o.progress) o.progress(fmt::format("{} after {} lines, {} on {}", op, lines, pm::to_string(mode), place));
          const scratch_dir f(dir, "bench-persist");
          pm::pool p = pm::pool::create(f / "pool", 1 << 20, {.mode = mode});
          pm::region reg = p.create_region("lines", 64 * 64);
          const unsigned iters = o.persist_iterations;
          result r = make_result(fmt::format("{}_{}lines_{}_{}", op, lines, pm::to_string(mode), place),
                          time_runs(0, o.repeat, [&] {
                            ex.launch({dim3(1), dim3(1), 0, "persist_loop"}, persist_loop{},
                                      reg.span<std::uint64_t>(), lines, iters, gpm);
                          }),
                          fmt::format("one thread writes {} lines then calls {}, {} times", lines, op, iters));
          r.metrics["lines"] = lines;
          r.metrics["ns_per_fence"] = r.median_ns / iters;
          r.metrics["is_pmem"] = p.is_pmem() ? 1 : 0;
          out.push_back(std::move(r));
        }
  return out;
}

}  // namespace gpmx::bench
