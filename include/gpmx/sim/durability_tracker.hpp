#pragma once
// Follows every PM write of a timed run from the moment a kernel thread
// makes it to the moment the memory model makes it durable, and keeps its
// bytes in a durable_log, so that the NVM's contents at any simulated time
// can be rebuilt (`gpmx sim --crash-at`, docs/sim-persistency.md).
//
// A store is made before its warp issues it: its bytes wait with the lane
// (staged) until the issue puts them in the SM's L1 line (pending), and the
// first write of that line's sectors from that SM to the persistence
// domain makes them durable. An atomic or a persist release is performed
// after its issue: if the issue wrote it (an atomic at the L2 or the host)
// it is durable when that write was; if it went into the L1 (a block-scope
// release), it waits there like a store.
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "gpmx/sim/durable_log.hpp"
#include "gpmx/sim/memory_system.hpp"

namespace gpmx::sim {

class durability_tracker final : public pm_write_listener {
 public:
  durability_tracker(std::uint32_t line_bytes, std::uint32_t sector_bytes);

  durable_log& log() { return log_; }
  const durable_log& log() const { return log_; }

  // A lane (any unique number per thread) made a plain PM store: the bytes
  // at p as they are now. `view_store`: a store through a PM view (one the
  // trace records as a pm_write), not a write taken as one.
  void stored(std::uint64_t lane, const void* p, std::uint32_t bytes, bool view_store = true);

  // Kernel stores in the order stored() saw them, when asked for (to check
  // the durable order against the persistency model: durable_order.hpp).
  void remember_stores() { remember_ = true; }
  std::size_t stores() const { return stores_.size(); }
  std::uint64_t store_address(std::size_t k) const { return stores_.at(k).address; }
  // When the byte at host address `address` of store k became durable
  // (not_durable: never); not_durable too for an address outside it.
  picos durable_time(std::size_t k, std::uint64_t address) const;
  // An instruction of `lanes` issues on SM `sm`: their staged stores enter
  // the L1 now, at the simulated addresses `simulated` gives. Call before
  // the memory model sees the instruction (simulated pages are numbered in
  // the order they are first touched: asking earlier would change them).
  using address_map = std::function<std::uint64_t(const void*)>;
  void issuing(std::uint32_t sm, const std::uint64_t* lanes, std::uint32_t count, const address_map& simulated);
  // The instruction's own memory access starts: only writes from here on
  // can carry what its lanes will write (a release's persists, flushed
  // before its flag, cannot).
  void access_begins() { access_from_ = this_issue_.size(); }
  // After the model saw it: lane `lane` will perform a PM write at
  // simulated address `at` (an atomic or a release) once it resumes.
  void will_write(std::uint32_t sm, std::uint64_t lane, std::uint64_t at);
  // That write, made: the bytes at p, as they are now. False when no write
  // was planned for the lane (an atomic inside a spin condition, timed as
  // the spin's read): the caller then takes it as a store (stored()).
  bool wrote(std::uint64_t lane, const void* p, std::uint32_t bytes);
  // Host code persisted [p, p + bytes) at simulated time `now`.
  void host_persisted(const void* p, std::uint64_t bytes, picos now);

  void pm_written(std::uint32_t sm, std::uint64_t line, std::uint32_t sectors, picos durable, bool atomic) override;

  // Pieces still waiting in an L1 or for their issue (none after a kernel's end).
  std::size_t waiting() const;

 private:
  struct waiting_piece {
    durable_log::piece_id id;
    std::uint64_t at;  // simulated address (staged: the host address)
  };
  struct written {  // one pm_written call during the current issue
    std::uint64_t line;
    std::uint32_t sectors;
    picos durable;
  };
  struct planned {  // what a resuming lane's write does
    std::uint32_t sm = 0;
    std::uint64_t at = 0;
    picos durable = not_durable;  // not_durable: it goes into the L1 line
  };
  std::uint64_t line_of(std::uint64_t a) const { return a & ~std::uint64_t(line_bytes_ - 1); }
  std::uint32_t sector_of(std::uint64_t a) const { return std::uint32_t((a & (line_bytes_ - 1)) / sector_bytes_); }
  static std::uint64_t key(std::uint32_t sm, std::uint64_t line) { return line << 16 | sm; }
  // Adds one sector-sized-or-smaller piece to lane or line lists via `put`.
  template <class Put>
  void split(const void* p, std::uint32_t bytes, std::uint64_t at, Put put);

  struct store_record {
    std::uint64_t address = 0;
    durable_log::piece_id first = 0;  // its pieces are consecutive
    std::uint32_t pieces = 0;
  };

  std::uint32_t line_bytes_, sector_bytes_;
  bool remember_ = false;
  std::vector<store_record> stores_;
  durable_log log_;
  std::unordered_map<std::uint64_t, std::vector<waiting_piece>> staged_;   // by lane
  std::unordered_map<std::uint64_t, std::vector<waiting_piece>> in_l1_;    // by key(sm, line)
  std::unordered_map<std::uint64_t, planned> planned_;                     // by lane
  std::vector<written> this_issue_;
  std::size_t access_from_ = 0;
};

}  // namespace gpmx::sim
