#pragma once
// An emulated NVMe controller: an agent (exec/agent.hpp) beside kernel
// launches that serves queue pairs kernel threads fill. Each step it reaps
// finished I/O, posts completions (out of order, with the command id, the
// phase tag and the submission queue head), fetches the commands the
// doorbells expose and hands them to io_uring on the device's file.
//
// Checked, not trusted: a command past the device's end, an unknown opcode
// or a zero buffer completes with an error status; a failed or short
// read or write completes with a data transfer error. The kernel thread
// that waits for it raises the error (page_cache.hpp).
//
// Under the parallel schedule the controller runs on its own OS thread and
// completions arrive as the device finishes them. Under the deterministic
// schedule (`deterministic`), each step waits for all the I/O it issued and
// posts the completions in an order drawn from its seed, so a run is a
// function of the seeds. Under the timed schedule (`timing`), each step
// also waits for its I/O, and posts each completion once the virtual clock
// reaches its time on the device model, in the order of those times.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpmx/exec/agent.hpp"
#include "gpmx/storage/block_device.hpp"
#include "gpmx/storage/device_timing.hpp"
#include "gpmx/storage/queue_pair.hpp"

namespace gpmx::storage {

struct controller_options {
  std::uint32_t ring_entries = 256;  // io_uring submission entries (I/O in flight at most)
  bool deterministic = false;
  std::uint64_t seed = 1;
  // The timed schedule: the device's timing and the executor's virtual
  // clock (cpu::executor::virtual_time). Each command still does its real
  // I/O when fetched, but its completion is posted only once the clock
  // reaches the time the device model gives it (device_timing.hpp).
  std::optional<device_timing> timing = std::nullopt;
  std::function<vtime()> clock = {};
};

struct controller_counters {
  std::uint64_t commands = 0;
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  std::uint64_t flushes = 0;
  std::uint64_t errors = 0;  // completions posted with a non-zero status
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  // Timed: virtual time from each command's fetch to its completion, summed
  // (their mean is the device's latency plus its queueing).
  vtime device_time = 0;
  // Otherwise: wall time from each command's hand-over to io_uring until it
  // was reaped, summed, in ns. Over a run's wall time it is the mean number
  // of commands the file system had in flight (Little's law).
  std::uint64_t io_ns = 0;
};

// Commands through a controller's steps since it was made: taken from a
// submission queue, finished (by the file system, or at once with an
// error), their completions posted. Readable from any thread while the
// controller serves (relaxed counts: for sampling where commands wait, not
// for synchronizing with it).
struct controller_progress {
  std::uint64_t fetched = 0;
  std::uint64_t finished = 0;
  std::uint64_t posted = 0;
};

// How n controllers share one device's queue pairs: controller c serves
// pairs c, c + n, ...; each may keep `in_flight / n` reads in flight (at
// least one). n must be 1 to queues.size(): storage_error(config) names
// both otherwise (config_error).
struct controller_share {
  std::vector<queue_pair_view> queues;
  std::uint32_t ring_entries;
};
std::vector<controller_share> share_queue_pairs(const std::vector<queue_pair_view>& queues, std::uint32_t n,
                                                std::uint32_t in_flight);

// Executor workers for kernels served by `controller_threads` controllers
// on the cpu executor's parallel schedule: `requested` when not 0; else
// GPMX_WORKERS's value when set; else every core but one per controller
// (at least one). A controller sleeps in io_uring until I/O completes and
// must then run at once; workers on every core leave it waiting behind
// threads that spin on its completions (docs/bam.md, "Cores").
unsigned workers_beside_controllers(unsigned requested, unsigned controller_threads);

class controller final : public agent {
 public:
  controller(block_device& device, std::vector<queue_pair_view> queues, controller_options o = {});
  ~controller() override;
  controller(const controller&) = delete;
  controller& operator=(const controller&) = delete;

  step_result step() override;
  std::string_view name() const override { return name_; }
  const controller_counters& counters() const { return counters_; }
  controller_progress progress() const;
  const block_device& device() const { return device_; }

 private:
  struct impl;
  bool reap();
  bool post_ready();
  bool release_due();
  bool fetch();
  void start(std::uint32_t queue, const nvme_command& c);
  void wait_for_io(bool all);
  std::size_t in_flight_count() const;

  block_device& device_;
  std::string name_;
  controller_counters counters_;
  bool deterministic_ = false;
  std::unique_ptr<impl> impl_;
};

}  // namespace gpmx::storage
