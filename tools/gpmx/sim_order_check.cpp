#include "sim_order_check.hpp"

#include <fmt/format.h>

#include "gpmx/check/persist_order.hpp"

namespace gpmx::cli {

order_check_summary check_sim_order(const trace::trace& t, const sim::durability_tracker& tracker,
                                    const std::string& model, std::uint32_t core_mhz) {
  order_check_summary s;
  s.model = model;
  const check::persist_order order(t, {.model = check::parse_model(model),
                                       .granularity = 8,
                                       .max_granule_stores = std::size_t(1) << 18});
  s.granule_stores = order.size();
  s.result = check::check_durable_order(
      t, order, [&](std::size_t k, std::uint64_t address) { return tracker.durable_time(k, address); });
  if (!s.result.first.empty()) {
    const check::durable_order_violation& v = s.result.first.front();
    const auto cycle = [&](std::uint64_t ps) {
      return ps == check::never ? std::string("never") : fmt::format("cycle {}", sim::picos_to_cycles(ps, core_mhz));
    };
    const trace::event& store = t.events[order.node(v.store).event];
    const trace::event& pred = t.events[order.node(v.predecessor).event];
    s.first_violation = fmt::format(
        "the store at {}:{} (block {}, warp {}, lane {}) was durable at {}, but a store the {} model orders "
        "before it, at {}:{} (block {}, warp {}, lane {}), at {}",
        t.text_of(store), store.line, store.block, store.warp, store.lane, cycle(v.store_durable), model,
        t.text_of(pred), pred.line, pred.block, pred.warp, pred.lane, cycle(v.predecessor_durable));
  }
  return s;
}

nlohmann::json to_json(const order_check_summary& s) {
  return {{"model", s.model},
          {"granule_stores", s.granule_stores},
          {"kernel_granule_stores", s.result.kernel_stores},
          {"durable", s.result.durable},
          {"violations", s.result.violations},
          {"first_violation", s.first_violation}};
}

void print_order_check(const order_check_summary& s) {
  fmt::print("\ndurable order against the {} persist order: {} kernel granule-stores ({} durable), ", s.model,
             s.result.kernel_stores, s.result.durable);
  if (s.result.violations == 0) {
    fmt::print("no store durable before a store ordered before it\n");
    return;
  }
  fmt::print("{} durable before a store ordered before them; first: {}\n", s.result.violations, s.first_violation);
}

}  // namespace gpmx::cli
