#pragma once
// The thread context a kernel receives on the cpu executor. Kernels take it
// as `auto& t`, so the same source compiles against gpmx::cuda::thread_ctx.
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "gpmx/exec/cpu/block_state.hpp"
#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/exec/source_loc.hpp"
#include "gpmx/exec/timing.hpp"

namespace gpmx::cpu {

inline constexpr std::uint32_t full_mask = 0xffffffffu;
inline constexpr std::uint32_t warp_size = 32;

namespace detail {
constexpr std::memory_order to_std(memory_order o) {
  switch (o) {
    case memory_order::relaxed: return std::memory_order_relaxed;
    case memory_order::acquire: return std::memory_order_acquire;
    case memory_order::release: return std::memory_order_release;
    case memory_order::acq_rel: return std::memory_order_acq_rel;
    case memory_order::seq_cst: break;
  }
  return std::memory_order_seq_cst;
}
// The load half of an order (acq_rel loads acquire, release loads relaxed).
constexpr std::memory_order load_part(memory_order o) {
  if (o == memory_order::release) return std::memory_order_relaxed;
  if (o == memory_order::acq_rel) return std::memory_order_acquire;
  return to_std(o);
}
template <class Closure, class Ctx>
void thread_loop(void* closure, block_state& block, fiber_record& fiber);
template <class T>
inline constexpr bool warp_value_ok =
    std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(std::uint64_t);
}  // namespace detail

// Flushes every recorded line, grouped by domain and coalesced; clears them.
void persist_lines(pm_line_list& lines);

class thread_ctx {
 public:
  // pm_lines: where the thread's unpersisted PM stores are recorded; owned
  // by the thread loop, outside the context, so that flushing them never
  // takes the context's address (which would cost the fast path registers).
  thread_ctx(detail::block_state& b, detail::fiber_record& f, pm_line_list* pm_lines)
      : b_(&b),
        fiber_(&f),
        order_(b.start_order),
        block_base_(b.block_linear * b.nthreads),
        one_d_(b.block_dim.y == 1 && b.block_dim.z == 1),
        pm_lines_(pm_lines),
        obs_(b.observer),
        observed_(b.observed_spaces),
        ahead_spaces_(b.ahead_rows ? std::uint8_t(b.scheduling_spaces & ~b.reported_load_spaces) : std::uint8_t(0)),
        ahead_store_spaces_(b.run_ahead_stores ? ahead_spaces_ : std::uint8_t(0)) {}
  thread_ctx(const thread_ctx&) = delete;
  thread_ctx& operator=(const thread_ctx&) = delete;

  // --- indices and extents ---
  dim3 thread_idx() const {
    return one_d_ ? dim3(std::uint32_t(rank_), 0, 0) : delinearize(rank_, b_->block_dim);
  }
  dim3 block_idx() const { return b_->block_idx; }
  dim3 block_dim() const { return b_->block_dim; }
  dim3 grid_dim() const { return b_->grid_dim; }
  std::uint32_t thread_rank() const { return std::uint32_t(rank_); }  // linear id in the block
  std::uint64_t block_rank() const { return b_->block_linear; }
  std::uint64_t global_id() const { return block_base_ + rank_; }
  std::uint64_t global_count() const { return grid_dim().count() * b_->nthreads; }
  std::uint32_t warp_id() const { return std::uint32_t(rank_ / warp_size); }
  std::uint32_t lane_id() const { return std::uint32_t(rank_ % warp_size); }

  // --- shared memory ---
  template <class T>
  T* dynamic_shared() const { return reinterpret_cast<T*>(b_->dynamic_shared); }
  // Use through GPMX_SHARED(t, T, name, N).
  template <class T, std::size_t N>
  T* static_shared() {
    static_assert(std::is_trivially_destructible_v<T>, "shared memory holds trivial types");
    return reinterpret_cast<T*>(b_->static_shared_at(static_cursor_++, sizeof(T) * N, alignof(T)));
  }

