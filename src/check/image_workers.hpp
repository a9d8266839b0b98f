#pragma once
// The forked workers that recover and check images, several at once: the
// loop of the image server process (image_jobs.cpp). A worker checks one
// image at a time and then the next: a fresh process per image cost more
// than most recoveries (a fork, then every page the child wrote or ran
// faulted in again; docs/check.md). Isolation is kept where it matters:
// - a worker ends after a failed image (a failing recovery may have left the
//   process in any state) and after `images_per_worker` images;
// - a worker that dies, or runs past the time limit (it is then killed),
//   fails the image it held, and only that one;
// - the next image then gets a new worker.
// With images_per_worker = 1 every image gets a fresh process.
#include <poll.h>

#include <cstdint>
#include <filesystem>
#include <list>
#include <string>
#include <utility>
#include <vector>

#include "gpmx/check/image_jobs.hpp"
#include "gpmx/support/child_process.hpp"

namespace gpmx::check {

// A verdict as it crosses a pipe: 'O' (consistent) or 'F', the detail, then,
// when the target tracked recovery's reads, a NUL and the reads
// (pool_reads.hpp's text form).
std::string encode_verdict(const image_verdict& v);
image_verdict decode_verdict(const std::string& wire);

// The frames on the image server's channels (checker -> server -> worker,
// and back): a request is [tag u64][path length u32][path]; a verdict is
// [tag u64][length u64][encoded verdict].
std::string request_frame(std::uint64_t tag, const std::filesystem::path& dir);
// Writes a verdict frame to `fd`; false when the reader is gone.
bool write_verdict_frame(int fd, std::uint64_t tag, const std::string& wire);

class image_workers {
 public:
  // `close_in_child`: descriptors of the server's own that a worker must not hold.
  image_workers(const image_target& target, double timeout_s, unsigned images_per_worker,
                std::vector<int> close_in_child);
  ~image_workers();
  image_workers(const image_workers&) = delete;
  image_workers& operator=(const image_workers&) = delete;

  // Workers checking an image now.
  std::size_t busy() const;
  // Hands the image to an idle worker, forking one when none is idle.
  void start(std::uint64_t tag, const std::filesystem::path& dir);
  // One pollfd per worker (POLLIN): verdicts, and the end of those exiting.
  void add_poll_fds(std::vector<pollfd>& fds) const;
  // Milliseconds until the soonest time limit (at most `cap_ms`).
  int wait_ms(int cap_ms) const;
  // Reads what the workers sent; returns the tags and encoded verdicts of
  // the images that finished, whose worker died, or that ran out of time,
  // and reaps the workers that ended.
  std::vector<std::pair<std::uint64_t, std::string>> collect();

  // Workers forked so far (for tests and measurements).
  std::uint64_t forked() const { return forked_; }

 private:
  struct worker;
  worker& fork_worker();
  bool send_request(worker& w, std::uint64_t tag, const std::filesystem::path& dir);
  std::string end_of_busy(worker& w, bool timed_out);

  const image_target& target_;
  double timeout_s_;
  unsigned images_per_worker_;
  std::vector<int> close_in_child_;
  std::list<worker> workers_;
  std::uint64_t forked_ = 0;
};

}  // namespace gpmx::check
