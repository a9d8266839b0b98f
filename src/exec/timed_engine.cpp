#include "timed_engine.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <thread>

#include "agent_runner.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::cpu::detail {
namespace {

bool same_operation(const timed_op& a, const timed_op& b) {
  if (a.kind != b.kind || a.sub != b.sub || a.space != b.space) return false;
  // Lanes of a warp stopped at one call site carry the same location object
  // (for std::source_location, one pointer): equal bytes mean the same
  // place without reading the file and line it points to.
  return std::memcmp(&a.loc, &b.loc, sizeof(a.loc)) == 0 || same_place(a.loc, b.loc);
}

bool wakes_others(timed_kind k) {
  return k == timed_kind::barrier || k == timed_kind::warp_collective || k == timed_kind::activemask;
}

// The timed schedule never asks its blocks for a choice; they still take a
// policy because they run with the deterministic schedule's rules.
seeded_choices& unused_policy() {
  static thread_local seeded_choices p(0);
  return p;
}

}  // namespace

block_scheduler* timed_engine::acquire() {
  if (!spare_.empty()) {
    block_scheduler* s = spare_.back();
    spare_.pop_back();
    return s;
  }
  schedulers_.push_back(std::make_unique<block_scheduler>(carriers_, sched_));
  return schedulers_.back().get();
}

void timed_engine::begin(launch_state& L) {
  model_ = L.options->timing;
  m_ = model_->machine();
  const launch_config& cfg = *L.cfg;
  if (m_.sms == 0 || m_.schedulers_per_sm == 0 || m_.cycle == 0 || m_.max_blocks_per_sm == 0)
    throw config_error(fmt::format("timed schedule: the machine needs at least one SM, one warp scheduler, "
                                   "one block per SM and a clock (sms={}, schedulers={}, max_blocks={}, "
                                   "cycle={} ps)",
                                   m_.sms, m_.schedulers_per_sm, m_.max_blocks_per_sm, m_.cycle));
  threads_per_block_ = std::uint32_t(cfg.block.count());
  const std::uint32_t warps = (threads_per_block_ + warp_size - 1) / warp_size;
  registers_per_block_ = warps * warp_size * m_.registers_per_thread;
  shared_per_block_ = cfg.dynamic_shared_bytes;
  if (threads_per_block_ > m_.max_threads_per_sm)
    throw config_error(fmt::format("kernel '{}': a block of {} threads does not fit on an SM of {} threads",
                                   cfg.name, threads_per_block_, m_.max_threads_per_sm));
  if (registers_per_block_ > m_.registers_per_sm)
    throw config_error(fmt::format("kernel '{}': a block needs {} registers ({} per thread) and an SM has {}",
                                   cfg.name, registers_per_block_, m_.registers_per_thread,
                                   m_.registers_per_sm));
  if (shared_per_block_ > m_.shared_bytes_per_sm)
    throw config_error(fmt::format("kernel '{}': a block's {} bytes of dynamic shared memory exceed an "
                                   "SM's {}",
                                   cfg.name, shared_per_block_, m_.shared_bytes_per_sm));
  sms_.assign(m_.sms, sm_rec{});
  units_.assign(std::size_t(m_.sms) * m_.schedulers_per_sm, unit_rec{});
  for (unit_rec& u : units_) u.free_at = now_;
  activity_.assign(m_.sms, sm_activity{});
  agent_ready_.assign(L.agents.size(), 0);
  heap_ = {};
  end_ = now_;
  clock_ = now_;
  next_block_ = 0;
  nblocks_ = L.nblocks;
  rr_sm_ = 0;
  epoch_ = 0;
  spinners_ = live_warps_ = waiting_warps_ = held_warps_ = 0;
  launch_ = &L;
  model_->launch_begin(cfg.name, cfg.grid, cfg.block, now_);
}

bool timed_engine::fits(const sm_rec& sm) const {
  return sm.blocks < m_.max_blocks_per_sm && sm.threads + threads_per_block_ <= m_.max_threads_per_sm &&
         sm.registers + registers_per_block_ <= m_.registers_per_sm &&
         sm.shared + shared_per_block_ <= m_.shared_bytes_per_sm;
}

