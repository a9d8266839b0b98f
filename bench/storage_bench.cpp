#include "gpmx/bench/storage_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/storage/block_device.hpp"
#include "gpmx/storage/cache_memory.hpp"
#include "gpmx/storage/array.hpp"
#include "gpmx/storage/controller.hpp"
#include "gpmx/storage/device_timing.hpp"
#include "gpmx/sim/config.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/storage/queue_memory.hpp"
#include "gpmx/storage/storage_error.hpp"
#include "gpmx/support/child_process.hpp"
#include "gpmx/support/disk_requests.hpp"
#include "gpmx/support/hash_mix.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "queue_stage_sampler.hpp"

namespace gpmx::bench {

namespace {
namespace st = gpmx::storage;

// Thread g's k-th command: a random block-aligned offset, or the next block
// of its own sequential stream; into or out of its own buffer.
struct block_io_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const st::queue_pair_view* queues, std::uint32_t nqueues, std::byte* buffers,
                  std::uint32_t block_bytes, std::uint32_t lbas_per_block, std::uint64_t blocks, std::uint32_t ios,
                  bool sequential, bool write, std::uint64_t round, std::uint32_t* failed) const {
    const std::uint64_t g = t.global_id();
    const st::queue_pair_view& q = queues[(g / 32) % nqueues];
    const st::nvme_opcode op = write ? st::nvme_opcode::write : st::nvme_opcode::read;
    for (std::uint32_t k = 0; k < ios; ++k) {
      // Sequential: consecutive threads take consecutive blocks, as lanes of a warp would.
      // Each run (round) touches other blocks, as fio's runs do: no device cache is re-read.
      const std::uint64_t n = std::uint64_t(ios) * t.global_count();
      const std::uint64_t block = sequential ? (round * n + std::uint64_t(k) * t.global_count() + g) % blocks
                                             : mix64((round * n + g) * 1000003 + k) % blocks;
      const auto cmd = st::make_io_command(op, block * lbas_per_block, lbas_per_block, buffers + g * block_bytes);
      if (st::await_completion(t, q, st::submit(t, q, cmd)).status_code() != 0) t.atomic_add(failed, 1u);
    }
  }
};

// Reads of an array that fits the cache, after a first pass loaded it: the
// hit path alone (probe, pin, read, release), coalesced, per thread, or
// through a warp cursor.
struct hit_path_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, st::array_view<std::uint64_t> a, std::uint32_t reads, std::uint32_t how,
                  std::uint64_t* sums) const {
    std::uint64_t sum = 0;
    st::warp_cursor<std::uint64_t> c(a);
    for (std::uint32_t k = 0; k < reads; ++k) {
      const std::uint64_t i = (std::uint64_t(k) * t.global_count() + t.global_id()) % a.size();
      sum += how == 0 ? a.read(t, i) : how == 1 ? a.read_alone(t, i) : c.read(t, i);
    }
    c.done(t);
    sums[t.global_id()] = sum;
  }
};

void make_file(const std::filesystem::path& p, std::uint64_t bytes) {
  std::ofstream out(p, std::ios::binary);
  std::vector<char> chunk(1 << 20);
  for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = char(mix64(i) & 0xff);
  for (std::uint64_t done = 0; done < bytes; done += chunk.size()) out.write(chunk.data(), std::streamsize(chunk.size()));
  if (!out) throw error(error_code::io, fmt::format("bench storage: cannot write {}", p.string()));
}

