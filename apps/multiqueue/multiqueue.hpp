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
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"

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

struct shape {
  std::uint32_t queues;     // = thread blocks
  std::uint32_t threads;    // per block
  std::uint64_t capacity;   // elements per queue
  std::uint64_t elems;      // elements a batch inserts into or removes from a queue (at most)
  std::uint32_t batches;
  std::uint32_t insert_percent;
  std::uint64_t seed;
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

// What batch b does to each queue.
std::vector<op> make_ops(const shape& s, std::uint64_t b);

class store {
 public:
  static store create(const std::filesystem::path& dir, const shape& s, pm::durability mode);
  static store open(const std::filesystem::path& dir, pm::durability mode);

  // One transactional batch; `removed` (queues x elems) receives the removed elements.
  void run_batch(cpu::executor& ex, const std::vector<op>& ops, std::uint64_t elems, pm::ordering o,
                 std::vector<std::uint64_t>& removed, variant v = variant::correct);
  // Restores head and tail of every queue the batch in flight touched;
  // returns whether there was one. Crash-safe and idempotent.
  bool recover(cpu::executor& ex);

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
  std::uint64_t txn_word(std::size_t i) const { return txn_.as<std::uint64_t>()[i]; }

  std::unique_ptr<pm::pool> pool_;
  pm::region queues_, ring_, txn_;
  batch_state state_;
  std::vector<std::uint32_t> flags_;  // device memory: the workers' block-scope release flags (sbrp)
};

// The sequential reference of one queue: head, tail and the live elements.
struct reference_queue {
  std::uint64_t head = 0, tail = 0;
  std::vector<std::uint64_t> elements;  // oldest first
};
void apply_reference(std::vector<reference_queue>& queues, const std::vector<op>& ops, const shape& s,
                     std::uint64_t b);

}  // namespace gpmx::apps::multiqueue
