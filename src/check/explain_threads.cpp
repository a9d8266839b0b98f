// Explanations across threads: a host store never persisted before the
// launch that relied on it, and a GPU thread's store lost while a thread it
// handed off to made a store that persisted.
#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "explain_rules.hpp"

namespace gpmx::check::rules {

using trace::event_kind;

void unpersisted_host_stores(const trace::trace& t, const persist_order& order, const store_set& image,
                             std::uint64_t position, std::size_t most, std::vector<missing_order>& out) {
  const std::size_t issued = order.issued_before(position);
  std::set<std::uint64_t> reported;
  for (std::size_t id = 0; id < issued && out.size() < most; ++id) {
    const std::uint64_t e = order.node(id).event;
    if (image.contains(id) || !trace::is_host(t.events[e]) || reported.contains(e)) continue;
    std::uint64_t launch = e + 1;
    while (launch < position && t.events[launch].kind != event_kind::kernel_begin) ++launch;
    if (launch >= position) continue;
    // A store of that launch or a later one the image kept: it was made on the host's data.
    std::size_t kept = issued;
    for (std::size_t k = order.nodes_of(launch).first; k < issued && kept == issued; ++k)
      if (image.contains(k) && !trace::is_host(t.events[order.node(k).event])) kept = k;
    if (kept == issued) continue;
    reported.insert(e);
    const std::uint64_t ke = order.node(kept).event;
    missing_order m;
    m.persisted_event = ke;
    m.lost_event = e;
    const std::string site = t.launch_site(t.events[launch]);
    m.message = concat({store_phrase(t, e), " was never persisted before kernel '", t.text_of(t.events[launch]),
                        "' was launched", site.empty() ? "" : " at ", site, " (event #", std::to_string(launch),
                        "), while ", store_phrase(t, ke),
                        " persisted: a pool::persist or region::persist of the host's store before that launch is "
                        "missing"});
    out.push_back(std::move(m));
  }
}

namespace {

bool is_gpu(const trace::event& e) {
  return !trace::is_host(e) && e.block != trace::unviewed_block && !trace::is_agent(e);
}

// Per dense thread: its synchronising events before the crash.
struct sync_events {
  std::vector<std::vector<std::uint64_t>> all;
  sync_events(const trace::trace& t, const persist_order& order, std::uint64_t position) {
    for (std::uint64_t j = 0; j < position && j < t.events.size(); ++j) {
      const trace::event& e = t.events[j];
      if (!is_sync(e.kind) || trace::is_host(e)) continue;
      const std::uint32_t th = order.thread_of_event(j);
      if (th >= all.size()) all.resize(th + 1);
      all[th].push_back(j);
    }
  }
  static bool is_sync(event_kind k) {
    return k == event_kind::barrier || k == event_kind::warp_collective || k == event_kind::atomic ||
           k == event_kind::prel || k == event_kind::pacq;
  }
  static bool is_barrier(event_kind k) { return k == event_kind::barrier || k == event_kind::warp_collective; }
  // Both are the same kind of barrier: block barriers, or warp collectives with one mask.
  static bool same_barrier(const trace::event& a, const trace::event& b) {
    return a.kind == b.kind && (a.kind == event_kind::barrier || a.value == b.value);
  }
  // The thread's first hand-off (barrier, warp collective, atomic, prel) after `after`, or no_event.
  std::uint64_t handoff_after(const trace::trace& t, std::uint32_t th, std::uint64_t after) const {
    if (th >= all.size()) return trace::no_event;
    for (auto it = std::upper_bound(all[th].begin(), all[th].end(), after); it != all[th].end(); ++it)
      if (t.events[*it].kind != event_kind::pacq) return *it;
    return trace::no_event;
  }
  // Whether thread `u`, before `before`, synchronised with the hand-off `h` of thread `th`.
  bool reached(const trace::trace& t, std::uint32_t th, std::uint64_t h, std::uint32_t u, std::uint64_t before) const {
    if (u >= all.size()) return false;
    const trace::event& a = t.events[h];
    if (is_barrier(a.kind)) {  // the same instance: the k-th of its kind of each thread taking part
      std::size_t k = 0;
      for (std::uint64_t j : all[th])
        if (j < h && same_barrier(t.events[j], a)) ++k;
      for (std::uint64_t j : all[u]) {
        if (j >= before) return false;
        const trace::event& b = t.events[j];
        if (!same_barrier(b, a)) continue;
        if (k-- == 0)
          return b.launch == a.launch && b.block == a.block &&
                 (a.kind == event_kind::barrier || b.warp == a.warp);
      }
      return false;
    }
    const auto it = std::upper_bound(all[u].begin(), all[u].end(), h);  // an atomic or acquire after the hand-off
    return it != all[u].end() && *it < before;
  }
};

}  // namespace

void cross_thread_handoffs(const trace::trace& t, const persist_order& order, const store_set& image,
                           std::uint64_t position, std::size_t most, std::vector<missing_order>& out) {
  const std::size_t issued = order.issued_before(position);
  const sync_events sync(t, order, position);
  std::set<std::uint64_t> tried;
  for (std::size_t id = 0; id < issued && out.size() < most && tried.size() < 64; ++id) {
    const granule_store& lost = order.node(id);
    if (image.contains(id) || !is_gpu(t.events[lost.event]) || !tried.insert(lost.event).second) continue;
    const std::uint64_t h = sync.handoff_after(t, lost.thread, lost.event);
    if (h == trace::no_event) continue;
    // The store of a thread it handed off to that the image kept, one that persisted if there is one.
    std::size_t kept = issued;
    for (std::size_t k = order.nodes_of(h).first; k < issued; ++k) {
      const granule_store& g = order.node(k);
      if (!image.contains(k) || g.thread == lost.thread || !is_gpu(t.events[g.event]) ||
          !sync.reached(t, lost.thread, h, g.thread, g.event))
        continue;
      if (kept == issued) kept = k;
      if (order.durable_at(k) < position) {
        kept = k;
        break;
      }
    }
    if (kept == issued) continue;
    const std::uint64_t ke = order.node(kept).event;
    const std::string storer = thread_name(t, t.events[lost.event]);
    missing_order m;
    m.persisted_event = ke;
    m.lost_event = lost.event;
    m.handoff_event = h;
    m.message = concat({store_phrase(t, lost.event), " by ", storer, " was not durable when ", store_phrase(t, ke),
                        " by ", thread_name(t, t.events[ke]),
                        order.durable_at(kept) < position ? " persisted" : " was kept",
                        ", which that thread made after the hand-off at ", event_site(t, h), " (",
                        trace::to_string(t.events[h].kind), "): a gpm_persist or dfence in ", storer,
                        " after its store and before the hand-off is missing"});
    out.push_back(std::move(m));
  }
}

}  // namespace gpmx::check::rules
