#include "gpmx/sim/gpu_model.hpp"

#include <algorithm>
#include <array>
#include <bit>

namespace gpmx::sim {

namespace {
// Host addresses map to simulated ones page by page (4 KB pages numbered in
// the order the run first touches them), each keeping its offset.
constexpr unsigned page_shift = 12;
std::uintptr_t page_of(std::uintptr_t a) { return a >> page_shift; }
std::uint64_t in_frame(std::uint64_t frame, std::uintptr_t a) {
  return frame << page_shift | (a & ((std::uintptr_t(1) << page_shift) - 1));
}
}  // namespace

std::uint64_t run_totals::instructions() const {
  std::uint64_t n = 0;
  for (const sm_activity& s : sms) n += s.instructions;
  return n;
}

std::uint64_t run_totals::compute_instructions() const {
  std::uint64_t n = 0;
  for (const sm_activity& s : sms) n += s.compute_instructions;
  return n;
}

picos run_totals::kernel_time() const {
  picos t = 0;
  for (const launch_record& l : launches) t += l.end - l.start;
  return t;
}

gpu_model::gpu_model(const sim_config& c) : mem_(c) {
  cycle_ = mem_.cycles(1);
  issue_ = mem_.cycles(c.sm.issue_cycles);
  totals_.sms.assign(c.sm.count, sm_activity{});
}

timed_machine gpu_model::machine() const {
  const sim_config& c = mem_.config();
  timed_machine m;
  m.sms = c.sm.count;
  m.schedulers_per_sm = c.sm.schedulers;
  m.max_threads_per_sm = c.sm.max_threads;
  m.max_blocks_per_sm = c.sm.max_blocks;
  m.shared_bytes_per_sm = c.sm.shared_bytes;
  m.registers_per_sm = c.sm.registers;
  m.registers_per_thread = c.sm.regs_per_thread;
  m.policy = c.sched.policy == sched_policy::gto ? warp_scheduling::gto : warp_scheduling::lrr;
  m.cycle = cycle_;
  // A passenger (a trace beside the model) sees loads when they are
  // performed, so it gets them in virtual-time order only without run-ahead;
  // the crash images' tracker stages a lane's store until its issue, one at
  // a time.
  m.run_ahead = passenger_ && passenger_->observed_spaces() != 0 ? 0 : c.sched.run_ahead;
  m.run_ahead_stores = m.run_ahead != 0 && !tracker_;
  return m;
}

// ---- crash images: the tracker's side of an issue ----

void gpu_model::tracking_before(const warp_instruction& in) {
  std::array<std::uint64_t, 32> keys{};
  std::uint32_t n = 0;
  for (std::uint32_t m = in.lanes; m != 0; m &= m - 1)
    keys[n++] = lane_key(in.block, in.warp, std::uint32_t(std::countr_zero(m)));
  tracker_->issuing(in.sm, keys.data(), n, [this](const void* p) { return simulated(p); });
}

void gpu_model::tracking_after(const warp_instruction& in, const timed_op& op) {
  const bool writes = op.kind == timed_kind::flag_release ||
                      (op.kind == timed_kind::atomic && op.sub != std::uint8_t(atomic_op::load));
  if (!writes || !op.addr || op.space == mem_space::shared || space_of(op.addr) != mem_space::pm) return;
  for (std::uint32_t m = in.lanes; m != 0; m &= m - 1) {
    const auto lane = std::uint32_t(std::countr_zero(m));
    tracker_->will_write(in.sm, lane_key(in.block, in.warp, lane), simulated(in.ops[lane].addr));
  }
}

mem_space gpu_model::space_of(const void* p) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (const auto& [b, e] : pm_ranges_)
    if (a >= b && a < e) return mem_space::pm;
  return mem_space::global;
}

std::uint64_t gpu_model::simulated(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t page = page_of(a);
  if (page != last_page_) {
    const auto [it, fresh] = frames_.try_emplace(page, next_frame_);
    if (fresh) ++next_frame_;
    last_page_ = page;
    last_frame_ = it->second;
  }
  return in_frame(last_frame_, a);
}

// A whole warp whose lanes access consecutive elements of one host page
// (a loop over an array): lane 0's simulated address and offsets from it,
// as the lane loop below would give them.
bool gpu_model::contiguous_in_a_page(const timed_op* ops, warp_request& r) {
  const auto first = reinterpret_cast<std::uintptr_t>(ops[0].addr);
  const std::uint32_t bytes = ops[0].bytes;
  std::uintptr_t differs = 0, a = first;
  for (std::uint32_t l = 1; l < warp_lanes; ++l) {
    a += bytes;
    differs |= (reinterpret_cast<std::uintptr_t>(ops[l].addr) ^ a) | (ops[l].bytes ^ bytes);
  }
  if (differs != 0 || page_of(a) != page_of(first) || a < first) return false;  // a: lane 31's address
  const std::uint64_t base = simulated(ops[0].addr);
  for (std::uint32_t l = 0; l < warp_lanes; ++l) r.lanes[l] = {base + std::uint64_t(l) * bytes, bytes};
  return true;
}