  // --- block barrier (CUDA __syncthreads and its reductions) ---
  void syncthreads(source_loc loc = source_loc::current()) { barrier(0, loc); }
  int syncthreads_count(int pred, source_loc loc = source_loc::current()) {
    return int(barrier(pred != 0, loc).count);
  }
  int syncthreads_and(int pred, source_loc loc = source_loc::current()) {
    const auto r = barrier(pred != 0, loc);
    return r.count == r.participants ? 1 : 0;
  }
  int syncthreads_or(int pred, source_loc loc = source_loc::current()) {
    return barrier(pred != 0, loc).count != 0 ? 1 : 0;
  }

  // --- warp operations; the caller must be in mask, as in CUDA ---
  void syncwarp(std::uint32_t mask = full_mask, source_loc loc = source_loc::current()) {
    warp(detail::warp_op::syncwarp, mask, 0, 0, 32, loc);
  }
  // Each takes where it was written, for the trace (as barriers do).
  std::uint32_t ballot(std::uint32_t mask, int pred, source_loc loc = source_loc::current()) {
    return std::uint32_t(warp(detail::warp_op::ballot, mask, pred != 0, 0, 32, loc));
  }
  bool any(std::uint32_t mask, int pred, source_loc loc = source_loc::current()) {
    return warp(detail::warp_op::any, mask, pred != 0, 0, 32, loc) != 0;
  }
  bool all(std::uint32_t mask, int pred, source_loc loc = source_loc::current()) {
    return warp(detail::warp_op::all, mask, pred != 0, 0, 32, loc) != 0;
  }
  template <class T>
  std::uint32_t match_any(std::uint32_t mask, T value, source_loc loc = source_loc::current()) {
    return std::uint32_t(warp(detail::warp_op::match_any, mask, bits_of(value), 0, 32, loc));
  }
  template <class T>
  T shfl(std::uint32_t mask, T v, int src_lane, int width = 32, source_loc loc = source_loc::current()) {
    return from_bits<T>(warp(detail::warp_op::shfl, mask, bits_of(v), src_lane, width, loc));
  }
  template <class T>
  T shfl_up(std::uint32_t mask, T v, unsigned delta, int width = 32, source_loc loc = source_loc::current()) {
    return from_bits<T>(warp(detail::warp_op::shfl_up, mask, bits_of(v), int(delta), width, loc));
  }
  template <class T>
  T shfl_down(std::uint32_t mask, T v, unsigned delta, int width = 32, source_loc loc = source_loc::current()) {
    return from_bits<T>(warp(detail::warp_op::shfl_down, mask, bits_of(v), int(delta), width, loc));
  }
  template <class T>
  T shfl_xor(std::uint32_t mask, T v, int lane_mask, int width = 32, source_loc loc = source_loc::current()) {
    return from_bits<T>(warp(detail::warp_op::shfl_xor, mask, bits_of(v), lane_mask, width, loc));
  }
  // Lanes of this warp that have not exited, once every lane has exited or
  // reached a point where it waits (the cpu executor does not model
  // divergence; see docs/programming-model.md).
  std::uint32_t activemask();

  // --- spinning on memory written by other threads ---
  // Waits until pred() holds; between checks the thread yields its fiber so
  // the writers (in this block or another) can run.
  template <class Pred>
  void spin_wait(Pred&& pred) {
    if (b_->timed) return timed_spin_wait(pred);
    for (bool first = true;; first = false) {
      in_spin_ = true;  // atomics inside the condition are not scheduling points
      const bool ready = pred();
      in_spin_ = false;
      if (ready) {
        // The timed schedule still issues a condition true at once: its
        // read costs what a read does (and an acquire orders persists).
        if (first && b_->timed) spin_read_once();
        if (!first) spin_passed();
        return;
      }
      spin_yield();
    }
  }

