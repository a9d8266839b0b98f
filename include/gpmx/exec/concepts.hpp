#pragma once
// What a kernel may ask of its thread context, and what launches kernels,
// as C++20 concepts. gpmx::cpu::thread_ctx and gpmx::cuda::thread_ctx both
// satisfy thread_context (static_asserts next to each), so code written
// against the concept serves both back ends.
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/launch_config.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx {

template <class C>
concept thread_context = requires(C& t, const C& ct, std::uint32_t* word, std::uint64_t* wide,
                                  const void* address, const persist_domain* domain, std::uint32_t mask) {
  // indices and extents
  { ct.thread_idx() } -> std::same_as<dim3>;
  { ct.block_idx() } -> std::same_as<dim3>;
  { ct.block_dim() } -> std::same_as<dim3>;
  { ct.grid_dim() } -> std::same_as<dim3>;
  { ct.thread_rank() } -> std::convertible_to<std::uint32_t>;
  { ct.block_rank() } -> std::convertible_to<std::uint64_t>;
  { ct.global_id() } -> std::convertible_to<std::uint64_t>;
  { ct.global_count() } -> std::convertible_to<std::uint64_t>;
  { ct.warp_id() } -> std::convertible_to<std::uint32_t>;
  { ct.lane_id() } -> std::convertible_to<std::uint32_t>;
  // block barrier and warp collectives
  t.syncthreads();
  { t.syncthreads_count(1) } -> std::convertible_to<int>;
  t.syncwarp(mask);
  { t.ballot(mask, 1) } -> std::convertible_to<std::uint32_t>;
  { t.shfl_down(mask, std::uint64_t{}, 1u) } -> std::same_as<std::uint64_t>;
  { t.activemask() } -> std::convertible_to<std::uint32_t>;
  // atomics and fences
  { t.atomic_add(word, 1u) } -> std::same_as<std::uint32_t>;
  { t.atomic_cas(wide, std::uint64_t{}, std::uint64_t{}) } -> std::same_as<std::uint64_t>;
  { t.atomic_load(word) } -> std::same_as<std::uint32_t>;
  t.atomic_store(word, 1u);
  t.fence(scope::device);
  // declared compute cost (the timed schedule charges it; free elsewhere)
  t.work(std::uint32_t{8});
  // every memory space's accesses, as views report them
  t.record_load(mem_space::global, address, std::size_t{4});
  t.record_store(mem_space::shared, address, std::size_t{4});
  t.record_pm_write(domain, address, std::size_t{4});
  t.record_pm_read(domain, address, std::size_t{4});
  // persistency operations
  t.gpm_persist();
  t.ofence();
  t.dfence();
  t.persist_range(address, std::size_t{4});
  t.prel(scope::block, word, 1u);
  { t.pacq(scope::block, word) } -> std::same_as<std::uint32_t>;
};

namespace detail {
// A kernel that any thread_context can run: what launcher checks with.
struct concept_probe_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx&, int) const {}
};
}  // namespace detail

// Something that launches kernels: launch(cfg, kernel, args...).
template <class L>
concept launcher = requires(L& l, const launch_config& cfg) {
  l.launch(cfg, detail::concept_probe_kernel{}, 0);
};

}  // namespace gpmx
