#pragma once
// A progress bar on stderr for runs longer than a second: nothing appears
// before then, nor when stderr is not a terminal or the user asked for quiet.
#include <chrono>
#include <string>

namespace gpmx::cli {

class progress_bar {
 public:
  progress_bar(std::string label, bool enabled);
  ~progress_bar();  // ends the line if anything was drawn
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;
  // fraction in [0, 1]; redraws at most ten times a second.
  void update(double fraction);

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace gpmx::cli