  // A wait its caller knows to be long (an I/O's completion, a queue slot
  // behind hundreds of commands): as spin_wait, but the parallel schedule
  // checks the condition at each poll on the worker's stack and resumes
  // this thread only once it holds, so a failed try costs a call instead
  // of two switches and a cold stack. The condition may only read and
  // update memory (a wait inside it is refused by name). Elsewhere, and on
  // a GPU: spin_wait. Short waits stay with spin_wait: they would pay for
  // the check and the resume both.
  template <class Pred>
  void spin_wait_long(Pred&& pred) {
    if (!spin_parks_off_fiber()) return spin_wait(pred);
    in_spin_ = true;
    const bool ready = pred();
    in_spin_ = false;
    if (ready) return;
    using P = std::remove_reference_t<Pred>;
    spin_retried_off_fiber(+[](void* p) { return bool((*static_cast<P*>(p))()); }, std::addressof(pred));
    spin_passed();
  }

  // --- atomics on device memory (scope is honoured at system strength) ---
  // Every atomic is a scheduling point in the deterministic schedules and an
  // event in the trace mode (with the operand and the value it returned).
  template <class T>
  T atomic_load(const T* p, memory_order o = memory_order::seq_cst, scope s = scope::device,
                source_loc loc = source_loc::current()) {
    sync_point(timed_kind::atomic, s, std::uint8_t(atomic_op::load), p, sizeof(T), loc);
    const T v = std::atomic_ref<T>(*const_cast<T*>(p)).load(detail::load_part(o));
    if (obs_) obs_->atomic(coords(), atomic_op::load, s, p, sizeof(T), 0, flag_bits(v), loc);
    return v;
  }
  template <class T>
  void atomic_store(T* p, T v, memory_order o = memory_order::seq_cst, scope s = scope::device,
                    source_loc loc = source_loc::current()) {
    sync_point(timed_kind::atomic, s, std::uint8_t(atomic_op::store), p, sizeof(T), loc);
    std::atomic_ref<T>(*p).store(v, o == memory_order::acquire || o == memory_order::acq_rel
                                        ? std::memory_order_seq_cst : detail::to_std(o));
    if (obs_) obs_->atomic(coords(), atomic_op::store, s, p, sizeof(T), flag_bits(v), 0, loc);
  }
  template <class T>
  T atomic_add(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
               source_loc loc = source_loc::current()) {
    return rmw(atomic_op::add, s, p, v, loc,
               [&] { return std::atomic_ref<T>(*p).fetch_add(v, detail::to_std(o)); });
  }
  template <class T>
  T atomic_sub(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
               source_loc loc = source_loc::current()) {
    return rmw(atomic_op::sub, s, p, v, loc,
               [&] { return std::atomic_ref<T>(*p).fetch_sub(v, detail::to_std(o)); });
  }
  template <class T>
  T atomic_exch(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
                source_loc loc = source_loc::current()) {
    return rmw(atomic_op::exch, s, p, v, loc,
               [&] { return std::atomic_ref<T>(*p).exchange(v, detail::to_std(o)); });
  }
  // Returns the old value, as CUDA's atomicCAS.
  template <class T>
  T atomic_cas(T* p, T expected, T desired, memory_order o = memory_order::relaxed,
               scope s = scope::device, source_loc loc = source_loc::current()) {
    return rmw(atomic_op::cas, s, p, desired, loc, [&] {
      std::atomic_ref<T>(*p).compare_exchange_strong(expected, desired, detail::to_std(o),
                                                     detail::load_part(o));
      return expected;
    });
  }
  template <class T>
  T atomic_min(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
               source_loc loc = source_loc::current()) {
    return update(atomic_op::min, s, p, v, o, loc, [v](T old) { return v < old ? v : old; });
  }
  template <class T>
  T atomic_max(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
               source_loc loc = source_loc::current()) {
    return update(atomic_op::max, s, p, v, o, loc, [v](T old) { return old < v ? v : old; });
  }
  template <class T>
  T atomic_and(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
               source_loc loc = source_loc::current()) {
    return rmw(atomic_op::bit_and, s, p, v, loc,
               [&] { return std::atomic_ref<T>(*p).fetch_and(v, detail::to_std(o)); });
  }
  template <class T>
  T atomic_or(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
              source_loc loc = source_loc::current()) {
    return rmw(atomic_op::bit_or, s, p, v, loc,
               [&] { return std::atomic_ref<T>(*p).fetch_or(v, detail::to_std(o)); });
  }
  template <class T>
  T atomic_xor(T* p, T v, memory_order o = memory_order::relaxed, scope s = scope::device,
               source_loc loc = source_loc::current()) {
    return rmw(atomic_op::bit_xor, s, p, v, loc,
               [&] { return std::atomic_ref<T>(*p).fetch_xor(v, detail::to_std(o)); });
  }
  // CUDA atomicInc: old >= limit ? 0 : old + 1.
  template <class T>
  T atomic_inc(T* p, T limit, memory_order o = memory_order::relaxed, scope s = scope::device,
               source_loc loc = source_loc::current()) {
    static_assert(std::is_unsigned_v<T>, "atomic_inc takes an unsigned type, as CUDA's atomicInc");
    return update(atomic_op::inc, s, p, limit, o, loc,
                  [limit](T old) { return old >= limit ? T(0) : T(old + 1); });
  }
  // CUDA atomicDec: (old == 0 || old > limit) ? limit : old - 1.
  template <class T>
  T atomic_dec(T* p, T limit, memory_order o = memory_order::relaxed, scope s = scope::device,
               source_loc loc = source_loc::current()) {
    static_assert(std::is_unsigned_v<T>, "atomic_dec takes an unsigned type, as CUDA's atomicDec");
    return update(atomic_op::dec, s, p, limit, o, loc,
                  [limit](T old) { return (old == 0 || old > limit) ? limit : T(old - 1); });
  }

