#include "gpmx/scale/rank_link.hpp"

#include <thread>

namespace gpmx::scale {

namespace {
using clock_type = std::chrono::steady_clock;
}

rank_link::rank_link(rank_transport& ranks, double timeout_s, std::function<void(const rank_message&)> on_message)
    : ranks_(ranks), timeout_s_(timeout_s), on_message_(std::move(on_message)),
      last_heard_(ranks.size(), clock_type::now()) {}

void rank_link::drain() {
  while (std::optional<rank_message> m = ranks_.poll()) {
    if (m->from >= last_heard_.size()) continue;
    last_heard_[m->from] = clock_type::now();
    if (m->tag != tag_alive) on_message_(*m);
  }
}

void rank_link::beat(const std::vector<unsigned>& peers) {
  drain();
  const auto now = clock_type::now();
  if (now - last_beat_ < std::chrono::seconds(1)) return;
  last_beat_ = now;
  for (unsigned r : peers)
    if (r != ranks_.rank()) ranks_.post(r, tag_alive, {});
}

double rank_link::silent_for(unsigned rank) const {
  return std::chrono::duration<double>(clock_type::now() - last_heard_.at(rank)).count();
}

void rank_link::pause() { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }

}  // namespace gpmx::scale
