#include "multiqueue/multiqueue.hpp"

#include <random>
#include <fmt/format.h>

#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/stored_value.hpp"

namespace gpmx::apps::multiqueue {
namespace {

constexpr const char* pool_name = "multiqueue.pool";

// Words of region "txn".
enum txn_words : std::size_t { w_state = 0, w_queues = 1, w_capacity = 2, w_threads = 3 };

}  // namespace

std::vector<op> make_ops(const shape& s, std::uint64_t b) {
  std::mt19937_64 r(s.seed * 0x9e3779b97f4a7c15ull + b * 104729 + 11);
  std::vector<op> ops(s.queues);
  for (op& o : ops) o = r() % 100 < s.insert_percent ? op::insert : op::remove;
  return ops;
}

void apply_reference(std::vector<reference_queue>& queues, const std::vector<op>& ops, const shape& s,
                     std::uint64_t b) {
  for (std::uint64_t q = 0; q < queues.size(); ++q) {
    reference_queue& rq = queues[q];
    const std::uint64_t n = count_of(ops[q], rq.tail - rq.head, s.capacity, s.elems);
    if (ops[q] == op::insert) {
      for (std::uint64_t i = 0; i < n; ++i) rq.elements.push_back(value_of(b, q, i));
      rq.tail += n;
    } else {
      rq.elements.erase(rq.elements.begin(), rq.elements.begin() + std::ptrdiff_t(n));
      rq.head += n;
    }
  }
}

store::store(std::unique_ptr<pm::pool> pool)
    : pool_(std::move(pool)),
      queues_(pool_->find("queues")),
      ring_(pool_->find("ring")),
      txn_(pool_->find("txn")),
      state_(txn_, w_state * 8),
      flags_(std::size_t(queue_count() * txn_word(w_threads)), 0) {}

store store::create(const std::filesystem::path& dir, const shape& s, pm::durability mode) {
  const std::uint64_t queue_bytes = std::uint64_t(s.queues) * queue_words * 8;
  const std::uint64_t ring_bytes = std::uint64_t(s.queues) * s.capacity * 8;
  auto pool = std::make_unique<pm::pool>(
      pm::pool::create(dir / pool_name, queue_bytes + ring_bytes + (1 << 20), {.mode = mode}));
  pool->create_region("queues", queue_bytes);  // zeroed: empty queues, nothing logged
  pool->create_region("ring", ring_bytes);
  pm::region txn = pool->create_region("txn", 64);
  std::uint64_t* w = txn.as<std::uint64_t>().data();
  w[w_queues] = s.queues;
  w[w_capacity] = s.capacity;
  w[w_threads] = s.threads;
  txn.persist();
  return store(std::move(pool));
}

store store::open(const std::filesystem::path& dir, pm::durability mode) {
  auto pool = std::make_unique<pm::pool>(pm::pool::open(dir / pool_name, mode));
  check_stored_words(*pool);
  return store(std::move(pool));
}

// The shape in "txn" against the regions create() made for it, the
// transaction word, and every queue's head, tail and log against what a run
// leaves (head <= tail <= head + capacity, a log of no batch later than the
// one in flight); anything else is a damaged file.
void store::check_stored_words(pm::pool& pool) {
  const auto& file = pool.path();
  const pm::region txn = pool.find("txn");
  if (txn.size() < 32) pm::throw_corrupt_value(file, "txn", "size", txn.size(), "expected at least 32 bytes");
  const auto w = txn.as<const std::uint64_t>();
  const std::uint64_t nq = pm::check_stored(file, "txn", "queues (word 1)", w[w_queues], 1, 1u << 20);
  const std::uint64_t cap = pm::check_stored(file, "txn", "capacity (word 2)", w[w_capacity], 1, 1u << 20);
  pm::check_stored(file, "txn", "threads (word 3)", w[w_threads], 1, 1024);
  const pm::region queues = pool.find("queues"), ring = pool.find("ring");
  if (queues.size() != nq * queue_words * 8)
    pm::throw_corrupt_value(file, "queues", "size", queues.size(),
                            fmt::format("{} queues need {} bytes", nq, nq * queue_words * 8));
  if (ring.size() != nq * cap * 8)
    pm::throw_corrupt_value(file, "ring", "size", ring.size(),
                            fmt::format("{} queues of {} elements need {} bytes", nq, cap, nq * cap * 8));
  const batch_state state(txn, w_state * 8);
  state.check(file);
  const std::uint64_t latest = state.committed() + 1;  // the batch in flight (or the next), plus one
  const auto q = queues.as<const std::uint64_t>();
  for (std::uint64_t i = 0; i < nq; ++i) {
    const std::uint64_t* r = q.data() + i * queue_words;
    const auto field = [i](const char* what) { return fmt::format("{} of queue {}", what, i); };
    pm::check_stored(file, "queues", field("tail"), r[q_tail], r[q_head], r[q_head] + cap);
    pm::check_stored(file, "queues", field("logged tail"), r[q_log_tail], r[q_log_head], r[q_log_head] + cap);
    pm::check_stored(file, "queues", field("logged batch"), r[q_log_batch], 0, latest);
    pm::check_stored(file, "queues", field("done batch"), r[q_done_batch], 0, latest);
  }
}

std::uint64_t store::queue_count() const { return txn_word(w_queues); }
std::uint64_t store::capacity() const { return txn_word(w_capacity); }

void store::run_batch(const launch_target& ex, const std::vector<op>& ops, std::uint64_t elems, pm::ordering o,
                      std::vector<std::uint64_t>& removed, variant v) {
  const std::uint64_t nq = queue_count();
  if (ops.size() != nq || elems > capacity())
    throw pm::pm_error(pm::errc::bad_argument,
                       fmt::format("multiqueue: a batch of {} operations moving up to {} elements does not fit {} "
                                   "queues of {}", ops.size(), elems, nq, capacity()));
  if (batch_in_flight())
    throw pm::pm_error(pm::errc::bad_argument, "multiqueue: a batch did not finish; recover first");
  const std::uint64_t committed = committed_batches();
  kernel_vector<std::uint64_t> out(nq * elems, 0);
  const auto in = ex.input(std::span<const op>(ops));
  state_.set(committed, batch_phase::in_flight);
  ex.launch({dim3(std::uint32_t(nq)), dim3(std::uint32_t(txn_word(w_threads))), 0, "multiqueue_batch"},
            batch_kernel{}, queues_.span<std::uint64_t>(), ring_.span<std::uint64_t>(), capacity(),
            in.span(), elems, committed, flags_.data(), global_span<std::uint64_t>(out.data(), out.size()), o, v);
  removed.assign(out.begin(), out.end());
  state_.set(committed + 1, batch_phase::idle);  // every queue's transaction is durable
}

bool store::recover(const launch_target& ex) {
  if (!batch_in_flight()) return false;
  const std::uint64_t committed = committed_batches();
  const std::uint64_t nq = queue_count();
  // A block per queue, as the batch kernel runs: the restores spread over
  // every SM instead of queueing behind one SM's persists.
  ex.launch({dim3(std::uint32_t(nq)), dim3(1), 0, "multiqueue_recover"}, recover_kernel{},
            queues_.span<std::uint64_t>(), nq, committed);
  state_.set(committed, batch_phase::idle);
  return true;
}

}  // namespace gpmx::apps::multiqueue