  // A block's threads share one OS thread, so a block-scope fence only has to
  // stop the compiler; wider scopes are full fences.
  void fence(scope s, source_loc loc = source_loc::current()) {
    if (b_->timed) timed_point(timed_kind::fence, s, 0, nullptr, 0, loc);
    if (s == scope::block) std::atomic_signal_fence(std::memory_order_seq_cst);
    else full_fence();
  }

  // --- compute cost (timed schedule) ---
  // Declares that the thread executes `instructions` more instructions
  // before its next memory, ordering or synchronization operation; the
  // timed schedule charges them as issue cycles. Free elsewhere.
  void work(std::uint32_t instructions) { work_ += instructions; }

  // --- persistent memory (see docs/persistency-models.md) ---
  // PM views and logs call this for every store, right after it (through
  // pm::note_pm_store); persistency operations flush the lines recorded
  // since the thread's last flush.
  void record_pm_write(const persist_domain* d, const void* p, std::size_t bytes,
                       source_loc loc = source_loc::current()) {
    note_pm_lines(d, p, bytes);
    record_store(mem_space::pm, p, bytes, loc);
  }
  // Whether this thread stored to PM since its last flush. A flag in the
  // context (not the vector's size) so that, in kernels that never touch PM,
  // the compiler sees it stay false and drops the end-of-thread check.
  bool pm_dirty() const { return pm_dirty_; }
  // PM views call this for every load, right before it. Only observers
  // need it.
  void record_pm_read(const persist_domain*, const void* p, std::size_t bytes,
                      source_loc loc = source_loc::current()) {
    record_load(mem_space::pm, p, bytes, loc);
  }
  // Device- and shared-memory views call these for every store (after it)
  // and load (before it). Free when no observer wants the space.
  void record_store(mem_space s, const void* p, std::size_t bytes, source_loc loc = source_loc::current()) {
    if (observed_ & space_bit(s)) {
      if ((ahead_store_spaces_ & space_bit(s)) && !in_spin_) return record_ahead(timed_kind::store, s, p, bytes, loc);
      observe_store(s, p, bytes, loc);
    }
  }
  void record_load(mem_space s, const void* p, std::size_t bytes, source_loc loc = source_loc::current()) {
    if (observed_ & space_bit(s)) {
      if ((ahead_spaces_ & space_bit(s)) && !in_spin_) return record_ahead(timed_kind::load, s, p, bytes, loc);
      observe_load(s, p, bytes, loc);
    }
  }
  // The lines recorded and not yet persisted (for tests and tools).
  const pm_line_list& pending_pm_lines() const { return *pm_lines_; }
  // GPM's persist barrier: this thread's earlier PM stores are durable on return.
  void gpm_persist(source_loc loc = source_loc::current()) {
    if (obs_) observe_ordering(ordering_op::gpm_persist, loc);
    persist_pm_writes();
  }
  // Orders this thread's earlier PM stores before its later ones. The cpu
  // executor makes the earlier ones durable (stronger than required).
  void ofence(source_loc loc = source_loc::current()) {
    if (obs_) observe_ordering(ordering_op::ofence, loc);
    persist_pm_writes();
  }
  // This thread's earlier PM stores are durable on return.
  void dfence(source_loc loc = source_loc::current()) {
    if (obs_) observe_ordering(ordering_op::dfence, loc);
    persist_pm_writes();
  }
  // Scoped persist release: the releaser's earlier PM stores persist before
  // any PM store ordered after a pacq that reads `value` from *flag.
  template <class T>
  void prel(scope s, T* flag, T value, source_loc loc = source_loc::current()) {
    persist_pm_writes();
    if (!obs_) return atomic_store(flag, value, memory_order::release, s);
    sync_point(timed_kind::flag_release, s, 0, flag, sizeof(T), loc);  // a scheduling point, then the release as one event
    std::atomic_ref<T>(*flag).store(value, std::memory_order_release);
    obs_->flag(coords(), flag_op::release, s, flag, sizeof(T), flag_bits(value), loc);
  }
  // Scoped persist acquire: returns the flag's value; if it was written by a
  // prel whose scope holds both threads, this thread's later PM stores
  // persist after the releaser's earlier ones.
  template <class T>
  T pacq(scope s, const T* flag, source_loc loc = source_loc::current()) {
    if (!obs_) return atomic_load(flag, memory_order::acquire, s);
    sync_point(timed_kind::flag_acquire, s, 0, flag, sizeof(T), loc);
    const T v = std::atomic_ref<T>(*const_cast<T*>(flag)).load(std::memory_order_acquire);
    obs_->flag(coords(), flag_op::acquire, s, flag, sizeof(T), flag_bits(v), loc);
    return v;
  }
  // Makes [p, p + bytes) of PM durable whoever stored it (a drainer
  // persisting other threads' stores) and returns when it is. Covers the
  // stores made before the call; on a GPU the program must make them
  // visible to this thread first. The range must lie in one mapped pool.
  void persist_range(const void* p, std::size_t bytes, source_loc loc = source_loc::current());
  // Another thread has made [p, p + bytes) durable with persist_range, after
  // this thread's stores there were ordered before it (a warp or block
  // sync): drops this thread's recorded lines that touch the range, so it
  // does not flush them again (at its next fence or its end). Every store
  // this thread made to those lines must lie in ranges made durable so. The
  // cpu executor's bookkeeping only: nothing to do on a GPU.
  void forget_pm_stores(const void* p, std::size_t bytes);

