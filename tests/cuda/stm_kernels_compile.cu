// Compile-only: the transaction library's kernel-side code (the STM, both
// persistence paths, the helper warp's drain, the durable fence) and the
// tx benchmarks' kernel instantiated with the CUDA thread context,
// host-only calls from device code being errors. Nothing runs.
#include "gpmx/exec/cuda/launch.cuh"

#include "tx/atm.hpp"
#include "tx/bvh.hpp"
#include "tx/hash.hpp"
#include "tx/tx_kernel.hpp"

namespace {

using gpmx::cuda::detail::entry;
namespace tx = gpmx::apps::tx;

[[maybe_unused]] void instantiate_stm_kernels() {
  (void)&entry<tx::tx_kernel, tx::tx_kernel_args<tx::atm::body>>;
  (void)&entry<tx::tx_kernel, tx::tx_kernel_args<tx::hash::body>>;
  (void)&entry<tx::tx_kernel, tx::tx_kernel_args<tx::bvh::body>>;
}

}  // namespace