void timed_engine::admit_blocks(launch_state& L, vtime at) {
  while (next_block_ < nblocks_ && !L.abort.load(std::memory_order_relaxed)) {
    std::uint32_t sm = m_.sms;
    for (std::uint32_t i = 0; i < m_.sms; ++i) {
      const std::uint32_t c = (rr_sm_ + i) % m_.sms;
      if (fits(sms_[c])) {
        sm = c;
        break;
      }
    }
    if (sm == m_.sms) return;
    rr_sm_ = (sm + 1) % m_.sms;
    start_block(L, next_block_++, sm, at);
  }
}

void timed_engine::start_block(launch_state& L, std::uint64_t linear, std::uint32_t sm, vtime at) {
  auto owned = std::make_unique<block_rec>();
  block_rec* b = owned.get();
  resident_.push_back(std::move(owned));
  b->sched = acquire();
  b->linear = linear;
  b->sm = sm;
  sm_rec& s = sms_[sm];  // every block of a launch needs the same resources
  s.threads += threads_per_block_;
  s.registers += registers_per_block_;
  s.shared += shared_per_block_;
  ++s.blocks;
  ++activity_[sm].blocks;

  b->sched->set_run_ahead(m_.run_ahead, m_.run_ahead_stores);
  b->sched->start(L, linear, &unused_policy(), true);
  const std::uint32_t nwarps = b->sched->warp_count();
  b->warps.resize(nwarps);
  model_->block_started(linear, sm, at);
  b->sched->stage();  // every thread runs to its first operation
  if (L.abort.load(std::memory_order_relaxed)) return;
  b->sched->take_touched([](std::uint32_t) {});
  for (std::uint32_t w = 0; w < nwarps; ++w) {
    warp_rec& r = b->warps[w];
    r.block = b;
    r.warp = w;
    r.unit = sm * m_.schedulers_per_sm + w % m_.schedulers_per_sm;
    r.age = ages_++;
    r.ready = at;
    r.why = stall_reason::idle;
    if (b->sched->live_lanes(w) == 0) {
      r.done = true;
      continue;
    }
    ++b->warps_left;
    ++live_warps_;
    if (b->sched->parked_lanes(w) == 0) {
      r.waiting = true;
      ++waiting_warps_;
    }
    units_[r.unit].warps.push_back(&r);
  }
  // A block whose threads all ended while staging (no operation to time)
  // leaves its live masks as they were: ask the block itself.
  if (b->warps_left == 0 || b->sched->finished()) return finish_block(b, at);
  for (std::uint32_t k = 0; k < m_.schedulers_per_sm; ++k) push(sm * m_.schedulers_per_sm + k);
}

void timed_engine::finish_block(block_rec* b, vtime at) {
  for (warp_rec& r : b->warps) {
    if (!r.done) {  // ended by an exit noticed only now
      r.done = true;
      --live_warps_;
      if (r.waiting) --waiting_warps_;
      if (r.spin_epoch == epoch_ && r.spinning && spinners_ > 0) --spinners_;
    }
    unit_rec& u = units_[r.unit];
    std::erase(u.warps, &r);
    if (u.last == &r) u.last = nullptr;
  }
  sm_rec& s = sms_[b->sm];
  s.threads -= threads_per_block_;
  s.registers -= registers_per_block_;
  s.shared -= shared_per_block_;
  --s.blocks;
  model_->block_finished(b->linear, b->sm, at);
  spare_.push_back(b->sched);
  const auto it = std::find_if(resident_.begin(), resident_.end(), [&](const auto& p) { return p.get() == b; });
  std::swap(*it, resident_.back());
  resident_.pop_back();
}

vtime timed_engine::unit_next(const unit_rec& u) const {
  vtime t = vtime_never;
  for (const warp_rec* w : u.warps)
    if (!w->done && !w->waiting) t = std::min(t, w->ready);
  return t == vtime_never ? t : std::max(t, u.free_at);
}

