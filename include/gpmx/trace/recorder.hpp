#pragma once
// Collects the events of trace-mode launches. The cpu executor appends to it
// from its single worker thread (schedule::trace), so it needs no locking.
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "gpmx/exec/source_loc.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::trace {

// Who made an event: filled in by the thread context.
struct thread_coords {
  std::uint64_t block = 0;
  std::uint32_t warp = 0;
  std::uint32_t lane = 0;
  std::uint64_t global_id = 0;  // unique within the launch; keys the program order
};

class recorder {
 public:
  void kernel_begin(std::string_view name, dim3 grid, dim3 block);
  void kernel_end();

  // Appends a thread's event, filling in its coordinates, launch, program
  // order and source location; returns its index.
  std::uint64_t append(event e, const thread_coords& who, const source_loc& loc);

  // The prel a pacq of `flag` that read `value` read from: the last write to
  // the flag if that was a prel of the same value, else no_event.
  std::uint64_t release_read(std::uint64_t flag, std::uint64_t value) const;

  std::uint32_t intern(std::string_view s);
  const trace& recorded() const { return trace_; }
  // Hands the trace over and starts an empty one.
  trace take();

 private:
  std::uint32_t intern_file(const char* file);
  void note_flag_write(std::uint64_t address, std::uint64_t index);

  trace trace_;
  std::uint32_t launches_ = 0;
  std::unordered_map<std::uint64_t, std::uint64_t> next_po_;           // by global thread id
  std::unordered_map<std::uint64_t, std::uint64_t> last_flag_write_;  // flag address -> event
  std::unordered_map<const char*, std::uint32_t> file_ids_;           // by pointer, a cache
  std::unordered_map<std::string, std::uint32_t> string_ids_;
};

}  // namespace gpmx::trace
