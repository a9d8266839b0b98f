#pragma once
// The storage side of one BaM workload run: a block device per device file,
// queue pairs per device, emulated NVMe controllers per device (one by default) attached to
// the executor, and one page cache holding a range per stored array
// (striped over the devices). Alive for the run; the controllers stop
// serving when it is destroyed.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bam/storage_layout.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/storage/block_device.hpp"
#include "gpmx/storage/cache_memory.hpp"
#include "gpmx/storage/controller.hpp"
#include "gpmx/storage/device_timing.hpp"
#include "gpmx/storage/queue_memory.hpp"

namespace gpmx::apps::bam {

struct stack_options {
  std::uint32_t queues_per_device = 4;
  // Controller c of a device serves its queue pairs c, c + n, ... (n of
  // them, at most one per queue pair), each on a host thread of its own
  // beside a GPU or under the parallel schedule; the reads in flight are
  // split among them.
  std::uint32_t controllers_per_device = 1;
  std::uint32_t depth = 256;          // entries per queue
  std::uint32_t cache_lines = 2048;
  bool deterministic = false;         // the controllers' completion order drawn from seed
  std::uint64_t seed = 1;
  std::optional<storage::device_timing> timing = std::nullopt;  // the timed schedule: the devices' model
};

// What the devices did, summed over the controllers.
struct io_totals {
  std::uint64_t commands = 0, reads = 0, writes = 0, flushes = 0, bytes_read = 0, bytes_written = 0;
};

class storage_stack {
 public:
  storage_stack(cpu::executor& ex, const std::filesystem::path& dir, const storage_layout& l, stack_options o);
  ~storage_stack();
  storage_stack(const storage_stack&) = delete;
  storage_stack& operator=(const storage_stack&) = delete;

  storage::page_cache& cache() { return *cache_; }
  const storage::page_cache& cache() const { return *cache_; }
  // The whole of stored array `name` as elements of T.
  template <class T>
  storage::array_view<T> array(std::string_view name) const {
    return cache_->array<T>(range_of(name), layout_.find(name).bytes / sizeof(T));
  }
  io_totals io() const;
  bool direct() const;  // every device opened with O_DIRECT

 private:
  std::uint32_t range_of(std::string_view name) const;

  storage_layout layout_;
  std::vector<std::unique_ptr<storage::block_device>> devices_;
  std::vector<std::unique_ptr<storage::queue_pair_memory>> queue_memory_;
  std::vector<std::unique_ptr<storage::controller>> controllers_;
  std::vector<std::unique_ptr<cpu::agent_attachment>> attachments_;
  std::unique_ptr<storage::page_cache> cache_;
};

}  // namespace gpmx::apps::bam
