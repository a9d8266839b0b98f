#pragma once
// The timed mode's model of a GPU: the executor's timed schedule asks it
// how long each warp instruction takes, and it answers from the memory
// system (caches, interconnect, GDDR, PCIe, NVM) and the SM's issue rate.
// It is also an observer, to learn which addresses are PM (pool mappings).
//
//   sim::gpu_model gpu(sim::named_config("sbrp-table1"));
//   cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
//   ex.launch(...);            // kernels run for real, in virtual time
//   gpu.totals().end;          // simulated picoseconds so far
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpmx/exec/timing.hpp"
#include "gpmx/sim/config.hpp"
#include "gpmx/sim/durability_tracker.hpp"
#include "gpmx/sim/memory_system.hpp"
#include "gpmx/sim/persistency_unit.hpp"

namespace gpmx::sim {

// One launch as the model saw it.
struct launch_record {
  std::string name;
  picos start = 0, end = 0;  // end: every thread done and the L1s drained
  std::uint64_t instructions = 0;
};

// Everything the model saw since it was made.
struct run_totals {
  picos end = 0;  // simulated time of the last launch's end
  std::vector<sm_activity> sms;  // per SM, summed over launches
  std::vector<launch_record> launches;
  std::uint64_t instructions() const;          // operations issued, all SMs
  std::uint64_t compute_instructions() const;  // declared work, all SMs
  picos kernel_time() const;                   // summed launch durations
};

class gpu_model final : public timing_model {
 public:
  explicit gpu_model(const sim_config& c);

  timed_machine machine() const override;
  void launch_begin(std::string_view name, dim3 grid, dim3 block, vtime now) override;
  issue_result issue(const warp_instruction& in, vtime now) override;
  vtime next_event() const override { return persist_.next_event(); }
  void advance(vtime t, timed_waker& w) override { persist_.advance(t, w); }
  void block_started(std::uint64_t block, std::uint32_t sm, vtime now) override;
  void block_finished(std::uint64_t block, std::uint32_t sm, vtime now) override;
  vtime launch_end(vtime now, const sm_activity* sms) override;
  void launch_failed() override;
  // An agent's persists while a launch runs (a log truncator on the host):
  // host write-backs to the NVM (memory_system::host_pm_write); a persist
  // starts when the one before it is durable, the ranges of one grouped
  // persist (host_persists_begin/end) all at once; crash images follow
  // their bytes. The launch ends no earlier than the last of them.
  void agent_step_begins(vtime now) override;
  vtime agent_step_ends(vtime now) override;

  // The schedule reports every access to the model through issue(), so no
  // per-access call is wanted for the model itself; the loads a passenger
  // asks for are. (The timed schedule reports stores, atomics and flags
  // whatever this says: crash images follow PM stores.)
  std::uint8_t observed_spaces() const override { return passenger_ ? passenger_->observed_spaces() : 0; }
  void pool_mapped(const void* base, std::uint64_t length, std::string_view path) override;
  void pool_unmapped(const void* base) override;

  // Crash images: every PM write's bytes followed to the moment the model
  // makes it durable (not owned; null: none). Set before the run maps its
  // pools. Costs a copy of each PM store; the timing is unchanged.
  void track_durability(durability_tracker* t);
  // Another observer that sees every event of the run too, as if it were
  // the launch's and the host's observer (a trace recorder, so one timed
  // run is also traced); not owned; set before the run maps its pools.
  void set_passenger(observer* o) { passenger_ = o; }
  // A long run's progress: f(simulated time, warp instructions issued) is
  // called from the issuing thread about every `every` of wall time (checked
  // every 65,536 instructions); empty f: none.
  using heartbeat = std::function<void(vtime now, std::uint64_t instructions)>;
  void on_heartbeat(std::chrono::steady_clock::duration every, heartbeat f);

