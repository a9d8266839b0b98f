// One pass over the trace in its order, which is a topological order of pmo
// (every edge of docs/persistency-models.md goes from an earlier event to a
// later one, and trace order is coherence order). Each thread carries the
// sets that order its next store, so a store's predecessor set is a union of
// already-final closures:
//   fenced      sbrp: stores ppo/prs-before the thread's next store
//               (own stores before its last fence-like event, and every set
//               an acquire of the thread received);
//   cumulative  sbrp: what a release of the thread covers (all own stores,
//               and every acquired set);
//   durable_hb  rule E: stores made durable by a durability point that
//               happens-before the thread's next event.
// The host is one more thread (launch == trace::host_launch): its stores are
// ordered only by its host persists H(x, n), which make its earlier stores
// to [x, x + n) durable, and by hb with the launches (everything the host
// made durable before a launch happens-before the launch's threads; a
// kernel's end happens-before the host's later events).
// An agent beside a launch (block trace::agent_block) is one more thread of
// the launch: its stores and its persists (PR) as a kernel thread's; the
// launch's end does not make its stores durable (only its persists do), and
// what it made durable happens-before what follows the launch.
// Sets are immutable and shared; a thread replaces its pointer when one grows.
#include "order_builder.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

namespace gpmx::check {
namespace {

using trace::event_kind;
using set_ptr = std::shared_ptr<const store_set>;
constexpr std::uint32_t no_thread = ~std::uint32_t(0);

// One instance of a barrier: (launch, block, warp, mask, k). A block
// barrier B(k) has warp no_warp and mask 0; a warp collective is the k-th
// of its lane with that mask of participating lanes.
using barrier_key = std::tuple<std::uint32_t, std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t>;
constexpr std::uint32_t no_warp = ~std::uint32_t(0);

struct thread_state {
  std::uint32_t launch = 0;
  std::uint64_t block = 0;
  set_ptr fenced, cumulative, durable_hb;
  std::vector<std::size_t> since_fence, since_release, since_durable;
  set_ptr base;  // fenced ∪ durable_hb, rebuilt when either changes
  bool base_stale = true;
  std::uint64_t barriers_arrived = 0;
  std::map<std::uint64_t, std::uint64_t> warp_collectives_arrived;  // by mask
  bool at_barrier = false;
  barrier_key at{};
  set_ptr released_at_barrier;  // this thread's own release of the barrier
};

// B(k) of one block: the union of the releases that arrived, the part
// released by two or more threads (so "every other thread's release" can be
// formed without one set per thread), and the union of durable_hb.
struct barrier_instance {
  store_set released, released_twice, durable;
};

struct release_record {
  std::uint32_t thread = 0;
  scope scope_of = scope::device;
  set_ptr cumulative, durable_hb;
};

// An agent_step event marks where an agent worked and orders nothing; an
// agent's stores and persists are events of its own thread (agent_block).
bool is_thread_event(event_kind k) {
  return k != event_kind::kernel_begin && k != event_kind::kernel_end && k != event_kind::agent_step;
}

scope narrower(scope a, scope b) { return static_cast<int>(a) < static_cast<int>(b) ? a : b; }

}  // namespace

class order_builder {
 public:
  order_builder(persist_order& order, const trace::trace& t) : o_(order), t_(t) {}

  void run() {
    assign_threads_and_nodes();
    const std::size_t n = o_.nodes_.size();
    o_.preds_.assign(n, nullptr);
    o_.durable_at_.assign(n, never);
    last_of_granule_.clear();
    for (std::uint64_t i = 0; i < t_.events.size(); ++i) step(i);
    for (auto& p : o_.preds_)
      if (!p) p = empty();
  }

