#pragma once
// The CPU baseline of the ATM benchmark: the same transfers (tx::atm, the
// same generator and seed) as persistent transactions of PMDK's
// libpmemobj, run by host threads, each transfer under the locks of its two
// accounts (libpmemobj gives atomicity and durability, not isolation) and
// inside one pmemobj transaction that snapshots both balances in its undo
// log, changes them, and commits (flushing the ranges and the log).
#include <cstdint>
#include <filesystem>

namespace gpmx::bench {

struct pmemobj_atm_options {
  std::filesystem::path pool;  // created here (must not exist), removed after
  std::uint32_t accounts = 100000;
  std::uint32_t committers = 512 * 256;  // the transfers of these committers...
  std::uint32_t per_thread = 8;          // ... times this many each (one batch)
  std::uint64_t seed = 1;
  unsigned threads = 0;  // host threads; 0: the hardware's
};

struct pmemobj_atm_result {
  double seconds = 0;  // the transfers only (not the pool's creation)
  std::uint64_t transfers = 0;
  unsigned threads = 0;
  bool matches_reference = false;  // every balance equals the sequential reference
  bool is_pmem = false;            // libpmem flushes cache lines there (else it msyncs)
};

// Whether this build has libpmemobj (else run throws config_error saying so).
bool have_pmemobj();
// Throws config_error or std::runtime_error naming the pool and what failed.
pmemobj_atm_result run_pmemobj_atm(const pmemobj_atm_options& o);

}  // namespace gpmx::bench
