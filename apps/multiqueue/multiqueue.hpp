#pragma once
// The multiqueue of SBRP's evaluation (Table 2, "MQ"): one persistent ring
// buffer per thread block. A batch is one kernel in which every block runs a
// transaction on its queue, inserting or removing up to `elems` elements:
//   1. the leader (thread 0) logs the queue's head and tail and then the
//      batch number that makes the log valid (intra-thread order);
//   2. the workers (every thread, the leader too) write their share of the
//      new elements, or read their share of the removed ones;
//   3. the leader publishes the new tail (or head) once every worker's
//      elements are persisted (intra-block order: epoch, gpm_persist then
//      syncthreads; sbrp, each worker prels a block-scope flag and the leader
//      pacqs them all), then marks its transaction done (intra-thread order).
// A transaction word (batch_state.hpp) brackets the whole batch; recovery of
// a batch in flight restores head and tail of every queue whose log names it.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "common/batch_state.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"
#include "multiqueue/multiqueue_kernels.hpp"  // queue_word, op, variant, value_of, count_of

namespace gpmx::apps::multiqueue {

struct shape {
  std::uint32_t queues;     // = thread blocks
  std::uint32_t threads;    // per block
  std::uint64_t capacity;   // elements per queue
  std::uint64_t elems;      // elements a batch inserts into or removes from a queue (at most)
  std::uint32_t batches;
  std::uint32_t insert_percent;
  std::uint64_t seed;
};

// What batch b does to each queue.
std::vector<op> make_ops(const shape& s, std::uint64_t b);

class store {
 public:
  static store create(const std::filesystem::path& dir, const shape& s, pm::durability mode);
  static store open(const std::filesystem::path& dir, pm::durability mode);

  // One transactional batch; `removed` (queues x elems) receives the removed elements.
  void run_batch(const launch_target& ex, const std::vector<op>& ops, std::uint64_t elems, pm::ordering o,
                 std::vector<std::uint64_t>& removed, variant v = variant::correct);
  // Restores head and tail of every queue the batch in flight touched;
  // returns whether there was one. Crash-safe and idempotent.
  bool recover(const launch_target& ex);

  bool batch_in_flight() const { return state_.in_flight(); }
  std::uint64_t committed_batches() const { return state_.committed(); }
  std::uint64_t word(std::uint64_t q, queue_word w) const { return queues_.as<std::uint64_t>()[q * queue_words + w]; }
  std::uint64_t element(std::uint64_t q, std::uint64_t position) const {
    return ring_.as<std::uint64_t>()[q * capacity() + position % capacity()];
  }
  std::uint64_t queue_count() const;
  std::uint64_t capacity() const;
  std::uint64_t bytes_persisted() const { return pool_->bytes_persisted(); }
  pm::pool& pool() { return *pool_; }

 private:
  explicit store(std::unique_ptr<pm::pool> pool);
  // Throws pm_error(corrupt_value) naming a stored word a run cannot leave.
  static void check_stored_words(pm::pool& pool);
  std::uint64_t txn_word(std::size_t i) const { return txn_.as<std::uint64_t>()[i]; }

  std::unique_ptr<pm::pool> pool_;
  pm::region queues_, ring_, txn_;
  batch_state state_;
  kernel_vector<std::uint32_t> flags_;  // device memory: the workers' block-scope release flags (sbrp)
};

// The sequential reference of one queue: head, tail and the live elements.
struct reference_queue {
  std::uint64_t head = 0, tail = 0;
  std::vector<std::uint64_t> elements;  // oldest first
};
void apply_reference(std::vector<reference_queue>& queues, const std::vector<op>& ops, const shape& s,
                     std::uint64_t b);

}  // namespace gpmx::apps::multiqueue
