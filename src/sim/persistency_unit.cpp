#include "gpmx/sim/persistency_unit.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "gpmx/support/error.hpp"

namespace gpmx::sim {

persistency_unit::persistency_unit(memory_system& mem)
    : mem_(mem), model_(mem.config().persist.model), promote_(mem.config().persist.promote_scopes) {
  const sim_config& c = mem.config();
  const std::uint64_t l1_lines = c.l1.size / c.l1.line;
  const auto entries =
      std::uint32_t(std::max(1.0, std::round(double(l1_lines) * c.persist.buffer_percent / 100.0)));
  sms_.reserve(c.sm.count);
  for (std::uint32_t i = 0; i < c.sm.count; ++i) {
    sms_.push_back(per_sm{persist_buffer(entries, c.persist.flush, c.persist.window, c.persist.full_past_window), sm_port{}, 0,
                          std::vector<slot_owner>(64)});
    sms_.back().port.mem = &mem_;
    sms_.back().port.sm = i;
  }
  if (sbrp()) mem_.set_eviction_guard(this);
}

const persistency_stats& persistency_unit::stats() const {
  stats_.buffers = {};
  for (const per_sm& s : sms_) stats_.buffers.add(s.buffer.stats());
  return stats_;
}

scope persistency_unit::effective(scope s) const {
  return promote_ && s == scope::block ? scope::device : s;
}

void persistency_unit::launch_begin(std::uint32_t warps_per_block) {
  warps_per_block_ = std::max<std::uint32_t>(warps_per_block, 1);
}

void persistency_unit::block_started(std::uint64_t block, std::uint32_t sm) {
  per_sm& s = sms_.at(sm);
  // The block's warps take consecutive free slots of the SM (its warp masks
  // have a bit per resident warp).
  const warp_mask need = block_mask();
  for (std::uint32_t base = 0; base + warps_per_block_ <= 64; ++base)
    if ((s.used & (need << base)) == 0) {
      s.used |= need << base;
      first_slot_[block] = base;
      for (std::uint32_t w = 0; w < warps_per_block_; ++w) s.owners[base + w] = {block, w, 0, 0};
      return;
    }
  throw gpmx::error(error_code::capacity,
                    fmt::format("persistency model: SM {} has no {} free warp slots for block {} (at most 64 "
                                "resident warps per SM)",
                                sm, warps_per_block_, block));
}

void persistency_unit::block_finished(std::uint64_t block, std::uint32_t sm) {
  const auto it = first_slot_.find(block);
  if (it == first_slot_.end()) return;
  sms_.at(sm).used &= ~(block_mask() << it->second);
  first_slot_.erase(it);
}

std::uint32_t persistency_unit::slot_of(const warp_instruction& in) const {
  return first_slot_.at(in.block) + in.warp;
}

persistency_unit::outcome persistency_unit::hold(const warp_instruction& in, picos t, std::uint32_t pending) {
  slot_owner& o = sms_[in.sm].owners[slot_of(in)];
  o.pending += pending;
  o.since = t;
  ++stats_.held_warps;
  return {0, true};
}

persistency_unit::outcome persistency_unit::barrier(std::uint32_t sm, picos t, picos own_writes) {
  ++stats_.barriers;
  const flush_scope which = model_ == persist_model::gpm ? flush_scope::all : flush_scope::pm;
  const picos flushed = mem_.flush_l1(sm, t, which);
  const picos done = std::max({t, own_writes, flushed, mem_.pm_durable(sm)});
  mem_.invalidate_l1_pm(sm);
  return {done, false};
}

persistency_unit::outcome persistency_unit::pm_store(const warp_instruction& in, const warp_request& r, picos t) {
  if (!sbrp()) return {t, false};
  const sim_config& c = mem_.config();
  const unsigned n = coalesce(r.active, r.lanes.data(), c.l1.line, c.l1.sector, lines_.data());
  per_sm& s = sms_[in.sm];
  const std::uint32_t slot = slot_of(in);
  std::uint32_t held = 0;
  for (unsigned i = 0; i < n; ++i)
    if (!s.buffer.store(lines_[i].line_addr, lines_[i].sector_mask, slot, t, s.port)) ++held;
  if (held) return hold(in, t, held);
  return {t, false};
}

persistency_unit::outcome persistency_unit::ordering(const warp_instruction& in, ordering_op op, picos t,
                                                     picos own_writes) {
  if (!sbrp()) return barrier(in.sm, t, own_writes);
  per_sm& s = sms_[in.sm];
  const std::uint32_t slot = slot_of(in);
  if (op == ordering_op::ofence) {
    s.buffer.order(warp_mask(1) << slot, t, s.port);
    return {t, false};
  }
  // dFence, and gpm_persist (a durability point) under SBRP hardware.
  s.buffer.durable(slot, t, s.port);
  return hold(in, t, 1);
}

persistency_unit::outcome persistency_unit::release(const warp_instruction& in, scope sc, picos t,
                                                    picos own_writes) {
  if (!sbrp()) return barrier(in.sm, t, own_writes);
  per_sm& s = sms_[in.sm];
  const std::uint32_t slot = slot_of(in);
  if (effective(sc) == scope::block) {  // kept inside the SM: ordered by the FIFO, nobody waits
    s.buffer.order(warp_mask(1) << slot, t, s.port);
    return {t, false};
  }
  // Device scope: the SM's volatile writes go to the L2 (as a device-scope
  // fence makes them visible) and the warp is held until its persists are
  // durable; the flag is set then.
  mem_.flush_l1(in.sm, t, flush_scope::global);
  s.buffer.durable(slot, t, s.port);
  return hold(in, t, 1);
}

void persistency_unit::held_until_at_least(const warp_instruction& in, picos t) {
  picos& nb = sms_[in.sm].owners[slot_of(in)].not_before;
  nb = std::max(nb, t);
}

void persistency_unit::acquire(const warp_instruction& in, scope sc, picos t) {
  if (!sbrp()) return;
  per_sm& s = sms_[in.sm];
  if (effective(sc) != scope::block) mem_.invalidate_l1_pm(in.sm);  // other SMs' persists: read them fresh
  s.buffer.order(warp_mask(1) << slot_of(in), t, s.port);
}

persistency_unit::outcome persistency_unit::before_acquire(const warp_instruction& in, scope sc, picos t,
                                                          picos own_writes) {
  const sim_config& c = mem_.config();
  if (!sbrp()) return c.persist.epoch_sync_barriers ? barrier(in.sm, t, own_writes) : outcome{t, false};
  if (!c.persist.device_acquire_waits || effective(sc) == scope::block) return {t, false};
  per_sm& s = sms_[in.sm];
  s.buffer.durable(slot_of(in), t, s.port);
  return hold(in, t, 1);
}

persistency_unit::outcome persistency_unit::synchronization(const warp_instruction& in, bool block_barrier, picos t,
                                                            picos own_writes) {
  if (!sbrp()) {
    if (block_barrier && mem_.config().persist.epoch_sync_barriers) return barrier(in.sm, t, own_writes);
    return {t, false};
  }
  per_sm& s = sms_[in.sm];
  s.buffer.order(warp_mask(1) << slot_of(in), t, s.port);
  return {t, false};
}

persistency_unit::outcome persistency_unit::persist_range(const warp_instruction& in, picos t, picos own_writes) {
  // Whoever stored the range made it visible to this thread first; under
  // sbrp a durability point of the warp covers every persist buffered
  // before it in the SM, under gpm/epoch a barrier flushes the SM's lines.
  if (!sbrp()) return barrier(in.sm, t, own_writes);
  per_sm& s = sms_[in.sm];
  s.buffer.durable(slot_of(in), t, s.port);
  return hold(in, t, 1);
}

picos persistency_unit::next_event() const {
  picos t = ~picos(0);
  if (!sbrp()) return t;
  for (const per_sm& s : sms_) t = std::min(t, s.buffer.next_event());
  return t;
}

void persistency_unit::advance(picos t, timed_waker& w) {
  for (std::uint32_t i = 0; i < sms_.size(); ++i) {
    per_sm& s = sms_[i];
    if (s.buffer.next_event() > t) continue;
    s.buffer.advance(t, s.port);
    auto& ready = s.buffer.ready_wakes();
    for (const persist_buffer::wake& k : ready) {
      slot_owner& o = s.owners.at(k.warp);
      if (o.pending == 0)
        throw gpmx::error(error_code::usage, fmt::format("persist buffer of SM {} woke warp slot {}, which it "
                                                            "does not hold", i, k.warp));
      if (--o.pending == 0) {
        stats_.held_time += k.at - o.since;
        const picos at = std::max(k.at, o.not_before);
        o.not_before = 0;
        w.wake(o.block, o.warp, at);
      }
    }
    ready.clear();
  }
}

picos persistency_unit::kernel_end(picos t) {
  picos end = t;
  if (sbrp())
    for (per_sm& s : sms_) end = std::max(end, s.buffer.drain(t, s.port, mem_.config().persist.ordered_drain));
  return end;
}

picos persistency_unit::evicting(std::uint32_t sm, std::uint64_t line, picos t) {
  per_sm& s = sms_.at(sm);
  return s.buffer.evicting(line, t, s.port);
}

void persistency_unit::evicted(std::uint32_t sm, std::uint64_t line, picos t, picos durable_ack) {
  per_sm& s = sms_.at(sm);
  s.buffer.evicted(line, t, durable_ack, s.port);
}

}  // namespace gpmx::sim
