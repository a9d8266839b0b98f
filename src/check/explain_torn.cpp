// A store wider than the persist granularity persists granule by granule: an
// image may hold some of its granules and not the others. Every such image
// of one store is one cause, named by the store.
#include <algorithm>
#include <fmt/format.h>

#include "explain_rules.hpp"

namespace gpmx::check::rules {

void torn_stores(const trace::trace& t, const persist_order& order, const store_set& image, std::uint64_t position,
                 std::size_t most, std::vector<missing_order>& out) {
  const std::size_t issued = order.issued_before(position);
  for (std::uint64_t e = 0; e < t.events.size() && out.size() < most; ++e) {
    if (t.events[e].kind != trace::event_kind::pm_write) continue;
    const auto [first, end] = order.nodes_of(e);
    if (end - first < 2 || end > issued) continue;
    std::size_t kept = end, lost = end;  // the first granule of each kind
    for (std::size_t id = first; id < end; ++id) {
      std::size_t& first_of_kind = image.contains(id) ? kept : lost;
      if (first_of_kind == end) first_of_kind = id;
    }
    if (kept == end || lost == end) continue;
    const trace::event& w = t.events[e];
    const std::uint64_t g = order.granularity(), base = w.address & ~(g - 1);
    const std::uint64_t kept_at = order.node(kept).granule - base, lost_at = order.node(lost).granule - base;
    missing_order m;
    m.persisted_event = e;
    m.lost_event = e;
    m.torn = true;
    m.message = fmt::format(
        "the store at {} ({} bytes) tore between its {}-byte granules at +{} and +{}: the one at +{} persisted and "
        "the one at +{} did not, so recovery can read half of it; a value recovery trusts whole must fit in one "
        "granule, or be validated (a checksum, or a flag written and persisted after it)",
        event_site(t, e), w.bytes, g, std::min(kept_at, lost_at), std::max(kept_at, lost_at), kept_at, lost_at);
    out.push_back(std::move(m));
  }
}

}  // namespace gpmx::check::rules
