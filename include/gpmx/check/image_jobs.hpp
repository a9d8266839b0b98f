#pragma once
// Runs the recovery and consistency check of crash images in forked
// workers, several at a time (images are independent): a worker gets the
// directory an image was materialized into and reports a verdict, then takes
// the next image. A worker that crashes, or runs past the time limit (it is
// then killed), fails its image; a worker ends after a failed image and
// after `images_per_worker` images, and the next image gets a fresh one
// (src/check/image_workers.hpp). The workers are forked by a server process
// forked once, when the jobs are made. Make them only in a process with no
// other threads.
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
  // `jobs` images at most at once (at least 1); `timeout_s` per image; a
  // worker checks up to `images_per_worker` images (1: a fresh process per
  // image). Forks the image server (image_jobs.cpp) at once: make the jobs
  // before the calling process grows, since the server's workers start from it.
  image_jobs(image_target target, unsigned jobs, double timeout_s, unsigned images_per_worker = 1);
  ~image_jobs();  // ends the server; images still being checked are killed
  image_jobs(const image_jobs&) = delete;
  image_jobs& operator=(const image_jobs&) = delete;

  // Images that may be handed over at once: twice the jobs, so that the
  // caller writes the next images while the workers check these.
  unsigned capacity() const { return 2 * jobs_; }
  std::size_t running() const { return running_; }
  // Checks the image whose files are in `dir` in a worker of the server.
  // The caller keeps the directory to this image until the tag comes back
  // from next(). Call only when running() < capacity().
  void start(std::uint64_t tag, const std::filesystem::path& dir);
  struct finished {
    std::uint64_t tag = 0;
    image_verdict verdict;
  };
  // Waits for one image's verdict; nullopt when none is being checked.
  // Throws std::runtime_error when the server itself has died, or could
  // not start a child (a failed fork: not the image's fault).
  std::optional<finished> next();

 private:
  [[noreturn]] void server_lost(const char* doing);

  image_target target_;
  unsigned jobs_;
  double timeout_s_;
  unsigned images_per_worker_;
  std::optional<child_process> server_;
  int requests_ = -1;
  std::size_t running_ = 0;
};

}  // namespace gpmx::check
