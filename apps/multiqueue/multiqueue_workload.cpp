// The multiqueue as a workload (`gpmx run multiqueue`): one PM ring buffer
// per thread block, batches of inserts and removals, each queue's part a
// transaction its leader publishes; recovery restores head and tail of a
// batch in flight; the check replays the committed batches on the host.
#include <chrono>
#include <fmt/format.h>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/elapsed.hpp"
#include "multiqueue/multiqueue.hpp"

namespace gpmx::apps {
namespace {

namespace mq = multiqueue;
using clock_type = std::chrono::steady_clock;

constexpr const char* early_publish = "early-publish";
constexpr const char* unordered_log_mark = "unordered-log-mark";

mq::shape shape_of(const params& p) {
  mq::shape s{};
  const std::uint64_t queues = p.at("queues"), threads = p.at("threads"), capacity = p.at("capacity");
  const std::uint64_t elems = p.at("elems"), batches = p.at("batches"), pct = p.at("insert_percent");
  if (queues == 0 || queues > (1u << 20)) throw config_error(fmt::format("multiqueue: queues={} must be 1 to 2^20", queues));
  if (threads == 0 || threads > 1024) throw config_error(fmt::format("multiqueue: threads={} must be 1 to 1024", threads));
  if (capacity == 0 || capacity > (1u << 20))
    throw config_error(fmt::format("multiqueue: capacity={} must be 1 to 2^20", capacity));
  if (elems == 0 || elems > capacity)
    throw config_error(fmt::format("multiqueue: elems={} must be 1 to capacity={}", elems, capacity));
  if (batches > (1u << 20)) throw config_error(fmt::format("multiqueue: batches={} exceeds 2^20", batches));
  if (pct > 100) throw config_error(fmt::format("multiqueue: insert_percent={} exceeds 100", pct));
  if (queues * capacity > (1ull << 27))
    throw config_error(fmt::format("multiqueue: queues x capacity = {} exceeds 2^27 elements", queues * capacity));
  s.queues = std::uint32_t(queues);
  s.threads = std::uint32_t(threads);
  s.capacity = capacity;
  s.elems = elems;
  s.batches = std::uint32_t(batches);
  s.insert_percent = std::uint32_t(pct);
  s.seed = p.at("seed");
  return s;
}

class multiqueue_workload final : public workload {
 public:
  std::string_view name() const override { return "multiqueue"; }
  std::string_view summary() const override {
    return "one persistent ring buffer per thread block; batched insert/remove transactions logging head and tail "
           "(SBRP MQ)";
  }
  std::vector<param_spec> parameters() const override {
    return {{"queues", 64, "queues (one per thread block)"},
            {"threads", 32, "threads per block"},
            {"capacity", 1024, "elements a queue holds"},
            {"elems", 64, "elements a batch inserts into or removes from each queue (at most)"},
            {"batches", 8, "batches run"},
            {"insert_percent", 60, "chance, 0 to 100, that a batch inserts into a queue (else it removes)"},
            {"seed", 1, "seed of the insert/remove choices"}};
  }
  params small_params() const override {
    return {{"queues", 4}, {"threads", 8}, {"capacity", 32}, {"elems", 12}, {"batches", 6}, {"insert_percent", 60},
            {"seed", 1}};
  }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{early_publish,
             "the leader publishes the queue's new tail (or head) right after writing the log's batch mark, with no "
             "oFence after the mark and before any element is written, so the new tail can persist while the mark "
             "that lets recovery restore it does not",
             style::sbrp, "sbrp"},
            {unordered_log_mark,
             "the leader writes the logged head and tail and then the log's batch mark with no gpm_persist between "
             "them, so the mark can persist while the logged head or tail still holds the previous batch's value",
             style::epoch, "epoch"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    const mq::shape s = shape_of(p);
    (void)requested_bug(*this, e, st);
    const auto v = e.has_bug(early_publish)        ? mq::variant::early_publish
                   : e.has_bug(unordered_log_mark) ? mq::variant::unordered_log_mark
                                                   : mq::variant::correct;
    fresh_directory(e.dir);
    auto q = mq::store::create(e.dir, s, e.mode);
    write_meta(q.pool(), name(), st, p);
    run_report r;
    r.unit = "elements";
    std::vector<mq::reference_queue> sizes(s.queues);  // to count the elements moved
    std::vector<std::uint64_t> removed;
    const std::uint64_t before = q.bytes_persisted();
    const auto start = clock_type::now();
    for (std::uint32_t b = 0; b < s.batches; ++b) {
      const auto ops = mq::make_ops(s, b);
      q.run_batch(e.ex, ops, s.elems, st, removed, v);
      for (std::uint64_t i = 0; i < s.queues; ++i) {
        const std::uint64_t n = mq::count_of(ops[i], sizes[i].tail - sizes[i].head, s.capacity, s.elems);
        (ops[i] == mq::op::insert ? sizes[i].tail : sizes[i].head) += n;
        r.operations += n;
      }
      e.report(double(b + 1) / s.batches);
    }
    r.seconds = seconds_since(start);
    r.batches = s.batches;
    r.bytes_persisted = q.bytes_persisted() - before;
    return r;
  }

