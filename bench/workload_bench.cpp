#include "workload_bench.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <random>
#include <set>
#include <sys/mman.h>
#include <stdexcept>

#include "common/crash_run.hpp"
#include "common/registry.hpp"
#include "gpmx/pm/pm_write_stats.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::bench {
namespace {

std::vector<apps::workload*> chosen(const workload_bench_options& o) {
  std::vector<apps::workload*> out;
  if (o.workloads.empty())
    for (const auto& w : apps::all_workloads()) out.push_back(w.get());
  for (const std::string& n : o.workloads) out.push_back(&apps::find_workload(n));
  return out;
}


apps::params sizes(const workload_bench_options& o, const apps::workload& w) {
  return apps::resolve_params(w, o.small ? w.small_params() : apps::params{});
}

void say(const workload_bench_options& o, const std::string& s) {
  if (o.progress) o.progress(s);
}


}  // namespace

std::vector<result> run_workload_throughput(const workload_bench_options& o) {
  std::vector<result> rows;
  cpu::executor ex({.workers = o.workers});
  for (apps::workload* w : chosen(o)) {
    const apps::params p = sizes(o, *w);
    double epoch_rate = 0;
    for (apps::style s : {apps::style::epoch, apps::style::sbrp}) {
      scratch_dir d(o.dir, fmt::format("bench-{}", w->name()));
      say(o, fmt::format("{} --style {}: {} runs", w->name(), apps::to_string(s), o.repeat));
      std::vector<double> ns, rates;
      apps::run_report last;
      std::uint64_t written = 0;
      for (unsigned i = 0; i < o.repeat; ++i) {
        const std::uint64_t before = pm_write_stats::total();
        last = w->run({launch_target(ex, o.gpu), d.path(), o.mode}, p, s);
        written = pm_write_stats::total() - before;
        ns.push_back(last.seconds * 1e9);
        rates.push_back(last.seconds > 0 ? double(last.operations) / last.seconds : 0);
      }
      result r = make_result(fmt::format("{}_{}", w->name(), apps::to_string(s)), ns,
                             fmt::format("{} {} per run, {} parameters", last.operations, last.unit, o.small ? "test" : "default"));
      r.metrics["operations_per_second"] = median(rates);
      r.metrics["bytes_written"] = double(written);
      r.metrics["bytes_flushed"] = double(last.bytes_persisted);
      if (s == apps::style::epoch) epoch_rate = median(rates);
      else if (epoch_rate > 0) r.metrics["sbrp_vs_epoch"] = median(rates) / epoch_rate;
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

std::vector<result> run_write_amplification(const workload_bench_options& o) {
  std::vector<result> rows;
  cpu::executor ex({.workers = o.workers});
  for (apps::workload* w : chosen(o)) {
    if (!w->has_cap_mm()) continue;
    const apps::params p = sizes(o, *w);
    scratch_dir d(o.dir, fmt::format("bench-{}", w->name()));
    say(o, fmt::format("{}: gpmx against CAP-mm, {} runs each", w->name(), o.repeat));
    std::vector<double> gpmx_ns, cap_ns;
    std::uint64_t gpmx_bytes = 0, cap_bytes = 0, gpmx_flushed = 0, cap_flushed = 0;
    for (unsigned i = 0; i < o.repeat; ++i) {
      // Bytes written: what kernels stored to PM plus what the host persisted
      // (set-up included for both, and it is the same for both).
      std::uint64_t before = pm_write_stats::total();
      const apps::run_report g = w->run({launch_target(ex, o.gpu), d.path(), o.mode}, p, apps::style::epoch);
      gpmx_bytes = pm_write_stats::total() - before;
      before = pm_write_stats::total();
      const apps::run_report c = w->run_cap_mm({launch_target(ex, o.gpu), d.path(), o.mode}, p);
      cap_bytes = pm_write_stats::total() - before;
      gpmx_ns.push_back(g.seconds * 1e9);
      cap_ns.push_back(c.seconds * 1e9);
      gpmx_flushed = g.bytes_persisted;
      cap_flushed = c.bytes_persisted;
    }
    result r = make_result(fmt::format("{}_cap_mm", w->name()), cap_ns,
                           "CAP-mm: compute in DRAM, copy the whole structure to PM and persist it every batch");
    r.metrics["cap_mm_bytes"] = double(cap_bytes);
    r.metrics["gpmx_bytes"] = double(gpmx_bytes);
    r.metrics["cap_mm_flushed_bytes"] = double(cap_flushed);
    r.metrics["gpmx_flushed_bytes"] = double(gpmx_flushed);
    r.metrics["write_amplification"] = gpmx_bytes ? double(cap_bytes) / double(gpmx_bytes) : 0;
    r.metrics["gpmx_median_ns"] = median(gpmx_ns);
    r.metrics["cap_mm_time_vs_gpmx"] = median(cap_ns) / median(gpmx_ns);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<result> run_restoration_latency(const workload_bench_options& o) {
  // Children do every run and recovery (this process must not start a
  // thread: it keeps forking); they hand their figures back through a page
  // shared with the parent.
  struct figures {
    double run_seconds;
    std::uint64_t batches;
    double recover_seconds;
    double whole_call_seconds;  // the recover call whole: opening (a journal's replay) and closing the files too
  };
  void* page = ::mmap(nullptr, sizeof(figures), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw std::runtime_error("restoration benchmark: cannot map a shared page");
  auto* shared = static_cast<figures*>(page);
  struct unmap {
    void* p;
    ~unmap() { ::munmap(p, sizeof(figures)); }
  } unmap_page{page};

  if (o.restoration_on_gpu) {
    // Asking the driver here would make every later child unable to use
    // CUDA, so a child finds out whether a GPU can be had.
    const apps::child_outcome probe = apps::run_in_child(0, [] { gpu_session::open(); });
    if (probe.failed) throw gpu_unavailable(probe.error);
  }
  std::vector<result> rows;
  for (apps::workload* w : chosen(o)) {
    const apps::params p = sizes(o, *w);
    scratch_dir d(o.dir, fmt::format("bench-{}", w->name()));
    const apps::style s = apps::style::epoch;
    say(o, fmt::format("{}: whole run, then up to 8 crashes in its last batch, each recovered", w->name()));
    // A child that uses a GPU opens its own session: CUDA does not survive a fork.
    auto session = [&] { return o.restoration_on_gpu ? gpu_session::open() : nullptr; };
    auto run = [&] {
      const auto gpu = session();
      cpu::executor ex({.workers = o.workers});
      const apps::run_report r = w->run({launch_target(ex, gpu.get()), d.path(), o.mode}, p, s);
      shared->run_seconds = r.seconds;
      shared->batches = r.batches;
    };
    auto recover = [&] {
      const auto gpu = session();
      cpu::executor ex({.workers = o.workers});
      const auto t0 = std::chrono::steady_clock::now();
      shared->recover_seconds = w->recover({launch_target(ex, gpu.get()), d.path(), o.mode}).seconds;
      shared->whole_call_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    const apps::child_outcome whole = apps::run_in_child(0, run);
    if (whole.failed) throw std::runtime_error(fmt::format("{}: {}", w->name(), whole.error));
    const double batch_seconds = shared->run_seconds / double(std::max<std::uint64_t>(shared->batches, 1));
    const std::uint64_t per_batch = whole.points / std::max<std::uint64_t>(shared->batches, 1);
    // Where the kills land. On the cpu executor: up to 8 distinct crash
    // points counted back from the end, spread over the last batch. On a
    // GPU, whose kernels make no point the host sees: 8 kills at delays
    // spread over one batch's time after the last batch's first point (a
    // kernel's launch or a host step), so they land inside kernels too.
    struct kill_plan {
      std::uint64_t point, delay_us;
    };
    std::vector<kill_plan> plans;
    if (o.restoration_on_gpu) {
      if (per_batch > 0 && per_batch <= whole.points)
        for (std::uint64_t i = 0; i < 8; ++i)
          plans.push_back({whole.points - per_batch + 1,
                           std::max<std::uint64_t>(1, std::uint64_t((double(i) + 0.5) / 8 * batch_seconds * 1e6))});
    } else {
      std::set<std::uint64_t> backs;
      for (std::uint64_t i = 0; i < 8; ++i)
        if (const std::uint64_t back = 1 + i * per_batch / 8; back < whole.points) backs.insert(back);
      for (const std::uint64_t back : backs) plans.push_back({whole.points - back, 0});
    }
    std::vector<double> recover_ns, whole_call_ns;
    unsigned ended_first = 0;
    for (const kill_plan& k : plans) {
      const apps::child_outcome crash = apps::run_in_child(k.point, run, 0, k.delay_us);
      if (crash.failed) throw std::runtime_error(fmt::format("{}: {}", w->name(), crash.error));
      if (!crash.killed) {
        ++ended_first;  // the run ended before its delayed kill: nothing to recover
        continue;
      }
      const apps::child_outcome rec = apps::run_in_child(0, recover);
      if (rec.failed) throw std::runtime_error(fmt::format("{}: recovery: {}", w->name(), rec.error));
      recover_ns.push_back(shared->recover_seconds * 1e9);
      whole_call_ns.push_back(shared->whole_call_seconds * 1e9);
    }
    if (recover_ns.empty()) continue;
    result r = make_result(
        fmt::format("{}_restore", w->name()), recover_ns,
        o.restoration_on_gpu
            ? fmt::format("recovery after a SIGKILL in the last batch ({} kills at delays spread over a batch's time)",
                          recover_ns.size())
            : fmt::format("recovery after a SIGKILL in the last batch ({} crash points spread over it)",
                          recover_ns.size()));
    r.metrics["crash_points_in_batch"] = double(per_batch);
    if (o.restoration_on_gpu) r.metrics["kills_after_the_end"] = ended_first;
    const double worst = *std::max_element(recover_ns.begin(), recover_ns.end());
    r.metrics["worst_recovery_ms"] = worst / 1e6;
    r.metrics["batch_ms"] = batch_seconds * 1e3;
    r.metrics["worst_share_of_batch"] = batch_seconds > 0 ? worst / 1e9 / batch_seconds : 0;
    r.metrics["median_share_of_batch"] = batch_seconds > 0 ? median(recover_ns) / 1e9 / batch_seconds : 0;
    // The whole recover call: opening the pools and logs (replaying their
    // persist journals, on a device), recovering, and closing them (a close
    // syncs the pages a journal let the run leave unwritten).
    r.metrics["median_whole_call_ms"] = median(whole_call_ns) / 1e6;
    r.metrics["median_whole_call_share_of_batch"] =
        batch_seconds > 0 ? median(whole_call_ns) / 1e9 / batch_seconds : 0;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace gpmx::bench