 private:
  void assign_threads_and_nodes() {
    const std::uint32_t g = o_.options_.granularity;
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t, std::uint32_t>, std::uint32_t> ids;
    o_.thread_of_event_.assign(t_.events.size(), no_thread);
    o_.first_node_of_event_.assign(t_.events.size() + 1, 0);
    for (std::uint64_t i = 0; i < t_.events.size(); ++i) {
      const trace::event& e = t_.events[i];
      o_.first_node_of_event_[i] = o_.nodes_.size();
      if (!is_thread_event(e.kind)) continue;
      const auto key = std::make_tuple(e.launch, e.block, e.warp, e.lane);
      auto [it, added] = ids.emplace(key, static_cast<std::uint32_t>(threads_.size()));
      if (added) {
        threads_.emplace_back();
        threads_.back().launch = e.launch;
        threads_.back().block = e.block;
      }
      o_.thread_of_event_[i] = it->second;
      if (e.kind != event_kind::pm_write || e.bytes == 0) continue;
      const std::uint64_t end = e.address + e.bytes;
      for (std::uint64_t gran = e.address / g * g; gran < end; gran += g) {
        o_.nodes_.push_back({i, gran, std::max(gran, e.address), std::min(gran + g, end), it->second});
        if (o_.nodes_.size() > o_.options_.max_granule_stores)
          throw check_error("trace has more than " + std::to_string(o_.options_.max_granule_stores) +
                            " granule-stores at granularity " + std::to_string(g) +
                            " (reached at event #" + std::to_string(i) +
                            "); raise order_options::max_granule_stores (gpmx check --max-granule-stores) or check a shorter run");
      }
    }
    o_.first_node_of_event_[t_.events.size()] = o_.nodes_.size();
  }

  set_ptr empty() {
    if (!empty_) empty_ = std::make_shared<const store_set>(o_.nodes_.size());
    return empty_;
  }

  void add_closure(store_set& s, std::size_t id) const {
    s |= *o_.preds_[id];
    s.insert(id);
  }

  // `base` with the closures of `ids` added; `base` itself when `ids` is empty.
  set_ptr with_closures(const set_ptr& base, const std::vector<std::size_t>& ids) {
    if (ids.empty()) return base;
    store_set s = base ? *base : store_set(o_.nodes_.size());
    for (std::size_t id : ids) add_closure(s, id);
    return std::make_shared<const store_set>(std::move(s));
  }

  static set_ptr merged(const set_ptr& a, const set_ptr& b) {
    if (!b || b->empty()) return a;
    if (!a || b->is_subset_of(*a)) return a ? a : b;
    if (a->is_subset_of(*b)) return b;
    store_set s = *a;
    s |= *b;
    return std::make_shared<const store_set>(std::move(s));
  }

  bool sbrp_like() const {
    return o_.options_.model == persist_model::sbrp || o_.options_.model == persist_model::sbrp_promoted;
  }

  // incl(S, A, B) for GPU threads: block scope needs the same block of the
  // same launch; device and system contain every GPU thread of the process.
  bool includes(scope s, const thread_state& a, const thread_state& b) const {
    if (o_.options_.model == persist_model::sbrp_promoted && s == scope::block) s = scope::device;
    if (s == scope::block) return a.launch == b.launch && a.block == b.block;
    return true;
  }

  thread_state& new_thread_state(std::uint32_t id) {
    thread_state& th = threads_[id];
    if (!th.durable_hb) th.durable_hb = before_launches_;  // everything before the launch hb its threads
    return th;
  }

  void step(std::uint64_t i) {
    const trace::event& e = t_.events[i];
    if (e.kind == event_kind::kernel_begin) return;
    if (e.kind == event_kind::kernel_end) return kernel_end(i, e.launch);
    if (e.kind == event_kind::agent_step) return;
    const std::uint32_t id = o_.thread_of_event_[i];
    thread_state& th = new_thread_state(id);
    if (trace::is_host(e)) return host_step(i, th, e);
    if (th.at_barrier) leave_barrier(th);
    switch (e.kind) {
      case event_kind::pm_write: return store(i, th);
      case event_kind::gpm_persist:
      case event_kind::dfence:
        fence_like(th);
        return durability_point(i, th);
      case event_kind::ofence: return fence_like(th);
      case event_kind::prel: return release(i, id, th, e.scope_of);
      case event_kind::pacq: return acquire(i, th, e);
      case event_kind::barrier:
        return arrive_at_barrier(th, {th.launch, th.block, no_warp, 0, th.barriers_arrived++});
      case event_kind::warp_collective:  // a barrier among the lanes of its mask
        return arrive_at_barrier(th, {th.launch, th.block, e.warp, e.value, th.warp_collectives_arrived[e.value]++});
      case event_kind::persist_range: return persist_range(i, th, e);
      default: return;  // loads and atomics order no persists (docs/check.md)
    }
  }

