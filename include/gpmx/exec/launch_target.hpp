#pragma once
// Where a workload's kernels run: the cpu executor, or a GPU when a
// gpu_session is given. Host code written against launch_target launches
// the same kernel objects on either; the GPU path exists only in translation
// units nvcc compiles (the apps' job files in a CUDA build), elsewhere asking
// for it is an error, never a silent CPU run.
#include <span>
#include <string>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/exec/host_agents.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/launch_config.hpp"
#include "gpmx/exec/mem_view.hpp"
#if defined(__CUDACC__)
#include "gpmx/exec/cuda/launch.cuh"
#endif

namespace gpmx {

// Host data a kernel reads: the data itself on the cpu executor, a copy in
// kernel memory when kernels run on the GPU or kernel memory is otherwise
// special (the timed mode places it canonically).
template <class T>
class kernel_input {
 public:
  explicit kernel_input(std::span<const T> host) : view_(host) {}
  explicit kernel_input(kernel_vector<T> copy) : copy_(std::move(copy)), view_(copy_.data(), copy_.size()) {}
  kernel_input(kernel_input&&) = delete;  // view_ may point into copy_
  global_span<const T> span() const { return global_span<const T>(view_.data(), view_.size()); }

 private:
  kernel_vector<T> copy_;
  std::span<const T> view_;
};

class launch_target {
 public:
  // Implicit: code that has an executor has a target.
  launch_target(cpu::executor& ex) : cpu_(&ex) {}  // NOLINT(google-explicit-constructor)
  launch_target(cpu::executor& ex, const gpu_session* gpu) : cpu_(&ex), gpu_(gpu) {}

  bool on_gpu() const { return gpu_ != nullptr; }
  const gpu_session* gpu() const { return gpu_; }
  // The executor (also when kernels run on the GPU: host-side helpers such
  // as checkpoint copies still use it).
  cpu::executor& cpu() const { return *cpu_; }

  // Host data made readable by kernels on this target (see kernel_input).
  template <class T>
  kernel_input<T> input(std::span<const T> host) const {
    if (gpu_ == nullptr && kernel_memory() == std::pmr::new_delete_resource()) return kernel_input<T>(host);
    return kernel_input<T>(kernel_vector<T>(host.begin(), host.end()));
  }

  // Runs kernel(t, args...) over cfg to completion on this target.
  template <class Kernel, class... Args>
  void launch(const launch_config& cfg, Kernel kernel, Args... args) const {
    if (gpu_ == nullptr) {
      cpu_->launch(cfg, kernel, args...);
      return;
    }
#if defined(__CUDACC__)
    gpu_session::at_kernel_boundary();
    // Agents attached to the executor (a bandwidth monitor, a storage
    // controller) serve the GPU's kernel from host threads while it runs.
    const std::vector<agent*> agents = cpu_->attached_agents();
    if (!agents.empty() && !gpu_->host_runs_beside_kernels())
      throw gpu_unavailable("kernel '" + cfg.name + "' needs agents (" + std::string(agents.front()->name()) +
                            ") beside it, but " + gpu_->description() +
                            " does not let the host touch managed memory while a kernel runs");
    host_agent_threads beside(agents);
    cuda::launch_with(cfg, cuda::launch_services{gpu_->pm_store_counter(), gpu_->write_throttle_state()}, kernel,
                      args...);
    gpu_->finish_kernel(cfg.name);
    beside.stop();
#else
    throw cuda_error("kernel '" + cfg.name + "' was asked to run on the GPU from code compiled without nvcc");
#endif
  }

 private:
  cpu::executor* cpu_;
  const gpu_session* gpu_ = nullptr;
};

}  // namespace gpmx
