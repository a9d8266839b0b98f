// Compile-only: the storage layer's kernel-side code (queues, page cache,
// arrays, cursors, warp cursors, uncached reads, write-back) instantiated with the CUDA thread context,
// host-only calls from device code being errors. Nothing runs.
#include "gpmx/exec/cuda/launch.cuh"

#include "gpmx/storage/cache_memory.hpp"
#include "gpmx/storage/uncached_read.hpp"
#include "gpmx/storage/array.hpp"

namespace {

namespace s = gpmx::storage;
using gpmx::cuda::detail::entry;

struct storage_probe {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, s::array_view<std::uint64_t> a, s::queue_pair_view q, std::uint64_t* out) const {
    out[t.global_id()] = a.read(t, t.global_id()) + a.read_alone(t, 1);
    a.write(t, t.global_id(), 1);
    a.atomic_add(t, 0, std::uint64_t{1});
    s::array_cursor<std::uint64_t> c(a);
    out[0] += c.read(t, 2);
    c.write(t, 3, 4);
    c.done(t);
    s::warp_cursor<std::uint64_t> w(a);
    out[0] += w.read(t, 4);
    w.write(t, 5, 6);
    w.done(t);
    out[2] = s::read_uncached(t, a, 7, reinterpret_cast<std::byte*>(out + 64));
    out[1] = s::await_completion(t, q, s::submit(t, q, s::make_flush_command())).status_code();
  }
};

[[maybe_unused]] void instantiate_storage_kernels() {
  (void)&entry<storage_probe, s::array_view<std::uint64_t>, s::queue_pair_view, std::uint64_t*>;
  (void)&entry<s::write_back_kernel, s::cache_view>;
  (void)&entry<s::device_flush_kernel, s::cache_view>;
}

}  // namespace
