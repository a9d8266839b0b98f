#pragma once
// The multiqueue's kernels, written once for every executor: a batch (one
// block per queue) and the recovery of a batch in flight. Queue records and
// rings are PM; the batch's operations and the removed elements are device
// memory (global_span); the leader's plan is shared memory (shared_span);
// the workers' flags are released and acquired with prel/pacq on the raw
// pointer.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"

namespace gpmx::apps::multiqueue {

// The 8 words of a queue's record (one 64-byte line per queue).
enum queue_word : std::uint64_t {
  q_head = 0,       // elements removed since creation
  q_tail = 1,       // elements inserted since creation
  q_log_head = 2,   // head and tail before the logged batch
  q_log_tail = 3,
  q_log_batch = 4,  // the logged batch plus one: the log is valid for it
  q_done_batch = 5, // the last batch whose transaction finished here, plus one
  queue_words = 8
};

enum class op : std::uint8_t { remove = 0, insert = 1 };

// What run_batch runs: the correct code, or a seeded bug (docs/workloads.md,
// "Seeded bugs").
enum class variant : std::uint8_t {
  correct,
  early_publish,       // sbrp: the new tail (or head) stored right after the log's mark, unfenced
  unordered_log_mark,  // epoch: no persist between the logged head and tail and the mark that validates them
};

// The element a batch inserts at position i of queue q.
GPMX_HD inline std::uint64_t value_of(std::uint64_t batch, std::uint64_t q, std::uint64_t i) {
  return ((batch + 1) << 40) | (q << 20) | i;
}
// How many elements an operation moves, given the queue's size.
GPMX_HD inline std::uint64_t count_of(op o, std::uint64_t size, std::uint64_t capacity, std::uint64_t elems) {
  const std::uint64_t room = o == op::insert ? capacity - size : size;
  return room < elems ? room : elems;
}

// The leader's publish: the queue's new tail (insert) or head (remove).
template <class Words>
GPMX_HD void publish(Words& w, std::uint64_t base, op what, std::uint64_t head, std::uint64_t tail, std::uint64_t n) {
  if (what == op::insert) w[base + q_tail] = tail + n;
  else w[base + q_head] = head + n;
}

// One batch: block q runs the transaction on queue q (multiqueue.hpp).
// removed holds queues x k elements.
struct batch_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::pm_span<std::uint64_t> queue_records, pm::pm_span<std::uint64_t> ring,
                          std::uint64_t cap, global_span<const op> ops, std::uint64_t k, std::uint64_t batch,
                          std::uint32_t* flags, global_span<std::uint64_t> removed, pm::ordering order,
                          variant bug) const {
    const std::uint64_t q = t.block_rank();
    const std::uint32_t rank = t.thread_rank(), nth = t.block_dim().x;
    auto w = queue_records.bind(t);
    auto r = ring.bind(t);
    const std::uint64_t base = q * queue_words;
    GPMX_SHARED(t, std::uint64_t, plan_words, 3);  // head, tail, elements moved
    auto plan = shared_span<std::uint64_t>(plan_words, 3).bind(t);
    const op what = ops.bind(t)[q];
    const bool early = bug == variant::early_publish;
    if (rank == 0) {
      const std::uint64_t head = w[base + q_head], tail = w[base + q_tail];
      w[base + q_log_head] = head;
      w[base + q_log_tail] = tail;
      // The logged head and tail before the mark that makes them valid
      // (left out by the seeded bug unordered-log-mark).
      if (bug != variant::unordered_log_mark) pm::order_persists(t, order);
      w[base + q_log_batch] = batch + 1;
      const std::uint64_t n = count_of(what, tail - head, cap, k);
      // The seeded bug early-publish: the new tail (or head) right after
      // the log's mark, before the fence and before any element.
      if (early) publish(w, base, what, head, tail, n);
      pm::order_persists(t, order);  // the log before the new head or tail
      plan[0] = head;
      plan[1] = tail;
      plan[2] = n;
    }
    t.syncthreads();
    const std::uint64_t head = plan[0], tail = plan[1], n = plan[2];
    auto out = removed.bind(t);
    for (std::uint64_t i = rank; i < n; i += nth) {
      if (what == op::insert) r[q * cap + (tail + i) % cap] = value_of(batch, q, i);
      else out[q * k + i] = std::uint64_t(r[q * cap + (head + i) % cap]);
    }
    // The elements persist before the leader publishes them.
    if (order == pm::ordering::epoch) {
      t.gpm_persist();
      t.syncthreads();
    } else {
      t.prel(scope::block, &flags[q * nth + rank], std::uint32_t(batch + 1));
    }
    if (rank != 0) return;
    if (order == pm::ordering::sbrp)
      for (std::uint32_t x = 0; x < nth; ++x) {
        const std::uint32_t* f = &flags[q * nth + x];
        t.spin_wait([&] { return t.pacq(scope::block, f) == std::uint32_t(batch + 1); });
      }
    if (!early) publish(w, base, what, head, tail, n);
    pm::order_persists(t, order);  // published before the transaction is marked done
    w[base + q_done_batch] = batch + 1;
    if (order == pm::ordering::epoch) t.gpm_persist();  // sbrp: durable by the kernel's end
  }
};

// Recovery: a thread per queue restores head and tail of a queue whose log
// names the batch in flight.
struct recover_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::pm_span<std::uint64_t> queue_records, std::uint64_t count,
                          std::uint64_t batch) const {
    const std::uint64_t q = t.global_id();
    if (q >= count) return;
    auto w = queue_records.bind(t);
    const std::uint64_t base = q * queue_words;
    // A log naming the batch in flight: this queue's head or tail may have
    // moved. Restoring twice restores once.
    if (w[base + q_log_batch] != batch + 1) return;
    w[base + q_head] = std::uint64_t(w[base + q_log_head]);
    w[base + q_tail] = std::uint64_t(w[base + q_log_tail]);
    t.gpm_persist();
    w[base + q_done_batch] = batch;
    t.gpm_persist();
  }
};

}  // namespace gpmx::apps::multiqueue
