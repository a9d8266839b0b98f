// ATM transfers as a workload (`gpmx run tx-atm`): A1 is 100,000 accounts
// (the default), A2 1,000,000 (-p accounts=1000000).
#include <fmt/format.h>

#include <algorithm>

#include "tx/atm.hpp"
#include "tx/tx_workload.hpp"

namespace gpmx::apps::tx {
namespace atm {

std::vector<std::uint32_t> reference(std::uint64_t seed, std::uint32_t accounts, std::uint32_t committers,
                                     std::uint32_t per_thread, std::uint32_t batches) {
  std::vector<std::uint32_t> v(accounts, initial_balance);
  for (std::uint32_t b = 0; b < batches; ++b)
    for (std::uint32_t c = 0; c < committers; ++c)
      for (std::uint32_t k = 0; k < per_thread; ++k) {
        const transfer x = transfer_of(seed, accounts, c, b, k);
        v[x.from] -= x.amount;
        v[x.to] += x.amount;
      }
  return v;
}

}  // namespace atm

namespace {

std::uint32_t accounts_of(const params& p) {
  const auto it = p.find("accounts");
  if (it == p.end() || it->second < 2 || it->second > (1u << 28))
    throw config_error(fmt::format("tx-atm: accounts={} is not in [2, 2^28]", it == p.end() ? 0 : it->second));
  return std::uint32_t(it->second);
}

class atm_workload final : public workload {
 public:
  std::string_view name() const override { return "tx-atm"; }
  std::string_view summary() const override {
    return "ATM transfers as durable GPU transactions (helper-warp paper A1/A2), helpers off, on or adaptive";
  }
  std::vector<param_spec> parameters() const override {
    return with_tx_parameters({{"accounts", 100000, "accounts (A1: 100,000; A2: 1,000,000)"}}, 8);
  }
  params small_params() const override {
    // Every parameter, as other workloads' small sizes list theirs.
    return resolve_params(*this, {{"accounts", 64}, {"blocks", 3}, {"threads", 64}, {"per_thread", 3}, {"batches", 2},
                                  {"ring", 64}});
  }
  std::vector<seeded_bug> seeded_bugs() const override { return tx_seeded_bugs(); }

  run_report run(const env& e, const params& p, style st) override {
    (void)requested_bug(*this, e, st);
    const std::uint32_t accounts = accounts_of(p);
    opened_heap h = create_heap(e, *this, p, st, accounts, atm::body::max_writes, [](std::span<std::uint32_t> home) {
      std::fill(home.begin(), home.end(), atm::initial_balance);
    });
    const tx_stats s = run_batches(e, h.heap, h.shape, st, atm::body{accounts, h.shape.seed}, faults_of(e),
                                   e.has_bug(bug_truncate_first));
    return report_of(s, h, "transfers");
  }

  recover_report recover(const env& e) override {
    opened_heap h = open_heap(e, *this, accounts_of, atm::body::max_writes);
    return recover_heap(h.heap);
  }

  verify_report verify(const env& e) override {
    opened_heap h = open_heap(e, *this, accounts_of, atm::body::max_writes);
    verify_report v = check_promises(h.heap);
    if (!v.ok) return v;
    v.ok = false;
    const auto home = h.heap.home();
    std::uint32_t total = 0;
    for (std::uint32_t b : home) total += b;
    const std::uint32_t want = std::uint32_t(home.size()) * atm::initial_balance;
    if (total != want) {
      v.detail = fmt::format("the balances add up to {} (mod 2^32), not {}: money was made or lost", total, want);
      return v;
    }
    const tx_shape& s = h.shape;
    if (h.heap.applied_upto() == s.transactions()) {
      const auto ref = atm::reference(s.seed, std::uint32_t(home.size()), s.committer_count(), s.per_thread, s.batches);
      for (std::size_t i = 0; i < ref.size(); ++i)
        if (home[i] != ref[i]) {
          v.detail = fmt::format("account {} holds {}, the sequential reference {}", i, home[i], ref[i]);
          return v;
        }
      v.ok = true;
      v.checked = ref.size();
      v.detail = fmt::format("all {} transfers applied; {} balances match the sequential reference", s.transactions(),
                             ref.size());
      return v;
    }
    v.ok = true;
    v.checked = home.size();
    v.detail = fmt::format("{} of {} transfers applied (a prefix in commit order); the total balance holds",
                           h.heap.applied_upto(), s.transactions());
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_tx_atm_workload() { return std::make_unique<atm_workload>(); }

}  // namespace gpmx::apps::tx
