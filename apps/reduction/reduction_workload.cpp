// The reduction as a workload (`gpmx run reduction`): SBRP Figure 3 over a
// PM input; recovery relaunches the kernel, which resumes from the persisted
// partial sums; the check compares every partial sum and the total with a
// sequential reference.
#include <fmt/format.h>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpmx/support/elapsed.hpp"
#include "reduction/reduction.hpp"

namespace gpmx::apps {
namespace {

using native::chunked_shape;

constexpr const char* block_scope_release = "block-scope-release";

// How the kernel reads its input (pools recorded before these parameters
// existed read consecutive runs from PM).
reduction::input_layout layout_of(const params& p) {
  const auto flag = [&](const char* name) {
    const auto it = p.find(name);
    return it != p.end() && it->second != 0;
  };
  return {flag("input_in_device"), flag("interleaved")};
}

class reduction_workload final : public workload {
 public:
  std::string_view name() const override { return "reduction"; }
  std::string_view summary() const override {
    return "sum of a PM array; block-scope ordered iterations, device-scope final step, native recovery "
           "(SBRP Figure 3)";
  }
  std::vector<param_spec> parameters() const override {
    std::vector<param_spec> p = native::chunked_parameters(1u << 22, 256, 1024);
    p.push_back({"input_in_device", 0,
                 "1: the kernel reads a copy of the input in device memory, as SBRP's reduction keeps its input "
                 "(the input stays in PM for recovery)"});
    p.push_back({"interleaved", 0,
                 "1: each thread sums elements a grid apart (coalesced loads, as SBRP's kernel reads), not a run "
                 "of per_thread consecutive ones"});
    return p;
  }
  params small_params() const override {
    return {{"elements", 4096}, {"threads", 16}, {"per_thread", 64}, {"seed", 1}, {"input_in_device", 0},
            {"interleaved", 0}};
  }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{block_scope_release,
             "each block publishes its sum to the final step with a prel at block scope instead of device scope "
             "(SBRP Figure 3, line 24), so the final step in another block is not ordered after it",
             style::sbrp, "sbrp"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    (void)requested_bug(*this, e, st);
    for (const char* flag : {"input_in_device", "interleaved"})
      if (p.at(flag) > 1) throw config_error(fmt::format("reduction: {}={} must be 0 or 1", flag, p.at(flag)));
    const scope final_release = e.has_bug(block_scope_release) ? scope::block : scope::device;
    return native::run_job<reduction::job>(e, p, st, name(), 1, [&](reduction::job& j) {
      j.compute(e.ex, st, final_release, layout_of(p));
      e.report(1.0);
    });
  }

  recover_report recover(const env& e) override {
    auto [job, m, s] = native::open_job<reduction::job>(e, reduction::pool_file, *this);
    recover_report r;
    if (job.finished()) {
      r.what = fmt::format("nothing to do: the total {} is persisted", job.total());
      return r;
    }
    const std::uint64_t persisted = job.persisted_partials();
    const auto start = native::clock_type::now();
    job.compute(e.ex, m.s, scope::device, layout_of(m.p));
    r.seconds = seconds_since(start);
    r.repaired = true;
    r.what = fmt::format("resumed from {} of {} persisted partial sums and persisted the total", persisted,
                         job.partials().size());
    return r;
  }

  verify_report verify(const env& e) override {
    auto [job, m, s] = native::open_job<reduction::job>(e, reduction::pool_file, *this);
    verify_report v;
    if (!job.finished()) {
      v.detail = fmt::format("the total is not persisted ({} of {} partial sums are): recover first",
                             job.persisted_partials(), job.partials().size());
      return v;
    }
    const auto want = reduction::reference_partials(s, layout_of(m.p).interleaved);
    const auto got = job.partials();
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (got[i] != want[i]) {
        v.detail = fmt::format("partial sum of block {} thread {} is {}, the sequential reference has {}",
                               i / s.threads, i % s.threads, got[i], want[i]);
        return v;
      }
    }
    const std::uint64_t total = reduction::reference_total(s);
    if (job.total() != total) {
      v.detail = fmt::format("total is {}, the sequential sum is {}", job.total(), total);
      return v;
    }
    v.ok = true;
    v.checked = want.size() + 1;
    v.detail = fmt::format("total {} and {} partial sums match the sequential reference", total, want.size());
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_reduction_workload() { return std::make_unique<reduction_workload>(); }

}  // namespace gpmx::apps
