#pragma once
// GPM-style checkpoints (GPM paper, section 5.3): groups of registered
// buffers saved together into a pool file and restored after a restart.
// Each group keeps two copies; a save writes and persists the copy that is
// not consistent, then flips one 8-byte epoch word whose parity names the
// consistent copy. See docs/checkpoint.md.
//
//   auto cp = checkpoint::create("w.cp", 1 << 20, 4, 2);   // 1 MiB, 4 elements, 2 groups
//   cp.register_buffer(0, weights, weights_bytes);
//   cp.save(0, ex);                                         // after each iteration
//   ...after a restart:
//   auto cp = checkpoint::open("w.cp");
//   cp.register_buffer(0, weights, weights_bytes);          // same order, same sizes
//   cp.restore(0, ex);
//
// Errors are pm_error: checkpoint_full (past a group's elements or bytes),
// no_consistent_copy (restore before any save), registration_mismatch
// (buffers other than those recorded), bad_argument / bad_size otherwise.
// One checkpoint object may be used from several host threads; each call
// holds its lock for its duration.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::pm {

class checkpoint {
 public:
  // A new pool file at `path` (which must not exist) with `groups` groups,
  // each holding up to `elements_per_group` buffers of up to
  // `bytes_per_group_copy` bytes in all, twice (the two copies).
  static checkpoint create(const std::filesystem::path& path, std::uint64_t bytes_per_group_copy,
                           std::uint32_t elements_per_group, std::uint32_t groups,
                           durability mode = durability::pmem);
  static checkpoint open(const std::filesystem::path& path, durability mode = durability::pmem);

  checkpoint(checkpoint&&) noexcept;
  checkpoint& operator=(checkpoint&&) noexcept;
  ~checkpoint();

  // Adds the next buffer of `group`. In a new checkpoint it is recorded
  // (durably); after open, the i-th registration must have the size the i-th
  // had when recorded. A saved group takes no new elements.
  void register_buffer(std::uint32_t group, void* addr, std::uint64_t bytes);
  // The order of a save's two steps. copy_then_flip is the protocol;
  // flip_then_copy makes the new epoch durable before the working copy is
  // written: a deliberately broken order, there only for the seeded bug
  // flip-before-copy (docs/workloads.md, "Seeded bugs").
  enum class save_order : std::uint8_t { copy_then_flip, flip_then_copy };
  // Copies the group's buffers into its working copy in parallel on `ex`,
  // persists them, then makes that copy the consistent one.
  // ex: where the copy runs (the cpu executor, or a GPU).
  void save(std::uint32_t group, const launch_target& ex, save_order order = save_order::copy_then_flip);
  // Copies the consistent copy back into the registered buffers.
  void restore(std::uint32_t group, const launch_target& ex);

  std::uint64_t epoch(std::uint32_t group) const;  // saves completed; 0: none
  std::uint32_t groups() const;
  std::uint32_t elements_per_group() const;
  std::uint64_t bytes_per_group_copy() const;
  std::uint32_t recorded_elements(std::uint32_t group) const;    // in the file
  std::uint32_t registered_elements(std::uint32_t group) const;  // by this process
  // Where element `element` of copy `copy` (0 or 1) of a group lies in the
  // mapping (for inspection; stores through it bypass the protocol).
  const std::byte* element_copy(std::uint32_t group, std::uint32_t copy, std::uint32_t element) const;
  const std::filesystem::path& path() const;
  durability mode() const;

 private:
  struct state;
  explicit checkpoint(std::unique_ptr<state> s);
  std::unique_ptr<state> s_;
};

}  // namespace gpmx::pm
