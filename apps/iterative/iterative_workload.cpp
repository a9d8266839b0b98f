#include <chrono>
#include <cstring>
#include <fmt/format.h>

#include "common/region_size.hpp"
#include "common/run_meta.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/checkpoint.hpp"
#include "gpmx/support/elapsed.hpp"
#include "iterative/iterative.hpp"

namespace gpmx::apps::iterative {
namespace {

using clock_type = std::chrono::steady_clock;

// Saved as the group's first element, so the iteration count and the state
// it belongs to become consistent in the same flip.
struct progress {
  std::uint64_t done = 0;  // iterations the saved state has completed
  std::uint64_t reserved = 0;
};

std::string cp_file(std::string_view name) { return fmt::format("{}.cp", name); }
std::string pool_file(std::string_view name) { return fmt::format("{}.pool", name); }

std::uint64_t state_bytes(app& a) {
  std::uint64_t b = sizeof(progress);
  for (const state_array& s : a.state()) b += s.count * sizeof(float);
  return b;
}

void register_all(pm::checkpoint& cp, app& a, progress& pr) {
  cp.register_buffer(0, &pr, sizeof pr);
  for (const state_array& s : a.state()) cp.register_buffer(0, s.data, s.count * sizeof(float));
}

// Steps from `from` to the end, saving after every `interval`-th iteration
// and after the last; returns the number of saves.
// `order` is the protocol's except in the seeded bug flip-before-copy.
std::uint64_t run_iterations(const env& e, app& a, pm::checkpoint& cp, progress& pr, schedule sc,
                             pm::checkpoint::save_order order = pm::checkpoint::save_order::copy_then_flip) {
  std::uint64_t saves = 0;
  for (std::uint64_t i = pr.done; i < sc.iterations; ++i) {
    a.step(e.ex, i);
    pr.done = i + 1;
    if (pr.done % sc.interval == 0 || pr.done == sc.iterations) {
      cp.save(0, e.ex, order);  // copy, persist, then flip the epoch word
      crash_trigger::point();
      ++saves;
    }
    e.report(double(pr.done) / double(sc.iterations));
  }
  return saves;
}

// The iteration count a restored checkpoint holds is one a save stores: a
// save point of the schedule (or 0, the content of a copy never written,
// which the seeded bug flip-before-copy can expose), with at least as many
// flips of the epoch word as saves lead there. Anything else would resume
// past the end (or never finish) on a damaged file.
void check_restored(pm::checkpoint& cp, const std::filesystem::path& file, const progress& pr, schedule sc) {
  const std::uint64_t d = pr.done;
  const bool save_point = d <= sc.iterations && (d % sc.interval == 0 || d == sc.iterations);
  if (!save_point)
    pm::throw_corrupt_value(file, "gpmcp.g0", "saved iteration count (element 0)", d,
                            fmt::format("a save point of {} iterations saved every {}", sc.iterations, sc.interval));
  const std::uint64_t saves = d / sc.interval + (d % sc.interval != 0 ? 1 : 0);
  if (cp.epoch(0) < saves)
    pm::throw_corrupt_value(file, "gpmcp.meta", "epoch of group 0", cp.epoch(0),
                            fmt::format("the saved iteration {} took at least {} saves", d, saves));
}

// The app's own PM region, when it has one.
constexpr const char* own_region = "own";

constexpr const char* flip_before_copy = "flip-before-copy";

}  // namespace

std::uint64_t checked(std::string_view workload, const params& p, const char* name, std::uint64_t lo,
                      std::uint64_t hi) {
  const std::uint64_t v = p.at(name);
  if (v < lo || v > hi)
    throw config_error(fmt::format("{}: parameter {}={} is out of range [{}, {}]", workload, name, v, lo, hi));
  return v;
}

schedule schedule_of(std::string_view workload, const params& p) {
  return {checked(workload, p, "iterations", 1, 1u << 30), checked(workload, p, "interval", 1, 1u << 30)};
}

std::vector<seeded_bug> checkpointed_workload::seeded_bugs() const {
  return {{flip_before_copy,
           "each checkpoint save flips the epoch word, persisted, before it copies the state into the working copy, "
           "so a crash during the copy leaves the epoch naming a copy that is partly old or empty",
           style::epoch, "epoch"}};
}

run_report checkpointed_workload::run(const env& e, const params& p, style s) {
  const schedule sc = schedule_of(name(), p);
  (void)requested_bug(*this, e, s);
  const auto order = e.has_bug(flip_before_copy) ? pm::checkpoint::save_order::flip_then_copy
                                                 : pm::checkpoint::save_order::copy_then_flip;
  auto a = make_app(p);  // validates before anything is written
  fresh_directory(e.dir);
  progress pr;
  auto cp = pm::checkpoint::create(e.dir / cp_file(name()), state_bytes(*a), std::uint32_t(a->state().size() + 1), 1,
                                   e.mode);
  register_all(cp, *a, pr);
  auto pool = pm::pool::create(e.dir / pool_file(name()), a->own_pm_bytes() + (1 << 20), {.mode = e.mode});
  if (a->own_pm_bytes() > 0) a->attach_pm(pool.create_region(own_region, a->own_pm_bytes()), s);
  write_meta(pool, name(), s, p);  // last: the set-up is complete

  run_report r;
  r.unit = std::string(unit());
  const std::uint64_t own_before = pool.bytes_persisted();
  const auto start = clock_type::now();
  const std::uint64_t saves = run_iterations(e, *a, cp, pr, sc, order);
  r.seconds = seconds_since(start);
  r.operations = sc.iterations * a->operations_per_iteration();
  r.batches = sc.iterations;
  r.bytes_persisted = saves * state_bytes(*a) + (pool.bytes_persisted() - own_before);
  return r;
}

recover_report checkpointed_workload::recover(const env& e) {
  require_file(e.dir, pool_file(name()), name());
  auto pool = pm::pool::open(e.dir / pool_file(name()), e.mode);
  const run_meta m = read_meta(pool, *this);
  const schedule sc = check_recorded(pool, [&] { return schedule_of(name(), m.p); });
  const auto start = clock_type::now();
  auto a = check_recorded(pool, [&] { return make_app(m.p); });
  auto cp = pm::checkpoint::open(e.dir / cp_file(name()), e.mode);
  progress pr;
  register_all(cp, *a, pr);
  if (cp.epoch(0) > 0) {  // else the fresh app is iteration 0
    cp.restore(0, e.ex);
    check_restored(cp, e.dir / cp_file(name()), pr, sc);
  }
  if (a->own_pm_bytes() > 0)
    a->attach_pm(region_of_size(pool, own_region, a->own_pm_bytes(), "the recorded parameters"), m.s);
  recover_report r;
  const std::uint64_t from = pr.done;
  r.repaired = from < sc.iterations;
  run_iterations(e, *a, cp, pr, sc);
  r.seconds = seconds_since(start);
  r.what = r.repaired ? fmt::format("restored the checkpoint of iteration {} and ran iterations {} to {}", from, from,
                                    sc.iterations)
                      : fmt::format("finished: the checkpoint holds all {} iterations", sc.iterations);
  return r;
}

verify_report checkpointed_workload::verify(const env& e) {
  require_file(e.dir, pool_file(name()), name());
  auto pool = pm::pool::open(e.dir / pool_file(name()), e.mode);
  const run_meta m = read_meta(pool, *this);
  const schedule sc = check_recorded(pool, [&] { return schedule_of(name(), m.p); });
  auto a = check_recorded(pool, [&] { return make_app(m.p); });
  auto cp = pm::checkpoint::open(e.dir / cp_file(name()), e.mode);
  progress pr;
  register_all(cp, *a, pr);
  verify_report v;
  if (cp.epoch(0) == 0) {
    v.detail = fmt::format("no checkpoint saved yet (0 of {} iterations): recover first", sc.iterations);
    return v;
  }
  cp.restore(0, e.ex);
  check_restored(cp, e.dir / cp_file(name()), pr, sc);
  if (pr.done != sc.iterations) {
    v.detail = fmt::format("the checkpoint holds {} of {} iterations: recover first", pr.done, sc.iterations);
    return v;
  }
  // The uninterrupted run: the same kernels, in DRAM, from the initial state.
  auto ref = make_app(m.p);
  for (std::uint64_t i = 0; i < sc.iterations; ++i) ref->step(e.ex, i);
  const auto mine = a->state(), want = ref->state();
  for (std::size_t k = 0; k < mine.size(); ++k) {
    for (std::uint64_t i = 0; i < mine[k].count; ++i) {
      // Bitwise: the kernels are deterministic (no float atomics, fixed
      // reduction order), so a resumed run must reproduce every bit.
      if (std::memcmp(&mine[k].data[i], &want[k].data[i], sizeof(float)) != 0) {
        v.detail = fmt::format("{}[{}] is {:.9g} after {} iterations; the uninterrupted run has {:.9g}", mine[k].name, i,
                               mine[k].data[i], sc.iterations, want[k].data[i]);
        return v;
      }
    }
    v.checked += mine[k].count;
  }
  const std::uint64_t state_values = v.checked;
  if (a->own_pm_bytes() > 0) {
    verify_report own = a->check_own_pm(region_of_size(pool, own_region, a->own_pm_bytes(), "the recorded parameters"),
                                        *ref, sc.iterations);
    v.checked += own.checked;
    if (!own.ok) {
      v.detail = own.detail;
      return v;
    }
    if (!own.detail.empty()) own.detail = "; " + own.detail;
    v.detail = own.detail;
  }
  v.ok = true;
  v.detail = fmt::format("{} state values after {} iterations equal the uninterrupted run bitwise{}", state_values,
                         sc.iterations, v.detail);
  return v;
}

}  // namespace gpmx::apps::iterative
