#pragma once
// The thread context a kernel receives on CUDA: the same members as
// gpmx::cpu::thread_ctx, each one CUDA intrinsic. Include only from .cu files.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpmx/exec/device_write_throttle.hpp"
#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/source_loc.hpp"

namespace gpmx::cuda {

inline constexpr std::uint32_t full_mask = 0xffffffffu;
inline constexpr std::uint32_t warp_size = 32;

namespace detail {

__device__ inline ::cuda::std::memory_order to_cuda(memory_order o) {
  switch (o) {
    case memory_order::relaxed: return ::cuda::std::memory_order_relaxed;
    case memory_order::acquire: return ::cuda::std::memory_order_acquire;
    case memory_order::release: return ::cuda::std::memory_order_release;
    case memory_order::acq_rel: return ::cuda::std::memory_order_acq_rel;
    case memory_order::seq_cst: break;
  }
  return ::cuda::std::memory_order_seq_cst;
}
__device__ inline ::cuda::std::memory_order load_part(memory_order o) {
  if (o == memory_order::release) return ::cuda::std::memory_order_relaxed;
  if (o == memory_order::acq_rel) return ::cuda::std::memory_order_acquire;
  return to_cuda(o);
}
__device__ inline ::cuda::std::memory_order store_part(memory_order o) {
  if (o == memory_order::acquire || o == memory_order::acq_rel) return ::cuda::std::memory_order_seq_cst;
  return to_cuda(o);
}

// Calls f with a cuda::atomic_ref of the requested scope.
template <class T, class F>
__device__ auto scoped(T* p, scope s, F&& f) {
  switch (s) {
    case scope::block: return f(::cuda::atomic_ref<T, ::cuda::thread_scope_block>(*p));
    case scope::device: break;
    case scope::system: return f(::cuda::atomic_ref<T, ::cuda::thread_scope_system>(*p));
  }
  return f(::cuda::atomic_ref<T, ::cuda::thread_scope_device>(*p));
}

// Warp intrinsics take 32- or 64-bit words; smaller values ride in a word.
template <class T>
using word_t = std::conditional_t<(sizeof(T) > 4), unsigned long long, unsigned>;
template <class T>
__device__ word_t<T> to_word(const T& v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "warp operations move values of at most 8 bytes");
  word_t<T> w = 0;
  memcpy(&w, &v, sizeof(T));
  return w;
}
template <class T>
__device__ T from_word(word_t<T> w) {
  T v;
  memcpy(&v, &w, sizeof(T));
  return v;
}

}  // namespace detail

class thread_ctx {
 public:
  __device__ thread_ctx() = default;
  // throttle: the session's emulated NVRAM (null: PM writes go at the
  // link's own speed).
  __device__ explicit thread_ctx(device_write_throttle* throttle) : throttle_(throttle) {}

