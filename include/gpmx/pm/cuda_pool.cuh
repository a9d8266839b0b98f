#pragma once
// PM-far on CUDA, as in GPM: a pool's mapping is registered with the GPU as
// mapped host memory, and views carry the device's pointer to it. Include
// only from .cu files.
#include <cuda_runtime.h>

#include <string>

#include "gpmx/exec/cuda/launch.cuh"
#include "gpmx/pm/pool.hpp"

namespace gpmx::cuda {

class registered_pool {
 public:
  explicit registered_pool(pm::pool& p) : pool_(&p) {
    const std::string what = "registering pool " + p.path().string() + " with the GPU";
    detail::check(cudaHostRegister(p.base(), p.size(), cudaHostRegisterMapped | cudaHostRegisterPortable),
                  "cudaHostRegister", what);
    void* dev = nullptr;
    detail::check(cudaHostGetDevicePointer(&dev, p.base(), 0), "cudaHostGetDevicePointer", what);
    device_base_ = static_cast<std::byte*>(dev);
  }
  ~registered_pool() { cudaHostUnregister(pool_->base()); }
  registered_pool(const registered_pool&) = delete;
  registered_pool& operator=(const registered_pool&) = delete;

  // A view of region r that kernels on the GPU can use.
  template <class T>
  pm::pm_span<T> span(const pm::region& r) const {
    std::byte* dev = device_base_ + (r.data() - pool_->base());
    return {reinterpret_cast<T*>(dev), std::size_t(r.size() / sizeof(T)), pool_->domain()};
  }

 private:
  pm::pool* pool_;
  std::byte* device_base_ = nullptr;
};

}  // namespace gpmx::cuda
