#pragma once
// One process's use of a CUDA GPU for gpmx kernels (the `--backend cuda` of
// the command line). While a session is open:
//  - every PM pool mapped (each registers a persist domain) is registered with
//    the GPU as mapped host memory, PM-far as in GPM; kernels use the host's
//    pointers, which needs a GPU that can use host pointers for registered
//    memory (every 64-bit Linux system with unified addressing);
//  - kernel_memory() is CUDA managed memory, so volatile buffers reach the GPU;
//  - host_visible_memory() is pinned host memory mapped into the GPU, for
//    words host agents poll while a kernel runs (kernel_memory.hpp);
//  - finish_kernel() waits for a kernel, reports its failure and flushes every
//    pool to its durability domain (msync), since stores the GPU made durable
//    with a system-scope fence have reached the host's memory, not the file.
// Plain C++: only the implementation needs CUDA. Built without CUDA, open()
// throws gpu_unavailable.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpmx/exec/device_write_throttle.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx {

// While one lives, the session's kernels write PM as if to NVRAM of a set
// bandwidth (gpu_session::throttle_pm_writes).
class gpu_write_throttle {
 public:
  virtual ~gpu_write_throttle() = default;
  // Bytes charged to the emulated device so far (whole sectors).
  virtual std::uint64_t charged_bytes() const = 0;
};

// A GPU back end was asked for and cannot be had; the message names what is
// missing (CUDA in this build, a driver, a device, a capability).
class gpu_unavailable : public cuda_error {
 public:
  explicit gpu_unavailable(const std::string& what) : cuda_error(what) {}
};

class gpu_session {
 public:
  // Opens device `device`; throws gpu_unavailable, or cuda_error when a
  // pool mapped now cannot be registered. At most one session at a time.
  static std::unique_ptr<gpu_session> open(int device = 0);
  // Whether this build has the CUDA back end at all.
  static bool built_with_cuda() noexcept;
  // The session open now, or null (the libGPM names use it: they take no
  // launcher, as GPM's do not).
  static const gpu_session* current() noexcept;
  virtual ~gpu_session() = default;

  // "NVIDIA H100 80GB HBM3 (sm_90, driver 13.0)".
  virtual std::string description() const = 0;
  // Waits for the kernels launched so far; throws cuda_error naming `kernel`
  // if one failed; makes every pool's contents durable.
  virtual void finish_kernel(const std::string& kernel) const = 0;
  // Whether kernels on the GPU can use [p, p + bytes): device, managed or
  // registered memory (a pool), not plain host memory such as the stack.
  virtual bool reaches(const void* p, std::size_t bytes) const = 0;
  // Whether host threads may touch kernel (managed) memory while a kernel
  // runs (cudaDevAttrConcurrentManagedAccess): agents beside a GPU launch
  // need it (launch_target.hpp refuses them otherwise, naming the GPU).
  virtual bool host_runs_beside_kernels() const = 0;
  // Whether kernels can use plain host memory, a file mapping included, the
  // pages faulted in on access (cudaDevAttrPageableMemoryAccess: HMM or a
  // system with hardware coherence). The analogue of unified memory over a
  // mapped file (the BaM workloads' mmap method) needs it.
  virtual bool reaches_pageable_memory() const = 0;
  // Device memory where kernels launched through a launch_target add the
  // bytes they store to PM (pm_write_stats counts host threads only).
  virtual unsigned long long* pm_store_counter() const = 0;
  // Slow NVRAM for kernels on this GPU, as pm::write_throttle is on the cpu
  // executor: every PM store a kernel records (through a PM view) is
  // charged its whole sectors of `sector_bytes` on one emulated device that
  // writes `bytes_per_second`, and each durability point waits until the
  // device would have written the thread's stores
  // (device_write_throttle.hpp). Every pool is behind it, until the handle
  // is destroyed (after the kernels using it ended). Throws
  // config_error naming the value for a bandwidth that is not positive or a
  // sector that is not a power of two from 8 to 4096, and when a throttle
  // is set already. Const as pm_store_counter: it changes the
  // device's state, not the session object's.
  virtual std::unique_ptr<gpu_write_throttle> throttle_pm_writes(double bytes_per_second,
                                                                 std::uint32_t sector_bytes) const = 0;
  // The throttle's state in device memory for launches (null: none).
  virtual device_write_throttle* write_throttle_state() const = 0;
  // PM bytes stored by GPU kernels in this process, all sessions together;
  // waits for the kernels in flight.
  static std::uint64_t kernel_pm_store_bytes();
  // Called before each launch through a launch_target and by finish_kernel
  // once a kernel's stores are durable (null: none); crash_trigger makes
  // these crash points while armed.
  static void set_kernel_boundary_hook(void (*hook)()) noexcept;
  static void at_kernel_boundary();

 protected:
  gpu_session() = default;
};

// Where kernels run, as reports name it: the GPU's description, or "cpu
// executor" when there is no session.
inline std::string kernels_run_on(const gpu_session* gpu) {
  return gpu != nullptr ? gpu->description() : std::string("cpu executor");
}

}  // namespace gpmx
