#include "gpmx/scale/rank_jobs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpmx/scale/rank_link.hpp"
#include "gpmx/support/byte_wire.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::scale {
namespace {

class job_protocol {
 public:
  job_protocol(rank_transport& ranks, std::size_t jobs, const rank_job& run, double timeout_s)
      : ranks_(ranks), jobs_(jobs), run_(run), link_(ranks, timeout_s, [this](const rank_message& m) { take(m); }),
        results_(jobs) {
    for (unsigned r = 0; r < ranks.size(); ++r) everyone_.push_back(r);
  }

  std::optional<job_results> run() {
    const unsigned me = ranks_.rank();
    const std::function<void()> alive = [this, me] { link_.beat(me == 0 ? everyone_ : std::vector<unsigned>{0}); };
    for (std::size_t j = me; j < jobs_; j += ranks_.size()) {
      std::string result = run_(j, alive);
      if (me == 0) {
        results_[j] = std::move(result);
        continue;
      }
      byte_writer w;
      w.u64(j);
      w.text(result);
      ranks_.send(0, tag_job_result, w.take(), std::chrono::duration<double>(link_.timeout_s()));
      alive();
    }
    return me == 0 ? gather(alive) : wait_for_rank_zero();
  }

 private:
  std::optional<job_results> gather(const std::function<void()>& alive) {
    job_results out;
    for (;;) {
      alive();
      std::vector<unsigned> waiting, silent;
      for (unsigned r = 1; r < ranks_.size(); ++r) {
        if (delivered_all(r) || lost(r)) continue;
        waiting.push_back(r);
        if (link_.is_silent(r)) silent.push_back(r);
      }
      if (waiting.empty()) break;
      if (silent.size() < waiting.size()) {
        rank_link::pause();
        continue;
      }
      for (unsigned r : silent) {  // rank 0 runs what they had not delivered
        lost_.push_back(r);
        ranks_.give_up_on(r);
        std::uint64_t missing = 0;
        for (std::size_t j = r; j < jobs_; j += ranks_.size())
          if (!results_[j]) {
            ++missing;
            results_[j] = run_(j, alive);
          }
        out.lost.push_back({r, 0, fmt::format("sent nothing for {:.0f} s", link_.silent_for(r)), missing, {0}});
      }
    }
    byte_writer lost_count;  // the others must not wait for the lost ones at the end either
    lost_count.u64(lost_.size());
    for (unsigned r = 1; r < ranks_.size(); ++r) ranks_.post(r, tag_jobs_done, lost_count.bytes());
    for (std::optional<std::string>& r : results_) out.results.push_back(std::move(*r));
    return out;
  }

  std::optional<job_results> wait_for_rank_zero() {
    while (!done_) {
      link_.beat({0});
      if (done_) break;
      if (link_.is_silent(0)) {
        ranks_.give_up_on(0);
        throw error(error_code::io, fmt::format("rank {}: rank 0 sent nothing for {:.0f} s (it died or hangs)",
                                                ranks_.rank(), link_.silent_for(0)));
      }
      rank_link::pause();
    }
    return std::nullopt;
  }

  bool delivered_all(unsigned r) const {
    for (std::size_t j = r; j < jobs_; j += ranks_.size())
      if (!results_[j]) return false;
    return true;
  }
  bool lost(unsigned r) const { return std::find(lost_.begin(), lost_.end(), r) != lost_.end(); }

  void take(const rank_message& m) {
    if (m.tag == tag_jobs_done && m.from == 0) {
      byte_reader r(m.bytes, "the end of the jobs from rank 0");
      if (r.u64() > 0) ranks_.give_up_on(0);  // some rank is gone: end without waiting for it
      r.expect_end();
      done_ = true;
    }
    if (m.tag != tag_job_result || ranks_.rank() != 0 || lost(m.from)) return;
    byte_reader r(m.bytes, fmt::format("a job result from rank {}", m.from));
    const std::uint64_t job = r.u64();
    std::string result = r.text();
    r.expect_end();
    if (job >= jobs_ || job % ranks_.size() != m.from)
      throw error(error_code::corrupt_data, fmt::format("rank {} sent the result of job {}, not one of its own "
                                                        "(of {} jobs on {} ranks)", m.from, job, jobs_, ranks_.size()));
    results_[job] = std::move(result);
  }

  rank_transport& ranks_;
  std::size_t jobs_;
  const rank_job& run_;
  rank_link link_;
  std::vector<std::optional<std::string>> results_;  // rank 0: by job
  std::vector<unsigned> everyone_, lost_;
  bool done_ = false;
};

}  // namespace

std::optional<job_results> run_jobs_across_ranks(rank_transport& ranks, std::size_t jobs, const rank_job& run,
                                                 double rank_timeout_s) {
  if (!(rank_timeout_s > 0)) throw error(error_code::config, "the rank timeout must be positive");
  return job_protocol(ranks, jobs, run, rank_timeout_s).run();
}

}  // namespace gpmx::scale
