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
//
// Each committer runs per_thread transactions per batch, unless the body
// also has (for work whose length each committer finds as it goes):
//   GPMX_HD std::uint32_t steps(std::uint32_t batch) const;     // at most this many
//   GPMX_HD bool finished(std::uint32_t committer, std::uint32_t batch) const;  // stop early
//   GPMX_HD void committed(std::uint32_t committer, std::uint32_t batch) const;  // after each commit
// (committed() is where a body moves on from state its transaction
// proposed: a body runs again from the start when its attempt aborts.)
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

namespace detail {
template <class Body>
GPMX_HD std::uint32_t steps_of(const Body& b, std::uint32_t batch, std::uint32_t per_thread) {
  if constexpr (requires { b.steps(batch); }) return b.steps(batch);
  else return per_thread;
}
template <class Body>
GPMX_HD bool finished_of(const Body& b, std::uint32_t committer, std::uint32_t batch) {
  if constexpr (requires { b.finished(committer, batch); }) return b.finished(committer, batch);
  else return false;
}
template <class Body>
GPMX_HD void committed_of(const Body& b, std::uint32_t committer, std::uint32_t batch) {
  if constexpr (requires { b.committed(committer, batch); }) b.committed(committer, batch);
}
}  // namespace detail

struct tx_kernel {
  template <class Ctx, class Body>
  GPMX_HD void operator()(Ctx& t, const tx_kernel_args<Body>& a) const {
    const bool with_ring = a.helpers != 0;
    stm::persist_ring ring{};
    if (with_ring) {
      ring = stm::persist_ring::of(t, a.ring);
      const bool adaptive = a.helpers == 2;
      ring.clear(t, adaptive ? a.shared.helpers_on : nullptr);
      t.syncthreads();
      if (t.thread_rank() >= a.committers) {
        stm::drain_ring(t, a.shared, ring, a.log, a.style, adaptive);
        return;
      }
    }
    const std::uint32_t id = std::uint32_t(t.block_rank()) * a.committers + t.thread_rank();
    stm::transaction<Ctx> tx(t, a.shared, id);
    stm::direct_sink direct(a.shared, a.log, id, a.style);
    stm::ring_sink queued(a.shared, ring, a.log.epoch);
    stm::adaptive_sink adaptive(ring, direct, queued);
    const std::uint32_t steps = detail::steps_of(a.body, a.batch, a.per_thread);
    for (std::uint32_t k = 0; k < steps && !detail::finished_of(a.body, id, a.batch); ++k) {
      auto body = [&](auto& x) { a.body(x, id, a.batch, k); };
      if (a.helpers == 0) stm::atomically(tx, direct, body);
      else if (a.helpers == 1) stm::atomically(tx, queued, body);
      else stm::atomically(tx, adaptive, body);
      detail::committed_of(a.body, id, a.batch);
    }
    if (with_ring) ring.committer_done(t);
    if (a.durable_fence && tx.last_seq() != 0) stm::durable_fence(t, a.shared, tx.last_seq());
  }
};

}  // namespace gpmx::apps::tx
