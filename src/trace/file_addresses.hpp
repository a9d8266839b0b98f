#pragma once
// The addresses a trace file holds (version 4 on): not the recording
// process's, which differ from run to run (mmap, heap, ASLR), but addresses
// that depend only on what was recorded, so the same program, parameters and
// seed give a byte-identical file.
//   - Pool i (in mapping order) is placed at (i + 1) << 40; an address inside
//     a pool while it is mapped keeps its offset from the pool's start.
//   - Any other address (a flag or atomic in device memory) becomes
//     other_base + 64 k, k numbering the distinct such addresses in order of
//     first appearance: equal addresses stay equal, nothing else is kept.
// The checker needs only offsets into pools and equality of flags, so a
// trace read back checks as the recorded one does.
#include <cstdint>
#include <unordered_map>

#include "gpmx/trace/event.hpp"

namespace gpmx::trace {

inline constexpr std::uint64_t other_base = 0xd000'0000'0000'0000ull;

class file_addresses {
 public:
  explicit file_addresses(const trace& t);
  std::uint64_t pool_base(std::size_t pool) const { return (std::uint64_t(pool) + 1) << 40; }
  // The file's address of event #index's address field (0 stays 0).
  std::uint64_t of_event(std::uint64_t index) const;

 private:
  const trace& t_;
  std::unordered_map<std::uint64_t, std::uint64_t> others_;
};

}  // namespace gpmx::trace
