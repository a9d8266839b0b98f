#pragma once
// Real CUDA launches of gpmx kernels, and the little device-memory plumbing
// tests and apps need. Include only from .cu files.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "gpmx/exec/concepts.hpp"
#include "gpmx/exec/cuda/thread_ctx.cuh"
#include "gpmx/exec/errors.hpp"
#include "gpmx/exec/launch_config.hpp"

namespace gpmx::cuda {

// What a launch gives its threads beside the kernel's arguments (device
// memory; each null when not wanted).
struct launch_services {
  unsigned long long* pm_bytes = nullptr;       // where threads add the PM bytes they stored
  device_write_throttle* throttle = nullptr;   // emulated NVRAM (device_write_throttle.hpp)
};

namespace detail {
template <class Kernel, class... Args>
__global__ void entry(launch_services services, Kernel kernel, Args... args) {
  thread_ctx t(services.throttle);
  kernel(t, args...);
  t.wait_pm_writes_durable();  // a thread's end is a durability point
  if (services.pm_bytes != nullptr) t.report_pm_bytes(services.pm_bytes);
}

inline void check(cudaError_t e, const char* call, const std::string& what) {
  if (e != cudaSuccess)
    throw cuda_error(what + ": " + call + " failed: " + cudaGetErrorName(e) + " (" +
                     cudaGetErrorString(e) + ")");
}
}  // namespace detail

// True when a CUDA device can be used (driver present, at least one GPU).
inline bool device_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// Launches kernel(t, args...) on the GPU with `services` (launch_services).
// Validates cfg as the cpu executor does and throws cuda_error if the
// launch fails. Asynchronous, as in CUDA.
template <class Kernel, class... Args>
void launch_with(const launch_config& cfg, launch_services services, Kernel kernel, Args... args) {
  validate(cfg);
  auto* fn = &detail::entry<Kernel, Args...>;
  if (cfg.dynamic_shared_bytes > 48 * 1024)
    detail::check(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(cfg.dynamic_shared_bytes)),
                  "cudaFuncSetAttribute", "kernel '" + cfg.name + "'");
  ::dim3 g(cfg.grid.x, cfg.grid.y, cfg.grid.z), b(cfg.block.x, cfg.block.y, cfg.block.z);
  fn<<<g, b, cfg.dynamic_shared_bytes>>>(services, kernel, args...);
  detail::check(cudaGetLastError(), "kernel launch", "kernel '" + cfg.name + "'");
}

// launch_with, nothing counted or throttled.
template <class Kernel, class... Args>
void launch(const launch_config& cfg, Kernel kernel, Args... args) {
  launch_with(cfg, launch_services{}, kernel, args...);
}

// cuda::launch as an object, for code written against gpmx::launcher.
struct launcher {
  template <class Kernel, class... Args>
  void launch(const launch_config& cfg, Kernel kernel, Args... args) const {
    cuda::launch(cfg, kernel, args...);
  }
};
static_assert(gpmx::launcher<launcher>, "cuda::launcher must satisfy gpmx::launcher");
static_assert(thread_context<thread_ctx>, "the CUDA thread context must satisfy gpmx::thread_context");

inline void synchronize(const std::string& what = "synchronize") {
  detail::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", what);
}

// Device memory owned by one object.
template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t n) : n_(n) {
    detail::check(cudaMalloc(&p_, n * sizeof(T)), "cudaMalloc",
                  "device buffer of " + std::to_string(n * sizeof(T)) + " bytes");
  }
  ~device_buffer() { cudaFree(p_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  void upload(const T* host) {
    detail::check(cudaMemcpy(p_, host, n_ * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy", "upload");
  }
  void download(T* host) const {
    detail::check(cudaMemcpy(host, p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy", "download");
  }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

}  // namespace gpmx::cuda
