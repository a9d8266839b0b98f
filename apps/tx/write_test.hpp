#pragma once
// The helper-warp paper's write-pressure test (its Fig. 6), the kernel its
// switching threshold is calibrated with: each committer's transaction
// writes `writes` words of its own (no two committers share a word, so
// nothing conflicts), in the pattern a log is written, and commits. The
// k-th transaction of committer c in batch b writes the value
// b * per_thread + k + 1 to each of c's words, so a committer's words
// always hold one value, and after a prefix of its transactions that
// value is the prefix's length.
#include <cstdint>
#include <memory>

#include "common/workload.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::tx::write_test {

inline constexpr std::uint32_t max_words_per_tx = 8;

struct body {
  static constexpr std::uint32_t max_writes = max_words_per_tx;
  std::uint32_t writes;      // words per transaction, 1..max_writes
  std::uint32_t per_thread;  // transactions per committer per batch
  template <class Tx>
  GPMX_HD void operator()(Tx& tx, std::uint32_t committer, std::uint32_t batch, std::uint32_t k) const {
    const std::uint32_t value = batch * per_thread + k + 1;
    for (std::uint32_t i = 0; i < writes; ++i) tx.write(committer * writes + i, value);
  }
};

}  // namespace gpmx::apps::tx::write_test

namespace gpmx::apps::tx {
// The write test as a workload ("tx-write"). Not in the registry: it is
// the calibration kernel of `gpmx bench tx --calibrate`, not a benchmark of
// its own, and it adds nothing the three registered ones do not exercise.
std::unique_ptr<workload> make_tx_write_test();
}  // namespace gpmx::apps::tx