  // --- indices and extents ---
  __device__ dim3 thread_idx() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ dim3 block_idx() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 block_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ dim3 grid_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  __device__ std::uint32_t thread_rank() const {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  __device__ std::uint64_t block_rank() const { return linearize(block_idx(), grid_dim()); }
  __device__ std::uint64_t global_id() const {
    return block_rank() * (blockDim.x * blockDim.y * blockDim.z) + thread_rank();
  }
  __device__ std::uint64_t global_count() const {
    return grid_dim().count() * (blockDim.x * blockDim.y * blockDim.z);
  }
  __device__ std::uint32_t warp_id() const { return thread_rank() / warp_size; }
  __device__ std::uint32_t lane_id() const { return thread_rank() % warp_size; }

  // --- shared memory (static arrays: GPMX_SHARED) ---
  template <class T>
  __device__ T* dynamic_shared() const {
    extern __shared__ __align__(64) unsigned char gpmx_dynamic_shared[];
    return reinterpret_cast<T*>(gpmx_dynamic_shared);
  }

  // --- block barrier ---
  // The source locations match the cpu context's signatures; CUDA ignores them.
  __device__ void syncthreads(source_loc = source_loc::current()) { __syncthreads(); }
  __device__ int syncthreads_count(int pred, source_loc = source_loc::current()) { return __syncthreads_count(pred); }
  __device__ int syncthreads_and(int pred, source_loc = source_loc::current()) { return __syncthreads_and(pred); }
  __device__ int syncthreads_or(int pred, source_loc = source_loc::current()) { return __syncthreads_or(pred); }

  // --- warp operations ---
  __device__ void syncwarp(std::uint32_t mask = full_mask) { __syncwarp(mask); }
  __device__ std::uint32_t ballot(std::uint32_t mask, int pred) { return __ballot_sync(mask, pred); }
  __device__ bool any(std::uint32_t mask, int pred) { return __any_sync(mask, pred) != 0; }
  __device__ bool all(std::uint32_t mask, int pred) { return __all_sync(mask, pred) != 0; }
  template <class T>
  __device__ std::uint32_t match_any(std::uint32_t mask, T value) {
    return __match_any_sync(mask, detail::to_word(value));
  }
  template <class T>
  __device__ T shfl(std::uint32_t mask, T v, int src_lane, int width = 32) {
    return detail::from_word<T>(__shfl_sync(mask, detail::to_word(v), src_lane, width));
  }
  template <class T>
  __device__ T shfl_up(std::uint32_t mask, T v, unsigned delta, int width = 32) {
    return detail::from_word<T>(__shfl_up_sync(mask, detail::to_word(v), delta, width));
  }
  template <class T>
  __device__ T shfl_down(std::uint32_t mask, T v, unsigned delta, int width = 32) {
    return detail::from_word<T>(__shfl_down_sync(mask, detail::to_word(v), delta, width));
  }
  template <class T>
  __device__ T shfl_xor(std::uint32_t mask, T v, int lane_mask, int width = 32) {
    return detail::from_word<T>(__shfl_xor_sync(mask, detail::to_word(v), lane_mask, width));
  }
  __device__ std::uint32_t activemask() { return __activemask(); }

  // --- spinning ---
  template <class Pred>
  __device__ void spin_wait(Pred&& pred) {
    unsigned ns = 32;
    while (!pred()) {
      __nanosleep(ns);
      if (ns < 16384) ns *= 2;
    }
  }
  // A wait the caller knows to be long: the cpu executor polls it off the
  // thread's fiber; here it is spin_wait.
  template <class Pred>
  __device__ void spin_wait_long(Pred&& pred) {
    spin_wait(pred);
  }

  // --- atomics ---
  template <class T>
  __device__ T atomic_load(const T* p, memory_order o = memory_order::seq_cst, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(const_cast<T*>(p), s, [&](auto a) { return a.load(detail::load_part(o)); });
  }
  template <class T>
  __device__ void atomic_store(T* p, T v, memory_order o = memory_order::seq_cst, scope s = scope::device,
                          source_loc = source_loc::current()) {
    detail::scoped(p, s, [&](auto a) {
      a.store(v, detail::store_part(o));
      return 0;
    });
  }
  template <class T>
  __device__ T atomic_add(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) { return a.fetch_add(v, detail::to_cuda(o)); });
  }
  template <class T>
  __device__ T atomic_sub(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) { return a.fetch_sub(v, detail::to_cuda(o)); });
  }
  template <class T>
  __device__ T atomic_exch(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) { return a.exchange(v, detail::to_cuda(o)); });
  }
  template <class T>
  __device__ T atomic_cas(T* p, T expected, T desired, memory_order o = memory_order::relaxed,
                          scope s = scope::device, source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) {
      T e = expected;
      a.compare_exchange_strong(e, desired, detail::to_cuda(o), detail::load_part(o));
      return e;
    });
  }
  template <class T>
  __device__ T atomic_min(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) { return a.fetch_min(v, detail::to_cuda(o)); });
  }
  template <class T>
  __device__ T atomic_max(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) { return a.fetch_max(v, detail::to_cuda(o)); });
  }
  template <class T>
  __device__ T atomic_and(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) { return a.fetch_and(v, detail::to_cuda(o)); });
  }
  template <class T>
  __device__ T atomic_or(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) { return a.fetch_or(v, detail::to_cuda(o)); });
  }
  template <class T>
  __device__ T atomic_xor(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    return detail::scoped(p, s, [&](auto a) { return a.fetch_xor(v, detail::to_cuda(o)); });
  }
  template <class T>
  __device__ T atomic_inc(T* p, T limit, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    static_assert(std::is_unsigned_v<T>, "atomic_inc takes an unsigned type, as CUDA's atomicInc");
    return update(p, o, s, [limit](T old) { return old >= limit ? T(0) : T(old + 1); });
  }
  template <class T>
  __device__ T atomic_dec(T* p, T limit, memory_order o = memory_order::relaxed, scope s = scope::device,
                          source_loc = source_loc::current()) {
    static_assert(std::is_unsigned_v<T>, "atomic_dec takes an unsigned type, as CUDA's atomicDec");
    return update(p, o, s, [limit](T old) { return (old == 0 || old > limit) ? limit : T(old - 1); });
  }

  // --- persistent memory (PM-far, as in GPM: PM is host memory the GPU
  // reaches over PCIe, so a system-scope fence is what makes stores durable) ---
  // Counts the bytes (pm_write_stats' kernel stores); the store itself needs
  // no tracking, the fences below make it durable.
  __device__ void record_pm_write(const persist_domain*, const void* p, std::size_t bytes,
                                  source_loc = source_loc::current()) {
    pm_bytes_ += bytes;
    if (throttle_ != nullptr && bytes != 0) charge_pm_store(p, bytes);
  }
  // Adds the PM bytes this thread stored to *total: one atomic per group of
  // lanes that get here together, not one per thread on one hot word. The
  // two 32-bit sums are exact while a warp stores less than 2^48 bytes.
  __device__ void report_pm_bytes(unsigned long long* total) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned mask = __activemask();
    const unsigned low = __reduce_add_sync(mask, unsigned(pm_bytes_ & 0xffffu));
    const unsigned high = __reduce_add_sync(mask, unsigned(pm_bytes_ >> 16));
    const unsigned long long sum = (static_cast<unsigned long long>(high) << 16) + low;
    if (lane_id() == unsigned(__ffs(int(mask)) - 1) && sum != 0) atomicAdd(total, sum);
