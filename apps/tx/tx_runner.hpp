#pragma once
// One run of a transaction benchmark: the device-memory state, the
// batches (a launch each, then the promise that its records are durable,
// then the log applied to the home image and truncated), the statistics.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "common/workload.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/stm/bandwidth_monitor.hpp"
#include "gpmx/stm/log_truncator.hpp"
#include "gpmx/stm/tx_heap.hpp"
#include "gpmx/support/elapsed.hpp"
#include "tx/tx_kernel.hpp"
#include "tx/tx_shape.hpp"

namespace gpmx::apps::tx {

struct tx_stats {
  std::uint64_t commits = 0, aborts = 0, preemptions = 0, direct = 0, ring = 0, ring_full = 0;
  std::uint64_t batches = 0, drained = 0, log_entries = 0, occupancy_sum = 0;
  std::vector<std::uint64_t> occupancy;  // drains per twentieth of the buffer occupied
  std::uint64_t switches = 0, monitor_slices = 0, monitor_slices_on = 0;
  std::uint64_t log_room_waits = 0;  // appends that waited for a log ring's truncator
  std::uint64_t applied_while_running = 0, truncations_while_running = 0;  // by the truncator
  double kernel_seconds = 0, checkpoint_seconds = 0;
  std::vector<double> launch_seconds;  // each batch's kernel
  // Adaptive: the monitor's slices of each launch but its first and last
  // (the warm-up and the ending, which the paper's threshold measurement
  // drops): their bytes and seconds in all.
  double steady_bytes = 0, steady_seconds = 0;
  // The median occupancy of the buffer at a drain, as a share of its
  // capacity (the middle of the twentieth the median drain falls in); -1 without drains.
  double median_occupancy() const;
  // The persistence bandwidth over those slices in MB/s; -1 without any.
  double steady_persist_mbps() const {
    return steady_seconds > 0 ? steady_bytes / steady_seconds / 1e6 : -1;
  }
};

// The device-memory side of a run.
class tx_device {
 public:
  // host_monitor_beside_gpu: a host thread watches the launch while it runs
  // on a GPU, so the blocks publish their counters (tx_shared::published).
  // The switch word always has an allocation of its own, away from the
  // sequence counter: on the counter's line, every adaptive commit's read
  // of it queued at the L2 bank behind the counter's atomics (the timed
  // mode: a never-switching monitor cost 12% of helpers off, 3% apart); on
  // a GPU, each host write moved the counter's page away from the GPU,
  // whose every commit then faulted until it came back, so there it takes
  // a managed-memory granule (64 KiB) to itself. (In host-visible memory
  // instead, every commit's read of it crossed PCIe: 40 times slower,
  // measured.)
  tx_device(const tx_shape& s, std::span<const std::uint32_t> home, bool host_monitor_beside_gpu,
            const stm::log_geometry& g);
  // Sets up the next launch: sequence numbers after `applied_upto`.
  stm::tx_shared prepare(std::uint64_t applied_upto, bool helpers_on);
  // The launch's view of the heap's log: with rings, their room words
  // (log_layout.hpp), zero at the epoch's start.
  stm::tx_log log_of(const stm::tx_heap& heap);
  std::span<const std::uint32_t> data() const { return data_; }
  // The last sequence number the launch took (every committed writing
  // transaction takes one; read-only ones take none).
  std::uint64_t last_seq() const;
  tx_stats stats() const;