  void host_step(std::uint64_t i, thread_state& host, const trace::event& e) {
    // Kernels that ended since the host's last event happen-before it.
    if (before_launches_ && (!host.durable_hb || !before_launches_->is_subset_of(*host.durable_hb))) {
      host.durable_hb = merged(host.durable_hb, before_launches_);
      host.base_stale = true;
    }
    if (e.kind == event_kind::pm_write) return store(i, host);
    if (e.kind == event_kind::host_persist) return host_persist(i, host, e);
  }

  // H(x, n): the host's earlier stores to [x, x + n) become durable; what the
  // host made durable happens-before every later launch.
  void host_persist(std::uint64_t i, thread_state& host, const trace::event& e) {
    std::vector<std::size_t> covered, rest;
    for (std::size_t n : host.since_durable) {
      const granule_store& g = o_.nodes_[n];
      (g.first >= e.address && g.end <= e.address + e.bytes ? covered : rest).push_back(n);
    }
    if (covered.empty()) return;
    for (std::size_t n : covered) o_.durable_at_[n] = std::min(o_.durable_at_[n], i);
    host.since_durable = std::move(rest);
    host.durable_hb = with_closures(host.durable_hb, covered);
    host.base_stale = true;
    before_launches_ = merged(before_launches_, host.durable_hb);
  }

  // PR(x, n): every store to [x, x + n) issued before it, by any thread, is
  // durable when it returns (rule PR); what it made durable happens-before
  // the persisting thread's later events. It orders nothing else: not the
  // thread's own stores outside the range (no fence), not other threads.
  void persist_range(std::uint64_t i, thread_state& th, const trace::event& e) {
    std::vector<std::size_t> covered;
    const std::size_t issued = o_.first_node_of_event_[i];
    for (std::size_t n = 0; n < issued; ++n) {
      const granule_store& g = o_.nodes_[n];
      if (g.first < e.address || g.end > e.address + e.bytes) continue;
      o_.durable_at_[n] = std::min(o_.durable_at_[n], i);
      covered.push_back(n);
    }
    if (covered.empty()) return;
    th.durable_hb = with_closures(th.durable_hb, covered);
    th.base_stale = true;
  }

  void store(std::uint64_t i, thread_state& th) {
    set_ptr base;
    if (o_.options_.model == persist_model::strict) {
      base = strict_prefix_;
    } else {
      if (th.base_stale) {
        th.base = sbrp_like() ? merged(th.fenced, th.durable_hb) : th.durable_hb;
        th.base_stale = false;
      }
      base = th.base ? th.base : empty();
    }
    if (!base) base = empty();
    for (std::size_t n = o_.first_node_of_event_[i]; n < o_.first_node_of_event_[i + 1]; ++n) {
      auto prev = last_of_granule_.find(o_.nodes_[n].granule);
      if (prev == last_of_granule_.end()) {
        o_.preds_[n] = base;
      } else {  // persist coherence: the granule's earlier stores persist first
        store_set s = *base;
        add_closure(s, prev->second);
        o_.preds_[n] = std::make_shared<const store_set>(std::move(s));
      }
      last_of_granule_[o_.nodes_[n].granule] = n;
      th.since_fence.push_back(n);
      th.since_release.push_back(n);
      th.since_durable.push_back(n);
      if (o_.options_.model == persist_model::strict) o_.durable_at_[n] = i;
    }
    if (o_.options_.model == persist_model::strict) {
      std::vector<std::size_t> these;
      for (std::size_t n = o_.first_node_of_event_[i]; n < o_.first_node_of_event_[i + 1]; ++n) these.push_back(n);
      strict_prefix_ = with_closures(strict_prefix_ ? strict_prefix_ : empty(), these);
    }
  }

  // OF, DF, P: W ppo F ppo W' (sbrp).
  void fence_like(thread_state& th) {
    if (!sbrp_like()) return;
    if (!th.since_fence.empty()) {
      th.fenced = with_closures(th.fenced, th.since_fence);
      th.since_fence.clear();
      th.base_stale = true;
    }
  }

