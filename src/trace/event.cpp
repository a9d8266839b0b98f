// Names of event kinds and atomic operations, and the kernel shape packing.
#include "gpmx/trace/event.hpp"

#include <string>
#include <string_view>

#include <cstring>

namespace gpmx::trace {

const char* to_string(event_kind k) {
  switch (k) {
    case event_kind::kernel_begin: return "kernel_begin";
    case event_kind::kernel_end: return "kernel_end";
    case event_kind::pm_write: return "pm_write";
    case event_kind::pm_read: return "pm_read";
    case event_kind::gpm_persist: return "gpm_persist";
    case event_kind::ofence: return "ofence";
    case event_kind::dfence: return "dfence";
    case event_kind::prel: return "prel";
    case event_kind::pacq: return "pacq";
    case event_kind::barrier: return "barrier";
    case event_kind::atomic: return "atomic";
    case event_kind::host_persist: return "host_persist";
    case event_kind::persist_range: return "persist_range";
    case event_kind::agent_step: return "agent_step";
    case event_kind::warp_collective: return "warp_collective";
  }
  return "?";
}

const char* to_string(atomic_op op) {
  switch (op) {
    case atomic_op::none: return "none";
    case atomic_op::load: return "load";
    case atomic_op::store: return "store";
    case atomic_op::add: return "add";
    case atomic_op::sub: return "sub";
    case atomic_op::exch: return "exch";
    case atomic_op::cas: return "cas";
    case atomic_op::min: return "min";
    case atomic_op::max: return "max";
    case atomic_op::bit_and: return "and";
    case atomic_op::bit_or: return "or";
    case atomic_op::bit_xor: return "xor";
    case atomic_op::inc: return "inc";
    case atomic_op::dec: return "dec";
  }
  return "?";
}

void set_kernel_dims(event& e, dim3 grid, dim3 block) {
  const std::uint32_t v[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  std::memcpy(e.data.data(), v, sizeof v);
  e.value_bytes = 0;
}

namespace {
dim3 dims_at(const event& e, std::size_t first) {
  std::uint32_t v[3];
  std::memcpy(v, e.data.data() + first * sizeof(std::uint32_t), sizeof v);
  return dim3(v[0], v[1], v[2]);
}
}  // namespace

dim3 kernel_grid(const event& e) { return dims_at(e, 0); }
dim3 kernel_block(const event& e) { return dims_at(e, 3); }

const std::string& trace::text_of(const event& e) const {
  static const std::string none;
  return e.text < strings.size() ? strings[e.text] : none;
}

std::string trace::launch_site(const event& e) const {
  if (e.kind != event_kind::kernel_begin || e.line == 0 || e.value >= strings.size()) return {};
  std::string_view file = strings[e.value];
  if (const auto slash = file.find_last_of('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  return std::string(file) + ":" + std::to_string(e.line);
}

}  // namespace gpmx::trace
