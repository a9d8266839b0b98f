// A build without CUDA: the GPU back end is named, and refused.
#include "gpmx/exec/gpu_session.hpp"

namespace gpmx {

bool gpu_session::built_with_cuda() noexcept { return false; }
const gpu_session* gpu_session::current() noexcept { return nullptr; }
std::uint64_t gpu_session::kernel_pm_store_bytes() { return 0; }
void gpu_session::set_kernel_boundary_hook(void (*)()) noexcept {}
void gpu_session::at_kernel_boundary() {}

std::unique_ptr<gpu_session> gpu_session::open(int) {
  throw gpu_unavailable("this gpmx was built without CUDA (nvcc was not found when it was configured)");
}

}  // namespace gpmx
