#include "gpmx/check/durable_order.hpp"

#include <unordered_map>

namespace gpmx::check {

durable_order_result check_durable_order(const trace::trace& t, const persist_order& order,
                                         const durable_time_fn& durable_time) {
  constexpr std::uint64_t unchecked = never - 1;  // host, agent and unviewed stores
  std::vector<std::uint64_t> durable(order.size(), unchecked);
  durable_order_result r;
  std::size_t k = 0;
  for (std::uint64_t i = 0; i < t.events.size(); ++i) {
    const trace::event& e = t.events[i];
    if (e.kind != trace::event_kind::pm_write || trace::is_host(e) || e.block == trace::unviewed_block ||
        trace::is_agent(e))
      continue;
    const std::size_t store = k++;
    const auto [first, end] = order.nodes_of(i);
    for (std::size_t n = first; n < end; ++n) {
      durable[n] = durable_time(store, order.node(n).first);
      ++r.kernel_stores;
      if (durable[n] != never) ++r.durable;
    }
  }
  // The latest durable time in each distinct predecessor set (sets are
  // shared among stores), and which member has it.
  struct latest {
    std::uint64_t when = 0;
    std::size_t who = 0;
  };
  std::unordered_map<const store_set*, latest> memo;
  for (std::size_t n = 0; n < order.size(); ++n) {
    if (durable[n] == unchecked) continue;
    const store_set& preds = order.predecessors(n);
    auto it = memo.find(&preds);
    if (it == memo.end()) {
      latest l;
      preds.for_each([&](std::size_t p) {
        if (durable[p] != unchecked && durable[p] >= l.when) l = {durable[p], p};
      });
      it = memo.emplace(&preds, l).first;
    }
    const latest& l = it->second;
    // `never` is later than any time: a store never durable constrains nothing.
    if (l.when > durable[n]) {
      ++r.violations;
      if (r.first.size() < 10) r.first.push_back({n, l.who, durable[n], l.when});
    }
  }
  return r;
}

}  // namespace gpmx::check
