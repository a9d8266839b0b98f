#pragma once
// The prefix sum's PM (one pool file in the workload's directory) and the
// host side of its kernels (prefix_sum_kernel.hpp): regions
//   input    the elements (set-up);
//   partial  block-local inclusive prefix sums (the partial pass);
//   output   global inclusive prefix sums (the final pass);
//   stage    one word: the pass running (partial, final) or done; the host
//            persists it after each kernel.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"
#include "native/native_data.hpp"

namespace gpmx::apps::prefix_sum {

inline constexpr const char* pool_file = "prefix_sum.pool";

enum class stage : std::uint64_t { partial_pass = 0, final_pass = 1, done = 2 };

class job {
 public:
  // Set-up: the pool with its input written and persisted.
  static job create(const std::filesystem::path& dir, const native::chunked_shape& s, pm::durability mode);
  // An opened pool (its meta region gives the shape).
  static job open(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s);

  // Runs the passes still to run (each skips the blocks already persisted),
  // persisting the stage after each; calls after_pass(fraction) after each.
  // total_before_join runs the seeded bug of that name (prefix_sum_kernel.hpp).
  void finish(const launch_target& ex, pm::ordering o, const std::function<void(double)>& after_pass,
              bool total_before_join = false);
  stage current_stage() const { return stage(stage_.as<const std::uint64_t>()[0]); }
  std::span<const std::uint64_t> partial() const { return partial_.as<const std::uint64_t>(); }
  std::span<const std::uint64_t> output() const { return output_.as<const std::uint64_t>(); }
  // Blocks whose last element of `partial` (or `output`) is persisted.
  std::uint64_t blocks_with_partial() const { return whole_blocks(partial()); }
  std::uint64_t blocks_with_output() const { return whole_blocks(output()); }
  std::uint64_t bytes_persisted() const { return pool_->bytes_persisted(); }
  pm::pool& pool() { return *pool_; }

 private:
  job(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s);
  template <class Kernel>
  void launch(const launch_target& ex, pm::ordering o, const char* name, bool total_before_join);
  void set_stage(stage s);
  std::uint64_t whole_blocks(std::span<const std::uint64_t> v) const;

  std::unique_ptr<pm::pool> pool_;
  native::chunked_shape shape_;
  pm::region input_, partial_, output_, stage_;
};

struct reference {
  std::vector<std::uint64_t> partial;  // block-local inclusive prefix sums
  std::vector<std::uint64_t> output;   // global inclusive prefix sums
};
reference reference_sums(const native::chunked_shape& s);

}  // namespace gpmx::apps::prefix_sum
