#include "multiqueue/multiqueue.hpp"

#include <random>
#include <fmt/format.h>

#include "gpmx/pm/crash_trigger.hpp"

namespace gpmx::apps::multiqueue {
namespace {

constexpr const char* pool_name = "multiqueue.pool";

// Words of region "txn".
enum txn_words : std::size_t { w_state = 0, w_queues = 1, w_capacity = 2, w_threads = 3 };

// The leader's publish: the queue's new tail (insert) or head (remove).
template <class Words>
GPMX_HD void publish(Words& w, std::uint64_t base, op what, std::uint64_t head, std::uint64_t tail, std::uint64_t n) {
  if (what == op::insert) w[base + q_tail] = tail + n;
  else w[base + q_head] = head + n;
}

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
  return store(std::make_unique<pm::pool>(pm::pool::open(dir / pool_name, mode)));
}

std::uint64_t store::queue_count() const { return txn_word(w_queues); }
std::uint64_t store::capacity() const { return txn_word(w_capacity); }

void store::run_batch(cpu::executor& ex, const std::vector<op>& ops, std::uint64_t elems, pm::ordering o,
                      std::vector<std::uint64_t>& removed, variant v) {
  const std::uint64_t nq = queue_count();
  if (ops.size() != nq || elems > capacity())
    throw pm::pm_error(pm::errc::bad_argument,
                       fmt::format("multiqueue: a batch of {} operations moving up to {} elements does not fit {} "
                                   "queues of {}", ops.size(), elems, nq, capacity()));
  if (batch_in_flight())
    throw pm::pm_error(pm::errc::bad_argument, "multiqueue: a batch did not finish; recover first");
  const std::uint64_t committed = committed_batches();
  removed.assign(nq * elems, 0);
  state_.set(committed, batch_phase::in_flight);
  ex.launch(
      {dim3(std::uint32_t(nq)), dim3(std::uint32_t(txn_word(w_threads))), 0, "multiqueue_batch"},
      [](auto& t, pm::pm_span<std::uint64_t> queue_words_span, pm::pm_span<std::uint64_t> ring, std::uint64_t cap,
         const op* what, std::uint64_t k, std::uint64_t batch, std::uint32_t* flags, std::uint64_t* out,
         pm::ordering order, variant bug) {
        const std::uint64_t q = t.block_rank();
        const std::uint32_t rank = t.thread_rank(), nth = t.block_dim().x;
        auto w = queue_words_span.bind(t);
        auto r = ring.bind(t);
        const std::uint64_t base = q * queue_words;
        GPMX_SHARED(t, std::uint64_t, plan, 3);  // head, tail, elements moved
        const bool early = bug == variant::early_publish;
        if (rank == 0) {
          const std::uint64_t head = w[base + q_head], tail = w[base + q_tail];
          w[base + q_log_head] = head;
          w[base + q_log_tail] = tail;
          // The logged head and tail before the mark that makes them valid
          // (left out by the seeded bug unordered-log-mark).
          if (bug != variant::unordered_log_mark) pm::order_persists(t, order);
          w[base + q_log_batch] = batch + 1;
          const std::uint64_t n = count_of(what[q], tail - head, cap, k);
          // The seeded bug early-publish: the new tail (or head) right after
          // the log's mark, before the fence and before any element.
          if (early) publish(w, base, what[q], head, tail, n);
          pm::order_persists(t, order);  // the log before the new head or tail
          plan[0] = head;
          plan[1] = tail;
          plan[2] = n;
        }
        t.syncthreads();
        const std::uint64_t head = plan[0], tail = plan[1], n = plan[2];
        for (std::uint64_t i = rank; i < n; i += nth) {
          if (what[q] == op::insert) r[q * cap + (tail + i) % cap] = value_of(batch, q, i);
          else out[q * k + i] = r[q * cap + (head + i) % cap];
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
        if (!early) publish(w, base, what[q], head, tail, n);
        pm::order_persists(t, order);  // published before the transaction is marked done
        w[base + q_done_batch] = batch + 1;
        if (order == pm::ordering::epoch) t.gpm_persist();  // sbrp: durable by the kernel's end
      },
      queues_.span<std::uint64_t>(), ring_.span<std::uint64_t>(), capacity(), ops.data(), elems, committed,
      flags_.data(), removed.data(), o, v);
  state_.set(committed + 1, batch_phase::idle);  // every queue's transaction is durable
}

bool store::recover(cpu::executor& ex) {
  if (!batch_in_flight()) return false;
  const std::uint64_t committed = committed_batches();
  const std::uint64_t nq = queue_count();
  ex.launch({dim3(std::uint32_t((nq + 63) / 64)), dim3(64), 0, "multiqueue_recover"},
            [](auto& t, pm::pm_span<std::uint64_t> words, std::uint64_t count, std::uint64_t batch) {
              const std::uint64_t q = t.global_id();
              if (q >= count) return;
              auto w = words.bind(t);
              const std::uint64_t base = q * queue_words;
              // A log naming the batch in flight: this queue's head or tail may
              // have moved. Restoring twice restores once.
              if (w[base + q_log_batch] != batch + 1) return;
              w[base + q_head] = std::uint64_t(w[base + q_log_head]);
              w[base + q_tail] = std::uint64_t(w[base + q_log_tail]);
              t.gpm_persist();
              w[base + q_done_batch] = batch;
              t.gpm_persist();
            },
            queues_.span<std::uint64_t>(), nq, committed);
  state_.set(committed, batch_phase::idle);
  return true;
}

}  // namespace gpmx::apps::multiqueue
