#pragma once
// One recorded event of a trace-mode run (see docs/trace.md), and the trace:
// the events in the order they happened plus the strings they name.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"

namespace gpmx::trace {

// host_persist is the model's H(x, n): pool::persist of [address, address +
// bytes) by the host thread. Host stores are pm_write events of the host
// thread (launch == host_launch); see recorder::watch_pool.
// persist_range is a kernel thread's persist of [address, address + bytes),
// whoever stored it (thread_ctx::persist_range). agent_step: an agent
// beside the launch did some work (text: its name); it orders nothing.
// warp_collective: a lane's arrival at a warp collective (syncwarp, ballot,
// shfl, ...): `value` is the mask of participating lanes, `result` the
// operation (gpmx::warp_op); a barrier among those lanes.
enum class event_kind : std::uint8_t {
  kernel_begin, kernel_end, pm_write, pm_read, gpm_persist, ofence, dfence, prel, pacq, barrier, atomic,
  host_persist, persist_range, agent_step, warp_collective
};
inline constexpr unsigned event_kind_count = 15;
// The kinds a file of each version may hold: version 5 added warp_collective.
inline constexpr unsigned event_kinds_before_version_5 = 14;

// The atomic operation of an `atomic` event.
using gpmx::atomic_op;
using gpmx::atomic_op_count;

const char* to_string(event_kind k);
const char* to_string(atomic_op op);

inline constexpr std::uint64_t no_event = ~std::uint64_t(0);
inline constexpr std::uint32_t no_string = ~std::uint32_t(0);
inline constexpr std::size_t max_value_bytes = 64;
// The launch number of the host thread's events.
inline constexpr std::uint32_t host_launch = ~std::uint32_t(0);
// The block of stores a kernel made without a PM view (raw pointers, e.g.
// the checkpoint copy's memcpy): found by comparing the pool at its end.
inline constexpr std::uint64_t unviewed_block = ~std::uint64_t(0);
// The block of an agent's stores and persists while a launch runs (an
// agent beside it, such as a log truncator, persisting through a pool):
// one thread per agent, its warp the string of the agent's name. Its
// stores are found by comparing the pools at each of its persists; each
// persist is a persist_range of that thread.
inline constexpr std::uint64_t agent_block = ~std::uint64_t(0) - 1;

struct event {
  event_kind kind = event_kind::kernel_begin;
  scope scope_of = scope::device;   // prel, pacq, atomic
  atomic_op op = atomic_op::none;   // atomic
  std::uint8_t value_bytes = 0;     // pm_write: how many bytes of `data` hold the value written
  std::uint32_t launch = 0;         // kernel launch index within the recording, from 0
  std::uint64_t block = 0;          // linear block index
  std::uint32_t warp = 0;
  std::uint32_t lane = 0;
  std::uint64_t po = 0;             // the thread's program-order index, from 0 per launch
  std::uint64_t address = 0;        // pm_write, pm_read: the data; prel, pacq, atomic: the flag
  std::uint64_t bytes = 0;          // size of the access
  std::uint64_t value = 0;          // prel: released; pacq: read; atomic: operand; kernel_begin: the launch's file (a string)
  std::uint64_t result = 0;         // atomic: the old value it returned
  std::uint64_t reads_from = no_event;  // pacq: index of the prel it read from
  std::uint32_t text = no_string;   // file name, or the kernel's name for kernel events
  std::uint32_t line = 0;           // kernel_begin: the line of the launch (0: not known)
  // pm_write: the first value_bytes bytes written; kernel_begin: grid and block (see kernel_dims).
  std::array<std::uint8_t, max_value_bytes> data{};

  bool operator==(const event&) const = default;
};

// kernel_begin keeps the launch's grid and block shape in `data`.
void set_kernel_dims(event& e, dim3 grid, dim3 block);
dim3 kernel_grid(const event& e);
dim3 kernel_block(const event& e);

inline bool is_host(const event& e) { return e.launch == host_launch; }
inline bool is_agent(const event& e) { return !is_host(e) && e.block == agent_block; }

// A pool file mapped while recording. Trace addresses in [base, base +
// length) during events [first_event, end_event) are offsets into it.
struct pool_image {
  std::string path;
  std::uint64_t base = 0;
  std::uint64_t length = 0;
  std::uint64_t first_event = 0;
  std::uint64_t end_event = 0;
  std::vector<std::uint8_t> before;  // the file's bytes when it was mapped

  bool operator==(const pool_image&) const = default;
};

struct trace {
  std::vector<event> events;
  std::vector<std::string> strings;  // named by event::text
  std::vector<pool_image> pools;     // in the order they were mapped

  // The string an event names, or "" when it names none.
  const std::string& text_of(const event& e) const;
  // A kernel_begin's launch site, "file:line" (file name only), or empty when not recorded.
  std::string launch_site(const event& e) const;
  bool operator==(const trace&) const = default;
};

}  // namespace gpmx::trace
