#pragma once
// Typed views of persistent memory whose element stores are visible to the
// runtime: every load and store goes through the thread context; on the cpu
// executor each store records its cache lines with the thread, so gpm_persist/dfence/ofence/prel flush exactly what the thread
// wrote; on CUDA a store is a plain volatile store (GPM's PM-far).
//
//   pm_span<T> s(region);          // host side, or passed into a kernel
//   auto v = s.bind(t);            // inside a kernel: bound to the thread
//   v[i] = x;  T y = v[j];         // tracked store, plain load
//   t.gpm_persist();               // the thread's stores so far are durable
//
// raw() is the escape hatch: stores through the pointer are not recorded, so
// no persistency operation flushes them (persist them with the pool) and
// the trace and timed modes do not see them.
//
// Source locations: the trace mode names the line of every PM access. A
// store takes the line of its assignment (the value converts to
// pm_value<T>, which captures it); a load takes the line of the subscript
// or bind() that made the reference, or of an explicit load().
#include <cstddef>
#include <type_traits>

#include "gpmx/pm/store_note.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/exec/source_loc.hpp"

namespace gpmx::pm {

namespace detail {
template <class T>
GPMX_HD void store(T* p, const T& v) {
  if constexpr (std::is_arithmetic_v<T> || std::is_pointer_v<T>) *const_cast<volatile T*>(p) = v;
  else *p = v;
}
template <class T>
GPMX_HD T load(const T* p) {
  if constexpr (std::is_arithmetic_v<T> || std::is_pointer_v<T>) return *const_cast<const volatile T*>(p);
  else return *p;
}
}  // namespace detail

// A value to store with where the store was written, and an element index
// with where the subscript was written: the same as device-memory views'.
template <class T>
using pm_value = stored_value<T>;
using pm_index = located_index;

// One element of PM, reached through a thread.
template <class T, class Ctx>
class pm_ref {
 public:
  GPMX_HD pm_ref(T* p, const persist_domain* d, Ctx* t, source_loc made = source_loc::current())
      : p_(p), d_(d), t_(t), made_(made) {}
  GPMX_HD operator T() const { return load(made_); }
  GPMX_HD T load(source_loc loc = source_loc::current()) const {
    t_->record_pm_read(d_, p_, sizeof(T), loc);
    return detail::load(p_);
  }
  GPMX_HD pm_ref& operator=(pm_value<T> v) {
    detail::store(p_, v.value);
    note_pm_store(*t_, d_, p_, sizeof(T), v.loc);
    return *this;
  }
  GPMX_HD pm_ref& operator=(const pm_ref& other) {
    const T v = other.load(other.made_);
    detail::store(p_, v);
    note_pm_store(*t_, d_, p_, sizeof(T), made_);
    return *this;
  }
  GPMX_HD T* address() const { return p_; }

 private:
  T* p_;
  const persist_domain* d_;
  Ctx* t_;
  source_loc made_;  // where this reference was made: the line its implicit loads report
};

template <class T>
class pm_span {
 public:
  template <class Ctx>
  class bound {
   public:
    GPMX_HD bound(const pm_span& s, Ctx& t) : s_(s), t_(&t) {}
    GPMX_HD pm_ref<T, Ctx> operator[](pm_index i) const {
      return {s_.data_ + i.index, s_.domain_, t_, i.loc};
    }
    GPMX_HD std::size_t size() const { return s_.size_; }

   private:
    pm_span s_;
    Ctx* t_;
  };

  pm_span() = default;
  GPMX_HD pm_span(T* data, std::size_t size, const persist_domain* domain)
      : data_(data), size_(size), domain_(domain) {}
  // Elements [first, first + count) of this span.
  GPMX_HD pm_span subspan(std::size_t first, std::size_t count) const { return {data_ + first, count, domain_}; }

  template <class Ctx>
  GPMX_HD bound<Ctx> bind(Ctx& t) const {
    return {*this, t};
  }
  GPMX_HD std::size_t size() const { return size_; }
  GPMX_HD T* raw() const { return data_; }  // untracked: see the header comment
  GPMX_HD const persist_domain* domain() const { return domain_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  const persist_domain* domain_ = nullptr;
};

// A single PM object.
template <class T>
class pm_ptr {
 public:
  pm_ptr() = default;
  GPMX_HD pm_ptr(T* p, const persist_domain* d) : p_(p), d_(d) {}
  template <class Ctx>
  GPMX_HD pm_ref<T, Ctx> bind(Ctx& t, source_loc loc = source_loc::current()) const {
    return {p_, d_, &t, loc};
  }
  GPMX_HD T* raw() const { return p_; }

 private:
  T* p_ = nullptr;
  const persist_domain* d_ = nullptr;
};

}  // namespace gpmx::pm
