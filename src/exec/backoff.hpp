#pragma once
// Waiting politely for other threads: yield at first, then sleep a little
// longer each time, up to a millisecond. Workers whose blocks only spin and
// agent threads with nothing to do both wait this way.
#include <algorithm>
#include <chrono>
#include <thread>

namespace gpmx::cpu::detail {

class backoff {
 public:
  void reset() { rounds_ = 0; }
  void pause() {
    if (++rounds_ < 64) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000u, 10u * (rounds_ - 63))));
  }

 private:
  unsigned rounds_ = 0;
};

}  // namespace gpmx::cpu::detail