// One device's queue pairs and the controllers serving them, attached to ex
// while this lives: controller c serves queue pairs c, c + n, ... (n =
// o.controllers), each on a thread of its own beside a GPU or under the
// parallel schedule, the reads in flight split among them.
struct served_device {
  std::vector<std::unique_ptr<st::queue_pair_memory>> memory;
  std::vector<st::queue_pair_view> queues;
  std::vector<std::unique_ptr<st::controller>> controllers;
  std::vector<cpu::agent_attachment> on;
  served_device(cpu::executor& ex, st::block_device& dev, const storage_bench_options& o, st::controller_options co) {
    for (std::uint32_t q = 0; q < o.queues; ++q) {
      memory.push_back(std::make_unique<st::queue_pair_memory>(std::uint16_t(q + 1), st::queue_options{.depth = o.depth}));
      queues.push_back(memory.back()->view());
    }
    const std::uint32_t n = std::min(o.controllers, o.queues);
    for (st::controller_share& share : st::share_queue_pairs(queues, n, o.ring_entries)) {
      co.ring_entries = share.ring_entries;
      controllers.push_back(std::make_unique<st::controller>(dev, std::move(share.queues), co));
    }
    // Attached last: a controller serves from the moment it is attached.
    on.reserve(n);
    for (auto& c : controllers) on.push_back(ex.attach(*c));
  }
  std::vector<const st::controller*> serving() const {
    std::vector<const st::controller*> v;
    for (const auto& c : controllers) v.push_back(c.get());
    return v;
  }
  // A counter summed over the device's controllers.
  template <class T>
  T summed(T st::controller_counters::*counter) const {
    T t = 0;
    for (const auto& c : controllers) t += c->counters().*counter;
    return t;
  }
};

using aligned_bytes = std::unique_ptr<std::byte, void (*)(void*)>;
aligned_bytes aligned_buffer(std::size_t bytes) {
  return aligned_bytes(static_cast<std::byte*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096)), std::free);
}

struct fio_result {
  double iops = 0;            // 0 when fio is missing or fails
  double mean_latency_ns = 0;  // from submission to completion
};

// fio's IOPS on `file` with the pattern, block and depth.
fio_result fio_run(const std::filesystem::path& file, const std::filesystem::path& out, const std::string& pattern,
                std::uint32_t block, std::uint32_t depth, bool direct, unsigned seconds) {
  // Submitting and reaping in batches, as the controller does: fio's
  // default, one at a time, is the weaker reference (docs/benchmarks.md).
  const std::uint32_t batch = std::min<std::uint32_t>(64, depth);
  const std::string cmd = fmt::format(
      "fio --name=bench --filename='{}' --rw={} --bs={} --ioengine=io_uring --iodepth={} --direct={} "
      "--iodepth_batch_submit={} --iodepth_batch_complete_max={} "
      "--time_based --runtime={} --norandommap --randrepeat=0 --output-format=json --output='{}' >/dev/null 2>&1",
      file.string(), pattern, block, depth, direct ? 1 : 0, batch, batch, seconds, out.string());
  if (!run_shell(cmd).exited_with(0)) return {};
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("jobs") || j["jobs"].empty()) return {};
  const bool write = pattern.find("write") != std::string::npos;
  const nlohmann::json& side = j["jobs"][0][write ? "write" : "read"];
  fio_result r;
  r.iops = side.value("iops", 0.0);
  if (side.contains("lat_ns")) r.mean_latency_ns = side["lat_ns"].value("mean", 0.0);
  return r;
}

// The median of `values` as metric `name` (nothing when empty), and with
// `spread` also their least and greatest as name_min and name_max.
void put_median(result& row, const std::string& name, const std::vector<double>& values, bool spread = false) {
  if (values.empty()) return;
  row.metrics[name] = median(values);
  if (!spread) return;
  row.metrics[name + "_min"] = *std::min_element(values.begin(), values.end());
  row.metrics[name + "_max"] = *std::max_element(values.begin(), values.end());
}

// Each stage's median over the rounds (queue_stage_sampler.hpp), as
// stage_NAME: mean commands there.
void put_stages(result& row, const std::vector<queue_stages>& runs) {
  if (runs.empty()) return;
  const std::pair<const char*, double queue_stages::*> stages[] = {
      {"submitting", &queue_stages::submitting}, {"queued", &queue_stages::queued},
      {"in_io", &queue_stages::in_io},           {"finished", &queue_stages::finished},
      {"unseen", &queue_stages::unseen},         {"unreclaimed", &queue_stages::unreclaimed},
      {"between", &queue_stages::between}};
  for (const auto& [name, member] : stages) {
    std::vector<double> values;
    for (const queue_stages& q : runs) values.push_back(q.*member);
    put_median(row, std::string("stage_") + name, values);
  }
}

