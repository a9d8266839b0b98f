#include "checkpoint_workload_bench.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>

#include <random>
#include <stdexcept>

#include "common/registry.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/checkpoint.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "iterative/iterative.hpp"

namespace gpmx::bench {
namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

double ns_since(clock_type::time_point t) {
  return double(std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - t).count());
}


// A file descriptor, closed on scope exit.
class file {
 public:
  file(const fs::path& p, int flags) : fd_(::open(p.c_str(), flags, 0644)) {
    if (fd_ < 0) throw std::runtime_error(fmt::format("{}: open: {}", p.string(), std::strerror(errno)));
  }
  ~file() { ::close(fd_); }
  file(const file&) = delete;
  file& operator=(const file&) = delete;
  void write_all(const std::byte* p, std::uint64_t n, std::uint64_t at) const {
    while (n > 0) {
      const ssize_t w = ::pwrite(fd_, p, n, off_t(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw std::runtime_error(fmt::format("write: {}", std::strerror(errno)));
      p += w, n -= std::uint64_t(w), at += std::uint64_t(w);
    }
  }
  void read_all(std::byte* p, std::uint64_t n) const {
    std::uint64_t at = 0;
    while (n > 0) {
      const ssize_t r = ::pread(fd_, p, n, off_t(at));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) throw std::runtime_error(fmt::format("read: {}", r == 0 ? "short file" : std::strerror(errno)));
      p += r, n -= std::uint64_t(r), at += std::uint64_t(r);
    }
  }
  void sync() const {
    if (::fsync(fd_) != 0) throw std::runtime_error(fmt::format("fsync: {}", std::strerror(errno)));
  }

 private:
  int fd_;
};

// write() in 1 MiB calls over a file of that size, then fsync: the durable
// sequential bandwidth the checkpoints are measured against. The file is
// written once first, so the runs overwrite allocated blocks, as every
// checkpoint method here does.
result fs_sequential_write(const scratch_dir& dir, std::uint64_t bytes, unsigned repeat) {
  constexpr std::uint64_t call = 1 << 20;
  std::vector<std::byte> buf(call, std::byte{0x5a});
  const fs::path p = dir / "fs-probe";
  file f(p, O_WRONLY | O_CREAT | O_TRUNC);
  auto runs = time_runs(1, repeat, [&] {
    for (std::uint64_t at = 0; at < bytes; at += call) f.write_all(buf.data(), std::min(call, bytes - at), at);
    f.sync();
  });
  result r = make_result("fs_seq_durable_write", std::move(runs),
                         fmt::format("write() of {} bytes in 1 MiB calls over an existing file, then fsync", bytes));
  r.metrics["bytes"] = double(bytes);
  r.metrics["bytes_per_s"] = double(bytes) / (r.median_ns * 1e-9);
  return r;
}

// One way of checkpointing the app's state.
struct method {
  std::string name, note;
  std::function<void()> save, restore;
};

std::vector<method> methods_for(const scratch_dir& dir, const std::string& w, std::vector<apps::iterative::state_array> st,
                                std::uint64_t bytes, const launch_target& ex, pm::durability mode,
                                std::vector<std::shared_ptr<void>>& keep) {
  std::vector<method> out;
  {  // CAP-fs: to the host, then write() + fsync()
    auto staging = std::make_shared<std::vector<std::byte>>(bytes);
    auto f = std::make_shared<file>(dir / (w + ".capfs"), O_RDWR | O_CREAT | O_TRUNC);
    keep.push_back(staging);
    keep.push_back(f);
    out.push_back({"cap_fs", "state copied to a host buffer, write() + fsync() of a file",
                   [st, staging, f] {
                     std::byte* at = staging->data();
                     for (const auto& a : st) at = static_cast<std::byte*>(std::memcpy(at, a.data, a.count * 4)) + a.count * 4;
                     f->write_all(staging->data(), staging->size(), 0);
                     f->sync();
                   },
                   [st, staging, f] {
                     f->read_all(staging->data(), staging->size());
                     const std::byte* at = staging->data();
                     for (const auto& a : st) std::memcpy(a.data, at, a.count * 4), at += a.count * 4;
                   }});
  }
  {  // CAP-mm: the host copies into mapped PM and persists it
    auto pool = std::make_shared<pm::pool>(pm::pool::create(dir / (w + ".capmm"), bytes + (1 << 20), {.mode = mode}));
    auto region = std::make_shared<pm::region>(pool->create_region("state", bytes));
    keep.push_back(pool);
    keep.push_back(region);
    out.push_back({"cap_mm", fmt::format("state memcpy'd by the host into a mapped pool region, one persist ({})",
                                         pm::to_string(mode)),
                   [st, region] {
                     std::byte* at = region->data();
                     for (const auto& a : st) std::memcpy(at, a.data, a.count * 4), at += a.count * 4;
                     region->persist();
                   },
                   [st, region] {
                     const std::byte* at = region->data();
                     for (const auto& a : st) std::memcpy(a.data, at, a.count * 4), at += a.count * 4;
                   }});
  }
  {  // gpmx: the checkpoint kernel copies and persists in parallel
    auto cp = std::make_shared<pm::checkpoint>(
        pm::checkpoint::create(dir / (w + ".cp"), bytes, std::uint32_t(st.size()), 1, mode));
    for (const auto& a : st) cp->register_buffer(0, a.data, a.count * 4);
    keep.push_back(cp);
    out.push_back({"gpmx", fmt::format("checkpoint::save: copy kernel, each thread persists its chunk, epoch flip ({})",
                                       pm::to_string(mode)),
                   [cp, &ex] { cp->save(0, ex); }, [cp, &ex] { cp->restore(0, ex); }});
  }
  return out;
}

}  // namespace