warp_request& gpu_model::request(const warp_instruction& in, mem_space space, access_kind kind) {
  warp_request& r = request_;
  r.sm = in.sm;
  r.space = space;
  r.kind = kind;
  r.atomic = false;
  r.read_modify_write = true;
  r.atomic_scope = scope::device;
  r.active = in.lanes;
  if (in.lanes == ~0u && contiguous_in_a_page(in.ops, r)) return r;
  // simulated()'s fast path inline, its last page kept in locals: the lanes' stores
  // into request_ (a member, as the page is) would make the compiler
  // reload it for every lane.
  std::uintptr_t page = last_page_;
  std::uint64_t frame = last_frame_;
  for (std::uint32_t m = in.lanes; m != 0; m &= m - 1) {
    const auto lane = std::uint32_t(std::countr_zero(m));
    const timed_op& op = in.ops[lane];
    const auto a = reinterpret_cast<std::uintptr_t>(op.addr);
    if (page_of(a) != page) {
      (void)simulated(op.addr);
      page = last_page_;
      frame = last_frame_;
    }
    r.lanes[lane] = {in_frame(frame, a), op.bytes};
  }
  return r;
}

picos& gpu_model::writes_of(const warp_instruction& in) {
  return writes_[in.block << 6 | in.warp];
}

picos gpu_model::writes_before(const warp_instruction& in) const {
  const auto it = writes_.find(in.block << 6 | in.warp);
  return it == writes_.end() ? 0 : it->second;
}

void gpu_model::launch_begin(std::string_view name, dim3, dim3 block, vtime now) {
  current_ = launch_record{std::string(name), now, now, 0};
  in_launch_ = true;
  agents_until_ = now;
  if (tracker_) tracker_->log().kernel_began();
  persist_.launch_begin(std::uint32_t((block.count() + 31) / 32));
}

void gpu_model::block_started(std::uint64_t block, std::uint32_t sm, vtime) { persist_.block_started(block, sm); }

void gpu_model::on_heartbeat(std::chrono::steady_clock::duration every, heartbeat f) {
  heartbeat_ = std::move(f);
  heartbeat_every_ = every;
  last_beat_ = std::chrono::steady_clock::now();
}

void gpu_model::beat(vtime now) {
  const auto t = std::chrono::steady_clock::now();
  if (t - last_beat_ < heartbeat_every_) return;
  last_beat_ = t;
  heartbeat_(now, issued_);
}

