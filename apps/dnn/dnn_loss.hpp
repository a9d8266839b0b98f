#pragma once
// The batch's mean loss, appended to the loss history that the workload keeps
// in PM itself (besides the checkpointed weights). loss_blocks blocks each
// reduce a share of the batch (fixed order: deterministic) and persist the
// partial sum; block 0 then adds the partials and persists the mean as
// history[iteration]. The partials must persist before the mean made of
// them:
//   epoch: each block's gpm_persist, then an atomic arrival count; the last
//          block to arrive adds them up and persists the mean with gpm_persist;
//   sbrp:  blocks 1.. prel(device) a flag with iteration + 1 after their
//          partial; block 0 orders its own partial with an oFence, pacq's each
//          flag (device scope: the blocks differ), then stores the mean
//          (durable by the kernel's end).
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/ordering.hpp"

namespace gpmx::apps::dnn {

inline constexpr std::uint32_t loss_blocks = 4, loss_threads = 64;

// Out is pm::pm_span<float> (the workload's PM) or, for the history in DRAM
// (the uninterrupted reference run), global_span<float>: the same kernel,
// plain stores.
struct loss_kernel {
  template <class Ctx, class Out>
  GPMX_HD void operator()(Ctx& t, global_span<const float> loss, std::uint32_t batch, Out partials, Out history,
                          std::uint64_t iteration, pm::ordering order, std::uint32_t* arrived,
                          std::uint64_t* flags) const {
    GPMX_SHARED(t, float, sum_words, loss_threads);
    auto sum = shared_span<float>(sum_words, loss_threads).bind(t);
    const std::uint32_t k = t.block_rank(), r = t.thread_rank();
    const std::uint32_t per = (batch + loss_blocks - 1) / loss_blocks;
    const std::uint32_t end = (k + 1) * per < batch ? (k + 1) * per : batch;
    const auto lv = loss.bind(t);
    float s = 0;
    for (std::uint32_t b = k * per + r; b < end; b += loss_threads) s += float(lv[b]);
    sum[r] = s;
    t.syncthreads();
    for (std::uint32_t half = loss_threads / 2; half > 0; half /= 2) {
      if (r < half) sum[r] += float(sum[r + half]);
      t.syncthreads();
    }
    if (r != 0) return;
    auto part = partials.bind(t);
    auto hist = history.bind(t);
    part[k] = float(sum[0]);
    if (order == pm::ordering::epoch) {
      t.gpm_persist();
      if (t.atomic_add(arrived, 1u, memory_order::acq_rel, scope::device) + 1 != loss_blocks) return;
    } else {
      if (k != 0) {
        t.prel(scope::device, &flags[k], iteration + 1);
        return;
      }
      t.ofence();
      for (std::uint32_t j = 1; j < loss_blocks; ++j)
        t.spin_wait([&] { return t.pacq(scope::device, &flags[j]) == iteration + 1; });
    }
    float total = 0;
    for (std::uint32_t j = 0; j < loss_blocks; ++j) total += float(part[j]);
    hist[iteration] = total / float(batch);
    if (order == pm::ordering::epoch) t.gpm_persist();
  }
};

}  // namespace gpmx::apps::dnn
