// The prefix sum as a workload (`gpmx run prefix-sum`): GPM Figure 8's
// partial sums and a final pass over PM; recovery runs the passes still to
// run, which skip every block whose last element is persisted; the check
// compares both passes' results with a sequential prefix sum.
#include <fmt/format.h>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpmx/support/elapsed.hpp"
#include "prefix_sum/prefix_sum.hpp"

namespace gpmx::apps {
namespace {

using native::chunked_shape;
using prefix_sum::stage;

constexpr const char* total_before_join = "total-before-join";

class prefix_sum_workload final : public workload {
 public:
  std::string_view name() const override { return "prefix-sum"; }
  std::string_view summary() const override {
    return "inclusive prefix sum of a PM array; a block's last partial sum persisted last, native recovery "
           "(GPM Figure 8)";
  }
  std::vector<param_spec> parameters() const override { return native::chunked_parameters(1u << 22, 256, 2048); }
  params small_params() const override {
    return {{"elements", 4096}, {"threads", 4}, {"per_thread", 256}, {"seed", 1}};
  }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{total_before_join,
             "a block's last thread writes the block's last element (the one recovery trusts) before it "
             "acquires the other threads' flags, so before their chunks are ordered ahead of it",
             style::sbrp, "sbrp"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    (void)requested_bug(*this, e, st);
    const bool early = e.has_bug(total_before_join);
    return native::run_job<prefix_sum::job>(e, p, st, name(), 2, [&](prefix_sum::job& j) {
      j.finish(e.ex, st, [&](double f) { e.report(f); }, early);
    });
  }

  recover_report recover(const env& e) override {
    auto [job, m, s] = native::open_job<prefix_sum::job>(e, prefix_sum::pool_file, *this);
    recover_report r;
    const stage at = job.current_stage();
    if (at == stage::done) {
      r.what = "nothing to do: both passes are persisted";
      return r;
    }
    const std::uint64_t partial = job.blocks_with_partial(), output = job.blocks_with_output();
    const auto start = native::clock_type::now();
    job.finish(e.ex, m.s, {});
    r.seconds = seconds_since(start);
    r.repaired = true;
    r.what = at == stage::partial_pass
                 ? fmt::format("partial pass: {} of {} blocks were persisted and skipped; recomputed the rest, "
                               "then ran the final pass", partial, s.blocks())
                 : fmt::format("final pass: {} of {} blocks were persisted and skipped; recomputed the rest",
                               output, s.blocks());
    return r;
  }

  verify_report verify(const env& e) override {
    auto [job, m, s] = native::open_job<prefix_sum::job>(e, prefix_sum::pool_file, *this);
    verify_report v;
    const stage at = job.current_stage();  // one of the three: open checked it
    if (at != stage::done) {
      v.detail = fmt::format("the {} pass has not finished: recover first",
                             at == stage::partial_pass ? "partial" : "final");
      return v;
    }
    const prefix_sum::reference want = prefix_sum::reference_sums(s);
    const auto partial = job.partial(), output = job.output();
    for (std::size_t i = 0; i < want.partial.size(); ++i) {
      if (partial[i] != want.partial[i]) {
        v.detail = fmt::format("partial sum {} (block {}) is {}, the sequential reference has {}", i,
                               i / s.span(), partial[i], want.partial[i]);
        return v;
      }
      if (output[i] != want.output[i]) {
        v.detail = fmt::format("prefix sum {} (block {}) is {}, the sequential prefix sum is {}", i, i / s.span(),
                               output[i], want.output[i]);
        return v;
      }
    }
    v.ok = true;
    v.checked = 2 * want.output.size();
    v.detail = fmt::format("{} partial and {} global prefix sums match the sequential reference",
                           want.partial.size(), want.output.size());
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_prefix_sum_workload() { return std::make_unique<prefix_sum_workload>(); }

}  // namespace gpmx::apps
