#pragma once
// bam::array: elements of T stored on a range of block devices, read and
// written by kernel threads through the page cache (002_..., section 4.1).
// Each access is warp-coalesced: the lanes that want the same page group
// with match_any, one leader per group pins the page for the whole group,
// and the group reads or writes its elements in the cached line. Call the
// accessors from converged code (every active lane of the warp), as BaM's.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/storage/page_cache.hpp"

namespace gpmx::storage {

inline constexpr std::uint32_t whole_warp = 0xffffffffu;

namespace detail {
GPMX_HD inline std::uint32_t lowest_set_lane(std::uint32_t mask) {
  std::uint32_t b = 0;
  while (((mask >> b) & 1u) == 0) ++b;
  return b;
}
// What lanes group by: lanes that meet from different accesses (another
// array of the same cache) must not share a slot.
GPMX_HD inline std::uint64_t page_key(std::uint32_t range, std::uint64_t page) {
  return (std::uint64_t(range) << 40) | page;
}
GPMX_HD inline std::uint32_t lanes_in(std::uint32_t mask) {
  std::uint32_t n = 0;
  for (; mask != 0; mask &= mask - 1) ++n;
  return n;
}
}  // namespace detail

template <class T>
struct array_view {
  cache_view cache;
  std::uint32_t range = 0;
  std::uint64_t count = 0;  // elements

  GPMX_HD std::uint64_t size() const { return count; }

  template <class Ctx>
  GPMX_HD T read(Ctx& t, std::uint64_t i) const {
    T v{};
    with_element(t, i, false, [&](T* p) {
      t.record_load(mem_space::global, p, sizeof(T));
      v = *p;
    });
    return v;
  }

  template <class Ctx>
  GPMX_HD void write(Ctx& t, std::uint64_t i, T v) const {
    with_element(t, i, true, [&](T* p) {
      *p = v;
      t.record_store(mem_space::global, p, sizeof(T));
    });
  }

  // Returns the old value, as CUDA's atomicAdd.
  template <class Ctx>
  GPMX_HD T atomic_add(Ctx& t, std::uint64_t i, T v) const {
    T old{};
    with_element(t, i, true, [&](T* p) { old = t.atomic_add(p, v); });
    return old;
  }

  // Writes every element of page `page` (elements per page: the line's
  // bytes over sizeof(T)): element i gets gen(i), and bytes of the line past
  // the array's end are zeroed. The lanes that name the same page share it,
  // each writing every n-th element (n the group's size), so the page is
  // written whole by construction, and a page not in the cache is never
  // read (acquire_overwrite): the BaM vectorAdd's output lines cost one
  // WRITE instead of a READ and a WRITE. Until the group has filled it, the
  // page's readers wait. Every lane of `lanes_calling` (default: the whole
  // warp) calls it together: the groups form over that mask, not over
  // activemask(), which lanes arriving apart (after a leader's probe) would
  // see partial, each part filling the page again.
  template <class Ctx, class Gen>
  GPMX_HD void overwrite_page(Ctx& t, std::uint64_t page, Gen&& gen, std::uint32_t lanes_calling = whole_warp) const {
    const std::uint32_t group = t.match_any(lanes_calling, detail::page_key(range, page));
    const std::uint32_t leader = detail::lowest_set_lane(group);
    const std::uint32_t lanes = detail::lanes_in(group);
    const bool leads = t.lane_id() == leader;
    std::uint32_t slot = 0, fill = 0;
    if (leads) {
      bool absent = false;
      slot = acquire_overwrite(t, cache, range, page, lanes, absent);
      fill = absent ? 1u : 0u;
    }
    slot = t.shfl(group, slot, int(leader));
    fill = t.shfl(group, fill, int(leader));
    std::byte* line = cache.line(slot);
    const std::uint64_t per_page = cache.line_bytes / sizeof(T), first = page * per_page;
    const std::uint32_t rank = detail::lanes_in(group & ((1u << t.lane_id()) - 1u));
    for (std::uint64_t k = rank; k < per_page; k += lanes) {
      T* p = reinterpret_cast<T*>(line) + k;
      *p = first + k < count ? T(gen(first + k)) : T{};
      t.record_store(mem_space::global, p, sizeof(T));
    }
    // A line that is not a whole number of elements: its last bytes too.
    if (leads && fill != 0)
      for (std::uint32_t b = std::uint32_t(per_page * sizeof(T)); b < cache.line_bytes; ++b) line[b] = std::byte{0};
    t.syncwarp(group);  // the whole line is written before the page is shown
    if (leads) {
      if (fill != 0) publish_overwrite(t, cache, range, page, slot);
      release(t, cache, range, page, lanes);
    }
  }

