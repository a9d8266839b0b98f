// The CUDA back end's session: pools registered with the GPU as mapped host
// memory (PM-far), kernel memory in CUDA managed memory, host-visible kernel
// memory pinned on the host and mapped into the GPU.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <string_view>
#include <fmt/format.h>
#include <map>
#include <memory_resource>
#include <mutex>

#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/write_throttle_settings.hpp"

namespace gpmx {
namespace {

std::string cuda_text(cudaError_t e) { return fmt::format("{} ({})", cudaGetErrorName(e), cudaGetErrorString(e)); }

void check(cudaError_t e, const char* call, const std::string& what) {
  if (e != cudaSuccess) throw cuda_error(fmt::format("{}: {} failed: {}", what, call, cuda_text(e)));
}

// Managed memory: the GPU reaches it, the host reads it once a kernel ended.
class managed_memory final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t) override {
    void* p = nullptr;
    check(cudaMallocManaged(&p, bytes == 0 ? 1 : bytes), "cudaMallocManaged",
          fmt::format("kernel memory of {} bytes", bytes));
    return p;
  }
  void do_deallocate(void* p, std::size_t, std::size_t) override { cudaFree(p); }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
};

// Pinned host memory mapped into the GPU: host agents poll and write it
// while a kernel runs without moving its pages (host_visible_memory()).
// With unified addressing the GPU uses the host's pointer, checked here.
class mapped_host_memory final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t) override {
    void* p = nullptr;
    const std::string what = fmt::format("host-visible kernel memory of {} bytes", bytes);
    check(cudaHostAlloc(&p, bytes == 0 ? 1 : bytes, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc",
          what);
    void* dev = nullptr;
    if (cudaHostGetDevicePointer(&dev, p, 0) != cudaSuccess || dev != p) {
      cudaGetLastError();
      cudaFreeHost(p);
      throw cuda_error(what + ": the GPU's address of the pinned buffer differs from the host's");
    }
    return p;
  }
  void do_deallocate(void* p, std::size_t, std::size_t) override { cudaFreeHost(p); }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
};

// Never destroyed: buffers may outlive the session that allocated them.
managed_memory& managed() {
  static managed_memory* m = new managed_memory;
  return *m;
}
mapped_host_memory& mapped_host() {
  static mapped_host_memory* m = new mapped_host_memory;
  return *m;
}

// The throttle's clock starts at the GPU's global timer.
__global__ void start_write_throttle(device_write_throttle* t) {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  t->origin_ns = now;
}

class cuda_write_throttle final : public gpu_write_throttle {
 public:
  cuda_write_throttle(double bytes_per_second, std::uint32_t sector_bytes, std::atomic<device_write_throttle*>& slot)
      : sector_(sector_bytes), slot_(slot) {
    device_write_throttle init;
    init.sector_bytes = sector_bytes;
    // Whole picoseconds per sector: at 484 GB/s and 32-byte sectors 66 ps
    // for 66.1, the bandwidth 0.2% high; at 1.6 GB/s exact.
    init.ps_per_sector = static_cast<unsigned long long>(double(sector_bytes) * 1e12 / bytes_per_second + 0.5);
    if (init.ps_per_sector == 0) init.ps_per_sector = 1;
    int sm_khz = 0;
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device);
    init.stall_cycles = static_cast<unsigned long long>(sm_khz > 0 ? sm_khz : 2'000'000) * 1000ull * 10ull;
    const char* per_lane = std::getenv("GPMX_GPU_THROTTLE_PER_LANE");
    init.per_lane = per_lane != nullptr && std::string_view(per_lane) == "1" ? 1u : 0u;
    const std::string what = "the GPU's write throttle";
    check(cudaMalloc(&state_, sizeof *state_), "cudaMalloc", what);
    check(cudaMemcpy(state_, &init, sizeof init, cudaMemcpyHostToDevice), "cudaMemcpy", what);
    start_write_throttle<<<1, 1>>>(state_);
    check(cudaDeviceSynchronize(), "starting its clock", what);
    slot_ = state_;
  }
  ~cuda_write_throttle() override {
    slot_ = nullptr;
    cudaDeviceSynchronize();  // no kernel in flight still charges it
    cudaFree(state_);
  }
  std::uint64_t charged_bytes() const override {
    device_write_throttle now;
    if (cudaMemcpy(&now, state_, sizeof now, cudaMemcpyDeviceToHost) != cudaSuccess) return 0;
    return now.charged_sectors * sector_;
  }

 private:
  std::uint32_t sector_;
  std::atomic<device_write_throttle*>& slot_;
  device_write_throttle* state_ = nullptr;
};

