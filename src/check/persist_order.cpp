// persist_order: option checks and the queries on the computed closure.
#include "gpmx/check/persist_order.hpp"

#include <bit>
#include <string>

#include "order_builder.hpp"

namespace gpmx::check {

persist_order::persist_order(const trace::trace& t, const order_options& options)
    : options_(options), event_count_(t.events.size()) {
  const std::uint32_t g = options.granularity;
  if (g == 0 || g > 4096 || !std::has_single_bit(g))
    throw check_error("persist granularity " + std::to_string(g) +
                      " is not a power of two between 1 and 4096 bytes (4, 8 or 64 are the usual ones)");
  build_persist_order(*this, t);
}

std::size_t persist_order::issued_before(std::uint64_t position) const {
  if (position > event_count_)
    throw check_error("crash position " + std::to_string(position) + " is past the end of a trace of " +
                      std::to_string(event_count_) + " events");
  return first_node_of_event_[position];
}

void persist_order::close(store_set& s) const {
  if (s.universe() != nodes_.size())
    throw check_error("a set over " + std::to_string(s.universe()) + " granule-stores given to an order of " +
                      std::to_string(nodes_.size()));
  const std::vector<std::size_t> members = s.ids();
  for (std::size_t id : members) s |= *preds_[id];  // each predecessor set is already transitive
}

bool persist_order::is_closed(const store_set& s) const {
  bool closed = s.universe() == nodes_.size();
  if (closed) s.for_each([&](std::size_t id) { closed = closed && preds_[id]->is_subset_of(s); });
  return closed;
}

}  // namespace gpmx::check
