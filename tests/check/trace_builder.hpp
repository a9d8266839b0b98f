#pragma once
// Hand-written traces for the checker's tests: events appended in the order
// given, each thread's program order counted, source lines chosen by the test.
#include <cstdint>
#include <map>
#include <tuple>

#include "gpmx/check/persist_order.hpp"
#include "gpmx/trace/event.hpp"

namespace check_test {

using gpmx::scope;
using gpmx::trace::event;
using gpmx::trace::event_kind;

struct who {
  std::uint32_t launch = 0;
  std::uint64_t block = 0;
  std::uint32_t lane = 0;
};

class trace_builder {
 public:
  trace_builder() { t_.strings.push_back("corpus.cpp"); }

  std::uint64_t kernel_begin(std::uint32_t launch = 0) { return push(bare(event_kind::kernel_begin, launch)); }
  std::uint64_t kernel_end(std::uint32_t launch = 0) { return push(bare(event_kind::kernel_end, launch)); }

  // A store of `bytes` bytes, each byte `fill`.
  std::uint64_t write(who w, std::uint64_t address, std::uint64_t bytes, std::uint8_t fill = 0xab, std::uint32_t line = 0) {
    event e = of(w, event_kind::pm_write, line);
    e.address = address;
    e.bytes = bytes;
    e.value_bytes = static_cast<std::uint8_t>(bytes < 64 ? bytes : 64);
    for (std::size_t k = 0; k < e.value_bytes; ++k) e.data[k] = fill;
    return push(e);
  }
  std::uint64_t op(who w, event_kind k, std::uint32_t line = 0) { return push(of(w, k, line)); }
  std::uint64_t persist(who w) { return op(w, event_kind::gpm_persist); }
  std::uint64_t ofence(who w) { return op(w, event_kind::ofence); }
  std::uint64_t dfence(who w) { return op(w, event_kind::dfence); }
  std::uint64_t barrier(who w) { return op(w, event_kind::barrier); }
  // A lane's arrival at a warp collective (syncwarp by default) among the lanes of `mask`.
  std::uint64_t warp_collective(who w, std::uint32_t mask, gpmx::warp_op op = gpmx::warp_op::syncwarp) {
    event e = of(w, event_kind::warp_collective, 0);
    e.value = mask;
    e.result = std::uint64_t(op);
    return push(e);
  }
  std::uint64_t prel(who w, scope s, std::uint64_t flag, std::uint32_t line = 0) {
    event e = of(w, event_kind::prel, line);
    e.scope_of = s;
    e.address = flag;
    e.bytes = 4;
    e.value = 1;
    return push(e);
  }
  std::uint64_t pacq(who w, scope s, std::uint64_t flag, std::uint64_t reads_from, std::uint32_t line = 0) {
    event e = of(w, event_kind::pacq, line);
    e.scope_of = s;
    e.address = flag;
    e.bytes = 4;
    e.value = 1;
    e.reads_from = reads_from;
    return push(e);
  }

  // A kernel thread's persist of [address, address + bytes), whoever stored it.
  std::uint64_t persist_range(who w, std::uint64_t address, std::uint64_t bytes) {
    event e = of(w, event_kind::persist_range, 0);
    e.address = address;
    e.bytes = bytes;
    return push(e);
  }
  // An agent's step: no thread of the model.
  std::uint64_t agent_step(std::uint32_t launch = 0) {
    event e = bare(event_kind::agent_step, launch);
    e.block = gpmx::trace::unviewed_block;
    return push(e);
  }

  // The host thread: a store, and pool::persist of [address, address + bytes).
  static constexpr who host{gpmx::trace::host_launch, 0, 0};
  std::uint64_t host_write(std::uint64_t address, std::uint64_t bytes, std::uint8_t fill = 0xcd) {
    return write(host, address, bytes, fill);
  }
  std::uint64_t host_persist(std::uint64_t address, std::uint64_t bytes) {
    event e = of(host, event_kind::host_persist, 0);
    e.address = address;
    e.bytes = bytes;
    return push(e);
  }

  const gpmx::trace::trace& trace() const { return t_; }
  gpmx::trace::trace& trace() { return t_; }

 private:
  static event bare(event_kind k, std::uint32_t launch) {
    event e;
    e.kind = k;
    e.launch = launch;
    return e;
  }
  event of(who w, event_kind k, std::uint32_t line) {
    event e = bare(k, w.launch);
    e.block = w.block;
    e.warp = w.lane / 32;
    e.lane = w.lane % 32;
    e.po = po_[{w.launch, w.block, w.lane}]++;
    e.text = 0;
    e.line = line;
    return e;
  }
  std::uint64_t push(const event& e) {
    t_.events.push_back(e);
    return t_.events.size() - 1;
  }

  gpmx::trace::trace t_;
  std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>, std::uint64_t> po_;
};

// Store-level pmo: every granule of event a before every granule of event b.
inline bool persists_before(const gpmx::check::persist_order& o, std::uint64_t a, std::uint64_t b) {
  const auto [a0, a1] = o.nodes_of(a);
  const auto [b0, b1] = o.nodes_of(b);
  if (a0 == a1 || b0 == b1) return false;
  for (std::size_t x = a0; x < a1; ++x)
    for (std::size_t y = b0; y < b1; ++y)
      if (!o.ordered(x, y)) return false;
  return true;
}

inline gpmx::check::persist_order order_of(const gpmx::trace::trace& t, gpmx::check::persist_model m,
                                           std::uint32_t granularity = 8) {
  return gpmx::check::persist_order(t, {.model = m, .granularity = granularity});
}

}  // namespace check_test
