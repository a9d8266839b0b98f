#pragma once
// Slow NVRAM emulated on any memory: a bandwidth-limited queue in front of a
// pool's kernel persists. Each persist is charged the whole sectors it
// touches (scattered small writes cost a sector each, coalesced ones do
// not) and is done when a device writing at `bytes_per_second` would have
// finished everything charged so far. A kernel thread on the cpu executor
// parks until then while its worker runs other threads (device_wait.hpp:
// persistence overlaps computation, as on a GPU); any other caller blocks.
// (Routing throttled persists through the executor's group commit was
// tried and measured: its hand-over latency, tens of microseconds, hid the
// bandwidth; see docs/transactions.md.)
#include <chrono>
#include <cstdint>
#include <mutex>

namespace gpmx::pm {

class write_throttle {
 public:
  // Throws pm_error(bad_argument) unless bytes_per_second > 0 and
  // sector_bytes is a power of two from 8 to 4096.
  write_throttle(double bytes_per_second, std::uint32_t sector_bytes);

  // Charges the sectors of [address, address + bytes) and waits for them
  // (or hands the wait to the calling kernel thread).
  void charge_range(const void* address, std::uint64_t bytes);
  // Charges `sectors` whole sectors and waits for them.
  void charge_sectors(std::uint64_t sectors);

  double bytes_per_second() const { return rate_; }
  std::uint32_t sector_bytes() const { return sector_; }
  std::uint64_t charged_bytes() const;
  // Sectors that [address, address + bytes) touches.
  std::uint64_t sectors_of(const void* address, std::uint64_t bytes) const;

 private:
  using clock = std::chrono::steady_clock;
  double rate_;
  std::uint32_t sector_;
  mutable std::mutex m_;
  clock::time_point free_at_{};  // when the emulated device finishes what it was given
  double debt_ns_ = 0;           // fractions of a nanosecond carried over
  std::uint64_t charged_ = 0;
};

}  // namespace gpmx::pm
