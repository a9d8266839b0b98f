#pragma once
// The memory behind a page cache (page_cache.hpp): its lines, each slot's
// owner, the counters, and the ranges of storage it caches. All allocated
// up front, as BaM does; kernels get a cache_view by value. What kernels
// read is kernel memory; the lines, which the controller reads into and
// writes from while kernels run, are host-visible memory.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/launch_config.hpp"
#include "gpmx/storage/array.hpp"
#include "gpmx/storage/block_device.hpp"
#include "gpmx/storage/page_cache.hpp"

namespace gpmx::storage {

struct cache_options {
  std::string name = "cache";
  std::uint32_t line_bytes = 4096;  // a power of two, 512 B to 64 KiB
  std::uint32_t lines = 1024;       // slots
  std::uint32_t max_ranges = 64;
};

class page_cache {
 public:
  explicit page_cache(cache_options o = {});
  page_cache(const page_cache&) = delete;
  page_cache& operator=(const page_cache&) = delete;

  // A range of `pages` cache lines starting at block `first_lba` of its
  // devices, read and written through `queues` (devices.size() x
  // queues_per_device, device-major). Returns the range's index.
  std::uint32_t add_range(std::uint64_t pages, std::uint64_t first_lba, const std::vector<const block_device*>& devices,
                          const std::vector<queue_pair_view>& queues, distribution layout = distribution::stripe);

  // `count` elements of T over range `range` (they must fit in it).
  template <class T>
  array_view<T> array(std::uint32_t range, std::uint64_t count) const {
    check_array(range, count, sizeof(T));
    return array_view<T>{view_, range, count};
  }

  const cache_view& view() const { return view_; }
  cache_counters counters() const;
  const std::string& name() const { return name_; }
  std::uint32_t line_bytes() const { return view_.line_bytes; }
  std::uint32_t lines() const { return view_.slots; }
  // Pages of every range that are valid and dirty (host side, between launches).
  std::uint64_t dirty_pages() const;
  // The message of a deadlock in which every line was pinned.
  std::string describe_all_pinned(const std::string& deadlock) const;
  // The failed command a kernel thread recorded (command_failure), if any;
  // cleared before each storage::launch.
  bool failed() const;
  // Whether the record is a GPU thread's finding that every line stayed
  // pinned (describe_all_pinned), not a failed command.
  bool failed_all_pinned() const;
  std::string describe_failure(const std::string& launch_error) const;
  void clear_failure() const;

 private:
  void check_array(std::uint32_t range, std::uint64_t count, std::size_t element_bytes) const;
  struct range_storage {
    kernel_vector<std::uint32_t> state, page_slot;
    kernel_vector<queue_pair_view> queues;
    std::vector<std::string> names;
    std::vector<const char*> name_ptrs;  // host-side error messages only
  };
  std::string name_;
  // The controller, a host agent, reads and writes lines while kernels run.
  std::unique_ptr<host_visible_block> lines_;
  // Read by the host after a failed launch: pinned host memory beside a GPU
  // stays readable after a trap, managed memory would not.
  std::unique_ptr<host_visible_block> failure_;
  // What kernels touch lives in kernel memory (kernel_memory.hpp): on a page
  // of its own in the timed mode, so simulated cycles do not depend on
  // where the host's heap put it.
  kernel_vector<std::uint64_t> slot_owner_;
  kernel_vector<cache_counters> counters_;
  kernel_vector<std::uint64_t> clock_;
  kernel_vector<std::uint32_t> read_turn_;
  kernel_vector<range_view> ranges_;  // capacity fixed at max_ranges: views keep pointing at it
  std::vector<std::unique_ptr<range_storage>> storage_;
  cache_view view_;
};

// Kernel: writes back every dirty line (one thread per slot, grid-strided).
struct write_back_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, cache_view c) const {
    for (std::uint64_t s = t.global_id(); s < c.slots; s += t.global_count()) {
      const std::uint64_t o = t.atomic_load(&c.slot_owner[s], memory_order::acquire);
      if (o == 0 || (o & slot_claimed) != 0) continue;
      write_back(t, c, std::uint32_t((o - 1) >> 40), (o - 1) & ((1ull << 40) - 1));
    }
  }
};

// Kernel: one FLUSH command per device of every range (thread i: the i-th).
struct device_flush_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, cache_view c) const {
    std::uint64_t i = t.global_id();
    for (std::uint32_t r = 0; r < c.range_count; ++r) {
      if (i < c.ranges[r].devices) {
        const queue_pair_view& q = c.ranges[r].queues[i * c.ranges[r].queues_per_device];
        const nvme_completion done = await_completion(t, q, submit(t, q, make_flush_command()));
        if (done.status_code() != 0)
          detail::command_failed(t, c, r, std::uint32_t(i), nvme_opcode::flush, 0, 0, done.status_code());
        return;
      }
      i -= c.ranges[r].devices;
    }
  }
};

// Launches a kernel that uses `cache`; a deadlock in which loaders found
// every line of the cache pinned is reported as the cache's, naming it and
// its size (threads hold more pages pinned than it has lines), and a launch
// that failed after a command failed (a GPU kernel traps) with the command.
template <class Launcher, class Kernel, class... Args>
void launch(Launcher& ex, const page_cache& cache, const launch_config& cfg, Kernel k, Args&&... args) {
  const std::uint64_t before = cache.counters().pinned_sweeps;
  cache.clear_failure();
  try {
    ex.launch(cfg, k, std::forward<Args>(args)...);
  } catch (const deadlock_error& e) {
    if (cache.counters().pinned_sweeps == before) throw;
    throw storage_error(error_code::capacity, cache.describe_all_pinned(e.what()));
  } catch (const cuda_error& e) {  // a GPU thread trapped: the message is in the record
    if (!cache.failed()) throw;
    if (cache.failed_all_pinned())
      throw storage_error(error_code::capacity,
                          cache.describe_all_pinned("a GPU thread saw every line pinned for " +
                                                    std::to_string(detail::all_pinned_trap_seconds) +
                                                    " s and trapped; " + e.what()));
    throw storage_error(error_code::io, cache.describe_failure(e.what()));
  }
}

// Writes every dirty line back and makes the devices durable (FLUSH), with
// kernels on `ex` (whose controllers must be attached).
template <class Launcher>
void flush(Launcher& ex, const page_cache& cache) {
  const cache_view& c = cache.view();
  const std::uint32_t threads = 128;
  launch(ex, cache, {dim3((c.slots + threads - 1) / threads), dim3(threads), 0, "bam_write_back"}, write_back_kernel{},
         c);
  std::uint32_t devices = 0;
  for (std::uint32_t r = 0; r < c.range_count; ++r) devices += c.ranges[r].devices;
  if (devices != 0) launch(ex, cache, {dim3(1), dim3(devices), 0, "bam_device_flush"}, device_flush_kernel{}, c);
}

}  // namespace gpmx::storage
