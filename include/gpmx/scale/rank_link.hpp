#pragma once
// What every protocol between ranks needs besides its own messages: a
// heartbeat at most once a second, the time each peer was last heard from
// (any message counts), and the messages that arrived handed to the
// protocol. A peer silent for longer than the timeout has died or hangs.
#include <chrono>
#include <functional>
#include <vector>

#include "gpmx/scale/rank_transport.hpp"

namespace gpmx::scale {

class rank_link {
 public:
  // `on_message` receives every message but heartbeats.
  rank_link(rank_transport& ranks, double timeout_s, std::function<void(const rank_message&)> on_message);

  rank_transport& ranks() { return ranks_; }
  double timeout_s() const { return timeout_s_; }
  // Takes every message that has arrived.
  void drain();
  // drain(), then a heartbeat to `peers` if the last was a second ago or more.
  void beat(const std::vector<unsigned>& peers);
  // Seconds since `rank` was last heard from (or since this link was made).
  double silent_for(unsigned rank) const;
  bool is_silent(unsigned rank) const { return silent_for(rank) > timeout_s_; }
  // Sleeps briefly between polls: MPI would spin a core otherwise.
  static void pause();

 private:
  rank_transport& ranks_;
  double timeout_s_;
  std::function<void(const rank_message&)> on_message_;
  std::vector<std::chrono::steady_clock::time_point> last_heard_;
  std::chrono::steady_clock::time_point last_beat_{};
};

// Message tags of gpmx's protocols, one list so that none is used twice.
enum message_tag : int {
  tag_alive = 1,        // a heartbeat, no bytes
  tag_findings = 2,     // check: to rank 0, [round][encoded findings]
  tag_round = 3,        // check: from rank 0, [next round, or done][ranks lost]
  tag_job_result = 4,   // jobs: to rank 0, [job][result bytes]
  tag_jobs_done = 5,    // jobs: from rank 0, no bytes
};

}  // namespace gpmx::scale