std::vector<result> run_checkpoint_workload_benchmarks(const checkpoint_workload_bench_options& o) {
  if (o.repeat == 0) throw std::invalid_argument("bench checkpoint: --repeat must be at least 1");
  if (o.iterations == 0) throw std::invalid_argument("bench checkpoint: iterations must be at least 1");
  auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  scratch_dir dir(o.directory, "cpw-bench");
  cpu::executor cpu_ex({.workers = o.workers});
  const launch_target ex(cpu_ex, o.gpu);
  std::vector<result> out;

  say("file system: sequential durable write");
  out.push_back(fs_sequential_write(dir, o.fs_probe_bytes, o.repeat));
  const double fs_bps = out.back().metrics["bytes_per_s"];

  for (const std::string& name : o.workloads) {
    auto* w = dynamic_cast<apps::iterative::checkpointed_workload*>(&apps::find_workload(name));
    if (!w) throw std::invalid_argument(fmt::format("bench checkpoint: '{}' is not a checkpointing workload", name));
    const apps::params p = apps::resolve_params(*w, o.small ? w->small_params() : apps::params{});
    const std::uint64_t run_iterations = p.at("iterations");
    auto app = w->make_app(p);
    const auto st = app->state();
    std::uint64_t bytes = 0;
    for (const auto& a : st) bytes += a.count * sizeof(float);
    // Iteration numbers wrap at the run's length: the app's inputs are sized for it.
    std::uint64_t it = 0;
    auto step = [&] {
      app->step(ex, it);
      it = (it + 1) % run_iterations;
    };

    say(fmt::format("{}: one iteration", name));
    result compute = make_result(name + "_compute", time_runs(1, o.repeat, step),
                                 fmt::format("one iteration in DRAM, no checkpoint ({} state bytes)", bytes));
    const double op_time_ns = compute.median_ns * double(run_iterations);
    compute.metrics["op_time_s"] = op_time_ns * 1e-9;
    compute.metrics["iterations"] = double(run_iterations);
    out.push_back(std::move(compute));

    std::vector<std::shared_ptr<void>> keep;
    std::vector<method> methods = methods_for(dir, name, st, bytes, ex, o.mode, keep);
    // The saves are timed in turns, one of each method per round, so that
    // the device's drift over the run (writeback, other tenants) falls on
    // every method alike.
    say(fmt::format("{}: saves, the methods in turns", name));
    for (method& m : methods) time_runs(2, 0, m.save);
    std::vector<std::vector<double>> save_runs(methods.size());
    for (unsigned r = 0; r < o.repeat; ++r)
      for (std::size_t i = 0; i < methods.size(); ++i) save_runs[i].push_back(time_runs(0, 1, methods[i].save)[0]);
    for (std::size_t mi = 0; mi < methods.size(); ++mi) {
      method& m = methods[mi];
      say(fmt::format("{}: {}", name, m.name));
      result r = make_result(name + "_" + m.name, std::move(save_runs[mi]), m.note);
      r.metrics["bytes"] = double(bytes);
      r.metrics["bytes_per_s"] = double(bytes) / (r.median_ns * 1e-9);
      r.metrics["bw_vs_fs_seq"] = r.metrics["bytes_per_s"] / fs_bps;
      for (const std::uint64_t interval : {1u, 10u, 20u}) {
        double checkpoint_ns = 0;
        const auto start = clock_type::now();
        for (std::uint64_t i = 1; i <= o.iterations; ++i) {
          step();
          if (i % interval == 0) {
            const auto t = clock_type::now();
            m.save();
            checkpoint_ns += ns_since(t);
          }
        }
        r.metrics[fmt::format("share_i{}", interval)] = checkpoint_ns / ns_since(start);
      }
      const double restore_ns = median(time_runs(1, o.repeat, m.restore));
      r.metrics["restore_ms"] = restore_ns * 1e-6;
      r.metrics["restore_pct_of_op"] = 100.0 * restore_ns / op_time_ns;
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace gpmx::bench
