#pragma once
// The cuckoo hashmap of SBRP's evaluation (Table 2, "HM"): a table of
// key-value slots in PM filled by batches of inserts in parallel
// (cuckoo.hpp gives the placement rounds). Before a thread overwrites a
// slot (a value replaced, an empty slot taken, an entry displaced) it
// undo-logs the slot's old content with HCL, tagged with the round; one
// transaction word brackets the batch, and a second word counts the rounds
// begun. Recovery undoes the rounds of a batch in flight newest first, so a
// slot written in several rounds gets back its content from before the batch.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "common/batch_state.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"
#include "hashmap/cuckoo.hpp"

namespace gpmx::apps::hashmap {

class store {
 public:
  static store create(const std::filesystem::path& dir, std::uint64_t slots, std::uint32_t max_batch,
                      pm::durability mode);
  static store open(const std::filesystem::path& dir, pm::durability mode);

  // Inserts (or updates) a batch of distinct keys, transactionally. Throws
  // pm_error if the batch does not settle in max_rounds (the batch stays in
  // flight: recover undoes it).
  // log_after_update runs the seeded bug of that name (docs/workloads.md).
  void insert_batch(const launch_target& ex, std::span<const entry> batch, pm::ordering o, bool log_after_update = false);
  // Undoes a batch in flight or finishes an applied one's commit; returns
  // whether there was one. Crash-safe and idempotent.
  bool recover(const launch_target& ex);
  // Values of the keys (0 where absent).
  std::vector<std::uint64_t> lookup(const launch_target& ex, std::span<const std::uint64_t> keys);

  bool batch_in_flight() const { return state_.in_flight(); }
  std::uint64_t committed_batches() const { return state_.committed(); }
  std::span<const entry> table() const { return {table_.as<entry>().data(), std::size_t(slots())}; }
  std::uint64_t slots() const;
  std::uint64_t bytes_persisted() const;
  pm::pool& pool() { return *pool_; }

 private:
  store(std::unique_ptr<pm::pool> pool, std::unique_ptr<pm::hcl_log> log);
  // Throws pm_error(corrupt_value) naming a stored word a run cannot leave.
  static void check_stored_words(pm::pool& pool, pm::hcl_log& log);
  std::uint64_t& txn_word(std::size_t i) const { return txn_.as<std::uint64_t>()[i]; }
  void begin_round(std::uint64_t r);
  void undo_round(const launch_target& ex, std::uint64_t r);

  std::unique_ptr<pm::pool> pool_;
  std::unique_ptr<pm::hcl_log> log_;
  pm::region table_, txn_;
  batch_state state_;
  kernel_vector<std::uint64_t> claims_;  // device memory: the winning claim tag per slot
  std::uint64_t claim_epoch_ = 0;      // makes every round's tags larger than the last round's
};

// Batch b of a deterministic sequence: n distinct keys drawn from
// 1..key_space (so later batches update earlier keys), values naming b.
std::vector<entry> make_batch(std::uint64_t seed, std::uint64_t b, std::uint32_t n, std::uint64_t key_space);

}  // namespace gpmx::apps::hashmap
