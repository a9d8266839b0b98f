#pragma once
// How transaction code inside a kernel reports misuse or a full log: an
// exception on the CPU (it reaches the launch's caller as the cause of a
// kernel_error), a trap on the GPU, where C++ exceptions do not exist.
#include <cstdint>

#include "gpmx/exec/portability.hpp"

namespace gpmx::stm::detail {

// Host side: throws gpmx::kernel_usage_error "<what> (<a>, limit <b>)".
[[noreturn]] void throw_stm_error(const char* what, std::uint64_t a, std::uint64_t b);

GPMX_HD inline void stm_fail(const char* what, std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  (void)what, (void)a, (void)b;
  __trap();
#else
  throw_stm_error(what, a, b);
#endif
}

}  // namespace gpmx::stm::detail
