#pragma once
// Views of device (global) and shared memory whose element accesses go
// through the thread context, so that an observer (the timed mode, a race
// checker) sees a kernel's whole memory traffic, not only PM. On CUDA they
// are plain accesses; on the cpu executor they cost nothing when no
// observer asks for the space (one test of a register-held mask).
//
//   global_span<float> a(ptr, n);     // host side, passed into a kernel
//   auto v = a.bind(t);               // inside the kernel
//   v[i] = v[i] * 2;  v[j] += x;      // observed load and store
//
//   GPMX_SHARED(t, float, tile, 256);
//   auto s = shared_span<float>(tile, 256).bind(t);
//
// raw() gives the pointer back: its accesses are not observed.
#include <cstddef>

#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/exec/source_loc.hpp"

namespace gpmx {

// A value to store, with where the store was written (converts implicitly).
template <class T>
struct stored_value {
  GPMX_HD stored_value(const T& v, source_loc l = source_loc::current()) : value(v), loc(l) {}
  T value;
  source_loc loc;
};

// An element index, with where the subscript was written.
struct located_index {
  GPMX_HD located_index(std::size_t i, source_loc l = source_loc::current()) : index(i), loc(l) {}
  std::size_t index;
  source_loc loc;
};

// One element of device or shared memory, reached through a thread.
template <class T, mem_space Space, class Ctx>
class mem_ref {
 public:
  GPMX_HD mem_ref(T* p, Ctx* t, source_loc made) : p_(p), t_(t), made_(made) {}
  GPMX_HD operator T() const { return load(made_); }
  GPMX_HD T load(source_loc loc = source_loc::current()) const {
    t_->record_load(Space, p_, sizeof(T), loc);
    return *p_;
  }
  GPMX_HD mem_ref& operator=(stored_value<T> v) {
    *p_ = v.value;
    t_->record_store(Space, p_, sizeof(T), v.loc);
    return *this;
  }
  GPMX_HD mem_ref& operator=(const mem_ref& other) { return *this = stored_value<T>(other.load(other.made_), made_); }
  // From an element of another view (any space): a load there, a store here.
  template <class U, mem_space S, class C>
  GPMX_HD mem_ref& operator=(const mem_ref<U, S, C>& other) {
    return *this = stored_value<T>(T(other), made_);
  }
  // Read-modify-write as a load and a store (not atomic, as in CUDA); both
  // report the line of the subscript.
  template <class V>
  GPMX_HD mem_ref& operator+=(const V& v) { return update(T(v), [](T a, T b) { return T(a + b); }); }
  template <class V>
  GPMX_HD mem_ref& operator-=(const V& v) { return update(T(v), [](T a, T b) { return T(a - b); }); }
  template <class V>
  GPMX_HD mem_ref& operator*=(const V& v) { return update(T(v), [](T a, T b) { return T(a * b); }); }
  template <class V>
  GPMX_HD mem_ref& operator|=(const V& v) { return update(T(v), [](T a, T b) { return T(a | b); }); }
  template <class V>
  GPMX_HD mem_ref& operator&=(const V& v) { return update(T(v), [](T a, T b) { return T(a & b); }); }
  template <class V>
  GPMX_HD mem_ref& operator^=(const V& v) { return update(T(v), [](T a, T b) { return T(a ^ b); }); }
  GPMX_HD T* address() const { return p_; }

 private:
  template <class F>
  GPMX_HD mem_ref& update(const T& v, F op) {
    return *this = stored_value<T>(op(load(made_), v), made_);
  }
  T* p_;
  Ctx* t_;
  source_loc made_;  // where the reference was made: the line its implicit loads report
};

template <class T, mem_space Space>
class mem_span {
 public:
  template <class Ctx>
  class bound {
   public:
    GPMX_HD bound(const mem_span& s, Ctx& t) : s_(s), t_(&t) {}
    GPMX_HD mem_ref<T, Space, Ctx> operator[](located_index i) const { return {s_.data_ + i.index, t_, i.loc}; }
    GPMX_HD std::size_t size() const { return s_.size_; }
    GPMX_HD T* raw() const { return s_.data_; }

   private:
    mem_span s_;
    Ctx* t_;
  };

  mem_span() = default;
  GPMX_HD mem_span(T* data, std::size_t size) : data_(data), size_(size) {}
  GPMX_HD mem_span subspan(std::size_t first, std::size_t count) const { return {data_ + first, count}; }
  template <class Ctx>
  GPMX_HD bound<Ctx> bind(Ctx& t) const {
    return {*this, t};
  }
  GPMX_HD std::size_t size() const { return size_; }
  GPMX_HD T* raw() const { return data_; }  // unobserved

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <class T>
using global_span = mem_span<T, mem_space::global>;
template <class T>
using shared_span = mem_span<T, mem_space::shared>;

}  // namespace gpmx
