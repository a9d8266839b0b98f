#pragma once
// The forked children that recover and check images, several at once: the
// loop of the image server process (image_jobs.cpp). Each child runs the
// target on its image's directory and writes its verdict to a pipe; a child
// that dies, or runs past the time limit (it is then killed), fails its image.
#include <poll.h>

#include <cstdint>
#include <filesystem>
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

class image_children {
 public:
  // `close_in_child`: descriptors of the server's own that a child must not hold.
  image_children(const image_target& target, double timeout_s, std::vector<int> close_in_child);

  std::size_t running() const { return children_.size(); }
  void start(std::uint64_t tag, const std::filesystem::path& dir);
  // One pollfd a running child (POLLIN), appended to `fds`.
  void add_poll_fds(std::vector<pollfd>& fds) const;
  // Milliseconds until the soonest time limit (at most `cap_ms`).
  int wait_ms(int cap_ms) const;
  // Reads what the children sent; returns the tags and encoded verdicts of
  // those that finished, died or ran out of time (and reaps them).
  std::vector<std::pair<std::uint64_t, std::string>> collect();

 private:
  struct child {
    child_process process;
    std::uint64_t tag = 0;
    double started = 0;
    std::string message;
  };
  std::string reap(child& c, bool timed_out);

  const image_target& target_;
  double timeout_s_;
  std::vector<int> close_in_child_;
  std::vector<child> children_;
};

}  // namespace gpmx::check
