#include "queue_stage_sampler.hpp"

#include <chrono>

namespace gpmx::bench {

namespace {

template <class T>
T read(T* p) {
  return std::atomic_ref<T>(*p).load(std::memory_order_acquire);
}

}  // namespace

queue_stage_sampler::queue_stage_sampler(std::vector<storage::queue_pair_view> queues,
                                         std::vector<const storage::controller*> controllers, std::uint32_t threads)
    : queues_(std::move(queues)), controllers_(std::move(controllers)), threads_(threads) {
  // At least one look, also when stop() comes before the thread first runs
  // (a loaded machine): a run shorter than the interval still has a sample.
  thread_ = std::thread([this] {
    for (;;) {
      sample();
      if (stop_.load(std::memory_order_relaxed)) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
}

queue_stage_sampler::~queue_stage_sampler() {
  if (thread_.joinable()) stop();
}

// One look at every counter. They move while it looks, so a sample's
// stages need not add up exactly; their means over thousands do.
void queue_stage_sampler::sample() {
  double tickets = 0, tails = 0, unseen = 0, marked = 0;
  for (const storage::queue_pair_view& q : queues_) {
    tickets += double(read(q.ticket));
    tails += double(read(q.sq_tail));
    // The posted completions from the head on: a posted entry carries the
    // phase its pass expects; its thread has seen it once it is marked.
    const std::uint64_t head = read(q.cq_head);
    for (std::uint64_t p = head; p < head + q.depth; ++p) {
      const std::uint32_t word = read(storage::detail::completion_word(&q.cq[p % q.depth]));
      if (((word >> 16) & 1u) != storage::detail::expected_phase(p, q.depth)) break;
      if (read(&q.cq_mark[p % q.depth]) != 0) ++marked;
      else ++unseen;
    }
  }
  double fetched = 0, finished = 0, posted = 0;
  for (const storage::controller* c : controllers_) {
    const storage::controller_progress p = c->progress();
    fetched += double(p.fetched);
    finished += double(p.finished);
    posted += double(p.posted);
  }
  const double submitting = tickets - tails, queued = tails - fetched, in_io = fetched - finished,
               done = finished - posted;
  sum_.submitting += submitting;
  sum_.queued += queued;
  sum_.in_io += in_io;
  sum_.finished += done;
  sum_.unseen += unseen;
  sum_.unreclaimed += marked;
  sum_.between += double(threads_) - (submitting + queued + in_io + done + unseen + marked);
  ++sum_.samples;
}

queue_stages queue_stage_sampler::stop() {
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
  queue_stages m = sum_;
  if (m.samples == 0) return m;
  const double n = double(m.samples);
  for (double* v : {&m.submitting, &m.queued, &m.in_io, &m.finished, &m.unseen, &m.unreclaimed, &m.between}) *v /= n;
  return m;
}

}  // namespace gpmx::bench
