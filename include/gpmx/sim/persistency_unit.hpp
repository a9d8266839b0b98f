#pragma once
// The persistency hardware of the timed mode (docs/sim-persistency.md):
// what each persistency operation costs under the configured model.
//   gpm   — a persist is GPM's system-scope fence: the SM's dirty lines,
//           volatile and PM, are written back and the warp waits until they
//           are acknowledged (PM: durable); the L1's PM lines are dropped.
//   epoch — an epoch barrier: the SM's dirty PM lines are written back, the
//           warp waits until every PM write of the SM is durable, and the
//           L1's PM lines are dropped (threads synchronizing through the
//           barrier must not read stale PM data).
//   sbrp  — a persist buffer per SM (persist_buffer.hpp).
// gpu_model calls it from issue(); it holds warps (issue_result::ready ==
// vtime_never) only under sbrp.
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "gpmx/exec/timing.hpp"
#include "gpmx/sim/memory_system.hpp"
#include "gpmx/sim/persist_buffer.hpp"

namespace gpmx::sim {

struct persistency_stats {
  std::uint64_t barriers = 0;      // gpm/epoch: fences and barriers that flushed and waited
  std::uint64_t held_warps = 0;    // sbrp: warp instructions the persist buffer held
  picos held_time = 0;             // sbrp: summed time they were held
  pb_stats buffers;                // sbrp: summed over SMs
};

class persistency_unit final : private pm_eviction_guard {
 public:
  explicit persistency_unit(memory_system& mem);
  persistency_unit(const persistency_unit&) = delete;
  persistency_unit& operator=(const persistency_unit&) = delete;

  // The outcome of one operation: ready (the warp may go on from here) or
  // held (performed when woken through advance()).
  struct outcome {
    picos ready = 0;
    bool held = false;
  };

  void launch_begin(std::uint32_t warps_per_block);
  void block_started(std::uint64_t block, std::uint32_t sm);
  void block_finished(std::uint64_t block, std::uint32_t sm);

  // A warp's PM store `r` (already made in the L1) issued at `t`.
  outcome pm_store(const warp_instruction& in, const warp_request& r, picos t);
  // gpm_persist, ofence or dfence; `own_writes`: when the warp's earlier
  // stores are acknowledged.
  outcome ordering(const warp_instruction& in, ordering_op op, picos t, picos own_writes);
  // A persist release of scope `s`, before its flag store.
  outcome release(const warp_instruction& in, scope s, picos t, picos own_writes);
  // A persist acquire of scope `s` (each try of a spin on one), before its
  // flag load: on gpm/epoch hardware with persist.epoch_sync_barriers a
  // barrier; under sbrp with persist.device_acquire_waits, at device scope,
  // a durability point of the warp (held); otherwise nothing (ready at `t`).
  outcome before_acquire(const warp_instruction& in, scope s, picos t, picos own_writes);
  // A persist acquire of scope `s`, after its flag load.
  void acquire(const warp_instruction& in, scope s, picos t);
  // A held warp's own access completes at `t`: when woken it goes on no
  // earlier (a held acquire's flag read).
  void held_until_at_least(const warp_instruction& in, picos t);
  // A block barrier (`block_barrier`) or warp collective: under sbrp an
  // ordering point of the warp; a block barrier is a persist barrier on
  // gpm/epoch hardware with persist.epoch_sync_barriers.
  outcome synchronization(const warp_instruction& in, bool block_barrier, picos t, picos own_writes);
  // A range persist: durable whoever stored it.
  outcome persist_range(const warp_instruction& in, picos t, picos own_writes);

  picos next_event() const;
  void advance(picos t, timed_waker& w);
  // Kernel end: every persist buffer drained; returns when the last
  // persist is durable.
  picos kernel_end(picos t);

  persist_model model() const { return model_; }
  // The scope a persist acquire or release acts at (block promoted to
  // device with persist.promote_scopes).
  scope effective(scope s) const;
  const persistency_stats& stats() const;

 private:
  struct slot_owner {
    std::uint64_t block = 0;
    std::uint32_t warp = 0;
    std::uint32_t pending = 0;  // held operations still to complete before it goes on
    picos since = 0;
    picos not_before = 0;       // a held acquire's read: the warp goes on no earlier
  };
  struct sm_port final : pb_memory {
    memory_system* mem = nullptr;
    std::uint32_t sm = 0;
    picos write_back(std::uint64_t line, std::uint32_t sectors, picos at) override {
      return mem->write_back_line(sm, line, sectors, at);
    }
  };
  struct per_sm {
    persist_buffer buffer;
    sm_port port;
    warp_mask used = 0;
    std::vector<slot_owner> owners;  // by slot
  };

  picos evicting(std::uint32_t sm, std::uint64_t line, picos t) override;
  void evicted(std::uint32_t sm, std::uint64_t line, picos t, picos durable_ack) override;

  std::uint32_t slot_of(const warp_instruction& in) const;
  // A block's warps as a mask from slot 0.
  warp_mask block_mask() const {
    return warps_per_block_ >= 64 ? ~warp_mask(0) : (warp_mask(1) << warps_per_block_) - 1;
  }
  outcome barrier(std::uint32_t sm, picos t, picos own_writes);  // gpm/epoch
  outcome hold(const warp_instruction& in, picos t, std::uint32_t pending);
  bool sbrp() const { return model_ == persist_model::sbrp; }

  memory_system& mem_;
  persist_model model_;
  bool promote_;
  std::uint32_t warps_per_block_ = 1;
  std::vector<per_sm> sms_;
  std::unordered_map<std::uint64_t, std::uint32_t> first_slot_;  // block -> its warp 0's slot
  mutable persistency_stats stats_;
  std::array<line_request, max_line_requests> lines_{};
};

}  // namespace gpmx::sim