 private:
  // The executor's thread loop and block scheduler drive the context; kernels do not.
  template <class Closure, class Ctx>
  friend void detail::thread_loop(void* closure, detail::block_state& block, detail::fiber_record& fiber);
  friend class detail::block_scheduler;

  friend class unobserved_thread_ctx;

  // `at_end`: the thread's end. The models need its lines durable only by
  // the kernel's end, so with group commit it hands them over and does not
  // wait (the launch returns after every flush).
  void persist_pm_writes(bool at_end = false) {
    if (b_->durability && !in_spin_) persist_grouped(!at_end);
    else persist_own_lines();
    pm_dirty_ = false;
  }
  // Flushes the recorded lines itself; a domain emulating a slow device may
  // hand its finishing time over, and the thread parks until then while the
  // worker runs others (device_wait.hpp).
  void persist_own_lines();
  // Whether this thread may park for an emulated device: not inside a spin
  // condition, and not in a deterministic schedule (wall-clock deadlines
  // would make its choices vary from run to run).
  bool parks_for_device() const { return !in_spin_ && !b_->deterministic; }
  void wait_device(std::chrono::steady_clock::time_point ready);
  // Group commit: hands the lines to the launch's flusher and, if `wait`,
  // parks until they are durable; the worker runs other threads meanwhile.
  void persist_grouped(bool wait);
  void note_pm_lines(const persist_domain* d, const void* p, std::size_t bytes) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const auto first = a / persist_line_bytes, last = (a + bytes - 1) / persist_line_bytes;
    for (std::uintptr_t l = first; l <= last; ++l) {
      const std::uint64_t stored = stored_bytes_of(a, bytes, l);
      if (!pm_lines_->empty() && pm_lines_->back().domain == d && pm_lines_->back().line == l)
        pm_lines_->back().stored |= stored;
      else
        pm_lines_->push_back({d, l, stored});
    }
    pm_dirty_ = true;
  }