// What one block-benchmark row issues: block size, its LBAs, the blocks
// the file holds, and the pattern.
struct queue_io {
  std::uint32_t block_bytes, lbas_per_block;
  std::uint64_t blocks;
  bool sequential, write;
};

struct queue_run {
  double ns = 0;         // the timed run's wall time
  unsigned workers = 0;  // the executor's workers
  double disk_kib_per_request = 0;  // the file's device during the timed run (0: no device counters)
  double mean_in_flight = 0;        // commands in io_uring, averaged over the timed run
  std::optional<queue_stages> stages;  // where commands waited, when sampled
};

// The mean size of the requests in the pattern's direction that reached
// the device holding `file` while f ran; 0 where it has no counters.
template <class F>
double disk_kib_per_request_during(const std::filesystem::path& file, bool write, F&& f) {
  const std::optional<disk_requests> before = read_disk_requests(file);
  f();
  const std::optional<disk_requests> after = read_disk_requests(file);
  return before && after ? kib_per_request(*before, *after, write) : 0.0;
}

// One timed run of the block kernel at `threads`, on an executor and
// controllers of its own (made here, so that none exists while fio runs),
// after one unmeasured run that maps the fibers' stacks. round counts the
// runs, so that each touches other blocks.
queue_run time_queue_run(const storage_bench_options& o, st::block_device& device, const queue_io& io,
                         std::uint32_t threads, std::uint64_t& round) {
  // The controllers' threads get cores of their own, as fio's does.
  cpu::executor ex({.workers = st::workers_beside_controllers(o.workers, std::min(o.controllers, o.queues))});
  const launch_target target(ex, o.gpu);
  served_device served(ex, device, o, {});
  // What the kernel reads is kernel memory (a GPU's kernel could not read host vectors).
  const kernel_vector<st::queue_pair_view> queues(served.queues.begin(), served.queues.end());
  // Touched by the controller only (commands carry their addresses).
  const std::size_t buffer_bytes = std::size_t(threads) * io.block_bytes;
  const aligned_bytes buffers = aligned_buffer(buffer_bytes);
  std::memset(buffers.get(), 0x5a, buffer_bytes);
  kernel_vector<std::uint32_t> failed(1, 0);
  const std::uint32_t per_block = std::min<std::uint32_t>(threads, 256);
  const auto run = [&] {
    target.launch({dim3((threads + per_block - 1) / per_block), dim3(per_block), 0, "block_io"}, block_io_kernel{},
                  queues.data(), o.queues, buffers.get(), io.block_bytes, io.lbas_per_block, io.blocks,
                  o.reads_per_thread, io.sequential, io.write, round++, failed.data());
  };
  run();  // unmeasured
  queue_run r;
  r.workers = ex.workers();
  const std::uint64_t io_before = served.summed(&st::controller_counters::io_ns);
  std::optional<queue_stage_sampler> sampler;
  if (o.stages) sampler.emplace(served.queues, served.serving(), threads);
  r.disk_kib_per_request =
      disk_kib_per_request_during(device.path(), io.write, [&] { r.ns = time_runs(0, 1, run).front(); });
  if (sampler) r.stages = sampler->stop();
  r.mean_in_flight = double(served.summed(&st::controller_counters::io_ns) - io_before) / r.ns;
  if (failed[0] != 0) throw st::storage_error(error_code::io, fmt::format("bench storage: {} commands failed", failed[0]));
  return r;
}

