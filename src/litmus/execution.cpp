#include "gpmx/litmus/execution.hpp"

#include <fmt/format.h>

namespace gpmx::litmus {

std::string describe_event(const Program& p, const Event& e) {
  const auto& th = p.threads[static_cast<std::size_t>(e.thread)];
  std::string op = to_string(e.kind);
  if (e.kind == AccessKind::Rmw) op += fmt::format(".{}", to_string(e.rmw));
  op += fmt::format(".{}", to_string(e.label));
  if (e.label != Label::Data && e.scope == Scope::Local) op += ".local";
  std::string s = fmt::format("{}#{} {} {}", th.name, e.po, op, p.addr_name(e.addr));
  if (e.reads) s += fmt::format(" read {}", e.rval);
  if (e.writes) s += fmt::format(" wrote {}", e.wval);
  if (e.kind == AccessKind::Rmw && !e.writes) s += " (failed)";
  if (e.used) s += " [value used]";
  s += fmt::format(" (line {})", e.pos.line);
  return s;
}

std::string describe_execution(const Program& p, const Execution& x) {
  std::string s;
  for (std::size_t i = 0; i < x.events.size(); ++i)
    s += fmt::format("{:>3}: {}\n", i, describe_event(p, x.events[i]));
  if (!x.complete) s += fmt::format("     stops early: {}\n", x.stop_reason);
  return s;
}

}  // namespace gpmx::litmus
