#include "demo_kvs.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "gpkvs/gpkvs.hpp"
#include "gpmx/support/child_process.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::cli {
namespace {
using namespace apps::gpkvs;
using clock_type = std::chrono::steady_clock;

constexpr std::uint64_t seed = 2022;

}  // namespace

int run_kvs_demo(const kvs_demo_options& o) {
  const auto dir = o.data / "demo-kvs";
  std::filesystem::remove_all(dir);
  const params p{o.sets, o.batch};

  // The load and the crash run in child processes, so that this process
  // starts no thread before it forks (forking a multi-threaded process is
  // fragile, and ThreadSanitizer refuses it).
  struct load_stats {
    double set_s, gets_per_s;
    std::uint64_t persisted;
  } stats{};

  // 1. Load: batches of SETs, then one batch of GETs, in a child.
  {
    child_process load = child_process::start("load the demo store", [&](int report_fd) {
      try {
        cpu::executor ex({.workers = o.workers});
        store s = store::create(dir, p, pm::durability::msync);
        load_stats st{};
        const auto t0 = clock_type::now();
        for (std::uint64_t b = 0; b < o.load_batches; ++b) s.set_batch(ex, make_batch(seed, b, p.max_batch, p.sets));
        st.set_s = seconds_since(t0);
        std::vector<std::uint64_t> keys;
        for (const kv_pair& kv : s.table())
          if (kv.key) keys.push_back(kv.key);
        const auto t1 = clock_type::now();
        s.get_batch(ex, keys);
        st.gets_per_s = double(keys.size()) / seconds_since(t1);
        st.persisted = s.bytes_persisted();
        return ::write(report_fd, &st, sizeof st) == sizeof st ? 0 : 3;
      } catch (const std::exception& e) {
        fmt::print(stderr, "gpmx: error: demo load: {}\n", e.what());
      }
      return 2;
    });
    const bool got = load.read_exact(&stats, sizeof stats);
    if (!got || !load.wait().exited_with(0)) throw std::runtime_error("demo: loading the store failed");
  }
  const double set_s = stats.set_s, gets_per_s = stats.gets_per_s;
  const std::uint64_t persisted = stats.persisted;
  const double batch_s = set_s / o.load_batches;

  // 2. A child runs the next batch; a watchdog thread SIGKILLs it half-way.
  child_process crash = child_process::start("run the demo's crashing batch", [&](int) {
    store s = store::open(dir, pm::durability::msync);
    cpu::executor child_ex({.workers = o.workers});
    std::thread watchdog([batch_s] {
      std::this_thread::sleep_for(std::chrono::duration<double>(batch_s / 2));
      ::kill(::getpid(), SIGKILL);
    });
    s.set_batch(child_ex, make_batch(seed, o.load_batches, p.max_batch, p.sets));
    watchdog.join();  // the batch outran the watchdog: wait to be killed
    return 2;
  });
  const bool killed = crash.wait().killed_by(SIGKILL);

  // 3. Recover and verify every key against a sequential replay.
  cpu::executor ex({.workers = o.workers});
  store s = store::open(dir, pm::durability::msync);
  const bool in_flight = s.batch_in_flight();
  const auto t2 = clock_type::now();
  s.recover(ex);
  const double recover_s = seconds_since(t2);
  std::vector<kv_pair> ref(std::size_t(p.sets) * ways, kv_pair{0, 0});
  for (std::uint64_t b = 0; b < o.load_batches; ++b) apply_reference(ref, p.sets, make_batch(seed, b, p.max_batch, p.sets));
  auto after = ref;
  apply_reference(after, p.sets, make_batch(seed, o.load_batches, p.max_batch, p.sets));
  const auto t = s.table();
  const bool same_before = std::equal(t.begin(), t.end(), ref.begin(), ref.end());
  const bool same_after = std::equal(t.begin(), t.end(), after.begin(), after.end());
  std::uint64_t keys = 0;
  for (const kv_pair& kv : t) keys += kv.key != 0;
  const bool ok = killed && (same_before || same_after);

  const double sets_per_s = double(o.load_batches) * p.max_batch / set_s;
  if (o.json) {
    const nlohmann::json j = {{"sets_per_s", sets_per_s},           {"gets_per_s", gets_per_s},
                              {"pm_bytes_persisted", persisted},     {"killed_mid_batch", killed && in_flight},
                              {"recovery_ms", recover_s * 1e3},      {"keys_verified", ok ? keys : 0},
                              {"table_is", same_before ? "before the killed batch" : same_after ? "after it" : "neither"},
                              {"ok", ok}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("gpmx demo: gpKVS ({} sets x {} ways in PM, batches of {} SETs, {} workers)\n\n", p.sets, ways,
               p.max_batch, ex.workers());
    fmt::print("{:<34} {:>16}\n", "SETs per second (load)", fmt::format("{:.0f}", sets_per_s));
    fmt::print("{:<34} {:>16}\n", "GETs per second", fmt::format("{:.0f}", gets_per_s));
    fmt::print("{:<34} {:>16}\n", "PM bytes persisted (load)", persisted);
    fmt::print("{:<34} {:>16}\n", "child killed mid-batch (SIGKILL)", killed && in_flight ? "yes" : killed ? "between batches" : "no");
    fmt::print("{:<34} {:>16}\n", "recovery time (ms)", fmt::format("{:.2f}", recover_s * 1e3));
    fmt::print("{:<34} {:>16}\n", "keys verified", ok ? keys : 0);
    fmt::print("{:<34} {:>16}\n", "result", ok ? (same_before ? "ok: batch undone" : "ok: batch complete") : "WRONG");
  }
  return ok ? 0 : 3;
}

}  // namespace gpmx::cli
