// Compile-only: every workload kernel under apps/ instantiated with the CUDA
// thread context, so that nvcc checks that the one source serves both back
// ends. Host-only calls from a kernel (cross-execution-space calls) are
// errors here, not warnings. Nothing runs.
#include "gpmx/exec/cuda/launch.cuh"

#include "bfs/bfs_kernels.hpp"
#include "blk/blk_kernels.hpp"
#include "cfd/cfd_kernels.hpp"
#include "dnn/dnn_kernels.hpp"
#include "dnn/dnn_loss.hpp"
#include "gpdb/gpdb_kernels.hpp"
#include "gpkvs/gpkvs_kernels.hpp"
#include "hashmap/hashmap_kernels.hpp"
#include "hotspot/hotspot_kernels.hpp"
#include "multiqueue/multiqueue_kernels.hpp"
#include "prefix_sum/prefix_sum_kernel.hpp"
#include "reduction/reduction_kernel.hpp"
#include "scan/scan_kernel.hpp"
#include "srad/srad_kernels.hpp"

namespace {

namespace a = gpmx::apps;
namespace pm = gpmx::pm;
using gpmx::global_span;
using gpmx::cuda::detail::entry;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using fin = global_span<const float>;
using fout = global_span<float>;

// Taking the address of entry<Kernel, Args...> instantiates the kernel for the device.
[[maybe_unused]] void instantiate_app_kernels() {
  (void)&entry<a::reduction::reduce_kernel, a::reduction::kernel_args>;
  (void)&entry<a::scan::scan_kernel, a::scan::kernel_args>;
  (void)&entry<a::prefix_sum::partial_sums_kernel, a::prefix_sum::kernel_args>;
  (void)&entry<a::prefix_sum::final_pass_kernel, a::prefix_sum::kernel_args>;
  (void)&entry<a::srad::coefficients_kernel, pm::pm_span<float>, pm::pm_span<a::srad::noise_record>, u32, u32, float,
               pm::ordering>;
  (void)&entry<a::srad::update_kernel, pm::pm_span<float>, pm::pm_span<float>, pm::pm_span<a::srad::noise_record>, u32,
               u32, float, pm::ordering>;
  (void)&entry<a::bfs::level_kernel, a::bfs::level_args>;
  (void)&entry<a::blk::blk_step, u64, u64, fout, fout, fout, fin, fin>;
  (void)&entry<a::hotspot::hotspot_kernel, a::hotspot::coefficients, u64, u64, fin, fin, fout>;
  (void)&entry<a::cfd::cfd_kernel, a::cfd::fields<fin>, a::cfd::fields<fout>, u64, u64, float, float>;

  namespace d = a::dnn;
  (void)&entry<d::conv_forward, d::batch_ref, fin, fin, fout>;
  (void)&entry<d::pool_forward, u32, fin, fout, global_span<std::uint8_t>>;
  (void)&entry<d::dense_forward, u32, u32, u32, fin, fin, fin, fout, bool>;
  (void)&entry<d::softmax_xent, d::batch_ref, fout, fout>;
  (void)&entry<d::dense_backward_input, u32, u32, u32, fin, fin, fin, fout, bool>;
  (void)&entry<d::dense_update, u32, u32, u32, fin, fin, fout, fout, float>;
  (void)&entry<d::pool_backward, u32, fin, global_span<const std::uint8_t>, fin, fout>;
  (void)&entry<d::conv_update, d::batch_ref, fin, fout, fout, float>;
  (void)&entry<d::loss_kernel, fin, u32, fout, fout, u64, pm::ordering, u32*, u64*>;
  (void)&entry<d::loss_kernel, fin, u32, pm::pm_span<float>, pm::pm_span<float>, u64, pm::ordering, u32*, u64*>;

  namespace k = a::gpkvs;
  (void)&entry<k::set_kernel, global_span<const k::kv_pair>, pm::pm_span<k::kv_pair>, u32, pm::hcl_view, pm::ordering,
               k::variant>;
  (void)&entry<k::get_kernel, global_span<const u64>, pm::pm_span<k::kv_pair>, u32, global_span<u64>>;
  (void)&entry<k::recover_kernel, global_span<const u64>, pm::hcl_view, pm::pm_span<k::kv_pair>>;
  (void)&entry<k::set_dram_kernel, global_span<const k::kv_pair>, global_span<k::kv_pair>, u32>;
  (void)&entry<k::get_kernel, global_span<const u64>, global_span<const k::kv_pair>, u32, global_span<u64>>;

  namespace g = a::gpdb;
  (void)&entry<g::batch_kernel, global_span<const g::update_op>, global_span<const g::row>, pm::pm_span<g::row>, u64,
               u64, pm::hcl_view, pm::ordering, g::variant>;
  (void)&entry<g::recover_kernel, global_span<const u64>, pm::hcl_view, pm::pm_span<g::row>>;
  (void)&entry<g::batch_dram_kernel, global_span<const g::update_op>, global_span<const g::row>, global_span<g::row>,
               u64, u64>;

  namespace h = a::hashmap;
  (void)&entry<h::find_kernel, global_span<const h::entry>, pm::pm_span<h::entry>, u64, global_span<h::pending>,
               global_span<u64>>;
  (void)&entry<h::update_kernel, global_span<const h::entry>, global_span<const u64>, pm::pm_span<h::entry>,
               pm::hcl_view, pm::ordering, bool>;
  (void)&entry<h::claim_kernel, global_span<const h::pending>, u64, u64*, u64>;
  (void)&entry<h::place_kernel, global_span<const h::pending>, u64, global_span<const u64>, u64,
               pm::pm_span<h::entry>, pm::hcl_view, u64, pm::ordering, bool, global_span<h::pending>>;
  (void)&entry<h::undo_kernel, global_span<const u64>, pm::hcl_view, pm::pm_span<h::entry>, u64>;
  (void)&entry<h::lookup_kernel, global_span<const u64>, pm::pm_span<h::entry>, u64, global_span<u64>>;

  namespace m = a::multiqueue;
  (void)&entry<m::batch_kernel, pm::pm_span<u64>, pm::pm_span<u64>, u64, global_span<const m::op>, u64, u64, u32*,
               global_span<u64>, pm::ordering, m::variant>;
  (void)&entry<m::recover_kernel, pm::pm_span<u64>, u64, u64>;
}

}  // namespace
