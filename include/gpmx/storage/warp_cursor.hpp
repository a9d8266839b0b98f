#pragma once
// Reference reuse with warp coalescing (BaM's bam_ptr as its graph kernels
// use it): each thread keeps the page of its last element pinned while its
// index stays inside it, and the lanes that leave their pages at the same
// point take their new pages together, one probe per distinct page (the
// group's leader pins it for every lane of the group, each lane later
// releasing its own pin). Where array_cursor probes once per thread and
// page, this probes once per warp and page when the lanes walk a page in
// step, as lanes striding through one adjacency list do.
//
// A thread holds at most one page pinned between calls: release it with
// done() before the thread moves to work whose pages it will not reuse, so
// the pinned set stays below the cache's size.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/storage/array.hpp"

namespace gpmx::storage {

template <class T>
class warp_cursor {
 public:
  GPMX_HD explicit warp_cursor(const array_view<T>& a) : a_(a) {}

  template <class Ctx>
  GPMX_HD T read(Ctx& t, std::uint64_t i) {
    const T* p = at(t, i, false);
    t.record_load(mem_space::global, p, sizeof(T));
    return *p;
  }
  template <class Ctx>
  GPMX_HD void write(Ctx& t, std::uint64_t i, T v) {
    T* p = at(t, i, true);
    *p = v;
    t.record_store(mem_space::global, p, sizeof(T));
  }
  template <class Ctx>
  GPMX_HD void done(Ctx& t) {
    if (pinned_) release(t, a_.cache, a_.range, page_, 1);
    pinned_ = false;
  }
  GPMX_HD std::uint64_t probes() const { return probes_; }

 private:
  template <class Ctx>
  GPMX_HD T* at(Ctx& t, std::uint64_t i, bool write) {
    const std::uint64_t byte = i * sizeof(T);
    const std::uint64_t page = byte / a_.cache.line_bytes;
    if (!pinned_ || page != page_) {
      done(t);
      // Only the lanes that need a new page here meet: the others go on.
      const std::uint32_t moving = t.activemask();
      const std::uint32_t group = t.match_any(moving, detail::page_key(a_.range, page));
      const std::uint32_t leader = detail::lowest_set_lane(group);
      std::uint32_t slot = 0;
      if (t.lane_id() == leader) {
        slot = acquire(t, a_.cache, a_.range, page, detail::lanes_in(group), write);
        ++probes_;
      }
      slot_ = t.shfl(group, slot, int(leader));
      page_ = page;
      pinned_ = true;
      dirty_ = write;
      // A writing lane of a group whose leader only read marks the page itself.
      if (write && t.lane_id() != leader)
        t.atomic_or(&a_.cache.ranges[a_.range].state[page], page_dirty, memory_order::relaxed);
    } else if (write && !dirty_) {
      t.atomic_or(&a_.cache.ranges[a_.range].state[page], page_dirty, memory_order::relaxed);
      dirty_ = true;
    }
    return reinterpret_cast<T*>(a_.cache.line(slot_) + byte % a_.cache.line_bytes);
  }

  array_view<T> a_;
  std::uint64_t page_ = 0;
  std::uint64_t probes_ = 0;
  std::uint32_t slot_ = 0;
  bool pinned_ = false;
  bool dirty_ = false;
};

}  // namespace gpmx::storage
