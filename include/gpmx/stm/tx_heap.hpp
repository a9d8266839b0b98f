#pragma once
// The transactional data's durable side in a PM pool (host code): the home
// image of the words, the NVRAM log, and the state words that say how far
// the home image is up to date. Regions:
//   tx_home   the words as of the last applied record
//   tx_log    the log streams (log_layout.hpp)
//   tx_state  [0] applied_upto: every record <= it is in tx_home
//             [1] epoch: truncations so far (folded into every mark)
//             [2] committed_through: the run's promise that every record <= it
//                 is durable (written after each launch ends)
//   tx_starts where each stream's unapplied records begin (a position), only
//             when the streams wrap (truncation while kernels run)
//
// The invariants that make recovery correct (docs/transactions.md): a
// record reaches the home image only when every smaller one is durable
// (checkpoint applies the unbroken run only); the log is truncated (the
// epoch moves on, or a ring's start moves past records) only after the home
// image and applied_upto are durable.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "gpmx/pm/pool.hpp"
#include "gpmx/stm/log_layout.hpp"
#include "gpmx/stm/log_scan.hpp"

namespace gpmx::stm {

struct checkpoint_report {
  std::uint64_t applied = 0;     // records applied to the home image now
  std::uint64_t applied_upto = 0;
  std::uint64_t discarded = 0;   // valid records after the first gap
  std::uint32_t gap_at = 0;      // the first missing sequence number, 0 if none
  std::uint32_t streams_cut = 0;
};

class tx_heap {
 public:
  // Creates the three regions in pool (the home image zeroed) and persists them.
  static void create(pm::pool& pool, std::uint32_t words, const log_geometry& g);
  // Opens them; throws pm::pm_error naming the pool and region when one is
  // missing or smaller than `words` and `g` need, or when applied_upto or
  // committed_through holds more than a 32-bit sequence number.
  static tx_heap open(pm::pool& pool, std::uint32_t words, const log_geometry& g);

  std::span<std::uint32_t> home() const { return home_.as<std::uint32_t>().first(words_); }
  std::uint64_t applied_upto() const { return state(0); }
  std::uint64_t epoch() const { return state(1); }
  std::uint64_t committed_through() const { return state(2); }
  std::uint32_t words() const { return words_; }
  // The kernel's view of the log for the current epoch.
  tx_log log() const;
  std::span<const log_entry> log_entries() const { return log_.as<const log_entry>(); }

  // Persists the promise that every record <= seq is durable.
  void promise_durable(std::uint64_t seq);
  // Applies the log's unbroken run of records to the home image and
  // truncates the log: home persisted, then applied_upto, then the epoch
  // moved on (each step a crash point). Idempotent: run again after a crash
  // anywhere in it, it ends in the same state. `truncate_first` is the
  // seeded bug that moves the epoch on before the home image is durable.
  checkpoint_report checkpoint(bool truncate_first = false);
  // What checkpoint would find, without changing anything.
  log_scan scan() const;

  // Truncation while kernels run (log_truncator.hpp), each step durable
  // and a crash point: the lines of the home words given (sorted) persisted
  // through the pool's domain (as a kernel's persist: a write throttle
  // charges them); applied_upto set; the starts of the given streams
  // (sorted) set, or of every stream.
  void persist_home_words(std::span<const std::uint32_t> sorted_words);
  void set_applied_upto(std::uint64_t seq);
  std::span<const std::uint64_t> stream_starts() const;
  void set_stream_starts(std::span<const std::uint32_t> sorted_streams, std::span<const std::uint64_t> values);
  void reset_stream_starts();
  const log_geometry& geometry() const { return geometry_; }
  std::string log_name() const;

 private:
  tx_heap(pm::pool& pool, std::uint32_t words, const log_geometry& g);
  std::uint64_t state(unsigned i) const;
  void set_state(unsigned i, std::uint64_t v);

  pm::pool* pool_;
  std::uint32_t words_;
  log_geometry geometry_;
  pm::region home_, log_, state_;
  std::optional<pm::region> starts_;  // when the streams wrap
};

// Bytes the three regions take (for sizing a pool).
std::uint64_t tx_heap_bytes(std::uint32_t words, const log_geometry& g);

}  // namespace gpmx::stm
