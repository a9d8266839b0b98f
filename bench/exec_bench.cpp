#include "gpmx/bench/exec_bench.hpp"

#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <stdexcept>

#include "gpmx/exec/cpu/executor.hpp"
#include "kernels/exec_kernels.hpp"

namespace gpmx::bench {
namespace {

using test_kernels::work;

// Keeps the compiler from dropping the loop's stores.
void consume(std::vector<std::uint32_t>& a) { asm volatile("" : : "r"(a.data()) : "memory"); }

}  // namespace

std::vector<result> run_exec_benchmarks(const exec_bench_options& o) {
  if (o.repeat == 0) throw std::invalid_argument("bench exec: --repeat must be at least 1");
  auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  std::vector<result> out;
  const std::uint32_t block = 256;
  const std::uint64_t n = (o.fill_threads + block - 1) / block * block;
  std::vector<std::uint32_t> a(n);
  const launch_config fill_cfg{dim3(std::uint32_t(n / block)), dim3(block), 0, "fill"};

  say("plain loop");
  out.push_back(make_result("loop_fill", time_runs(1, o.repeat, [&] {
                       std::uint32_t* p = a.data();
                       for (std::uint64_t i = 0; i < n; ++i) p[i] = work(i);
                       consume(a);
                     }),
                     fmt::format("a[i] = f(i) for {} elements, one OS thread", n)));
  const double loop_ns = out.back().median_ns;

  double one_worker_ns = 0;
  for (unsigned w = 1; w <= o.max_workers; w *= 2) {
    say(fmt::format("barrier-free kernel, {} worker(s)", w));
    cpu::executor ex({.workers = w});
    result r = make_result(fmt::format("kernel_fill_{}w", w),
                    time_runs(1, o.repeat, [&] { ex.launch(fill_cfg, test_kernels::fill_unchecked{}, a.data()); }),
                    fmt::format("the same work as {} GPU threads in {}-thread blocks", n, block));
    r.metrics["workers"] = w;
    r.metrics["ratio_vs_loop"] = r.median_ns / loop_ns;
    if (w == 1) one_worker_ns = r.median_ns;
    else r.metrics["speedup_vs_1_worker"] = one_worker_ns / r.median_ns;
    out.push_back(std::move(r));
  }

  {
    const std::uint64_t m = o.reduce_elements / 1024 * 1024;
    std::vector<std::uint32_t> in(m);
    for (std::uint64_t i = 0; i < m; ++i) in[i] = work(i) & 0xffff;
    std::vector<std::uint64_t> sums(m / 1024);
    const launch_config cfg{dim3(std::uint32_t(m / 1024)), dim3(1024), 0, "reduce"};
    for (unsigned w = 1; w <= o.max_workers; w *= 2) {
      say(fmt::format("block reduction, {} worker(s)", w));
      cpu::executor ex({.workers = w});
      result r = make_result(fmt::format("block_reduce_{}w", w),
                      time_runs(1, o.repeat, [&] { ex.launch(cfg, test_kernels::block_sum_1024{}, in.data(), sums.data()); }),
                      fmt::format("{} elements, 1024-thread blocks, 10 barriers per block", m));
      r.metrics["workers"] = w;
      r.metrics["ns_per_thread_barrier"] = r.median_ns * w / (double(m) * 10);
      out.push_back(std::move(r));
    }
  }

  {
    const std::uint64_t m = o.shuffle_threads / 32 * 32;
    std::vector<std::uint32_t> in(m);
    for (std::uint64_t i = 0; i < m; ++i) in[i] = work(i) & 0xffff;
    std::vector<std::uint64_t> sums(m / 32);
    const launch_config cfg{dim3(std::uint32_t(m / 256)), dim3(256), 0, "shuffle"};
    say("warp shuffle reduction, 1 worker");
    cpu::executor ex({.workers = 1});
    result r = make_result("warp_shuffle_1w",
                    time_runs(1, o.repeat, [&] { ex.launch(cfg, test_kernels::warp_sum{}, in.data(), sums.data()); }),
                    fmt::format("{} threads, 5 shfl_down per lane", m));
    r.metrics["workers"] = 1;
    r.metrics["ns_per_shuffle_lane"] = r.median_ns / (double(m) * 5);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace gpmx::bench