// Queues the unit at its next issue time unless it is queued no later
// already (popping that entry recomputes it), so the heap holds few stale
// entries per unit.
void timed_engine::push(std::uint32_t unit) {
  unit_rec& u = units_[unit];
  const vtime t = unit_next(u);
  if (t == vtime_never || t >= u.queued) return;
  u.queued = t;
  heap_.push({t, unit});
}

timed_engine::warp_rec* timed_engine::select(unit_rec& u, vtime at) {
  auto ready = [&](const warp_rec* w) { return !w->done && !w->waiting && w->ready <= at; };
  if (m_.policy == warp_scheduling::gto) {
    if (u.last && ready(u.last)) return u.last;  // greedy: the warp that issued last
    warp_rec* oldest = nullptr;
    for (warp_rec* w : u.warps)
      if (ready(w) && (!oldest || w->age < oldest->age)) oldest = w;
    return oldest;
  }
  // Loose round robin: the next ready warp after the last one issued.
  const std::size_t n = u.warps.size();
  std::size_t start = 0;
  if (u.last) {
    const auto it = std::find(u.warps.begin(), u.warps.end(), u.last);
    if (it != u.warps.end()) start = std::size_t(it - u.warps.begin()) + 1;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (warp_rec* w = u.warps[(start + i) % n]; ready(w)) return w;
  return nullptr;
}

void timed_engine::issue(launch_state& L, warp_rec& w, std::uint32_t unit, vtime at) {
  block_rec& b = *w.block;
  block_scheduler& bs = *b.sched;
  const std::uint32_t pending = bs.parked_lanes(w.warp);
  bool uniform = false;
  timed_op* ops = bs.stop_ops(w.warp, pending, uniform);
  // The oldest stop leads; in a uniform row any lane would do.
  const timed_op lead = ops[uniform ? std::uint32_t(std::countr_zero(pending)) : bs.oldest_stop(w.warp, pending)];
  // Lanes stopped at the same operation issue together; the others wait
  // for a later instruction (divergence).
  std::uint32_t group = 0, work = 0;
  const auto join = [&](std::uint32_t lane) {
    if (same_operation(ops[lane], lead)) group |= 1u << lane, work = std::max(work, ops[lane].work);
  };
  if (uniform) {  // one operation for every lane, known without comparing them
    group = pending;
    work = lead.work;
  } else if (pending == ~0u) {  // a whole warp: a loop without bit scans
    for (std::uint32_t lane = 0; lane < warp_size; ++lane) join(lane);
  } else {
    for (std::uint32_t m = pending; m != 0; m &= m - 1) join(std::uint32_t(std::countr_zero(m)));
  }

  unit_rec& u = units_[unit];
  sm_activity& act = activity_[b.sm];
  if (at > u.free_at) act.stalled[unsigned(w.why)] += at - u.free_at;
  if (work != 0) {
    // The instructions the lanes declared before the operation issue
    // first, holding the scheduler; the operation follows them.
    bs.clear_stop_work(w.warp, group);
    const vtime busy = vtime(work) * m_.cycle;
    act.compute_instructions += work;
    act.busy += busy;
    u.free_at = at + busy;
    u.last = &w;
    w.ready = at + busy;
    w.why = stall_reason::compute;
    end_ = std::max(end_, w.ready);
    push(unit);
    return;
  }
  const warp_instruction in{b.sm, unit % m_.schedulers_per_sm, b.linear, w.warp, group, ops};
  const issue_result r = model_->issue(in, at);
  const vtime slot_free = std::max(r.slot_free, at + m_.cycle);
  ++act.instructions;
  act.busy += slot_free - at;
  u.free_at = slot_free;
  u.last = &w;
  end_ = std::max(end_, slot_free);
  if (r.ready == vtime_never) {  // the model holds it: performed when woken
    w.held = true;
    w.held_kind = lead.kind;
    w.held_group = group;
    w.ready = vtime_never;
    w.why = r.waits_on == stall_reason::none ? stall_reason::ordering : r.waits_on;
    ++held_warps_;
    if (w.spin_epoch == epoch_ && w.spinning) --spinners_;  // held, not spinning: the model releases it
    w.spin_epoch = ~0ull;
    push(unit);
    return;
  }
  w.why = r.waits_on == stall_reason::none ? stall_reason::compute : r.waits_on;
  perform(L, w, group, lead.kind, at, std::max(r.ready, at + m_.cycle));
}

void timed_engine::wake(std::uint64_t block, std::uint32_t warp, vtime at) {
  const auto it = std::find_if(resident_.begin(), resident_.end(),
                               [&](const auto& b) { return b->linear == block; });
  if (it == resident_.end() || warp >= (*it)->warps.size() || !(*it)->warps[warp].held)
    throw std::logic_error(fmt::format("timed schedule: the timing model woke warp {} of block {}, which it "
                                       "does not hold", warp, block));
  warp_rec& w = (*it)->warps[warp];
  w.held = false;
  --held_warps_;
  perform(*launch_, w, w.held_group, w.held_kind, at, at + m_.cycle);
}

void timed_engine::perform(launch_state& L, warp_rec& w, std::uint32_t group, timed_kind kind, vtime at,
                           vtime ready) {
  block_rec& b = *w.block;
  block_scheduler& bs = *b.sched;
  end_ = std::max(end_, ready);

  bs.resume_lanes(w.warp, group);  // the lanes perform the operation and run to their next
  if (L.abort.load(std::memory_order_relaxed)) return;

  // A spin retry failed when every lane that tried stopped at a spin again.
  bool failed_spin = kind == timed_kind::spin && (bs.parked_lanes(w.warp) & group) == group;
  if (failed_spin)
    for (std::uint32_t m = group; m != 0; m &= m - 1)
      failed_spin &= bs.stop_op(w.warp, std::uint32_t(std::countr_zero(m))).kind == timed_kind::spin;
  if (!failed_spin) {
    ++epoch_;
    spinners_ = 0;
  }

  // Lanes this instruction woke (a completed barrier or collective) stopped
  // at their next operation: their warps may issue from the next cycle.
  bs.take_touched([&](std::uint32_t x) {
    warp_rec& o = b.warps[x];
    if (&o == &w || o.done || !o.waiting || bs.parked_lanes(x) == 0) return;
    o.waiting = false;
    --waiting_warps_;
    o.ready = std::max(o.ready, at + m_.cycle);
    o.why = stall_reason::barrier;
    push(o.unit);
  });
  if (wakes_others(kind))  // woken warps may also have ended without stopping again
    for (warp_rec& o : b.warps)
      if (&o != &w && !o.done && bs.live_lanes(o.warp) == 0) {
        o.done = true;
        --b.warps_left;
        --live_warps_;
        if (o.waiting) --waiting_warps_;
      }

  // The issuing warp.
  w.ready = ready;
  if (bs.live_lanes(w.warp) == 0) {
    w.done = true;
    --b.warps_left;
    --live_warps_;
  } else if (bs.parked_lanes(w.warp) == 0) {
    w.waiting = true;  // every lane waits on the barrier or a collective
    ++waiting_warps_;
    w.why = stall_reason::barrier;
  } else if (failed_spin) {
    // GTO stays on a warp only while it can issue: one whose retry failed
    // waits for its read, and a retry that read nothing through gpmx (a
    // plain variable) must not keep the scheduler from the warps that
    // would change it.
    if (m_.policy == warp_scheduling::gto && units_[w.unit].last == &w) units_[w.unit].last = nullptr;
    // The warp spins only when every parked lane failed a retry in this
    // epoch: lanes that diverged elsewhere may still change what it reads.
    if (w.spin_epoch != epoch_) w.spin_epoch = epoch_, w.spin_failed = 0, w.spinning = false;
    w.spin_failed |= group;
    if (!w.spinning && (bs.parked_lanes(w.warp) & ~w.spin_failed) == 0) {
      w.spinning = true;
      ++spinners_;
    }
  }
  const std::uint32_t unit = w.unit;
  if (bs.finished()) {
    finish_block(&b, ready);
    admit_blocks(L, ready);
  }
  push(unit);
}

void timed_engine::throw_deadlock(launch_state& L, const char* why) const {
  std::string waits;
  for (const auto& b : resident_) {
    const dim3 d = delinearize(b->linear, L.cfg->grid);
    waits += fmt::format("\n block ({},{},{}) on SM {}:{}", d.x, d.y, d.z, b->sm, b->sched->describe_waits());
  }
  throw deadlock_error(fmt::format("kernel '{}' (timed schedule, at {} ps): {} ({} resident blocks, {} "
                                   "not started):{}",
                                   L.cfg->name, end_, why, resident_.size(), nblocks_ - next_block_, waits));
}

void timed_engine::run(launch_state& L) {
  try {
    begin(L);
    admit_blocks(L, now_);
    for (;;) {
      if (L.abort.load(std::memory_order_relaxed)) break;
      bool agents_busy = false;
      if (!L.agents.empty()) {
        const agent_round a = step_agents_at(L, unused_policy(), *model_, clock_, agent_ready_, agent_order_);
        agents_busy = a.busy;
        if (a.progressed) {
          ++epoch_;
          spinners_ = 0;
        }
      }
      // The model's events come first at equal times: what they release
      // (a warp its persist buffer held) may issue at that very time.
      if (const vtime ev = model_->next_event(); ev != vtime_never && (heap_.empty() || ev <= heap_.top().first)) {
        model_->advance(ev, *this);
        end_ = std::max(end_, ev);
        clock_ = std::max(clock_, ev);
        continue;
      }
      if (heap_.empty()) {
        if (resident_.empty() && next_block_ >= nblocks_) break;
        if (held_warps_ != 0)
          throw_deadlock(L, "the timing model holds warps and has no event pending that would release them");
        if (agents_busy) {
          // Nothing issues until an agent's persists complete: time moves on to then.
          if (const vtime t = next_agent_ready(agent_ready_, clock_); t != vtime_never) {
            clock_ = t;
            end_ = std::max(end_, t);
            continue;
          }
          std::this_thread::yield();
          continue;
        }
        throw_deadlock(L, "deadlock: every resident warp waits at a barrier or warp operation that "
                          "cannot complete");
      }
      const auto [t, unit] = heap_.top();
      heap_.pop();
      unit_rec& u = units_[unit];
      if (t != u.queued) continue;  // superseded by an earlier entry
      u.queued = vtime_never;
      if (unit_next(u) > t) {  // its warps' time moved on since it was queued
        push(unit);
        continue;
      }
      warp_rec* w = select(u, t);
      if (!w) continue;
      clock_ = std::max(clock_, t);
      issue(L, *w, unit, t);
      if (spinners_ != 0 && spinners_ == live_warps_ - waiting_warps_ && !agents_busy)  // held warps never count
        throw_deadlock(L, "deadlock: every warp that can issue spins on a condition that no other warp "
                          "or agent can change");
    }
  } catch (...) {
    L.fail(std::current_exception());
  }
  for (auto& b : resident_) {
    b->sched->cancel();
    spare_.push_back(b->sched);
  }
  resident_.clear();
  for (unit_rec& u : units_) u.warps.clear(), u.queued = vtime_never;
  heap_ = {};
  if (!model_) return;
  if (L.error) {
    model_->launch_failed();
    return;
  }
  for (std::uint32_t s = 0; s < m_.sms; ++s)  // time after a scheduler's last issue
    for (std::uint32_t k = 0; k < m_.schedulers_per_sm; ++k) {
      const unit_rec& u = units_[s * m_.schedulers_per_sm + k];
      if (end_ > u.free_at) activity_[s].stalled[unsigned(stall_reason::idle)] += end_ - u.free_at;
    }
  now_ = model_->launch_end(end_, activity_.data());
  clock_ = now_;
}

}  // namespace gpmx::cpu::detail
