// Filling in executor options from the environment and defaults.
#include <charconv>
#include <cstdlib>
#include <fmt/format.h>
#include <string_view>
#include <thread>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::cpu {
namespace {

// Reads an unsigned number from the environment; K, M and G multiply by
// 2^10, 2^20 and 2^30 where the variable is a size.
bool env_number(const char* name, std::uint64_t& out, bool size_suffix) {
  const char* raw = std::getenv(name);
  if (!raw || !*raw) return false;
  const std::string_view text(raw);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  std::string_view rest(end, std::size_t(text.data() + text.size() - end));
  if (size_suffix && rest.size() == 1) {
    const char c = rest[0];
    if (c == 'K' || c == 'k') v <<= 10;
    else if (c == 'M' || c == 'm') v <<= 20;
    else if (c == 'G' || c == 'g') v <<= 30;
    else ec = std::errc::invalid_argument;
    rest = {};
  }
  if (ec != std::errc() || !rest.empty())
    throw config_error(fmt::format("environment variable {}='{}' is not a {}", name, text,
                                   size_suffix ? "size (a number, optionally with K, M or G)"
                                               : "non-negative integer"));
  out = v;
  return true;
}

}  // namespace

executor_options resolve(executor_options o) {
  std::uint64_t v = 0;
  if (o.policy == schedule::timed) {
    if (!o.timing)
      throw config_error("the timed schedule needs a timing model (executor_options::timing)");
    if (o.observer && o.observer != o.timing)
      throw config_error("the timed schedule's observer is its timing model; executor_options::observer "
                         "must be null or the same object");
    o.observer = o.timing;
  } else if (o.timing) {
    throw config_error("executor_options::timing is set but the schedule is not schedule::timed");
  }
  if (o.observer && !is_deterministic(o.policy) && !o.observer->thread_safe())
    throw config_error("executor_options::observer is not thread-safe: observe with the deterministic "
                       "schedule (schedule::deterministic)");
  if (is_deterministic(o.policy)) {
    o.workers = 1;  // one worker makes every interleaving a function of the seed
  } else if (o.workers == 0) {
    if (env_number("GPMX_WORKERS", v, false) && v > 0) o.workers = unsigned(v);
    else o.workers = std::max(1u, std::thread::hardware_concurrency());
  }
  if (o.fiber_stack_bytes == 0)
    o.fiber_stack_bytes = env_number("GPMX_FIBER_STACK", v, true) ? v : 64 * 1024;
  if (o.fiber_stack_bytes < 16 * 1024)
    throw config_error(fmt::format("fiber stack of {} bytes is too small; use at least 16 KiB",
                                   o.fiber_stack_bytes));
  if (o.max_resident_blocks == 0) o.max_resident_blocks = is_deterministic(o.policy) ? 4 : 16;
  if (o.group_commit == 0) o.group_commit = env_number("GPMX_GROUP_COMMIT", v, false) && v == 0 ? 2 : 1;
  if (o.group_commit > 2)
    throw config_error(fmt::format("executor_options::group_commit is {}; use 0 (environment), 1 (on) or 2 (off)",
                                   o.group_commit));
  if (o.max_resident_blocks_persisting == 0)
    o.max_resident_blocks_persisting =
        env_number("GPMX_PERSIST_RESIDENT_BLOCKS", v, false) && v > 0 ? unsigned(v) : 4 * o.max_resident_blocks;
  o.max_resident_blocks_persisting = std::max(o.max_resident_blocks_persisting, o.max_resident_blocks);
  if (o.spin_timeout.count() == 0)
    o.spin_timeout = std::chrono::milliseconds(env_number("GPMX_SPIN_TIMEOUT_MS", v, false) ? v : 30000);
  return o;
}

executor& default_executor() {
  static executor instance([] {
    executor_options o;
    const char* policy = std::getenv("GPMX_SCHEDULE");
    if (policy && std::string_view(policy) == "deterministic") o.policy = schedule::deterministic;
    else if (policy && *policy && std::string_view(policy) != "parallel")
      throw config_error(fmt::format(
          "environment variable GPMX_SCHEDULE='{}' must be parallel or deterministic", policy));
    std::uint64_t seed = 0;
    if (env_number("GPMX_SEED", seed, false)) o.seed = seed;
    return o;
  }());
  return instance;
}

}  // namespace gpmx::cpu
