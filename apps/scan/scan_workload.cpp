// The scan as a workload (`gpmx run scan`): the inclusive scan of many PM
// arrays in block-scope ordered passes; recovery relaunches the kernel, which
// resumes every array at the pass its persisted marker names; the check
// compares the result with a sequential scan of each array.
#include <algorithm>
#include <fmt/format.h>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpmx/support/elapsed.hpp"
#include "scan/scan.hpp"

namespace gpmx::apps {
namespace {

using native::chunked_shape;

constexpr const char* plain_acquire_join = "plain-acquire-join";

class scan_workload final : public workload {
 public:
  std::string_view name() const override { return "scan"; }
  std::string_view summary() const override {
    return "inclusive scan of many PM arrays in block-scope ordered passes with a persisted pass marker, "
           "native recovery (SBRP section 7.1)";
  }
  std::vector<param_spec> parameters() const override {
    auto v = native::chunked_parameters(1u << 20, 64, 2048);
    v[0].help = "input elements (uint64): arrays of threads x per_thread elements, one block each";
    return v;
  }
  params small_params() const override {
    return {{"elements", 4096}, {"threads", 4}, {"per_thread", 256}, {"seed", 1}};
  }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{plain_acquire_join,
             "after a pass, thread 0 waits for the other threads' flags with ordinary acquire loads instead of "
             "pacq, so the pass marker it then writes is not persist-ordered after their part of the pass",
             style::sbrp, "sbrp"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    (void)requested_bug(*this, e, st);
    const bool plain = e.has_bug(plain_acquire_join);
    return native::run_job<scan::job>(e, p, st, name(), 1, [&](scan::job& j) {
      j.compute(e.ex, st, plain);
      e.report(1.0);
    });
  }

  recover_report recover(const env& e) override {
    auto [job, m, s] = native::open_job<scan::job>(e, scan::pool_file, *this);
    recover_report r;
    const std::uint64_t arrays = job.progress().size();
    if (job.finished()) {
      r.what = fmt::format("nothing to do: all {} arrays have completed {} passes", arrays, job.passes());
      return r;
    }
    const auto p = job.progress();
    const std::uint64_t finished = job.finished_arrays();
    const std::uint64_t lowest = *std::min_element(p.begin(), p.end());
    const auto start = native::clock_type::now();
    job.compute(e.ex, m.s);
    r.seconds = seconds_since(start);
    r.repaired = true;
    r.what = fmt::format("resumed {} of {} arrays at their persisted pass markers (lowest: {} of {} passes done); "
                         "{} were finished", arrays - finished, arrays, lowest, job.passes(), finished);
    return r;
  }

  verify_report verify(const env& e) override {
    auto [job, m, s] = native::open_job<scan::job>(e, scan::pool_file, *this);
    verify_report v;
    const auto progress = job.progress();
    for (std::size_t b = 0; b < progress.size(); ++b) {
      if (progress[b] > job.passes()) {
        v.detail = fmt::format("array {}'s marker says {} passes, but the scan has only {}", b, progress[b],
                               job.passes());
        return v;
      }
      if (progress[b] != job.passes()) {
        v.detail = fmt::format("array {} has completed {} of {} passes: recover first", b, progress[b], job.passes());
        return v;
      }
    }
    const auto want = scan::reference_scan(s);
    const auto got = job.result();
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (got[i] != want[i]) {
        v.detail = fmt::format("element {} of array {} is {}, the sequential scan has {}", i % s.span(),
                               i / s.span(), got[i], want[i]);
        return v;
      }
    }
    v.ok = true;
    v.checked = want.size();
    v.detail = fmt::format("{} elements of {} arrays match the sequential scan", want.size(), progress.size());
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_scan_workload() { return std::make_unique<scan_workload>(); }

}  // namespace gpmx::apps
