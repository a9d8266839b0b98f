#include "gpmx/bench/pm_checkpoint_bench.hpp"

#include <chrono>
#include <cstring>
#include <fmt/format.h>

#include <random>
#include <stdexcept>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/checkpoint.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::bench {
namespace {

namespace fs = std::filesystem;


result make(std::string name, std::vector<double> runs, std::uint64_t bytes, std::string note) {
  result r = make_result(std::move(name), std::move(runs), std::move(note));
  r.metrics["bytes"] = double(bytes);
  r.metrics["bytes_per_s"] = double(bytes) / (r.median_ns * 1e-9);
  return r;
}

}  // namespace

std::vector<result> run_checkpoint_benchmarks(const checkpoint_bench_options& o) {
  if (o.repeat == 0) throw std::invalid_argument("bench pm: --repeat must be at least 1");
  if (o.elements == 0 || o.bytes < o.elements)
    throw std::invalid_argument(fmt::format("bench pm: {} bytes cannot be split into {} elements", o.bytes,
                                            o.elements));
  auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  scratch_dir dir(o.directory, "cp-bench");

  // The checkpointed data: `elements` buffers, the last taking the remainder.
  std::vector<kernel_vector<std::byte>> bufs;
  for (std::uint32_t i = 0; i < o.elements; ++i) {
    const std::uint64_t n = i + 1 < o.elements ? o.bytes / o.elements : o.bytes - (o.bytes / o.elements) * i;
    bufs.emplace_back(n);
    for (std::uint64_t k = 0; k < n; ++k) bufs.back()[k] = std::byte(k * 13 + i);
  }
  const std::string mode = pm::to_string(o.mode);
  std::vector<result> out;

  say("plain memcpy + one persist");
  {
    pm::pool p = pm::pool::create(dir / "plain.pool", o.bytes + (1 << 20), {.mode = o.mode, .table_capacity = 4});
    pm::region r = p.create_region("data", o.bytes);
    out.push_back(make("pm_plain_copy_persist", time_runs(1, o.repeat, [&] {
                         std::byte* at = r.data();
                         for (const auto& b : bufs) {
                           std::memcpy(at, b.data(), b.size());
                           at += b.size();
                         }
                         r.persist();
                       }),
                       o.bytes,
                       fmt::format("memcpy of {} bytes in {} buffers into a pool region, one persist ({})", o.bytes,
                                   o.elements, mode)));
  }
  const double plain_bps = out.back().metrics["bytes_per_s"];

  say("checkpoint save");
  {
    cpu::executor ex({.workers = o.workers});
    auto cp = pm::checkpoint::create(dir / "save.cp", o.bytes, o.elements, 1, o.mode);
    for (auto& b : bufs) cp.register_buffer(0, b.data(), b.size());
    // Two warm-up saves: one into each copy.
    const launch_target where(ex, o.gpu);
    result r = make("pm_checkpoint_save", time_runs(2, o.repeat, [&] { cp.save(0, where); }), o.bytes,
                    fmt::format("checkpoint::save of the same buffers: parallel copy kernel, per-chunk persist, "
                                "epoch flip ({}, {})",
                                mode, kernels_run_on(o.gpu)));
    r.metrics["workers"] = ex.workers();
    r.metrics["ratio_vs_plain"] = r.metrics["bytes_per_s"] / plain_bps;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace gpmx::bench
