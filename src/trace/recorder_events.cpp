// The recorder as an observer: each kernel thread's event of the trace mode.
#include <algorithm>
#include <cstring>

#include "gpmx/trace/recorder.hpp"

namespace gpmx::trace {

void recorder::access(const thread_coords& who, mem_space s, access_kind k, const void* p, std::size_t bytes,
                      const source_loc& loc) {
  if (s != mem_space::pm) return;
  event e;
  e.address = reinterpret_cast<std::uintptr_t>(p);
  e.bytes = bytes;
  if (k == access_kind::store) {  // reported after the store: the value is in place
    e.kind = event_kind::pm_write;
    e.value_bytes = std::uint8_t(std::min(bytes, max_value_bytes));
    std::memcpy(e.data.data(), p, e.value_bytes);
  } else {
    e.kind = event_kind::pm_read;
  }
  append(e, who, loc);
}

void recorder::ordering(const thread_coords& who, ordering_op op, const source_loc& loc) {
  event e;
  switch (op) {
    case ordering_op::gpm_persist: e.kind = event_kind::gpm_persist; break;
    case ordering_op::ofence: e.kind = event_kind::ofence; break;
    case ordering_op::dfence: e.kind = event_kind::dfence; break;
  }
  append(e, who, loc);
}

void recorder::persist_range(const thread_coords& who, const void* p, std::size_t bytes,
                             const source_loc& loc) {
  event e;
  e.kind = event_kind::persist_range;
  e.address = reinterpret_cast<std::uintptr_t>(p);
  e.bytes = bytes;
  append(e, who, loc);
}

void recorder::flag(const thread_coords& who, flag_op op, scope s, const void* flag, std::size_t bytes,
                    std::uint64_t value, const source_loc& loc) {
  event e;
  e.kind = op == flag_op::release ? event_kind::prel : event_kind::pacq;
  e.scope_of = s;
  e.address = reinterpret_cast<std::uintptr_t>(flag);
  e.bytes = bytes;
  e.value = value;
  if (op == flag_op::acquire) e.reads_from = release_read(e.address, value);
  append(e, who, loc);
}

void recorder::atomic(const thread_coords& who, atomic_op op, scope s, const void* p, std::size_t bytes,
                      std::uint64_t operand, std::uint64_t result, const source_loc& loc) {
  event e;
  e.kind = event_kind::atomic;
  e.op = op;
  e.scope_of = s;
  e.address = reinterpret_cast<std::uintptr_t>(p);
  e.bytes = bytes;
  e.value = operand;
  e.result = result;
  append(e, who, loc);
}

void recorder::barrier(const thread_coords& who, const source_loc& loc) {
  event e;
  e.kind = event_kind::barrier;
  append(e, who, loc);
}

void recorder::warp_collective(const thread_coords& who, warp_op op, std::uint32_t mask, const source_loc& loc) {
  event e;
  e.kind = event_kind::warp_collective;
  e.value = mask;
  e.result = std::uint64_t(op);
  append(e, who, loc);
}

void recorder::agent_step(std::string_view agent) {
  // An agent is no kernel thread: it has no program order and orders no
  // persist; the event only places its work among the threads' events.
  event e;
  e.kind = event_kind::agent_step;
  e.launch = in_kernel_ ? launches_ : host_launch;
  e.block = unviewed_block;
  e.text = intern(agent);
  trace_.events.push_back(e);
}

}  // namespace gpmx::trace
