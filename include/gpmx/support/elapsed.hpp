#pragma once
// Wall time of a step, as the workloads, benchmarks and tools report it.
#include <chrono>

namespace gpmx {

// Seconds from t0 to now on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace gpmx
