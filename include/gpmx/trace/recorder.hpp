#pragma once
// Collects the events of trace-mode launches: an observer of the cpu
// executor's deterministic schedule, which calls it from its single worker
// thread, so it needs no locking.
#include <atomic>
#include <cstdint>
#include <exception>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/source_loc.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::trace {

// Who made an event (global_id keys the program order).
using gpmx::thread_coords;

class recorder final : public observer {
 public:
  // --- as an observer (see gpmx/exec/observer.hpp) ---
  // PM accesses only; they, the persistency operations, flags and atomics
  // are the trace schedule's scheduling points.
  std::uint8_t observed_spaces() const override { return space_bit(mem_space::pm); }
  void kernel_begin(std::string_view name, dim3 grid, dim3 block, const source_loc& site) override;
  void kernel_end(std::string_view name) override;
  void access(const thread_coords& who, mem_space s, access_kind k, const void* p, std::size_t bytes,
              const source_loc& loc) override;
  void ordering(const thread_coords& who, ordering_op op, const source_loc& loc) override;
  void persist_range(const thread_coords& who, const void* p, std::size_t bytes,
                     const source_loc& loc) override;
  void flag(const thread_coords& who, flag_op op, scope s, const void* flag, std::size_t bytes,
            std::uint64_t value, const source_loc& loc) override;
  void atomic(const thread_coords& who, atomic_op op, scope s, const void* p, std::size_t bytes,
              std::uint64_t operand, std::uint64_t result, const source_loc& loc) override;
  void barrier(const thread_coords& who, const source_loc& loc) override;
  void warp_collective(const thread_coords& who, warp_op op, std::uint32_t mask, const source_loc& loc) override;
  void agent_step(std::string_view agent) override;
  // Inside a launch, the host persists between these are the agent's: its
  // stores (what changed in the pools) and a persist_range of its thread
  // (block agent_block), not the host's.
  void agent_begin(std::string_view agent) override;
  void agent_end(std::string_view agent) override;
  void pool_mapped(const void* base, std::uint64_t length, std::string_view path) override {
    watch_pool(base, length, path);
  }
  void pool_unmapped(const void* base) override { unwatch_pool(base); }
  void host_detached() override { stop_watching(); }

  // Appends a thread's event, filling in its coordinates, launch, program
  // order and source location; returns its index.
  std::uint64_t append(event e, const thread_coords& who, const source_loc& loc);

  // The prel a pacq of `flag` that read `value` read from: the last write to
  // the flag if that was a prel of the same value, else no_event.
  std::uint64_t release_read(std::uint64_t flag, std::uint64_t value) const;

  // The host thread (recorder_host.cpp). Host code stores to PM through
  // raw pointers, so a watched pool keeps a shadow copy and every host
  // persist, launch and unwatch compares the mapping with it: the bytes that
  // changed become host pm_write events. A mapping's bytes when watched
  // become its pool_image::before.
  void watch_pool(const void* base, std::uint64_t length, std::string_view path);
  void unwatch_pool(const void* base);  // unknown bases are ignored
  // Records what is pending and forgets every watched pool (they stay mapped).
  void stop_watching();
  // pool::persist of [p, p + bytes) by the host, recorded as host_persist
  // after the host stores found before it. Inside a launch it is a kernel
  // persisting through the pool (the checkpoint copy): the launch's end
  // covers it, so nothing is recorded.
  void host_persist(const void* p, std::uint64_t bytes, const source_loc& loc) override;

  std::uint32_t intern(std::string_view s);
  const trace& recorded() const { return trace_; }
  // Hands the trace over (after recording the host stores still pending)
  // and starts an empty one; watched pools stay watched. Throws what kept
  // an unmapping's stores from being recorded, if anything did.
  trace take();

 private:
  struct watched_pool {
    std::size_t image = 0;  // index into trace_.pools
    const std::uint8_t* base = nullptr;
    std::uint64_t length = 0;
    std::vector<std::uint8_t> shadow;  // the bytes as the trace knows them
  };

  std::uint32_t intern_file(const char* file);
  void note_flag_write(std::uint64_t address, std::uint64_t index);
  // Records every byte of a watched pool that differs from its shadow as
  // stores of `as` (host or unviewed kernel stores) and updates the shadow.
  void record_changes(const event& as);
  void record_changes(watched_pool& w, const event& as);
  // Copies the bytes the launch's stores recorded since the last call
  // wrote into the shadows.
  void absorb_kernel_stores();
  // A persist by the agent stepping now (agent_): its stores, then the persist.
  void agent_persist(const void* p, std::uint64_t bytes, const source_loc& loc);
  // The stores found at a persist of [p, p + bytes) by `as`'s thread (its
  // launch, block and warp), then the persist as an event of `kind`, its
  // program order from `po` (the thread's counter).
  void record_persist(event as, event_kind kind, const void* p, std::uint64_t bytes, const source_loc& loc,
                      std::uint64_t& po);

  trace trace_;
  std::exception_ptr unrecorded_;  // why an unmapping's stores were not recorded
  std::uint32_t launches_ = 0;
  std::unordered_map<std::uint64_t, std::uint64_t> next_po_;           // by global thread id
  std::unordered_map<std::uint64_t, std::uint64_t> last_flag_write_;  // flag address -> event
  std::unordered_map<const char*, std::uint32_t> file_ids_;           // by pointer, a cache
  std::unordered_map<std::string, std::uint32_t> string_ids_;
  std::vector<watched_pool> watched_;
  bool in_kernel_ = false;
  std::uint64_t launch_first_event_ = 0;
  std::uint64_t absorbed_upto_ = 0;  // events before it are in the shadows
  std::uint32_t agent_ = no_string;  // the agent stepping now (its name's string)
  std::unordered_map<std::uint32_t, std::uint64_t> agent_po_;  // by agent name
  std::uint64_t host_po_ = 0;
};

}  // namespace gpmx::trace