 private:
  tx_shape shape_;
  kernel_vector<std::uint32_t> data_, status_, words_, durable_;
  kernel_vector<std::uint64_t> orecs_;
  kernel_vector<std::uint64_t> counters_;
  host_visible_vector<std::uint64_t> published_;
  kernel_vector<std::uint32_t> switch_;
  // Per log stream, when they wrap: the host's truncator reads durable_end
  // and writes reclaimed while the kernel runs, so beside a GPU they are
  // pinned host memory (managed memory would move the page to whichever
  // side touched it last, each poll faulting it across).
  host_visible_vector<std::uint64_t> reclaimed_, durable_end_;
};

// Installs the shape's NVRAM throttle on pool (none when nvram_mbps is 0).
void throttle_pool(pm::pool& pool, const tx_shape& s);
// The bandwidth monitor's clock in nanoseconds: the executor's virtual time
// in the timed schedule (where the NVM model sets the bandwidth), else the
// wall clock from now.
std::function<std::uint64_t()> monitor_clock(const cpu::executor& ex);

// Runs every batch of body on heap; the bug names a seeded fault (or none).
template <class Body>
tx_stats run_batches(const env& e, stm::tx_heap& heap, const tx_shape& s, style st, const Body& body,
                     const stm::seeded_faults& faults, bool truncate_first) {
  tx_device dev(s, heap.home(), s.helpers == helper_mode::adaptive && e.ex.on_gpu(), heap.geometry());
  double kernel_s = 0, checkpoint_s = 0;
  std::vector<double> launch_s;
  std::uint64_t switches = 0, slices = 0, slices_on = 0, applied_while_running = 0, truncations = 0;
  double steady_bytes = 0, steady_seconds = 0;
  for (std::uint32_t b = 0; b < s.batches; ++b) {
    const stm::tx_shared shared = dev.prepare(heap.applied_upto(), s.helpers == helper_mode::on);
    const stm::tx_log log = dev.log_of(heap);
    const tx_kernel_args<Body> args{shared, log, {st, faults}, s.committers, std::uint32_t(s.helpers), s.ring,
                                    b, s.per_thread, s.durable_fence, body};
    const launch_config cfg{dim3(s.blocks), dim3(s.block_threads()),
                            s.helpers == helper_mode::off ? 0 : stm::ring_bytes(s.ring), "tx"};
    std::optional<stm::bandwidth_monitor> monitor;
    std::optional<cpu::agent_attachment> attached;
    if (s.helpers == helper_mode::adaptive) {
      monitor.emplace(shared, s.blocks,
                      stm::monitor_options{double(s.threshold_mbps) * 1e6, std::uint64_t(s.slice_us) * 1000, 5},
                      monitor_clock(e.ex.cpu()));
      (void)attached.emplace(e.ex.cpu().attach(*monitor));  // the attachment lives in `attached`
    }
    std::optional<stm::log_truncator> truncator;
    std::optional<cpu::agent_attachment> truncating;
    if (log.geometry.wraps) {
      truncator.emplace(heap, log, truncate_first);
      (void)truncating.emplace(e.ex.cpu().attach(*truncator));
    }
    const auto start = std::chrono::steady_clock::now();
    e.ex.launch(cfg, tx_kernel{}, args);
    launch_s.push_back(seconds_since(start));
    kernel_s += launch_s.back();
    if (truncator) {
      truncating.reset();
      applied_while_running += truncator->applied();
      truncations += truncator->truncations();
    }
    if (monitor) {
      attached.reset();
      switches += monitor->switches().size();
      slices += monitor->slices();
      slices_on += monitor->slices_on();
      const auto& history = monitor->slice_history();
      for (std::size_t k = 1; k + 1 < history.size(); ++k) {
        steady_bytes += history[k].bytes_per_s * history[k].seconds;
        steady_seconds += history[k].seconds;
      }
    }
    const auto c0 = std::chrono::steady_clock::now();
    heap.promise_durable(dev.last_seq());
    (void)heap.checkpoint(truncate_first);
    checkpoint_s += seconds_since(c0);
    e.report(double(b + 1) / s.batches);
  }
  tx_stats st_out = dev.stats();
  st_out.kernel_seconds = kernel_s;
  st_out.launch_seconds = std::move(launch_s);
  st_out.checkpoint_seconds = checkpoint_s;
  st_out.switches = switches;
  st_out.monitor_slices = slices;
  st_out.monitor_slices_on = slices_on;
  st_out.steady_bytes = steady_bytes;
  st_out.steady_seconds = steady_seconds;
  st_out.applied_while_running = applied_while_running;
  st_out.truncations_while_running = truncations;
  return st_out;
}

}  // namespace gpmx::apps::tx
