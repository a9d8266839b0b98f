#pragma once
// The kernel every transaction benchmark launches (kernel code): warps
// 0..W-1 of a block are committers, each running its transactions through
// the STM; with helpers, warp W drains the block's persistence buffer.
// A benchmark supplies the body of its k-th transaction:
//
//   struct body {
//     static constexpr std::uint32_t max_writes = 2;
//     template <class Tx> GPMX_HD void operator()(Tx& tx, std::uint32_t committer,
//                                                 std::uint32_t batch, std::uint32_t k) const;
//   };
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/adaptive_sink.hpp"
#include "gpmx/stm/direct_sink.hpp"
#include "gpmx/stm/durability.hpp"
#include "gpmx/stm/persist_ring.hpp"
#include "gpmx/stm/transaction.hpp"

namespace gpmx::apps::tx {

template <class Body>
struct tx_kernel_args {
  stm::tx_shared shared;
  stm::tx_log log;
  stm::persist_style style;
  std::uint32_t committers;  // per block
  std::uint32_t helpers;     // helper_mode
  std::uint32_t ring;
  std::uint32_t batch;
  std::uint32_t per_thread;
  bool durable_fence;
  Body body;
};

struct tx_kernel {
  template <class Ctx, class Body>
  GPMX_HD void operator()(Ctx& t, const tx_kernel_args<Body>& a) const {
    const bool with_ring = a.helpers != 0;
    stm::persist_ring ring{};
    if (with_ring) {
      ring = stm::persist_ring::of(t, a.ring);
      ring.clear(t);
      t.syncthreads();
      if (t.thread_rank() >= a.committers) {
        stm::drain_ring(t, a.shared, ring, a.log, a.style);
        return;
      }
    }
    const std::uint32_t id = std::uint32_t(t.block_rank()) * a.committers + t.thread_rank();
    stm::transaction<Ctx> tx(t, a.shared, id);
    stm::direct_sink direct(a.shared, a.log, id, a.style);
    stm::ring_sink queued(a.shared, ring, a.log.epoch);
    stm::adaptive_sink adaptive(a.shared, direct, queued);
    for (std::uint32_t k = 0; k < a.per_thread; ++k) {
      auto body = [&](auto& x) { a.body(x, id, a.batch, k); };
      if (a.helpers == 0) stm::atomically(tx, direct, body);
      else if (a.helpers == 1) stm::atomically(tx, queued, body);
      else stm::atomically(tx, adaptive, body);
    }
    if (with_ring) ring.committer_done(t);
    if (a.durable_fence && tx.last_seq() != 0) stm::durable_fence(t, a.shared, tx.last_seq());
  }
};

}  // namespace gpmx::apps::tx
