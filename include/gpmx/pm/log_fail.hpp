#pragma once
// How log operations called inside kernels report misuse: a pm_error on the
// CPU (it reaches the launch's caller as a kernel_error's cause), a trap on
// the GPU, where C++ exceptions do not exist.
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/errors.hpp"

namespace gpmx::pm::detail {

// Host side: builds the message and throws.
[[noreturn]] void throw_log_error(errc code, const char* log, const char* what, std::uint64_t a, std::uint64_t b);

GPMX_HD inline void log_fail(errc code, const char* log, const char* what, std::uint64_t a = 0,
                             std::uint64_t b = 0) {
#if defined(__CUDA_ARCH__)
  (void)code, (void)log, (void)what, (void)a, (void)b;
  __trap();
#else
  throw_log_error(code, log, what, a, b);
#endif
}

}  // namespace gpmx::pm::detail