#else
    if (pm_bytes_ != 0) atomicAdd(total, static_cast<unsigned long long>(pm_bytes_));
#endif
  }
  __device__ void record_pm_read(const persist_domain*, const void*, std::size_t, source_loc = source_loc::current()) {}
  // Device- and shared-memory views: plain accesses, nothing to record.
  __device__ void record_store(mem_space, const void*, std::size_t, source_loc = source_loc::current()) {}
  __device__ void record_load(mem_space, const void*, std::size_t, source_loc = source_loc::current()) {}
  // Other threads' stores to the range must be visible to this thread
  // (a release/acquire or barrier before it); the system-scope fence is
  // cumulative, so it makes what this thread has observed durable too.
  // Under an emulated NVRAM the range's stores may be other threads', each
  // charged when it was made: the persist waits for everything the device
  // was given so far (it writes in order), which covers them.
  __device__ void persist_range(const void*, std::size_t, source_loc = source_loc::current()) {
    __threadfence_system();
    if (throttle_ == nullptr) return;
    const unsigned long long queued = atomicAdd(&throttle_->free_at_ps, 0ull);
    if (queued > durable_at_ps_) durable_at_ps_ = queued;
    wait_pm_writes_durable();
  }
  // The cpu executor's bookkeeping of unpersisted lines: nothing here.
  __device__ void forget_pm_stores(const void*, std::size_t) {}
  // Declared compute cost: only the timed schedule of the cpu executor uses it.
  __device__ void work(std::uint32_t) {}
  // Each waits for durability, as on the cpu executor (persistency-models.md).
  __device__ void gpm_persist(source_loc = source_loc::current()) { persist_all(); }
  __device__ void ofence(source_loc = source_loc::current()) { persist_all(); }
  __device__ void dfence(source_loc = source_loc::current()) { persist_all(); }
  template <class T>
  __device__ void prel(scope s, T* flag, T value, source_loc = source_loc::current()) {
    persist_all();  // the flag is not visible before the stores it releases are durable
    atomic_store(flag, value, memory_order::release, s);
  }
  // Under an emulated NVRAM: waits until the device would have written
  // every PM store this thread made (the launch calls it at the thread's
  // end, a durability point). Without one, returns at once.
  __device__ void wait_pm_writes_durable() {
    last_sector_ = ~0ull;  // a store after this point is written anew
    if (throttle_ == nullptr || durable_at_ps_ == 0) return;
    const unsigned long long start = throttle_now_ps();
    if (start >= durable_at_ps_) return;
    // A wait that outlasts its own deadline by seconds means the GPU's
    // timer is not what the throttle takes it for: a kernel error naming
    // the throttle, not a hang.
    const unsigned long long give_up = durable_at_ps_ + throttle_overdue_ps;
    const long long cycles_at_start = clock64();
    for (;;) {
      __nanosleep(nap_ns(durable_at_ps_ - throttle_now_ps()));
      const unsigned long long now = throttle_now_ps();
      if (now >= durable_at_ps_) return;
      if (now >= give_up) throttle_overdue(start, now, "waited past its deadline by 10 s");
      if (static_cast<unsigned long long>(clock64() - cycles_at_start) > throttle_->stall_cycles)
        throttle_overdue(start, now, "counted 10 s of SM cycles while the global timer stood short of the deadline");
    }
  }
  template <class T>
  __device__ T pacq(scope s, const T* flag, source_loc = source_loc::current()) {
    return atomic_load(flag, memory_order::acquire, s);
  }

  __device__ void fence(scope s, source_loc = source_loc::current()) {
    if (s == scope::block) __threadfence_block();
    else if (s == scope::device) __threadfence();
    else __threadfence_system();
  }

 private:
  __device__ void persist_all() {
    __threadfence_system();
    wait_pm_writes_durable();
  }

  static constexpr unsigned long long throttle_overdue_ps = 10'000'000'000'000ull;  // 10 s
  // Sleeps in steps of at most a microsecond (a deadline passed since the
  // last look wraps the difference: a step, then the loop sees it).
  __device__ static unsigned nap_ns(unsigned long long left_ps) {
    const unsigned long long ns = left_ps / 1000 + 1;
    return ns < 1000 ? unsigned(ns) : 1000u;
  }
  __device__ void throttle_overdue(unsigned long long start, unsigned long long now, const char* what) const {
    printf("gpmx: the GPU's write throttle: block %llu thread %u %s (waited from %llu to %llu ps for a persist "
           "due at %llu ps, device busy until %llu ps): the GPU's global timer is not advancing as expected\n",
           static_cast<unsigned long long>(block_rank()), thread_rank(), what, start, now, durable_at_ps_,
           throttle_->free_at_ps);
    __trap();
  }

  __device__ static unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
  }
  __device__ unsigned long long throttle_now_ps() const { return (global_timer_ns() - throttle_->origin_ns) * 1000ull; }

  // Charges a store's sectors to the emulated device, once per warp store:
  // lanes whose stores begin in one sector share it (32 lanes storing 4
  // bytes each in a row cost 128 bytes, scattered lanes a sector each), a
  // sector the lane's last store since its last durability point charged
  // is not charged again (the cpu executor's throttle merges a thread's
  // stores between persists likewise), and the warp's first active lane
  // makes one booking for all.
  __device__ void charge_pm_store(const void* p, std::size_t bytes) {
    const unsigned long long sector = throttle_->sector_bytes;
    const auto a = reinterpret_cast<unsigned long long>(p);
    const unsigned long long first = a / sector, last = (a + bytes - 1) / sector;
    const auto past_first = unsigned(last - first);
    const bool first_charged = first == last_sector_;
    last_sector_ = last;
    if (throttle_->per_lane != 0) {
      const unsigned own = (first_charged ? 0u : 1u) + past_first;
      if (own == 0) return;
      const unsigned long long done = reserve_sectors(own);
      if (done > durable_at_ps_) durable_at_ps_ = done;
      return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned mask = __activemask();
    const unsigned same_sector = __match_any_sync(mask, first);
    const unsigned charged_lanes = __ballot_sync(mask, first_charged);
    const bool leads = lane_id() == unsigned(__ffs(int(same_sector)) - 1);
    const bool books_first = leads && (same_sector & charged_lanes) == 0;
    const unsigned sectors = __reduce_add_sync(mask, (books_first ? 1u : 0u) + past_first);
    if (sectors == 0) return;
    const int head = __ffs(int(mask)) - 1;
    unsigned long long done = 0;
    if (lane_id() == unsigned(head)) done = reserve_sectors(sectors);
    done = __shfl_sync(mask, done, head);
#else
    const unsigned sectors = (first_charged ? 0u : 1u) + past_first;
    if (sectors == 0) return;
    const unsigned long long done = reserve_sectors(sectors);
#endif
    if (done > durable_at_ps_) durable_at_ps_ = done;
  }

  // Books `sectors` on the device; returns when it will have written them.
  __device__ unsigned long long reserve_sectors(unsigned sectors) const {
    const unsigned long long cost = sectors * throttle_->ps_per_sector;
    atomicAdd(&throttle_->charged_sectors, static_cast<unsigned long long>(sectors));
    const unsigned long long now = throttle_now_ps();
    const unsigned long long before = atomicAdd(&throttle_->free_at_ps, cost);
    if (before >= now) return before + cost;
    // The device has sat idle since `before`: this work starts now. Moving
    // its end forward is a max, not an add, so that two stores meeting an
    // idle device cannot both shift it; such a race may let a store's cost
    // fall into the idle gap (a few stores' worth, never a drift).
    atomicMax(&throttle_->free_at_ps, now + cost);
    return now + cost;
  }

  template <class T, class F>
  __device__ T update(T* p, memory_order o, scope s, F next) {
    return detail::scoped(p, s, [&](auto a) {
      T old = a.load(::cuda::std::memory_order_relaxed);
      while (!a.compare_exchange_weak(old, next(old), detail::to_cuda(o),
                                      ::cuda::std::memory_order_relaxed)) {
      }
      return old;
    });
  }

  std::uint64_t pm_bytes_ = 0;  // PM bytes this thread stored (record_pm_write)
  device_write_throttle* throttle_ = nullptr;
  unsigned long long durable_at_ps_ = 0;  // when the emulated device has written this thread's stores
  unsigned long long last_sector_ = ~0ull;  // the sector this thread's last PM store charged, until it persists
};

}  // namespace gpmx::cuda
