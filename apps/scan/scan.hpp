#pragma once
// The scan's PM (one pool file in the workload's directory) and the host
// side of its kernel (scan_kernel.hpp): regions
//   input     the arrays, one after another (set-up);
//   ping/pong the output of even/odd passes; the scan ends in the buffer of
//             the last pass;
//   progress  one word per array: passes completed (the persisted marker).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"
#include "native/native_data.hpp"

namespace gpmx::apps::scan {

inline constexpr const char* pool_file = "scan.pool";

class job {
 public:
  // Set-up: the pool with its input written and persisted.
  static job create(const std::filesystem::path& dir, const native::chunked_shape& s, pm::durability mode);
  // An opened pool (its meta region gives the shape).
  static job open(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s);

  // One launch: every array resumes at the pass its marker names and finishes.
  // plain_acquire_join runs the seeded bug of that name (scan_kernel.hpp).
  void compute(const launch_target& ex, pm::ordering o, bool plain_acquire_join = false);
  std::uint32_t passes() const;
  std::span<const std::uint64_t> progress() const { return progress_.as<const std::uint64_t>(); }
  // Arrays whose marker says every pass is complete.
  std::uint64_t finished_arrays() const;
  bool finished() const { return finished_arrays() == shape_.blocks(); }
  // The buffer the last pass writes: the scan, once finished.
  std::span<const std::uint64_t> result() const;
  std::uint64_t bytes_persisted() const { return pool_->bytes_persisted(); }
  pm::pool& pool() { return *pool_; }

 private:
  job(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s);

  std::unique_ptr<pm::pool> pool_;
  native::chunked_shape shape_;
  pm::region input_, ping_, pong_, progress_;
};

// The inclusive scan of each array (threads x per_thread elements), sequential.
std::vector<std::uint64_t> reference_scan(const native::chunked_shape& s);

}  // namespace gpmx::apps::scan
