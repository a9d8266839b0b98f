#include "gpmx/litmus/execution.hpp"

#include <fmt/format.h>

namespace gpmx::litmus {

std::string describe_event(const program& p, const event& e) {
  const auto& th = p.threads[static_cast<std::size_t>(e.thread)];
  std::string op = to_string(e.kind);
  if (e.kind == access_kind::rmw) op += fmt::format(".{}", to_string(e.rmw));
  op += fmt::format(".{}", to_string(e.label));
  if (e.label != access_label::data && e.scope == gpmx::scope::block) op += ".local";
  std::string s = fmt::format("{}#{} {} {}", th.name, e.po, op, p.addr_name(e.addr));
  if (e.reads) s += fmt::format(" read {}", e.rval);
  if (e.writes) s += fmt::format(" wrote {}", e.wval);
  if (e.kind == access_kind::rmw && !e.writes) s += " (failed)";
  if (e.used) s += " [value used]";
  s += fmt::format(" (line {})", e.pos.line);
  return s;
}

std::string describe_execution(const program& p, const execution& x) {
  std::string s;
  for (std::size_t i = 0; i < x.events.size(); ++i)
    s += fmt::format("{:>3}: {}\n", i, describe_event(p, x.events[i]));
  if (!x.complete) s += fmt::format("     stops early: {}\n", x.stop_reason);
  return s;
}

}  // namespace gpmx::litmus