  // The observer side (gpu_model_observer.cpp): the tracker's and the
  // passenger's events.
  void kernel_begin(std::string_view name, dim3 grid, dim3 block, const source_loc& site) override;
  void kernel_end(std::string_view name) override;
  void access(const thread_coords& c, mem_space s, access_kind k, const void* p, std::size_t bytes,
              const source_loc& loc) override;
  void ordering(const thread_coords& c, ordering_op op, const source_loc& loc) override;
  void persist_range(const thread_coords& c, const void* p, std::size_t bytes, const source_loc& loc) override;
  void flag(const thread_coords& c, flag_op op, scope s, const void* p, std::size_t bytes, std::uint64_t value,
            const source_loc& loc) override;
  void atomic(const thread_coords& c, atomic_op op, scope s, const void* p, std::size_t bytes, std::uint64_t operand,
              std::uint64_t result, const source_loc& loc) override;
  void barrier(const thread_coords& c, const source_loc& loc) override;
  void warp_collective(const thread_coords& c, warp_op op, std::uint32_t mask, const source_loc& loc) override;
  void schedule_choice(std::uint64_t block, std::uint32_t choices, std::uint32_t picked) override;
  void agent_step(std::string_view agent) override;
  void agent_begin(std::string_view agent) override;
  void agent_end(std::string_view agent) override;
  void host_persist(const void* p, std::uint64_t bytes, const source_loc& loc) override;
  void host_persists_begin() override;
  void host_persists_end() override;
  void host_detached() override;

  const sim_config& config() const { return mem_.config(); }
  const memory_system& memory() const { return mem_; }
  const persistency_unit& persistency() const { return persist_; }
  const run_totals& totals() const { return totals_; }

 private:
  mem_space space_of(const void* p) const;  // pm if inside a mapped pool, else global
  // The simulated address of a host address: pages numbered in the order
  // the run first touches them (as a driver hands out physical pages), so
  // the same run times the same wherever the host put its buffers.
  std::uint64_t simulated(const void* p);
  // The instruction's request, built in request_ (valid until the next
  // call): its 32 lane slots are written only for the active lanes.
  warp_request& request(const warp_instruction& in, mem_space space, access_kind kind);
  // request()'s shortcut for a whole warp of consecutive lanes in one page.
  bool contiguous_in_a_page(const timed_op* ops, warp_request& r);
  picos& writes_of(const warp_instruction& in);
  // When the warp's earlier stores are acknowledged (0: none), without
  // adding the warp to writes_ (barriers and acquires only read it).
  picos writes_before(const warp_instruction& in) const;
  static std::uint64_t lane_key(std::uint64_t block, std::uint32_t warp, std::uint32_t lane) {
    return block << 10 | std::uint64_t(warp) << 5 | lane;
  }
  // The tracker's side of an issue: before the model sees it, and after
  // (writes the lanes perform when they resume).
  void tracking_before(const warp_instruction& in);
  void tracking_after(const warp_instruction& in, const timed_op& op);
  void tracked_write(const thread_coords& c, const void* p, std::size_t bytes);

  memory_system mem_;
  persistency_unit persist_{mem_};
  picos cycle_ = 0, issue_ = 0;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pm_ranges_;  // [begin, end)
  std::unordered_map<std::uintptr_t, std::uint64_t> frames_;  // host page -> simulated page
  warp_request request_;
  std::uintptr_t last_page_ = ~std::uintptr_t(0);
  std::uint64_t last_frame_ = 0, next_frame_ = 1;
  // Per warp (block << 6 | warp): when its stores issued so far are acknowledged.
  std::unordered_map<std::uint64_t, picos> writes_;
  run_totals totals_;
  launch_record current_;
  void beat(vtime now);
  heartbeat heartbeat_;
  std::chrono::steady_clock::duration heartbeat_every_{};
  std::chrono::steady_clock::time_point last_beat_{};
  std::uint64_t issued_ = 0;  // every launch's warp instructions, for the heartbeat
  durability_tracker* tracker_ = nullptr;
  observer* passenger_ = nullptr;
  bool in_launch_ = false;
  bool agent_stepping_ = false;
  picos agent_now_ = 0;     // the stepping agent's time: its last persist's completion
  bool grouped_ = false;    // inside host_persists_begin/end
  picos group_done_ = 0;    // the grouped persist's last completion
  picos agents_until_ = 0;  // the launch's agents' last persist's completion
};

}  // namespace gpmx::sim
