#pragma once
// Where the commands of a queue benchmark wait. A host thread reads the
// queues' counters and the controllers' progress every 200 us or so while a
// run goes and averages how many commands stood at each step; over the
// run's IOPS that is the time each command spends there (Little's law).
// The sampling thread takes CPU time of its own: on a machine with few
// cores it slows what it measures a little (`gpmx bench storage --stages`
// asks for it; it is off otherwise).
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "gpmx/storage/controller.hpp"
#include "gpmx/storage/queue_pair.hpp"

namespace gpmx::bench {

// Mean number of commands at each step.
struct queue_stages {
  double submitting = 0;   // a ticket taken, the tail not yet past it
  double queued = 0;       // behind the doorbell, not yet fetched by a controller
  double in_io = 0;        // fetched, not yet finished by the file system (or the device model)
  double finished = 0;     // finished, its completion not yet posted
  double unseen = 0;       // completion posted, not yet found and marked by its thread
  double unreclaimed = 0;  // marked, the completion head not yet past it
  double between = 0;      // the rest of the threads: past their completion, before their next ticket
  std::uint64_t samples = 0;
};

class queue_stage_sampler {
 public:
  // Starts sampling `threads` kernel threads' commands through `queues`,
  // served by `controllers`.
  queue_stage_sampler(std::vector<storage::queue_pair_view> queues,
                      std::vector<const storage::controller*> controllers, std::uint32_t threads);
  ~queue_stage_sampler();
  queue_stage_sampler(const queue_stage_sampler&) = delete;
  queue_stage_sampler& operator=(const queue_stage_sampler&) = delete;
  // Stops sampling; the means over every sample taken.
  queue_stages stop();

 private:
  void sample();

  std::vector<storage::queue_pair_view> queues_;
  std::vector<const storage::controller*> controllers_;
  std::uint32_t threads_;
  queue_stages sum_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace gpmx::bench