  // P, DF: every store po-before it is made durable (rule E).
  void durability_point(std::uint64_t i, thread_state& th) {
    for (std::size_t n : th.since_durable) o_.durable_at_[n] = std::min(o_.durable_at_[n], i);
    if (!th.since_durable.empty()) {
      th.durable_hb = with_closures(th.durable_hb, th.since_durable);
      th.since_durable.clear();
      th.base_stale = true;
    }
  }

  void kernel_end(std::uint64_t i, std::uint32_t launch) {
    std::vector<std::size_t> of_kernel;
    for (std::size_t n = 0; n < o_.nodes_.size() && o_.nodes_[n].event < i; ++n) {
      const trace::event& e = t_.events[o_.nodes_[n].event];
      if (e.launch == launch && !trace::is_agent(e)) {
        o_.durable_at_[n] = std::min(o_.durable_at_[n], i);
        of_kernel.push_back(n);
      }
    }
    before_launches_ = with_closures(before_launches_, of_kernel);
    for (const thread_state& th : threads_)
      if (th.launch == launch && th.block == trace::agent_block) before_launches_ = merged(before_launches_, th.durable_hb);
  }

  void bring_release_up_to_date(thread_state& th) {
    if (!sbrp_like()) return;
    th.cumulative = with_closures(th.cumulative, th.since_release);
    th.since_release.clear();
  }

  void release(std::uint64_t i, std::uint32_t id, thread_state& th, scope s) {
    bring_release_up_to_date(th);
    releases_[i] = release_record{id, s, th.cumulative, th.durable_hb};
  }

  void acquire(std::uint64_t i, thread_state& th, const trace::event& e) {
    if (e.reads_from == trace::no_event) return;
    auto rel = releases_.find(e.reads_from);
    if (rel == releases_.end())
      throw check_error("pacq at event #" + std::to_string(i) + " reads from event #" +
                        std::to_string(e.reads_from) + ", which is not an earlier prel");
    const release_record& r = rel->second;
    if (!includes(narrower(r.scope_of, e.scope_of), threads_[r.thread], th)) return;  // no prs, no hb edge
    absorb(th, r.cumulative, r.durable_hb);
  }

  // An acquire that takes effect: Acq ppo W, Acq ppo F, Acq ppo Rel; hb.
  void absorb(thread_state& th, const set_ptr& released, const set_ptr& durable) {
    if (sbrp_like()) {
      th.fenced = merged(th.fenced, released);
      th.cumulative = merged(th.cumulative, released);
    }
    th.durable_hb = merged(th.durable_hb, durable);
    th.base_stale = true;
  }

  void arrive_at_barrier(thread_state& th, const barrier_key& key) {
    bring_release_up_to_date(th);
    th.at = key;
    auto [it, added] = barriers_.try_emplace(key);
    barrier_instance& b = it->second;
    if (added) b = {store_set(o_.nodes_.size()), store_set(o_.nodes_.size()), store_set(o_.nodes_.size())};
    if (th.cumulative) {
      store_set twice = b.released;
      twice &= *th.cumulative;
      b.released_twice |= twice;
      b.released |= *th.cumulative;
    }
    if (th.durable_hb) b.durable |= *th.durable_hb;
    th.released_at_barrier = th.cumulative;
    th.at_barrier = true;
  }

  // The Acq half of B(k): it reads from every other thread's release, which
  // is what two or more threads released plus what only others released.
  void leave_barrier(thread_state& th) {
    th.at_barrier = false;
    const barrier_instance& b = barriers_.at(th.at);
    set_ptr from_others;
    if (sbrp_like()) {
      store_set others = b.released;
      if (th.released_at_barrier) others.subtract(*th.released_at_barrier);
      others |= b.released_twice;
      from_others = std::make_shared<const store_set>(std::move(others));
    }
    absorb(th, from_others, std::make_shared<const store_set>(b.durable));
  }

  persist_order& o_;
  const trace::trace& t_;
  std::vector<thread_state> threads_;
  std::unordered_map<std::uint64_t, std::size_t> last_of_granule_;
  std::unordered_map<std::uint64_t, release_record> releases_;
  std::map<barrier_key, barrier_instance> barriers_;
  // What happens-before every later launch: the ended kernels' stores and
  // what the host made durable.
  set_ptr before_launches_, strict_prefix_, empty_;
};

void build_persist_order(persist_order& order, const trace::trace& t) { order_builder(order, t).run(); }

}  // namespace gpmx::check
