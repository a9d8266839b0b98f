// The write-pressure test as a workload (write_test.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "tx/tx_workload.hpp"
#include "tx/write_test.hpp"

namespace gpmx::apps::tx {
namespace {

std::uint32_t writes_of(const params& p) {
  const auto it = p.find("writes");
  if (it == p.end() || it->second < 1 || it->second > write_test::max_words_per_tx)
    throw config_error(fmt::format("tx-write: writes={} is not in [1, {}]", it == p.end() ? 0 : it->second,
                                   write_test::max_words_per_tx));
  return std::uint32_t(it->second);
}

std::uint32_t words_of(const params& p) {
  const std::uint64_t words = std::uint64_t(writes_of(p)) * p.at("blocks") * p.at("threads");
  if (words > (std::uint64_t(1) << 30))
    throw config_error(fmt::format("tx-write: {} words (writes x blocks x threads) is more than 2^30", words));
  return std::uint32_t(words);
}

class write_test_workload final : public workload {
 public:
  std::string_view name() const override { return "tx-write"; }
  std::string_view summary() const override {
    return "the helper-warp paper's write-pressure test: each committer's transactions write words of its own";
  }
  std::vector<param_spec> parameters() const override {
    return with_tx_parameters({{"writes", 2, "words each transaction writes (1 to 8)"}}, 16);
  }
  params small_params() const override {
    return resolve_params(*this, {{"writes", 2}, {"blocks", 2}, {"threads", 64}, {"per_thread", 4}, {"batches", 2},
                                  {"ring", 64}});
  }
  std::vector<seeded_bug> seeded_bugs() const override { return tx_seeded_bugs(); }

  run_report run(const env& e, const params& p, style st) override {
    (void)requested_bug(*this, e, st);
    const std::uint32_t writes = writes_of(p);
    opened_heap h = create_heap(e, *this, p, st, words_of(p), write_test::body::max_writes,
                                [](std::span<std::uint32_t> home) { std::fill(home.begin(), home.end(), 0u); });
    const tx_stats s = run_batches(e, h.heap, h.shape, st, write_test::body{writes, h.shape.per_thread},
                                   faults_of(e), e.has_bug(bug_truncate_first));
    return report_of(s, h, "transactions");
  }

  recover_report recover(const env& e) override {
    opened_heap h = open_heap(e, *this, words_of, write_test::body::max_writes);
    return recover_heap(h.heap);
  }

  // Each committer's words hold one value, at most its transaction count;
  // after a whole run, exactly that count.
  verify_report verify(const env& e) override {
    opened_heap h = open_heap(e, *this, words_of, write_test::body::max_writes);
    verify_report v = check_promises(h.heap);
    if (!v.ok) return v;
    const std::uint32_t writes = writes_of(h.meta.p);
    const tx_shape& s = h.shape;
    const std::uint32_t total = s.batches * s.per_thread;
    const bool whole = h.heap.applied_upto() == s.transactions();
    const auto home = h.heap.home();
    for (std::uint64_t c = 0; c < s.committer_count(); ++c) {
      const std::uint32_t first = home[c * writes];
      for (std::uint32_t i = 1; i < writes; ++i)
        if (home[c * writes + i] != first)
          return fail(v, fmt::format("committer {}'s word {} holds {}, its word 0 {}: a transaction was torn", c, i,
                                     home[c * writes + i], first));
      if (first > total || (whole && first != total))
        return fail(v, fmt::format("committer {}'s words hold {}, {} {}", c, first,
                                   whole ? "after every transaction applied, not" : "more than its transactions,",
                                   total));
    }
    v.checked = home.size();
    v.detail = whole ? fmt::format("all {} transactions applied; every committer's words hold {}", s.transactions(), total)
                     : fmt::format("{} of {} transactions applied; no committer's words are torn",
                                   h.heap.applied_upto(), s.transactions());
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_tx_write_test() { return std::make_unique<write_test_workload>(); }

}  // namespace gpmx::apps::tx