// The block kernel in virtual time against the device model: IOPS against
// threads and devices.
std::vector<result> run_timed_block_benchmark(const storage_bench_options& o, const std::filesystem::path& dir) {
  const st::device_timing timing = st::device_timing::named(o.timed_device);
  std::vector<result> rows;
  const std::uint32_t lbas = 1, block = 512;
  for (const std::uint32_t ndev : o.timed_devices) {
    std::vector<std::unique_ptr<st::block_device>> devices;
    for (std::uint32_t d = 0; d < ndev; ++d) {
      const auto path = dir / fmt::format("timed{}", d);
      if (!std::filesystem::exists(path)) make_file(path, 16 << 20);
      devices.push_back(std::make_unique<st::block_device>(path, fmt::format("dev{}", d), st::device_options{.lba_bytes = 512}));
    }
    for (const std::uint32_t threads : o.timed_threads) {
      if (o.progress) o.progress(fmt::format("timed {} x{}: {} threads", o.timed_device, ndev, threads));
      sim::gpu_model gpu(sim::named_config("sbrp-table1"));
      cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
      std::vector<std::unique_ptr<served_device>> served;
      for (std::uint32_t d = 0; d < ndev; ++d)
        served.push_back(std::make_unique<served_device>(
            ex, *devices[d], o, st::controller_options{.timing = timing, .clock = [&ex] { return ex.virtual_time(); }}));
      // Warp w uses queue w mod (n x queues) of this list: consecutive warps on different devices.
      std::vector<st::queue_pair_view> interleaved;
      for (std::uint32_t q = 0; q < o.queues; ++q)
        for (std::uint32_t d = 0; d < ndev; ++d) interleaved.push_back(served[d]->queues[q]);
      const aligned_bytes buffers = aligned_buffer(std::size_t(threads) * block);
      std::uint32_t failed = 0;
      const std::uint32_t per_block = std::min<std::uint32_t>(threads, 256);
      const auto t0 = std::chrono::steady_clock::now();
      const vtime start = ex.virtual_time();
      ex.launch({dim3((threads + per_block - 1) / per_block), dim3(per_block), 0, "timed_block_io"}, block_io_kernel{},
                interleaved.data(), std::uint32_t(interleaved.size()), buffers.get(), block, lbas, devices[0]->blocks(),
                o.timed_reads, false, false, std::uint64_t{0}, &failed);
      const double simulated_s = double(ex.virtual_time() - start) * 1e-12;
      const double wall_ns = double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
      if (failed != 0) throw st::storage_error(error_code::io, fmt::format("bench storage: {} timed reads failed", failed));
      result row = make_result(fmt::format("timed_{}_d{}_t{}", o.timed_device, ndev, threads), {wall_ns},
                               "512 B random reads in virtual time against the device model");
      const double commands = double(threads) * o.timed_reads;
      vtime device_time = 0;
      for (const auto& d : served) device_time += d->summed(&st::controller_counters::device_time);
      const double per_command_s = timing.latency_us * 1e-6 + 1.0 / timing.iops;
      row.metrics["simulated_s"] = simulated_s;
      row.metrics["simulated_iops"] = commands / simulated_s;
      row.metrics["little_bound"] = std::min(double(ndev) * timing.iops, double(threads) / per_command_s);
      row.metrics["ratio_vs_bound"] = row.metrics["simulated_iops"] / row.metrics["little_bound"];
      row.metrics["mean_device_us"] = double(device_time) / commands * 1e-6;
      row.metrics["configured_latency_us"] = timing.latency_us;
      row.metrics["devices"] = ndev;
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace

std::vector<result> run_storage_benchmarks(const storage_bench_options& o) {
  for (const std::string& p : o.patterns)
    if (p != "randread" && p != "read" && p != "randwrite" && p != "write")
      throw error(error_code::config, fmt::format("bench storage: pattern '{}' is not randread, read, randwrite or write", p));
  if (o.queues == 0 || o.depth < 2 || o.reads_per_thread == 0 || o.repeat == 0 || o.file_mib == 0)
    throw error(error_code::config, "bench storage: queues, reads per thread, repeat and file size must be positive, "
                                    "depth at least 2");
  if (o.controllers == 0)
    throw error(error_code::config, "bench storage: controllers per device must be at least 1");
  if (o.controllers > 1 && !o.timed_device.empty())
    throw error(error_code::config, "bench storage: --timed models one device per controller; it takes --controllers 1");
  if (o.gpu != nullptr && !o.timed_device.empty())
    throw error(error_code::config, "bench storage: --timed simulates the GPU; it does not run with --backend cuda");
  scratch_dir dir(o.dir, "bench-storage");
  if (!o.timed_device.empty()) return run_timed_block_benchmark(o, dir.path());
  const auto file = dir / "device";
  if (o.progress) o.progress(fmt::format("writing a {} MiB backing file", o.file_mib));
  make_file(file, o.file_mib << 20);
  std::vector<result> rows;
  for (const std::string& pattern : o.patterns) {
    const bool sequential = pattern == "read" || pattern == "write";
    const bool write = pattern == "write" || pattern == "randwrite";
    for (const std::uint32_t block : o.block_bytes) {
      st::block_device device(file, "bench", {.lba_bytes = 512});
      const queue_io io{block, block / 512, device.blocks() / (block / 512), sequential, write};
      const std::uint32_t in_flight = std::min(o.ring_entries, o.queues * (o.depth - 1));
      // Rounds of one fio run followed by one run per thread count, so
      // that each ratio compares runs seconds apart: this disk's rate
      // drifts by 15-30% over minutes (docs/benchmarks.md).
      std::vector<double> fio_runs, fio_kib, fio_in_flight;
      std::vector<std::vector<double>> queue_ns(o.threads.size()), ratios(o.threads.size()),
          queue_kib(o.threads.size()), queue_in_flight(o.threads.size());
      std::vector<unsigned> workers(o.threads.size(), 0);
      std::vector<std::vector<queue_stages>> queue_stage_runs(o.threads.size());
      std::uint64_t round = 0;
      for (unsigned r = 0; r < o.repeat; ++r) {
        // fio first: gpmx's executor threads must not exist while it runs.
        double fio = 0;
        if (o.fio) {
          if (o.progress)
            o.progress(fmt::format("fio {} {} B at depth {}, round {} of {}", pattern, block, in_flight, r + 1, o.repeat));
          fio_result f;
          const double kib = disk_kib_per_request_during(file, write, [&] {
            f = fio_run(file, dir / "fio.json", pattern, block, in_flight, device.direct(), 2);
          });
          fio = f.iops;
          if (fio > 0) fio_runs.push_back(fio);
          if (kib > 0) fio_kib.push_back(kib);
          // Little's law: IOPS times the mean latency.
          if (f.mean_latency_ns > 0) fio_in_flight.push_back(f.iops * f.mean_latency_ns * 1e-9);
        }
        for (std::size_t k = 0; k < o.threads.size(); ++k) {
          if (o.progress)
            o.progress(fmt::format("queues {} {} B, {} threads, round {} of {}", pattern, block, o.threads[k], r + 1,
                                   o.repeat));
          const queue_run run = time_queue_run(o, device, io, o.threads[k], round);
          queue_ns[k].push_back(run.ns);
          if (run.disk_kib_per_request > 0) queue_kib[k].push_back(run.disk_kib_per_request);
          queue_in_flight[k].push_back(run.mean_in_flight);
          if (run.stages) queue_stage_runs[k].push_back(*run.stages);
          workers[k] = run.workers;
          const double iops = double(o.threads[k]) * o.reads_per_thread / (run.ns * 1e-9);
          if (fio > 0) ratios[k].push_back(iops / fio);
        }
      }
      if (o.fio) {
        result row = make_result(fmt::format("fio_{}_{}", pattern, block), {}, "fio io_uring, same file, block and depth");
        row.metrics["iops"] = 0;  // fio missing or failing
        put_median(row, "iops", fio_runs, true);
        row.metrics["in_flight"] = in_flight;
        put_median(row, "disk_kib_per_request", fio_kib);
        put_median(row, "mean_in_flight", fio_in_flight);
        rows.push_back(row);
      }
      for (std::size_t k = 0; k < o.threads.size(); ++k) {
        const std::uint32_t threads = o.threads[k];
        result row = make_result(fmt::format("queues_{}_{}_t{}", pattern, block, threads), queue_ns[k],
                                 fmt::format("kernel threads ({}) issuing commands through the NVMe queues",
                                             kernels_run_on(o.gpu)));
        const double ios = double(threads) * o.reads_per_thread;
        row.metrics["iops"] = ios / (row.median_ns * 1e-9);
        row.metrics["mib_per_s"] = row.metrics["iops"] * block / double(1 << 20);
        row.metrics["in_flight_max"] = std::min<double>(threads, in_flight);
        row.metrics["direct"] = device.direct() ? 1 : 0;
        if (o.gpu == nullptr) row.metrics["workers"] = workers[k];
        put_median(row, "disk_kib_per_request", queue_kib[k]);
        put_median(row, "mean_in_flight", queue_in_flight[k]);
        put_stages(row, queue_stage_runs[k]);
        // Each round's run against the fio run just before it; the median and the spread.
        put_median(row, "ratio_vs_fio", ratios[k], true);
        rows.push_back(row);
      }
    }
  }
  if (o.hit_path) {
    // An array of 4 MiB (or the file) in a cache that holds all of it.
    st::block_device device(file, "bench", {.lba_bytes = 512});
    const std::uint64_t pages = std::min<std::uint64_t>(1024, device.blocks() / 8);
    cpu::executor ex({.workers = o.workers});
    launch_target target(ex, o.gpu);
    served_device served(ex, device, o, {});
    const std::vector<st::queue_pair_view>& queues = served.queues;
    st::page_cache cache({.name = "hit-path", .line_bytes = 4096, .lines = std::uint32_t(pages)});
    const auto a = cache.array<std::uint64_t>(cache.add_range(pages, 0, {&device}, queues), pages * 512);
    const std::uint32_t threads = o.threads.empty() ? 4096 : *std::max_element(o.threads.begin(), o.threads.end());
    const std::uint32_t per_block = std::min<std::uint32_t>(threads, 256);
    const launch_config cfg{dim3((threads + per_block - 1) / per_block), dim3(per_block), 0, "hit_path"};
    kernel_vector<std::uint64_t> sums(std::size_t(cfg.grid.x) * per_block);
    const std::uint32_t reads = std::max<std::uint32_t>(o.reads_per_thread * 8, 64);
    st::launch(target, cache, cfg, hit_path_kernel{}, a, std::uint32_t(pages * 512 / sums.size() + 1), 0u, sums.data());
    const char* names[] = {"coalesced", "alone", "warp_cursor"};
    for (std::uint32_t how = 0; how < 3; ++how) {
      if (o.progress) o.progress(fmt::format("cache hit path, {}", names[how]));
      const st::cache_counters before = cache.counters();
      auto runs =
          time_runs(0, o.repeat, [&] { st::launch(target, cache, cfg, hit_path_kernel{}, a, reads, how, sums.data()); });
      if (cache.counters().misses != before.misses)
        throw error(error_code::check, "bench storage: the hit-path array did not stay in the cache");
      result row = make_result(fmt::format("array_hit_{}", names[how]), runs,
                               fmt::format("array reads that all hit the page cache ({})",
                                           kernels_run_on(o.gpu)));
      const double n = double(sums.size()) * reads;
      row.metrics["reads_per_s"] = n / (row.median_ns * 1e-9);
      if (o.gpu == nullptr) {  // per core: a GPU's rate is the device's
        row.metrics["workers"] = ex.workers();
        row.metrics["reads_per_s_per_worker"] = row.metrics["reads_per_s"] / ex.workers();
      }
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace gpmx::bench
