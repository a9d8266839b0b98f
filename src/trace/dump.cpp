// One line per event: index, launch, block, warp, lane, program order, kind,
// the kind's operands, and the source location.
#include "gpmx/trace/dump.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace gpmx::trace {
namespace {

std::string hex_bytes(const event& e) {
  std::string out;
  for (std::size_t i = 0; i < e.value_bytes; ++i) out += fmt::format("{:02x}", e.data[i]);
  if (e.bytes > e.value_bytes) out += "..";
  return out;
}

std::string operands(const trace& t, const event& e) {
  switch (e.kind) {
    case event_kind::kernel_begin: {
      const dim3 g = kernel_grid(e), b = kernel_block(e);
      const std::string site = t.launch_site(e);
      return fmt::format(" '{}' grid ({},{},{}) block ({},{},{}){}{}", t.text_of(e), g.x, g.y, g.z, b.x, b.y, b.z,
                         site.empty() ? "" : " at ", site);
    }
    case event_kind::pm_write:
      return fmt::format(" {:#x} {}B = {}", e.address, e.bytes, hex_bytes(e));
    case event_kind::pm_read:
    case event_kind::host_persist:
      return fmt::format(" {:#x} {}B", e.address, e.bytes);
    case event_kind::prel:
      return fmt::format(" {} flag {:#x} = {}", to_string(e.scope_of), e.address, e.value);
    case event_kind::pacq: {
      std::string from = e.reads_from == no_event ? std::string(" (from no prel)")
                                                  : fmt::format(" (from #{})", e.reads_from);
      return fmt::format(" {} flag {:#x} read {}{}", to_string(e.scope_of), e.address, e.value, from);
    }
    case event_kind::warp_collective:
      return fmt::format(" {} mask {:#010x}", gpmx::to_string(gpmx::warp_op(e.result)), e.value);
    case event_kind::atomic:
      return fmt::format(" {} {} {:#x} {}B operand {} old {}", to_string(e.op), to_string(e.scope_of),
                         e.address, e.bytes, e.value, e.result);
    default:
      return {};
  }
}

bool is_kernel_boundary(const event& e) {
  return e.kind == event_kind::kernel_begin || e.kind == event_kind::kernel_end;
}

}  // namespace

std::string format_event(const trace& t, std::uint64_t index) {
  const event& e = t.events.at(index);
  std::string line;
  if (is_host(e))
    line = fmt::format("#{} host po{}", index, e.po);
  else if (e.block == unviewed_block)
    line = fmt::format("#{} L{} unviewed po{}", index, e.launch, e.po);
  else if (is_agent(e))
    line = fmt::format("#{} L{} agent {} po{}", index, e.launch,
                       e.warp < t.strings.size() ? t.strings[e.warp] : std::string("?"), e.po);
  else if (is_kernel_boundary(e))
    line = fmt::format("#{} L{}", index, e.launch);
  else
    line = fmt::format("#{} L{} b{} w{} l{} po{}", index, e.launch, e.block, e.warp, e.lane, e.po);
  line += fmt::format(" {}{}", to_string(e.kind), operands(t, e));
  if (!is_kernel_boundary(e) && e.text != no_string) {
    // The file's last component is enough for people; the full name stays in the file.
    const std::string& file = t.text_of(e);
    const auto slash = file.find_last_of('/');
    line += fmt::format(" {}:{}", slash == std::string::npos ? file : file.substr(slash + 1), e.line);
  }
  return line;
}

void dump(const trace& t, std::ostream& out) {
  for (const pool_image& p : t.pools)
    out << fmt::format("pool {} at {:#x} {}B, events [{}, {})\n", p.path, p.base, p.length, p.first_event,
                       p.end_event);
  for (std::uint64_t i = 0; i < t.events.size(); ++i) out << format_event(t, i) << '\n';
}

}  // namespace gpmx::trace