  // One thread alone, no coalescing: the paper's naive cache baseline.
  template <class Ctx>
  GPMX_HD T read_alone(Ctx& t, std::uint64_t i) const {
    const std::uint64_t byte = i * sizeof(T);
    const std::uint64_t page = byte / cache.line_bytes;
    const std::uint32_t slot = acquire(t, cache, range, page, 1, false);
    const T* p = reinterpret_cast<const T*>(cache.line(slot) + byte % cache.line_bytes);
    t.record_load(mem_space::global, p, sizeof(T));
    const T v = *p;
    release(t, cache, range, page, 1);
    return v;
  }

 private:
  template <class Ctx, class Use>
  GPMX_HD void with_element(Ctx& t, std::uint64_t i, bool write, Use&& use) const {
    const std::uint64_t byte = i * sizeof(T);
    const std::uint64_t page = byte / cache.line_bytes;
    const std::uint32_t active = t.activemask();
    const std::uint32_t group = t.match_any(active, detail::page_key(range, page));
    const std::uint32_t leader = detail::lowest_set_lane(group);
    const bool leads = t.lane_id() == leader;
    std::uint32_t slot = 0;
    if (leads) slot = acquire(t, cache, range, page, detail::lanes_in(group), write);
    slot = t.shfl(group, slot, int(leader));
    use(reinterpret_cast<T*>(cache.line(slot) + byte % cache.line_bytes));
    t.syncwarp(group);  // every lane of the group is done with the line
    if (leads) release(t, cache, range, page, detail::lanes_in(group));
  }
};

// Reference reuse (BaM's bam_ptr): one thread's cursor over an array that
// keeps the page of its last element pinned while the index stays inside
// it, so repeated accesses skip the probe. The page is marked dirty only
// when the cursor writes. Call done() before the thread ends (or moves on
// to work whose pages it will not reuse), or the page stays pinned: a
// thread holds at most one page per cursor between calls.
//
// array_cursor probes once per thread and page. warp_cursor adds warp
// coalescing, as BaM's graph kernels use bam_ptr: the lanes that leave
// their pages at the same point take their new pages together, one probe
// per distinct page (the group's leader pins it for every lane of the
// group, each lane later releasing its own pin); lanes walking a page in
// step, 32 elements apart, probe it once per warp.
template <class T, bool Coalesced>
class page_cursor {
 public:
  GPMX_HD explicit page_cursor(const array_view<T>& a) : a_(a) {}

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
      slot_ = take(t, page, write);
      page_ = page;
      pinned_ = true;
      dirty_ = write;
    } else if (write && !dirty_) {
      mark_dirty(t, page);
    }
    return reinterpret_cast<T*>(a_.cache.line(slot_) + byte % a_.cache.line_bytes);
  }

  template <class Ctx>
  GPMX_HD std::uint32_t take(Ctx& t, std::uint64_t page, bool write) {
    if constexpr (!Coalesced) {
      ++probes_;
      return acquire(t, a_.cache, a_.range, page, 1, write);
    } else {
      // Only the lanes that need a new page here meet: the others go on.
      const std::uint32_t group = t.match_any(t.activemask(), detail::page_key(a_.range, page));
      const std::uint32_t leader = detail::lowest_set_lane(group);
      std::uint32_t slot = 0;
      if (t.lane_id() == leader) {
        slot = acquire(t, a_.cache, a_.range, page, detail::lanes_in(group), write);
        ++probes_;
      }
      slot = t.shfl(group, slot, int(leader));
      // A writing lane of a group whose leader only read marks the page itself.
      if (write && t.lane_id() != leader) mark_dirty(t, page);
      return slot;
    }
  }

  template <class Ctx>
  GPMX_HD void mark_dirty(Ctx& t, std::uint64_t page) {
    t.atomic_or(&a_.cache.ranges[a_.range].state[page], page_dirty, memory_order::relaxed);
    dirty_ = true;
  }

  array_view<T> a_;
  std::uint64_t page_ = 0;
  std::uint64_t probes_ = 0;
  std::uint32_t slot_ = 0;
  bool pinned_ = false;
  bool dirty_ = false;
};

template <class T>
using array_cursor = page_cursor<T, false>;
template <class T>
using warp_cursor = page_cursor<T, true>;

}  // namespace gpmx::storage
