#include "gpmx/pm/write_throttle.hpp"

#include <fmt/format.h>

#include <thread>

#include "gpmx/exec/device_wait.hpp"
#include "gpmx/exec/write_throttle_settings.hpp"
#include "gpmx/pm/errors.hpp"

namespace gpmx::pm {

write_throttle::write_throttle(double bytes_per_second, std::uint32_t sector_bytes)
    : rate_(bytes_per_second), sector_(sector_bytes) {
  if (const std::string bad = write_throttle_settings_error(bytes_per_second, sector_bytes); !bad.empty())
    throw pm_error(errc::bad_argument, "write throttle: " + bad);
}

std::uint64_t write_throttle::sectors_of(const void* address, std::uint64_t bytes) const {
  if (bytes == 0) return 0;
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  return (a + bytes - 1) / sector_ - a / sector_ + 1;
}

void write_throttle::charge_range(const void* address, std::uint64_t bytes) {
  charge_sectors(sectors_of(address, bytes));
}

void write_throttle::charge_sectors(std::uint64_t sectors) {
  if (sectors == 0) return;
  clock::time_point done;
  {
    std::lock_guard lock(m_);
    const std::uint64_t bytes = sectors * sector_;
    charged_ += bytes;
    debt_ns_ += double(bytes) * 1e9 / rate_;
    const auto whole = std::chrono::nanoseconds(std::int64_t(debt_ns_));
    debt_ns_ -= double(whole.count());
    const clock::time_point now = clock::now();
    free_at_ = (free_at_ > now ? free_at_ : now) + whole;
    done = free_at_;
  }
  // A kernel thread on the cpu executor parks until then; others block.
  if (defer_device_wait(done)) return;
  // Sleeping costs tens of microseconds of slack; shorter waits spin.
  constexpr auto slack = std::chrono::microseconds(80);
  if (done - clock::now() > slack) std::this_thread::sleep_until(done - slack);
  while (clock::now() < done) std::this_thread::yield();
}

std::uint64_t write_throttle::charged_bytes() const {
  std::lock_guard lock(m_);
  return charged_;
}

}  // namespace gpmx::pm
