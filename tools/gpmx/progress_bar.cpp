#include "progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <fmt/format.h>

namespace gpmx::cli {

progress_bar::progress_bar(std::string label, bool enabled)
    : label_(std::move(label)),
      enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

progress_bar::~progress_bar() {
  if (drawn_) fmt::print(stderr, "\n");
}

void progress_bar::update(double fraction) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || (drawn_ && now - last_draw_ < std::chrono::milliseconds(100) && fraction < 1.0)) return;
  last_draw_ = now;
  drawn_ = true;
  constexpr int width = 30;
  const double f = std::clamp(fraction, 0.0, 1.0);
  const int filled = int(f * width);
  fmt::print(stderr, "\r{} [{}{}] {:3.0f}% {:.1f} s", label_, std::string(std::size_t(filled), '#'),
             std::string(std::size_t(width - filled), ' '), f * 100, elapsed);
  std::fflush(stderr);
}

}  // namespace gpmx::cli