  recover_report recover(const env& e) override {
    require_file(e.dir, "multiqueue.pool", name());
    auto q = mq::store::open(e.dir, e.mode);
    (void)read_meta(q.pool(), *this);
    const auto start = clock_type::now();
    const std::uint64_t committed = q.committed_batches();
    recover_report r;
    r.repaired = q.recover(e.ex);
    r.seconds = seconds_since(start);
    r.what = r.repaired ? fmt::format("batch {} was undone: heads and tails restored from the logs", committed)
                        : fmt::format("no batch in flight; {} batches committed", committed);
    return r;
  }

  verify_report verify(const env& e) override {
    require_file(e.dir, "multiqueue.pool", name());
    auto q = mq::store::open(e.dir, e.mode);
    const run_meta m = read_meta(q.pool(), *this);
    const mq::shape s = check_recorded(q.pool(), [&] { return shape_of(m.p); });
    if (s.queues != q.queue_count() || s.capacity != q.capacity())  // the replay would read past the queues
      pm::throw_corrupt_region(q.pool().path(), "meta",
                               fmt::format("the recorded queues={} capacity={} differ from the pool's {} queues of {}",
                                           s.queues, s.capacity, q.queue_count(), q.capacity()));
    verify_report v;
    const std::uint64_t committed = q.committed_batches();
    if (q.batch_in_flight()) {
      v.detail = fmt::format("batch {} is in flight: recover first", committed);
      return v;
    }
    if (committed > s.batches) {
      v.detail = fmt::format("{} batches committed, but the run has only {}", committed, s.batches);
      return v;
    }
    std::vector<mq::reference_queue> ref(s.queues);
    for (std::uint64_t b = 0; b < committed; ++b) mq::apply_reference(ref, mq::make_ops(s, b), s, b);
    std::uint64_t checked = 0;
    for (std::uint64_t i = 0; i < s.queues; ++i) {
      const std::uint64_t head = q.word(i, mq::q_head), tail = q.word(i, mq::q_tail);
      if (head != ref[i].head || tail != ref[i].tail) {
        v.detail = fmt::format("queue {} has head {} tail {}; the replay of {} batches has head {} tail {}", i, head,
                               tail, committed, ref[i].head, ref[i].tail);
        return v;
      }
      if (q.word(i, mq::q_done_batch) != committed) {
        v.detail = fmt::format("queue {} marks batch {} done; {} batches committed", i,
                               q.word(i, mq::q_done_batch), committed);
        return v;
      }
      for (std::uint64_t k = 0; k < ref[i].elements.size(); ++k, ++checked)
        if (q.element(i, head + k) != ref[i].elements[k]) {
          v.detail = fmt::format("queue {} element {} (position {}) is {:#x}; the replay has {:#x}", i, k,
                                 (head + k) % s.capacity, q.element(i, head + k), ref[i].elements[k]);
          return v;
        }
    }
    v.ok = true;
    v.checked = checked;
    v.detail = fmt::format("{} queues ({} elements) after {} committed batches match the sequential replay", s.queues,
                           checked, committed);
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_multiqueue_workload() { return std::make_unique<multiqueue_workload>(); }

}  // namespace gpmx::apps