issue_result gpu_model::issue(const warp_instruction& in, vtime now) {
  const timed_op& op = in.ops[std::countr_zero(in.lanes)];
  ++current_.instructions;
  if ((++issued_ & 0xffff) == 0 && heartbeat_) beat(now);
  if (tracker_) tracking_before(in);
  const picos next = now + issue_;
  switch (op.kind) {
    case timed_kind::load:
    case timed_kind::store: {
      const mem_space space = op.space;
      const warp_request& r = request(in, space, op.kind == timed_kind::load ? access_kind::load : access_kind::store);
      const request_timing t = mem_.access(r, now);
      if (op.kind == timed_kind::load) return {std::max(t.done, next), next, stall_reason::memory};
      if (space != mem_space::shared) writes_of(in) = std::max(writes_of(in), t.done);
      if (space == mem_space::pm && persist_.pm_store(in, r, now).held)
        return {vtime_never, next, stall_reason::ordering};  // the persist buffer takes it later
      return {next, next, stall_reason::compute};
    }
    case timed_kind::spin:
      if (op.addr && op.sub == std::uint8_t(atomic_op::none)) {  // the condition read through a view
        const request_timing t = mem_.access(request(in, op.space, access_kind::load), now);
        return {std::max(t.done, next), next, stall_reason::memory};
      }
      [[fallthrough]];
    case timed_kind::atomic:
    case timed_kind::flag_acquire:
    case timed_kind::flag_release: {
      if (!op.addr) return {next, next, stall_reason::compute};  // a spin that read nothing atomically
      // A release waits for the warp's earlier stores; then, like an atomic
      // store, it is sent and the warp goes on.
      const bool release = op.kind == timed_kind::flag_release ||
                           (op.kind == timed_kind::atomic && op.sub == std::uint8_t(atomic_op::store));
      const bool flag = op.kind == timed_kind::flag_acquire || op.kind == timed_kind::flag_release || op.acquire;
      // Flags and atomic loads and stores read or write, not both: lanes on
      // one address are one access, not one turn each.
      const bool rmw = !flag && !release && op.sub != std::uint8_t(atomic_op::load);
      if (op.space == mem_space::shared && op.kind != timed_kind::flag_release && op.kind != timed_kind::flag_acquire) {
        // Shared-memory atomics execute in the SM's shared memory, through
        // its banks; a store is sent and the warp goes on.
        warp_request& r = request(in, mem_space::shared, release ? access_kind::store : access_kind::load);
        r.atomic = true;
        r.read_modify_write = rmw;
        const request_timing t = mem_.access(r, now);
        if (release) return {next, next, stall_reason::compute};
        return {std::max(t.done, next), next, stall_reason::memory};
      }
      // A release, or an acquire (every try of a spin on one too), may wait
      // or be held before its flag's access.
      persistency_unit::outcome o{now, false};
      if (op.kind == timed_kind::flag_release) o = persist_.release(in, op.sc, now, writes_before(in));
      else if (op.kind == timed_kind::flag_acquire || op.acquire)
        o = persist_.before_acquire(in, op.sc, now, writes_before(in));
      const bool held = o.held;
      const picos start = held ? now : std::max(now, o.ready);
      warp_request& r = request(in, space_of(op.addr), release ? access_kind::store : access_kind::load);
      // A block-scope persist acquire or release meets its partner in the
      // SM: its flag is read and written in the L1; the others at the L2.
      r.atomic = !(flag && persist_.effective(op.sc) == scope::block);
      r.read_modify_write = rmw;
      r.atomic_scope = op.sc == scope::system ? scope::system : scope::device;
      if (tracker_) tracker_->access_begins();
      const request_timing t = mem_.access(r, start);
      if (tracker_) tracking_after(in, op);
      if (held && !release) {  // its read is made; it goes on when both the read and the wait are done
        persist_.acquire(in, op.sc, now);
        persist_.held_until_at_least(in, t.done);
      }
      if (held) return {vtime_never, next, stall_reason::ordering};
      if (release) {
        writes_of(in) = std::max(writes_of(in), t.done);
        return {start + issue_, next, start > now ? stall_reason::ordering : stall_reason::compute};
      }
      // Each try of a spin on a persist acquire is an acquire too.
      if (op.kind == timed_kind::flag_acquire || op.acquire) persist_.acquire(in, op.sc, start);
      return {std::max(t.done, next), next, start > now ? stall_reason::ordering : stall_reason::memory};
    }
    case timed_kind::fence: {
      if (op.sc == scope::block) return {next, next, stall_reason::compute};
      const picos done = std::max(next, writes_before(in));
      return {done, next, done > next ? stall_reason::ordering : stall_reason::compute};
    }
    case timed_kind::ordering:
    case timed_kind::persist_range: {
      const persistency_unit::outcome o = op.kind == timed_kind::ordering
                                              ? persist_.ordering(in, ordering_op(op.sub), now, writes_before(in))
                                              : persist_.persist_range(in, now, writes_before(in));
      if (o.held) return {vtime_never, next, stall_reason::ordering};
      const picos done = std::max(next, o.ready);
      return {done, next, done > next ? stall_reason::ordering : stall_reason::compute};
    }
    case timed_kind::barrier:
    case timed_kind::warp_collective: {
      const persistency_unit::outcome o =
          persist_.synchronization(in, op.kind == timed_kind::barrier, now, writes_before(in));
      const picos done = std::max(next, o.ready);
      return {done, next, done > next ? stall_reason::ordering : stall_reason::compute};
    }
    case timed_kind::activemask:
      return {next, next, stall_reason::compute};
  }
  return {next, next, stall_reason::compute};
}

void gpu_model::block_finished(std::uint64_t block, std::uint32_t sm, vtime) {
  persist_.block_finished(block, sm);
  for (std::uint64_t w = 0; w < 32; ++w) writes_.erase(block << 6 | w);
}

vtime gpu_model::launch_end(vtime now, const sm_activity* sms) {
  // The kernel boundary: every L1 writes its dirty lines back (as the SBRP
  // artifact's simulator does), and the last of them ends the launch.
  // The persist buffers drain first (their persists, in order), then every
  // other dirty line; PM lines count when durable.
  const picos buffered = persist_.kernel_end(now);
  const picos drained = std::max({now, buffered, mem_.drain(buffered)});
  // The host joins the launch's agents after it: their persists complete first.
  const picos end = std::max(drained, agents_until_);
  current_.end = end;
  for (std::size_t s = 0; s < totals_.sms.size(); ++s) {
    sm_activity& t = totals_.sms[s];
    t.instructions += sms[s].instructions;
    t.compute_instructions += sms[s].compute_instructions;
    t.blocks += sms[s].blocks;
    t.busy += sms[s].busy;
    for (unsigned r = 0; r < stall_reason_count; ++r) t.stalled[r] += sms[s].stalled[r];
    // The drain after the last issue: time the SM waited for memory.
    t.stalled[unsigned(stall_reason::memory)] += (drained - now) * config().sm.schedulers;
  }
  totals_.launches.push_back(current_);
  totals_.end = end;
  writes_.clear();
  in_launch_ = false;
  if (tracker_) tracker_->log().kernel_ended(end);
  return end;
}

void gpu_model::launch_failed() {
  writes_.clear();
  in_launch_ = false;
  agent_stepping_ = false;
}

void gpu_model::agent_step_begins(vtime now) {
  agent_stepping_ = in_launch_;
  agent_now_ = now;
}

vtime gpu_model::agent_step_ends(vtime now) {
  if (!agent_stepping_) return now;
  agent_stepping_ = false;
  agents_until_ = std::max(agents_until_, agent_now_);
  return std::max(now, agent_now_);
}

}  // namespace gpmx::sim
