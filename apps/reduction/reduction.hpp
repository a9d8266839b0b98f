#pragma once
// The reduction's PM (one pool file in the workload's directory) and the
// host side of its kernel (reduction_kernel.hpp): regions
//   input    the elements (set-up);
//   partial  one slot per thread: the sum it handed over (thread 0: its block's sum);
//   total    one word: the sum of everything, 0 until the final step persisted it.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"
#include "native/native_data.hpp"

namespace gpmx::apps::reduction {

inline constexpr const char* pool_file = "reduction.pool";

// How the kernel reads its input: from a copy made in device memory first
// (SBRP's reduction keeps its input there), and interleaved (each thread's
// elements a grid apart, so loads coalesce, as SBRP's kernel reads) rather
// than in consecutive runs per thread.
struct input_layout {
  bool in_device = false;
  bool interleaved = false;
};

class job {
 public:
  // Set-up: the pool with its input written and persisted.
  static job create(const std::filesystem::path& dir, const native::chunked_shape& s, pm::durability mode);
  // An opened pool (its meta region gives the shape).
  static job open(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s);

  // One launch of the kernel: finishes the sum, skipping what was persisted.
  // final_release is the scope that publishes each block's sum (sbrp):
  // device is correct; block is the seeded bug block-scope-release.
  void compute(const launch_target& ex, pm::ordering o, scope final_release = scope::device,
               input_layout layout = input_layout{});
  bool finished() const { return total() != native::empty; }
  std::uint64_t total() const { return total_.as<std::uint64_t>()[0]; }
  std::span<const std::uint64_t> partials() const { return partial_.as<const std::uint64_t>(); }
  // Slots of `partial` already persisted.
  std::uint64_t persisted_partials() const;
  std::uint64_t bytes_persisted() const { return pool_->bytes_persisted(); }
  pm::pool& pool() { return *pool_; }

 private:
  job(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s);

  std::unique_ptr<pm::pool> pool_;
  native::chunked_shape shape_;
  pm::region input_, partial_, total_;
};

// What every slot of `partial` holds after a whole run, computed sequentially.
std::vector<std::uint64_t> reference_partials(const native::chunked_shape& s, bool interleaved = false);
// The sum of the input, element by element.
std::uint64_t reference_total(const native::chunked_shape& s);

}  // namespace gpmx::apps::reduction
