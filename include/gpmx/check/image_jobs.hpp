#pragma once
// Runs the recovery and consistency check of crash images in forked
// children, several at a time (images are independent): each child gets the
// directory its image was materialized into and reports a verdict through a
// pipe. A child that crashes, or runs past the time limit (it is then
// killed), fails its image. Fork only from a process with no other threads.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpmx/check/pool_reads.hpp"
#include "gpmx/support/child_process.hpp"

namespace gpmx::check {

struct image_verdict {
  image_verdict() = default;
  image_verdict(bool ok_, std::string detail_) : ok(ok_), detail(std::move(detail_)) {}
  bool ok = false;
  std::string detail;  // on failure: what recovery or the check reported
  // What recovery read (a target that ran it under a read_tracker).
  std::optional<pool_reads> reads;
};

// Recovery then the consistency check, on the files in `dir`. Runs in the
// child; may throw (the exception's message fails the image).
using image_target = std::function<image_verdict(const std::filesystem::path& dir)>;

class image_jobs {
 public:
  // `jobs` children at most at once (at least 1); `timeout_s` per image.
  image_jobs(image_target target, unsigned jobs, double timeout_s);
  ~image_jobs();  // kills and reaps children still running
  image_jobs(const image_jobs&) = delete;
  image_jobs& operator=(const image_jobs&) = delete;

  unsigned capacity() const { return jobs_; }
  std::size_t running() const { return children_.size(); }
  // Forks a child that calls `prepare` (it writes the image's files and
  // returns their directory: done in the child, so that several images are
  // written at once) and checks the directory. The caller keeps the
  // directory to this child until the tag comes back from next(). Call
  // only when running() < capacity().
  void start(std::uint64_t tag, const std::function<std::filesystem::path()>& prepare);
  struct finished {
    std::uint64_t tag = 0;
    image_verdict verdict;
  };
  // Waits for one child to finish; nullopt when none is running.
  std::optional<finished> next();

 private:
  struct child {
    child_process process;
    std::uint64_t tag = 0;
    double started = 0;
    std::string message;
  };
  finished reap(std::size_t index, bool timed_out);

  image_target target_;
  unsigned jobs_;
  double timeout_s_;
  std::vector<child> children_;
};

}  // namespace gpmx::check