std::atomic<bool> session_open{false};
std::atomic<const gpu_session*> open_session{nullptr};
std::atomic<std::uint64_t> closed_sessions_pm_bytes{0};  // what sessions closed so far counted
std::atomic<void (*)()> kernel_boundary_hook{nullptr};

class cuda_session final : public gpu_session, public persist_domain_listener {
 public:
  explicit cuda_session(int device) {
    int n = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&n); e != cudaSuccess)
      throw gpu_unavailable("no usable CUDA driver or device: cudaGetDeviceCount failed: " + cuda_text(e));
    if (n == 0) throw gpu_unavailable("no CUDA device present (the driver reports none)");
    if (device < 0 || device >= n)
      throw gpu_unavailable(fmt::format("CUDA device {} asked for, but only {} present", device, n));
    check(cudaSetDevice(device), "cudaSetDevice", fmt::format("CUDA device {}", device));
    check(cudaGetDeviceProperties(&prop_, device), "cudaGetDeviceProperties", fmt::format("CUDA device {}", device));
    int host_pointers = 0, managed_ok = 0;
    cudaDeviceGetAttribute(&host_pointers, cudaDevAttrCanUseHostPointerForRegisteredMem, device);
    cudaDeviceGetAttribute(&managed_ok, cudaDevAttrManagedMemory, device);
    if (!host_pointers)
      throw gpu_unavailable(fmt::format("{} cannot use host pointers for registered memory, which gpmx's PM pools need",
                                        prop_.name));
    if (!managed_ok) throw gpu_unavailable(fmt::format("{} has no managed memory, which kernel buffers need", prop_.name));
    cudaDeviceGetAttribute(&concurrent_managed_, cudaDevAttrConcurrentManagedAccess, device);
    cudaDeviceGetAttribute(&pageable_, cudaDevAttrPageableMemoryAccess, device);
    cudaDriverGetVersion(&driver_);
    check(cudaMalloc(&pm_bytes_, sizeof *pm_bytes_), "cudaMalloc", "the kernels' PM store counter");
    check(cudaMemset(pm_bytes_, 0, sizeof *pm_bytes_), "cudaMemset", "the kernels' PM store counter");
    add_persist_domain_listener(this);  // registers the pools mapped already
    previous_memory_ = set_kernel_memory(&managed());
    previous_host_visible_ = set_host_visible_memory(&mapped_host());
    open_session = this;
  }
  ~cuda_session() override {
    open_session = nullptr;
    closed_sessions_pm_bytes += pm_bytes_stored();
    cudaFree(pm_bytes_);
    set_host_visible_memory(previous_host_visible_);
    set_kernel_memory(previous_memory_);
    remove_persist_domain_listener(this);
    std::lock_guard lock(mutex_);
    for (const auto& [base, bytes] : registered_) cudaHostUnregister(const_cast<void*>(base));
    session_open = false;
  }

  std::string description() const override {
    return fmt::format("{} (sm_{}{}, {} SMs, driver {}.{})", prop_.name, prop_.major, prop_.minor,
                       prop_.multiProcessorCount, driver_ / 1000, driver_ % 1000 / 10);
  }

  void finish_kernel(const std::string& kernel) const override {
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", fmt::format("kernel '{}'", kernel));
    persist_all_domains();
    at_kernel_boundary();
  }

  bool reaches(const void* p, std::size_t bytes) const override {
    const auto known = [](const void* a) {
      cudaPointerAttributes attr{};
      if (cudaPointerGetAttributes(&attr, a) != cudaSuccess) {
        cudaGetLastError();
        return false;
      }
      return attr.type != cudaMemoryTypeUnregistered;
    };
    return bytes == 0 || (known(p) && known(static_cast<const std::byte*>(p) + bytes - 1));
  }

  bool host_runs_beside_kernels() const override { return concurrent_managed_ != 0; }
  bool reaches_pageable_memory() const override { return pageable_ != 0; }

  unsigned long long* pm_store_counter() const override { return pm_bytes_; }

  std::unique_ptr<gpu_write_throttle> throttle_pm_writes(double bytes_per_second,
                                                         std::uint32_t sector_bytes) const override {
    if (const std::string bad = write_throttle_settings_error(bytes_per_second, sector_bytes); !bad.empty())
      throw config_error("GPU write throttle: " + bad);
    if (throttle_ != nullptr) throw config_error("GPU write throttle: one is set already on this session");
    return std::make_unique<cuda_write_throttle>(bytes_per_second, sector_bytes, throttle_);
  }
  device_write_throttle* write_throttle_state() const override { return throttle_; }
  // Waits for the kernels in flight (a copy from device memory does); 0 when
  // the context failed (the failure itself was reported by finish_kernel).
  std::uint64_t pm_bytes_stored() const {
    unsigned long long v = 0;
    if (cudaMemcpy(&v, pm_bytes_, sizeof v, cudaMemcpyDeviceToHost) != cudaSuccess) return 0;
    return v;
  }

  void added(const persist_domain*, const void* base, std::size_t bytes) override {
    void* p = const_cast<void*>(base);
    const std::string what = fmt::format("registering a PM mapping of {} bytes with the GPU", bytes);
    if (const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
        e != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it
      throw cuda_error(fmt::format(
          "{}: cudaHostRegister failed: {}. Linux 6.5 and later refuse to pin a writable file mapping for a device "
          "unless the file is on tmpfs, hugetlbfs or a DAX file system: keep GPU pools on /dev/shm (--data) or on "
          "PM mounted with -o dax", what, cuda_text(e)));
    }
    void* dev = nullptr;
    const cudaError_t e = cudaHostGetDevicePointer(&dev, p, 0);
    if (e != cudaSuccess || dev != base) {
      cudaHostUnregister(p);
      throw cuda_error(what + ": the GPU's address of the mapping differs from the host's");
    }
    std::lock_guard lock(mutex_);
    registered_[base] = bytes;
  }
  void removed(const persist_domain*, const void* base, std::size_t) override {
    std::lock_guard lock(mutex_);
    if (registered_.erase(base) != 0) cudaHostUnregister(const_cast<void*>(base));
  }

 private:
  cudaDeviceProp prop_{};
  int driver_ = 0;
  int concurrent_managed_ = 0, pageable_ = 0;
  unsigned long long* pm_bytes_ = nullptr;
  mutable std::atomic<device_write_throttle*> throttle_{nullptr};  // set while a gpu_write_throttle lives
  std::pmr::memory_resource* previous_memory_ = nullptr;
  std::pmr::memory_resource* previous_host_visible_ = nullptr;
  std::mutex mutex_;
  std::map<const void*, std::size_t> registered_;
};

}  // namespace

bool gpu_session::built_with_cuda() noexcept { return true; }
const gpu_session* gpu_session::current() noexcept { return open_session.load(); }

void gpu_session::set_kernel_boundary_hook(void (*hook)()) noexcept { kernel_boundary_hook = hook; }
void gpu_session::at_kernel_boundary() {
  if (void (*hook)() = kernel_boundary_hook.load()) hook();
}

std::uint64_t gpu_session::kernel_pm_store_bytes() {
  std::uint64_t sum = closed_sessions_pm_bytes.load();
  if (const auto* s = dynamic_cast<const cuda_session*>(current())) sum += s->pm_bytes_stored();
  return sum;
}

std::unique_ptr<gpu_session> gpu_session::open(int device) {
  if (session_open.exchange(true)) throw gpu_unavailable("a GPU session is open already in this process");
  try {
    return std::make_unique<cuda_session>(device);
  } catch (...) {
    session_open = false;
    throw;
  }
}

}  // namespace gpmx
