#pragma once
// ATM transfers (the helper-warp paper's A1/A2): each transaction moves a
// generated amount from one account to another. Amounts are unconditional
// (balances are 32-bit words, wrapping), so the final balances do not
// depend on the order transactions serialize in: a whole run must equal
// the sequential reference exactly, and any prefix keeps the total.
#include <cstdint>
#include <vector>

#include "gpmx/exec/portability.hpp"
#include "gpmx/support/hash_mix.hpp"

namespace gpmx::apps::tx::atm {

inline constexpr std::uint32_t initial_balance = 1000;

struct transfer {
  std::uint32_t from, to, amount;
};

// The k-th transfer of committer c in batch b.
GPMX_HD inline transfer transfer_of(std::uint64_t seed, std::uint32_t accounts, std::uint32_t c, std::uint32_t b,
                                    std::uint32_t k) {
  const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull ^ (std::uint64_t(b) << 48) ^ (std::uint64_t(k) << 32) ^ c);
  const std::uint32_t from = std::uint32_t(h % accounts);
  const std::uint32_t step = 1 + std::uint32_t((h >> 32) % (accounts - 1));
  return {from, (from + step) % accounts, 1 + std::uint32_t((h >> 20) % 100)};
}

struct body {
  static constexpr std::uint32_t max_writes = 2;
  std::uint32_t accounts;
  std::uint64_t seed;
  template <class Tx>
  GPMX_HD void operator()(Tx& tx, std::uint32_t committer, std::uint32_t batch, std::uint32_t k) const {
    const transfer x = transfer_of(seed, accounts, committer, batch, k);
    const std::uint32_t a = tx.read(x.from);
    const std::uint32_t b = tx.read(x.to);
    if (tx.failed()) return;
    tx.write(x.from, a - x.amount);
    tx.write(x.to, b + x.amount);
  }
};

// The balances after every transfer of `batches` batches.
std::vector<std::uint32_t> reference(std::uint64_t seed, std::uint32_t accounts, std::uint32_t committers,
                                     std::uint32_t per_thread, std::uint32_t batches);

}  // namespace gpmx::apps::tx::atm
