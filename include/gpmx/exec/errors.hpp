#pragma once
// The executor's errors; their root, gpmx::error, is in support/error.hpp.
#include <exception>
#include <string>
#include <utility>

#include "gpmx/exec/dim3.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx {

// A launch configuration CUDA would reject (block too large, grid too large...).
class config_error : public error {
 public:
  explicit config_error(const std::string& what) : error(error_code::config, what) {}
};

// Every live thread of a block waits and none can proceed.
class deadlock_error : public error {
 public:
  explicit deadlock_error(const std::string& what) : error(error_code::deadlock, what) {}
};

// Kernel threads misused a primitive (a warp op whose mask omits the caller,
// lanes that disagree on the operation, a lane exiting while others wait on it).
class kernel_usage_error : public error {
 public:
  explicit kernel_usage_error(const std::string& what) : error(error_code::usage, what) {}
};

// An exception escaped a kernel thread; block() and thread() say which one,
// cause() holds the original exception.
class kernel_error : public error {
 public:
  kernel_error(const std::string& what, dim3 block, dim3 thread, std::exception_ptr cause)
      : error(error_code::kernel, what), block_(block), thread_(thread), cause_(std::move(cause)) {}
  dim3 block() const { return block_; }
  dim3 thread() const { return thread_; }
  std::exception_ptr cause() const { return cause_; }

 private:
  dim3 block_, thread_;
  std::exception_ptr cause_;
};

// A CUDA runtime call failed; the message names the call and CUDA's error.
class cuda_error : public error {
 public:
  explicit cuda_error(const std::string& what) : error(error_code::cuda, what) {}
};

}  // namespace gpmx
