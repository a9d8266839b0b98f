#pragma once
// libGPM's names (GPM, ASPLOS'22, Table 2) over gpmx's native API, for
// programs written against GPM. Differences, all forced by running on the
// CPU as well as the GPU:
// - Device-side functions take the thread context first (GPM finds the
//   calling thread implicitly): gpm_persist(t), gpmlog_insert(t, log, ...).
// - A gpmlog is passed to kernels by value (it is a small handle); it stays
//   valid until gpmlog_close.
// - Stores into gpm_map'ed memory are tracked (flushed by gpm_persist) when
//   made through gpm_view<T>(addr, n); raw stores are made durable by
//   gpm_unmap, which persists the whole mapping.
// - Errors are gpmx::pm::pm_error exceptions (kernel_error from a kernel on
//   the CPU), not return codes.
#include <cstddef>

#include "gpmx/pm/conv_log.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/view.hpp"

namespace gpmx::gpm {

// --- persistent memory ---
void* gpm_map(const char* path, std::size_t size, bool create);
void gpm_unmap(const char* path, void* addr, std::size_t size);
// A tracked view of n elements of gpm_map'ed memory starting at addr.
template <class T>
pm::pm_span<T> gpm_view(T* addr, std::size_t n);
template <class Ctx>
GPMX_HD void gpm_persist(Ctx& t) {
  t.gpm_persist();
}

// --- logging ---
enum class gpmlog_kind { hcl, conventional };
struct gpmlog {
  gpmlog_kind kind;
  pm::hcl_view hcl;
  pm::conv_view conv;
  void* owner;  // the host object gpmlog_close releases
};

gpmlog* gpmlog_create_conv(const char* path, std::size_t size, int partitions);
gpmlog* gpmlog_create_hcl(const char* path, std::size_t size, int blocks, int threads);
gpmlog* gpmlog_open(const char* path);
void gpmlog_close(gpmlog* log);
void gpmlog_clear(gpmlog* log, int partition = -1);  // host side

// Device side. `partition` is used by conventional logs (-1: the calling
// block's partition) and ignored by HCL logs, whose slot is the thread's own.
template <class Ctx>
GPMX_HD void gpmlog_insert(Ctx& t, const gpmlog& log, const void* addr, std::size_t size, int partition = -1) {
  if (log.kind == gpmlog_kind::hcl) log.hcl.insert(t, addr, size);
  else log.conv.insert(t, addr, size, partition);
}
template <class Ctx>
GPMX_HD void gpmlog_read(Ctx& t, const gpmlog& log, void* addr, std::size_t size, int partition = -1) {
  if (log.kind == gpmlog_kind::hcl) log.hcl.read(t, addr, size);
  else log.conv.read(t, addr, size, partition);
}
template <class Ctx>
GPMX_HD void gpmlog_remove(Ctx& t, const gpmlog& log, std::size_t size, int partition = -1) {
  if (log.kind == gpmlog_kind::hcl) log.hcl.remove(t, size);
  else log.conv.remove(t, size, partition);
}
template <class Ctx>
GPMX_HD bool gpmlog_is_empty(Ctx& t, const gpmlog& log, int partition = -1) {
  return log.kind == gpmlog_kind::hcl ? log.hcl.is_empty(t) : log.conv.is_empty(t, partition);
}
template <class Ctx>
GPMX_HD std::size_t gpmlog_size(Ctx& t, const gpmlog& log, int partition = -1) {
  return log.kind == gpmlog_kind::hcl ? log.hcl.size(t) : std::size_t(log.conv.size(t, partition));
}

namespace detail {
const persist_domain* domain_of_mapping(const void* addr, std::size_t bytes);
}
template <class T>
pm::pm_span<T> gpm_view(T* addr, std::size_t n) {
  return {addr, n, detail::domain_of_mapping(addr, n * sizeof(T))};
}

}  // namespace gpmx::gpm
