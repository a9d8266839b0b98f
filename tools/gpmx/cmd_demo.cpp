// gpmx demo: a few kernels on the cpu executor, each checked against a
// sequential reference. Later issues replace it with the recoverable
// key-value store demo.
#include <chrono>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

#include "commands.hpp"
#include "demo_kvs.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::cli {
namespace {

struct demo_row {
  std::string kernel, launch, check;
  double ms;
  bool ok;
};

template <class F>
double time_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<demo_row> run_demo(cpu::executor& ex, std::uint64_t n) {
  std::vector<demo_row> rows;
  const std::uint32_t block = 256;
  const auto blocks = std::uint32_t((n + block - 1) / block);

  // 1. SAXPY: every thread one element.
  std::vector<float> x(n), y(n);
  for (std::uint64_t i = 0; i < n; ++i) x[i] = float(i % 1000), y[i] = 1.0f;
  double ms = time_ms([&] {
    ex.launch({dim3(blocks), dim3(block), 0, "saxpy"}, [](auto& t, float a, const float* px, float* py, std::uint64_t m) {
      const std::uint64_t i = t.global_id();
      if (i < m) py[i] = a * px[i] + py[i];
    }, 2.0f, x.data(), y.data(), n);
  });
  bool ok = true;
  for (std::uint64_t i = 0; i < n; ++i) ok &= y[i] == 2.0f * float(i % 1000) + 1.0f;
  rows.push_back({"saxpy", fmt::format("{} x {}", blocks, block), "y = 2x + 1 everywhere", ms, ok});

  // 2. Block reduction through shared memory and barriers, then a warp
  // shuffle finish: the classic two-level GPU sum.
  std::vector<std::uint32_t> v(std::uint64_t(blocks) * block);
  for (std::uint64_t i = 0; i < v.size(); ++i) v[i] = std::uint32_t(i % 7);
  std::uint64_t total = 0;
  ms = time_ms([&] {
    ex.launch({dim3(blocks), dim3(block), 0, "sum"}, [](auto& t, const std::uint32_t* in, std::uint64_t* out) {
      GPMX_SHARED(t, std::uint64_t, s, 256);
      const std::uint32_t r = t.thread_rank();
      s[r] = in[t.global_id()];
      t.syncthreads();
      for (std::uint32_t stride = 128; stride >= 32; stride /= 2) {
        if (r < stride) s[r] += s[r + stride];
        t.syncthreads();
      }
      if (r < 32) {
        std::uint64_t w = s[r];
        for (unsigned d = 16; d > 0; d /= 2) w += t.shfl_down(0xffffffffu, w, d);
        if (r == 0) t.atomic_add(out, w);
      }
    }, v.data(), &total);
  });
  const std::uint64_t want = std::accumulate(v.begin(), v.end(), std::uint64_t(0));
  rows.push_back({"block+warp sum", fmt::format("{} x {}", blocks, block),
                  fmt::format("sum {} (reference {})", total, want), ms, total == want});

  // 3. Blocks that wait for each other: block b spins until block b-1 has
  // published its running total (a decoupled look-back in miniature).
  const std::uint32_t chain = 64;
  std::vector<std::uint64_t> prefix(chain, 0);
  std::vector<std::uint32_t> ready(chain, 0);
  ms = time_ms([&] {
    ex.launch({dim3(chain), dim3(32), 0, "chain"}, [](auto& t, std::uint64_t* p, std::uint32_t* f) {
      const std::uint64_t b = t.block_rank();
      const std::uint64_t mine = t.ballot(0xffffffffu, 1) == 0xffffffffu ? b + 1 : 0;
      if (t.thread_rank() != 0) return;
      std::uint64_t before = 0;
      if (b > 0) {
        t.spin_wait([&] { return t.atomic_load(&f[b - 1], memory_order::acquire) != 0u; });
        before = p[b - 1];
      }
      p[b] = before + mine;
      t.atomic_store(&f[b], 1u, memory_order::release);
    }, prefix.data(), ready.data());
  });
  ok = true;
  for (std::uint64_t b = 0; b < chain; ++b) ok &= prefix[b] == (b + 1) * (b + 2) / 2;
  rows.push_back({"spin-wait chain", fmt::format("{} x 32", chain), "inclusive prefix of 1..64", ms, ok});
  return rows;
}

}  // namespace

void register_demo(CLI::App& app) {
  auto* demo = app.add_subcommand(
      "demo", "Recoverable key-value store: load, SIGKILL mid-batch, recover, verify (--kernels: kernel demo)");
  struct args {
    unsigned workers = 0;
    std::uint64_t n = 1 << 22;
    bool deterministic = false, json = false, kernels = false;
    std::uint64_t seed = 0;
    kvs_demo_options kvs;
  };
  auto a = std::make_shared<args>();
  demo->add_option("--workers", a->workers, "worker threads (default: GPMX_WORKERS or every core)");
  demo->add_flag("--json", a->json, "print JSON instead of a table");
  demo->add_option("--data", a->kvs.data, "directory for the store's files")->capture_default_str();
  demo->add_option("--sets", a->kvs.sets, "gpKVS sets (8 ways each)")->capture_default_str();
  demo->add_option("--batch", a->kvs.batch, "SETs per batch")->capture_default_str();
  demo->add_option("--load-batches", a->kvs.load_batches, "batches before the crash")->capture_default_str();
  demo->add_flag("--kernels", a->kernels, "run the kernel demo instead (saxpy, block and warp sums, spin-wait chain)");
  demo->add_option("--elements", a->n, "kernel demo: elements per kernel")->capture_default_str();
  demo->add_flag("--deterministic", a->deterministic, "kernel demo: one worker, seeded interleaving");
  demo->add_option("--seed", a->seed, "kernel demo: seed of the deterministic schedule");
  demo->callback([a] {
    if (!a->kernels) {
      if (a->kvs.sets == 0 || a->kvs.batch == 0 || a->kvs.load_batches == 0)
        throw config_error("demo: --sets, --batch and --load-batches must be at least 1");
      a->kvs.workers = a->workers;
      a->kvs.json = a->json;
      if (const int rc = run_kvs_demo(a->kvs); rc != 0) throw std::runtime_error("demo: verification failed");
      return;
    }
    if (a->n == 0) throw config_error("demo: --elements must be at least 1");
    cpu::executor ex({.workers = a->workers,
                      .policy = a->deterministic ? cpu::schedule::deterministic : cpu::schedule::parallel,
                      .seed = a->seed});
    const auto rows = run_demo(ex, a->n);
    bool all_ok = true;
    for (const auto& r : rows) all_ok &= r.ok;
    if (a->json) {
      nlohmann::json j = {{"workers", ex.workers()}, {"ok", all_ok}, {"kernels", nlohmann::json::array()}};
      for (const auto& r : rows)
        j["kernels"].push_back({{"kernel", r.kernel}, {"launch", r.launch}, {"ms", r.ms}, {"ok", r.ok}, {"check", r.check}});
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("gpmx demo: GPU kernels on the CPU ({} worker{})\n\n", ex.workers(), ex.workers() == 1 ? "" : "s");
      fmt::print("{:<18} {:>14} {:>10}  {:<6} {}\n", "kernel", "grid x block", "ms", "result", "check");
      for (const auto& r : rows)
        fmt::print("{:<18} {:>14} {:>10.2f}  {:<6} {}\n", r.kernel, r.launch, r.ms, r.ok ? "ok" : "WRONG", r.check);
    }
    if (!all_ok) throw std::runtime_error("demo: a kernel's result differs from its sequential reference");
  });
}

}  // namespace gpmx::cli
