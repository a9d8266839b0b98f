#pragma once
// What an execution mode sees of a run. The thread context and the executor
// call one observer at every event a mode may care about; the trace
// recorder is one observer, the timing model (the timed mode) another. With
// no observer attached nothing here is called and the hot path costs what
// it did before observers existed (see docs/design.md, "Modes as observers").
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/source_loc.hpp"

namespace gpmx {

// Where an access goes. global: device memory (the GPU's HBM); shared: the
// block's shared memory; pm: persistent memory through a PM view.
enum class mem_space : std::uint8_t { global, shared, pm };
inline constexpr unsigned mem_space_count = 3;
constexpr std::uint8_t space_bit(mem_space s) { return std::uint8_t(1u << unsigned(s)); }
inline constexpr std::uint8_t all_spaces = 0x7;
const char* to_string(mem_space s);

enum class access_kind : std::uint8_t { load, store };

// Persistency operations that take no operand.
enum class ordering_op : std::uint8_t { gpm_persist, ofence, dfence };

// Scoped persist release (prel) and acquire (pacq) of a flag.
enum class flag_op : std::uint8_t { release, acquire };

// The operation of an atomic access.
enum class atomic_op : std::uint8_t {
  none, load, store, add, sub, exch, cas, min, max, bit_and, bit_or, bit_xor, inc, dec
};
inline constexpr unsigned atomic_op_count = 14;

// Warp collective operations, one rendezvous each.
enum class warp_op : std::uint8_t {
  syncwarp, ballot, any, all, match_any, shfl, shfl_up, shfl_down, shfl_xor
};
inline constexpr unsigned warp_op_count = 9;
const char* to_string(warp_op op);

// Who made an event.
struct thread_coords {
  std::uint64_t block = 0;  // linear block index
  std::uint32_t warp = 0;
  std::uint32_t lane = 0;
  std::uint64_t global_id = 0;  // unique within the launch
};

class observer {
 public:
  virtual ~observer() = default;

  // Accesses to these spaces are reported (space_bit of each); read once
  // per launch.
  virtual std::uint8_t observed_spaces() const { return all_spaces; }
  // Accesses to these spaces are also scheduling points of the
  // deterministic schedule: a load yields before it, a store after it.
  // Persistency operations, flags and atomics always are.
  virtual std::uint8_t scheduling_spaces() const { return space_bit(mem_space::pm); }
  // Whether the parallel schedule may call it from several workers at once.
  virtual bool thread_safe() const { return false; }

  // --- launches ---
  virtual void kernel_begin(std::string_view /*name*/, dim3 /*grid*/, dim3 /*block*/, const source_loc& /*site*/) {}
  // After every thread ended; not called for a failed launch.
  virtual void kernel_end(std::string_view /*name*/) {}

  // --- one thread's events ---
  // A store is reported after it is made, a load before.
  virtual void access(const thread_coords&, mem_space, access_kind, const void* /*address*/,
                      std::size_t /*bytes*/, const source_loc&) {}
  virtual void ordering(const thread_coords&, ordering_op, const source_loc&) {}
  // The thread made [address, address + bytes) durable, whoever stored it.
  virtual void persist_range(const thread_coords&, const void* /*address*/, std::size_t /*bytes*/,
                             const source_loc&) {}
  // prel after its store (value: released), pacq after its load (value: read).
  virtual void flag(const thread_coords&, flag_op, scope, const void* /*flag*/, std::size_t /*bytes*/,
                    std::uint64_t /*value*/, const source_loc&) {}
  // After the operation; result is the old value it returned.
  virtual void atomic(const thread_coords&, atomic_op, scope, const void* /*address*/, std::size_t /*bytes*/,
                      std::uint64_t /*operand*/, std::uint64_t /*result*/, const source_loc&) {}
  // A thread's arrival at the block barrier, before it waits.
  virtual void barrier(const thread_coords&, const source_loc&) {}
  // A lane's arrival at a warp collective, before it waits.
  virtual void warp_collective(const thread_coords&, warp_op, std::uint32_t /*mask*/, const source_loc&) {}

  // --- the scheduler (deterministic schedule) ---
  // Block `block` ran runnable fiber `picked` of `choices`; picked ==
  // choices - 1 may mean a new carrier for unstarted threads.
  virtual void schedule_choice(std::uint64_t /*block*/, std::uint32_t /*choices*/, std::uint32_t /*picked*/) {}
  // An agent beside the launch took a step that did some work.
  virtual void agent_step(std::string_view /*agent*/) {}
  // Around every step of an agent that the schedule's own thread takes (the
  // deterministic and timed schedules): the host persists between them are
  // the agent's, made while the launch runs.
  virtual void agent_begin(std::string_view /*agent*/) {}
  virtual void agent_end(std::string_view /*agent*/) {}

  // --- the host thread, while installed as host observer ---
  virtual void pool_mapped(const void* /*base*/, std::uint64_t /*length*/, std::string_view /*path*/) {}
  virtual void pool_unmapped(const void* /*base*/) {}
  // Host code made [address, address + bytes) of a pool durable.
  virtual void host_persist(const void* /*address*/, std::uint64_t /*bytes*/, const source_loc&) {}
  // The host persists between these are one: write-backs issued together
  // and waited for once (a pool's persist of a list of lines).
  virtual void host_persists_begin() {}
  virtual void host_persists_end() {}
  // The executor that installed it as host observer is going away.
  virtual void host_detached() {}
};

// The observer pools report mappings and host persists to, or null. A cpu
// executor with an observer installs it for its lifetime when none is.
observer* host_observer();
void set_host_observer(observer* o);

}  // namespace gpmx
