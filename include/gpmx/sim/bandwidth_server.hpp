#pragma once
// A resource with a rate and a latency (a link, a DRAM channel, a cache
// bank). Requests are served one after another in the order they are
// handed to serve(): a request starts when it arrives or when the one before
// it has finished, whichever is later, occupies the resource for
// bytes / rate, and is done a latency after that. Queueing and contention
// emerge from next_free running ahead of arrivals. Occupancy is kept in
// 1/1024 ps so that sub-picosecond costs per byte add up without drift.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gpmx/sim/time.hpp"

namespace gpmx::sim {

// Bytes per time bucket: "bandwidth over time". Several servers (the twelve
// GDDR channels) may add to one series.
class time_series {
 public:
  explicit time_series(picos bucket_width = 1'000'000) : width_(bucket_width ? bucket_width : 1) {}

  void add(picos at, std::uint64_t bytes) {
    std::size_t b = std::size_t(at / width_);
    if (b >= bytes_.size()) bytes_.resize(b + 1, 0);  // the only allocation: the series growing
    bytes_[b] += bytes;
  }
  picos bucket_width() const { return width_; }
  const std::vector<std::uint64_t>& buckets() const { return bytes_; }
  void clear() { bytes_.clear(); }

 private:
  picos width_;
  std::vector<std::uint64_t> bytes_;
};

class bandwidth_server {
 public:
  static constexpr unsigned frac_bits = 10;  // 1 tick = 1/1024 ps

  bandwidth_server() = default;
  // rate: bytes per second (> 0); latency added after the transfer.
  bandwidth_server(double bytes_per_second, picos latency)
      : ticks_per_byte_(ticks_per_byte(bytes_per_second)), latency_(latency) {}

  // Ticks one byte occupies a resource of this rate.
  static std::uint64_t ticks_per_byte(double bytes_per_second) {
    return std::uint64_t(std::llround(1e12 * double(1u << frac_bits) / bytes_per_second));
  }

  // Serves `bytes` arriving at `arrival`; returns when they are done
  // (start + bytes / rate + latency).
  picos serve(picos arrival, std::uint32_t bytes) { return serve_ticks(arrival, bytes, bytes * ticks_per_byte_); }

  // The same at another rate per byte (a device whose writes are slower
  // than its reads), in ticks per byte.
  picos serve_at(picos arrival, std::uint32_t bytes, std::uint64_t ticks_per_byte_here) {
    return serve_ticks(arrival, bytes, bytes * ticks_per_byte_here);
  }

  // Occupies the resource for `duration` picoseconds counting `bytes`
  // (an atomic's passes at an L2 bank).
  picos occupy(picos arrival, std::uint32_t bytes, picos duration) {
    return serve_ticks(arrival, bytes, duration << frac_bits);
  }

  // When the last request served started, and how long it waited.
  picos last_start() const { return last_start_; }
  picos last_wait() const { return last_wait_; }

  picos latency() const { return latency_; }
  std::uint64_t ticks_per_byte() const { return ticks_per_byte_; }
  // Transfer time of `bytes` at this server's rate, rounded up to a ps.
  picos transfer_picos(std::uint32_t bytes) const { return ceil_ps(bytes * ticks_per_byte_); }
  // When the resource is next free (rounded up to a ps).
  picos next_free() const { return ceil_ps(next_free_); }

  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t requests() const { return requests_; }
  picos busy() const { return ceil_ps(busy_); }

  void attach(time_series* series) { series_ = series; }
  void reset_counts() {
    bytes_ = 0;
    requests_ = 0;
    busy_ = 0;
  }

 private:
  static picos ceil_ps(std::uint64_t ticks) { return (ticks + (1u << frac_bits) - 1) >> frac_bits; }

  picos serve_ticks(picos arrival, std::uint32_t bytes, std::uint64_t occupancy) {
    const std::uint64_t at = arrival << frac_bits;
    const std::uint64_t start = at > next_free_ ? at : next_free_;
    next_free_ = start + occupancy;
    busy_ += occupancy;
    bytes_ += bytes;
    ++requests_;
    last_start_ = ceil_ps(start);
    last_wait_ = last_start_ - arrival;
    if (series_ && bytes) series_->add(last_start_, bytes);
    return ceil_ps(next_free_) + latency_;
  }

  std::uint64_t ticks_per_byte_ = 1;
  picos latency_ = 0;
  std::uint64_t next_free_ = 0;  // ticks
  std::uint64_t busy_ = 0;       // ticks
  std::uint64_t bytes_ = 0;
  std::uint64_t requests_ = 0;
  picos last_start_ = 0;
  picos last_wait_ = 0;
  time_series* series_ = nullptr;
};

}  // namespace gpmx::sim
