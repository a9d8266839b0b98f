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
// later trace and timed modes will not see them.
#include <cstddef>
#include <type_traits>

#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/portability.hpp"

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

// One element of PM, reached through a thread.
template <class T, class Ctx>
class pm_ref {
 public:
  GPMX_HD pm_ref(T* p, const persist_domain* d, Ctx* t) : p_(p), d_(d), t_(t) {}
  GPMX_HD operator T() const { return load(); }
  GPMX_HD T load() const {
    t_->record_pm_read(d_, p_, sizeof(T));
    return detail::load(p_);
  }
  GPMX_HD pm_ref& operator=(const T& v) {
    detail::store(p_, v);
    t_->record_pm_write(d_, p_, sizeof(T));
    return *this;
  }
  GPMX_HD pm_ref& operator=(const pm_ref& other) { return *this = other.load(); }
  GPMX_HD T* address() const { return p_; }

 private:
  T* p_;
  const persist_domain* d_;
  Ctx* t_;
};

template <class T>
class pm_span {
 public:
  template <class Ctx>
  class bound {
   public:
    GPMX_HD bound(const pm_span& s, Ctx& t) : s_(s), t_(&t) {}
    GPMX_HD pm_ref<T, Ctx> operator[](std::size_t i) const { return {s_.data_ + i, s_.domain_, t_}; }
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
  GPMX_HD pm_ref<T, Ctx> bind(Ctx& t) const {
    return {p_, d_, &t};
  }
  GPMX_HD T* raw() const { return p_; }

 private:
  T* p_ = nullptr;
  const persist_domain* d_ = nullptr;
};

}  // namespace gpmx::pm
