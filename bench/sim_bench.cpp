#include "gpmx/bench/sim_bench.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "kernels/sim_kernels.hpp"

namespace gpmx::bench {
namespace {

using sim_kernels::flag_pairs;
using sim_kernels::stream_copy;
using sim_kernels::stream_sum;

// Each thread declares `iterations` blocks of 64 instructions and stores once.
struct compute_blocks {
  void operator()(auto& t, std::uint32_t iterations, global_span<std::uint32_t> out) const {
    std::uint32_t v = std::uint32_t(t.global_id());
    for (std::uint32_t i = 0; i < iterations; ++i) {
      t.work(64);
      v = v * 2654435761u + 1;
    }
    out.bind(t)[t.global_id()] = v;
  }
};

struct one_run {
  double wall_ns;
  double operations, compute, simulated_ns;
};

// Times `repeat` launches on one executor after an unmeasured one: the
// first launch of an executor maps and touches a fiber stack for every
// resident thread (30,720 on sbrp-table1), which a long simulation pays
// once; the figures are the simulator's steady state.
template <class Launch>
std::vector<one_run> run_warm(const sim::sim_config& c, unsigned repeat, bool progress, const char* what,
                              Launch&& launch) {
  sim::gpu_model gpu(c);
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  launch(ex);
  std::vector<one_run> runs;
  for (unsigned i = 0; i < repeat; ++i) {
    if (progress) std::cerr << fmt::format("sim bench: {} kernel, run {} of {}\n", what, i + 1, repeat);
    const sim::run_totals before = gpu.totals();
    const auto t0 = std::chrono::steady_clock::now();
    launch(ex);
    const auto t1 = std::chrono::steady_clock::now();
    const sim::run_totals& after = gpu.totals();
    runs.push_back({double(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()),
                    double(after.instructions() - before.instructions()),
                    double(after.compute_instructions() - before.compute_instructions()),
                    double(after.kernel_time() - before.kernel_time()) / 1000.0});
  }
  return runs;
}

result summarize(std::string name, const std::vector<one_run>& runs, std::string note) {
  std::vector<double> walls;
  for (const one_run& r : runs) walls.push_back(r.wall_ns);
  result out = make_result(std::move(name), walls, std::move(note));
  const one_run& t = runs.front();  // every run simulates the same instructions
  const double ops = t.operations, all = ops + t.compute;
  const double simulated_ns = t.simulated_ns;
  out.metrics["warp_instructions"] = all;
  out.metrics["operation_instructions"] = ops;
  out.metrics["simulated_ns"] = simulated_ns;
  out.metrics["warp_instructions_per_s"] = all / (out.median_ns / 1e9);
  out.metrics["operation_instructions_per_s"] = ops / (out.median_ns / 1e9);
  out.metrics["slowdown"] = out.median_ns / simulated_ns;
  return out;
}

}  // namespace

const std::vector<std::string>& sim_bench_kernels() {
  static const std::vector<std::string> names{"memory_bound", "memory_copy", "spin", "compute_bound"};
  return names;
}

std::vector<result> run_sim_bench(const sim::sim_config& c, const sim_bench_options& o, bool progress) {
  if (o.repeat == 0 || o.warps == 0 || o.iterations == 0)
    throw config_error("gpmx sim --bench: --repeat, --bench-warps and --bench-iterations must be at least 1");
  const auto& known = sim_bench_kernels();
  for (const std::string& name : o.only)
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw config_error(fmt::format("gpmx sim --bench-only: no kernel '{}' (known: {})", name, fmt::join(known, ", ")));
  const auto wanted = [&](const char* name) {
    return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
  };
  const std::uint32_t block = 256;
  const std::uint64_t threads = (std::uint64_t(o.warps) * 32 + block - 1) / block * block;
  const launch_config cfg{dim3(std::uint32_t(threads / block)), dim3(block), 0, "bench"};
  // Buffers on pages of their own, as gpmx sim's workloads get them: the
  // simulated addresses, and so the figures, do not depend on the host's heap.
  const sim::canonical_kernel_memory canonical;
  kernel_vector<std::uint32_t> in(threads * o.iterations, 1), out(threads);
  std::vector<result> rows;

  if (wanted("memory_bound")) {
    const auto runs = run_warm(c, o.repeat, progress, "memory-bound", [&](cpu::executor& ex) {
      ex.launch(cfg, stream_sum{}, global_span<const std::uint32_t>(in.data(), in.size()), o.iterations,
                global_span<std::uint32_t>(out.data(), out.size()));
      if (out[0] != o.iterations) throw std::logic_error("sim bench: the streaming kernel computed a wrong sum");
    });
    rows.push_back(summarize("memory_bound", runs,
                             fmt::format("{} threads each load {} coalesced words that miss every cache",
                                         threads, o.iterations)));
  }
  if (wanted("memory_copy")) {
    kernel_vector<std::uint32_t> copy(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::uint32_t(i);
    const auto runs = run_warm(c, o.repeat, progress, "copy", [&](cpu::executor& ex) {
      ex.launch(cfg, stream_copy{}, global_span<const std::uint32_t>(in.data(), in.size()), o.iterations,
                global_span<std::uint32_t>(copy.data(), copy.size()));
      if (copy != in) throw std::logic_error("sim bench: the copy kernel copied wrong words");
    });
    rows.push_back(summarize("memory_copy", runs,
                             fmt::format("{} threads each copy {} words: a coalesced load, then a coalesced store",
                                         threads, o.iterations)));
  }
  // Spins: the odd warp of each pair retries an atomic load while its
  // partner works (200 instructions a round), as persist acquires and
  // flags spin in the SBRP workloads (the scan's runs are mostly spin tries).
  if (wanted("spin")) {
    kernel_vector<std::uint32_t> flags((threads / 64 + 1) * 32);
    const auto runs = run_warm(c, o.repeat, progress, "spin", [&](cpu::executor& ex) {
      std::fill(flags.begin(), flags.end(), 0u);
      ex.launch(cfg, flag_pairs{}, flags.data(), o.iterations, 200u,
                global_span<std::uint32_t>(out.data(), out.size()));
      for (const std::uint32_t v : out)
        if (v != o.iterations) throw std::logic_error("sim bench: a spinning thread left before the last round");
    });
    rows.push_back(summarize("spin", runs,
                             fmt::format("{} threads in warp pairs: one warp works 200 instructions and publishes a "
                                         "flag, the other spins on it, {} rounds", threads, o.iterations)));
  }
  if (wanted("compute_bound")) {
    const auto runs = run_warm(c, o.repeat, progress, "compute-bound", [&](cpu::executor& ex) {
      ex.launch(cfg, compute_blocks{}, o.iterations, global_span<std::uint32_t>(out.data(), out.size()));
    });
    rows.push_back(summarize("compute_bound", runs,
                             fmt::format("{} threads each declare {} blocks of 64 instructions", threads,
                                         o.iterations)));
  }
  return rows;
}

}  // namespace gpmx::bench
