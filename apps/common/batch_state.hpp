#pragma once
// The transaction word of a batched workload (gpkvs, gpdb, hashmap, multiqueue): committed
// batches times four plus the phase of the batch after them, in one aligned
// 8-byte PM word, so every step (begin, applied, commit) is one atomic store.
//   idle: nothing in flight;
//   in_flight: the batch may have changed PM partly: recovery undoes it;
//   applied: the batch is durable whole and only its log is being cleared:
//            recovery finishes the commit.
#include <cstdint>
#include <filesystem>

#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/stored_value.hpp"

namespace gpmx::apps {

enum class batch_phase : std::uint64_t { idle = 0, in_flight = 1, applied = 2 };

class batch_state {
 public:
  // The word at byte `offset` of region r (8-byte aligned).
  batch_state(pm::region r, std::uint64_t offset) : r_(r), offset_(offset) {}

  // Throws pm_error(corrupt_value) naming `file` when the phase bits hold a
  // value set() never stores; call it once on open, before trusting phase().
  void check(const std::filesystem::path& file) const {
    if ((word() & 3) == 3)
      pm::throw_corrupt_value(file, r_.name(), "transaction word", word(), "its phase bits (the low two) are 0 to 2");
  }

  std::uint64_t committed() const { return word() >> 2; }
  batch_phase phase() const { return batch_phase(word() & 3); }
  bool in_flight() const { return phase() != batch_phase::idle; }

  // Stores and persists the word, then marks a crash point: a crash may land
  // between any two commit steps.
  void set(std::uint64_t committed, batch_phase p) {
    *ptr() = committed * 4 + std::uint64_t(p);
    r_.persist(offset_, 8);
    crash_trigger::point();
  }

 private:
  std::uint64_t word() const { return *ptr(); }
  std::uint64_t* ptr() const { return reinterpret_cast<std::uint64_t*>(r_.data() + offset_); }
  pm::region r_;
  std::uint64_t offset_ = 0;
};

}  // namespace gpmx::apps