  // A carrier claims every unstarted thread of its block at once and runs
  // them in turn; exits are published to the block in batches. Whatever may
  // suspend first publishes the finished threads and hands back the
  // unstarted rest (prepare_to_wait), so other carriers can start them.
  bool claim() {
    publish_exits();
    detail::block_state& b = *b_;
    if (b.next_unstarted >= b.nthreads) return false;
    next_ = done_from_ = b.next_unstarted;
    end_ = b.nthreads;
    b.next_unstarted = b.nthreads;
    return true;
  }
  bool has_claimed() const { return next_ < end_; }
  bool seeded_order() const { return order_ != nullptr; }
  template <bool Seeded>
  void start_next() {
    cur_ = next_++;
    rank_ = Seeded ? order_[cur_] : cur_;
    static_cursor_ = 0;
  }
  void publish_exits() {
    if (done_from_ != next_) {
      b_->publish_exits(std::uint32_t(done_from_), std::uint32_t(next_), thread_idx());
      done_from_ = next_;
    }
  }
  detail::fiber_record& fiber() const { return *fiber_; }

  template <class T>
  static std::uint64_t bits_of(const T& v) {
    static_assert(detail::warp_value_ok<T>, "warp operations move values of at most 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
  }
  template <class T>
  static T from_bits(std::uint64_t bits) {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
  }
  // A flag's or an atomic's value as the trace records it (its first 8 bytes).
  template <class T>
  static std::uint64_t flag_bits(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "atomics and flags hold trivially copyable values");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T) < sizeof bits ? sizeof(T) : sizeof bits);
    return bits;
  }
  template <class T, class F>
  T rmw(atomic_op op, scope s, T* p, T operand, const source_loc& loc, F apply) {
    sync_point(timed_kind::atomic, s, std::uint8_t(op), p, sizeof(T), loc);
    const T old = apply();
    if (obs_) obs_->atomic(coords(), op, s, p, sizeof(T), flag_bits(operand), flag_bits(old), loc);
    return old;
  }
  template <class T, class F>
  T update(atomic_op op, scope s, T* p, T operand, memory_order o, const source_loc& loc, F next) {
    return rmw(op, s, p, operand, loc, [&] {
      std::atomic_ref<T> a(*p);
      T old = a.load(std::memory_order_relaxed);
      while (!a.compare_exchange_weak(old, next(old), detail::to_std(o), std::memory_order_relaxed)) {
      }
      return old;
    });
  }
  static void full_fence() {
#if defined(GPMX_SANITIZER_thread)
    // ThreadSanitizer does not model fences; a seq_cst read-modify-write of
    // one shared word orders at least as strongly and is visible to it.
    static std::atomic<std::uint32_t> fence_word{0};
    fence_word.fetch_add(0, std::memory_order_seq_cst);
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  }
  // A scheduling point of the deterministic schedules; in the timed one the
  // thread stops here until its warp issues the operation.
  void sync_point(timed_kind k, scope sc, std::uint8_t sub, const void* p, std::size_t bytes,
                  const source_loc& loc, mem_space space = mem_space::global) {
    // The fields go in registers (an op built here and copied there would
    // wait for the store buffer on every load).
    if (b_->deterministic)
      deterministic_yield(std::uint32_t(k) | std::uint32_t(space) << 8 | std::uint32_t(sc) << 16 |
                              std::uint32_t(sub) << 24,
                          std::uint32_t(bytes), p, loc);
  }
  // A point only the timed schedule stops at (barriers, warp collectives,
  // fences, spins): the deterministic schedule's traces stay as they were.
  void timed_point(timed_kind k, scope sc, std::uint8_t sub, const void* p, std::size_t bytes,
                   const source_loc& loc) {
    timed_stop(timed_op{k, mem_space::global, sc, sub, std::uint32_t(bytes), p, 0, false, loc});
  }

  detail::barrier_result barrier(std::uint32_t pred, const source_loc& loc);
  std::uint64_t warp(detail::warp_op op, std::uint32_t mask, std::uint64_t value, int arg, int width,
                     const source_loc& loc);
  // The timed schedule's spin: after a first check on the fiber, the
  // scheduler itself checks the condition at each try the warp issues, with
  // no switch to this fiber (a switch to one of thousands of parked fibers
  // costs cold cache lines), and resumes the lane once it holds.
  template <class Pred>
  void timed_spin_wait(Pred& pred) {
    spin_begin();
    in_spin_ = true;  // atomics inside the condition are not scheduling points
    const bool ready = pred();
    in_spin_ = false;
    if (ready) return spin_read_once();  // issued: its read costs what a read does
    spin_retried_off_fiber(+[](void* p) { return (*static_cast<Pred*>(p))(); }, &pred);
  }
  // Parks this thread with `condition` left for the scheduler to check
  // off the fiber (timed: at each try the warp issues; parallel: at each
  // poll); returns once it held, rethrowing what it threw.
  void spin_retried_off_fiber(bool (*condition)(void*), void* arg);
  // Whether this block's schedule polls spin_wait_long's conditions off
  // the fiber (the parallel one).
  bool spin_parks_off_fiber() const;
  // For the scheduler, off this thread's fiber: whether the parked
  // condition holds now (true too when it threw: the fiber rethrows).
  bool check_spin_off_fiber();
  // The timed schedule's try: check_spin_off_fiber; false: the lane is stopped at its next try again
  // (what resuming it would have done); true: the condition held or threw,
  // and the fiber must be resumed to go on.
  bool retry_spin_off_fiber();
  void spin_yield();
  // A condition that failed before now holds: the thread went on, which is
  // progress (a worker whose threads only pass spins is not stalled).
  void spin_passed();
  void spin_begin();      // timed: forget the last spin's read
  void spin_read_once();  // timed: the read of a condition that held at once, as an operation
  // Timed schedule: work() the thread declared after its last operation is
  // not carried to the next thread on the same fiber. One test elsewhere.
  void thread_ended() {
    if (b_->timed) timed_thread_end();
  }
  void timed_thread_end();
  void discard_work() { work_ = 0; }
  // The timed schedule's plain load (or store) with run-ahead, the
  // simulator's most frequent event: the lane writes its record in place
  // (block_state's ahead_rows) and goes on; it parks only once its record is
  // full. Nobody else hears of it: ahead_spaces_ leaves out the spaces the
  // observer wants loads of, and a model that wants stores reported keeps
  // run_ahead_stores off (timing.hpp).
  void record_ahead(timed_kind k, mem_space s, const void* p, std::size_t bytes, const source_loc& loc) {
    // Every load first: the record's byte-wide fields may alias anything,
    // so a load after their stores would be made again.
    const detail::block_state& b = *b_;
    const std::uint64_t rank = rank_;
    const std::uint32_t ahead = b.run_ahead, work = work_;
    const mem_space space = b.timed_space(p, s);
    std::uint16_t& count = b.ahead_count[rank];
    const std::uint32_t n = count;
    timed_op* rows = b.ahead_rows[rank / warp_size];
    if (n == 0) [[unlikely]] rows = begin_ahead_records();  // the warp's rows may be lent only now
    timed_op& r = rows[n * warp_size + rank % warp_size];
    count = std::uint16_t(n + 1);
    work_ = 0;
    r.bytes = std::uint32_t(bytes), r.addr = p, r.work = work, r.loc = loc;
    r.kind = k, r.space = space, r.sc = scope::device, r.sub = 0, r.acquire = false;
    if (n + 1 >= ahead) hold_for_issue();
  }
  // Before a lane's first record of a run: makes sure its warp has rows to
  // write into, and returns them.
  timed_op* begin_ahead_records();
  // After a full record: parks until the warp has issued what it recorded.
  void hold_for_issue();
  // Timed schedule with run-ahead: parks until the loads this thread
  // recorded have issued (nothing if none).
  void timed_wait_for_recorded();
  // `what`: the op's kind, space, scope and sub, a byte each from the lowest.
  void deterministic_yield(std::uint32_t what, std::uint32_t bytes, const void* p, source_loc loc);
  void timed_stop(timed_op op);

  // The observed half, out of line. In the deterministic schedule each is
  // a scheduling point: a store's after it is reported (nothing comes
  // between the store and its report), a load's and an ordering's before.
  void observe_store(mem_space s, const void* p, std::size_t bytes, const source_loc& loc);
  void observe_load(mem_space s, const void* p, std::size_t bytes, const source_loc& loc);
  void observe_ordering(ordering_op op, const source_loc& loc);
  thread_coords coords() const {
    return {b_->block_linear, warp_id(), lane_id(), global_id()};
  }

  // Publishes finished threads and gives back unstarted ones before an
  // operation that may suspend this thread.
  void prepare_to_wait() {
    if (done_from_ != cur_) {
      b_->publish_exits(std::uint32_t(done_from_), std::uint32_t(cur_), thread_idx());
      done_from_ = cur_;
    }
    if (next_ < end_) {  // still holding a claim: hand back what is unstarted
      b_->next_unstarted = std::uint32_t(next_);
      end_ = next_;
    }
  }

  detail::block_state* b_;
  detail::fiber_record* fiber_;
  const std::uint32_t* order_;
  std::uint64_t block_base_;
  bool one_d_;
  bool in_spin_ = false;
  pm_line_list* pm_lines_;  // stored, not yet persisted
  observer* obs_;                   // null unless the launch is observed
  std::uint8_t observed_;           // space_bit of each space obs_ wants
  bool pm_dirty_ = false;
  std::uint8_t ahead_spaces_;       // timed, run-ahead: loads of these spaces go to record_ahead
  std::uint8_t ahead_store_spaces_;  // and stores of these
  std::uint32_t work_ = 0;          // timed: instructions declared with work() since the last operation
  // 64-bit so the thread loop's induction variables cannot wrap, which lets
  // the compiler vectorize barrier-free kernels across threads.
  std::uint64_t rank_ = 0;
  std::uint32_t static_cursor_ = 0;
  std::uint64_t cur_ = 0;        // start-order index of the running thread
  std::uint64_t next_ = 0;       // next claimed, unstarted index
  std::uint64_t end_ = 0;        // end of the claimed range
  std::uint64_t done_from_ = 0;  // finished threads not yet published: [done_from_, cur_)
};

// The context of a launch that no observer watches. Its record calls are
// empty inline functions, so an access through a view compiles to the plain
// load or store and loops over views vectorize as loops over pointers do (a
// call that is merely never taken would stop that). The executor runs each
// kernel with this type when the launch has no observer; a kernel written
// against `auto& t` never names it.
class unobserved_thread_ctx final : public thread_ctx {
 public:
  using thread_ctx::thread_ctx;
  void record_pm_write(const persist_domain* d, const void* p, std::size_t bytes,
                       source_loc = source_loc::current()) {
    note_pm_lines(d, p, bytes);
  }
  void record_pm_read(const persist_domain*, const void*, std::size_t, source_loc = source_loc::current()) {}
  void record_store(mem_space, const void*, std::size_t, source_loc = source_loc::current()) {}
  void record_load(mem_space, const void*, std::size_t, source_loc = source_loc::current()) {}
  void work(std::uint32_t) {}
};

}  // namespace gpmx::cpu
