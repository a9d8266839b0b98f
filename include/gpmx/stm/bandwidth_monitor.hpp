#pragma once
// Adaptive switching of helper warps (the helper-warp paper's monitor), as
// an agent beside the launch. Each local monitor (one per block's counter
// row: a block stays on its SM, or worker, for its whole life) measures
// the log bytes its block persisted in each time slice and adds the change
// of its rate to the global rate. The switcher turns helpers on at once
// when the global rate exceeds the threshold, and off after `off_after`
// consecutive slices below it; being one agent, one switch happens at a
// time. Time is the executor's: virtual in the timed mode, else the clock.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "gpmx/exec/agent.hpp"
#include "gpmx/stm/tx_memory.hpp"

namespace gpmx::stm {

struct monitor_options {
  double threshold_bytes_per_s = 200e6;  // the paper's 200 MB/s
  std::uint64_t slice_ns = 1'000'000;
  unsigned off_after = 5;                // slices below the threshold before switching off
};

struct switch_event {
  std::uint64_t at_ns;  // since the monitor started
  bool on;
  double global_bytes_per_s;
};

class bandwidth_monitor final : public agent {
 public:
  // now_ns: the clock (nanoseconds, any origin). s.counters and s.helpers_on
  // must stay valid while the monitor is attached.
  bandwidth_monitor(const tx_shared& s, std::uint32_t blocks, monitor_options o, std::function<std::uint64_t()> now_ns);
  step_result step() override;
  std::string_view name() const override { return "tx-bandwidth-monitor"; }

  const std::vector<switch_event>& switches() const { return switches_; }
  std::uint64_t slices() const { return slices_; }
  std::uint64_t slices_on() const { return slices_on_; }
  double global_rate() const { return global_; }
  // Each completed slice, in order: its length and the global rate
  // (bytes per second) at its end, what the switcher compared with the
  // threshold. (Slices last at least slice_ns: longer when the monitor's
  // thread was not running as a slice ended.)
  struct slice {
    double seconds, bytes_per_s;
  };
  const std::vector<slice>& slice_history() const { return slice_history_; }

 private:
  std::uint64_t persisted_bytes(std::uint32_t block) const;

  tx_shared s_;
  std::uint32_t blocks_;
  monitor_options o_;
  std::function<std::uint64_t()> now_;
  std::uint64_t start_ = 0, slice_start_ = 0;
  std::vector<std::uint64_t> last_bytes_;
  std::vector<double> last_rate_;
  double global_ = 0;
  unsigned below_ = 0;
  bool on_ = false;
  std::uint64_t slices_ = 0, slices_on_ = 0;
  std::vector<switch_event> switches_;
  std::vector<slice> slice_history_;
};

}  // namespace gpmx::stm
