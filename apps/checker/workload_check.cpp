#include "checker/workload_check.hpp"

#include <optional>

#include "gpmx/check/read_tracker.hpp"
#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/trace/recorder.hpp"

namespace gpmx::apps {

trace::trace trace_workload(workload& w, const params& p, style s, const std::string& bug, std::uint64_t seed,
                            const std::filesystem::path& root) {
  trace::recorder rec;
  {
    // Pools made by the run get identities from the seed: the same trace every time.
    const pm::deterministic_pool_identity identity(seed);
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = seed, .observer = &rec});
    env e{ex, root / std::string(w.name()), pm::durability::none};
    e.bug = bug;
    (void)w.run(e, p, s);
  }
  return rec.take();
}

namespace {

// Recovery then verification of w on an image's directory. A tracker, when
// given, is finished between the two (the check reads everything: those are
// not recovery's reads), and its reads go with the verdict, also when
// recovery throws; without one, a throw fails the image in image_jobs.
check::image_verdict recover_and_verify(workload& w, const std::filesystem::path& dir,
                                        check::read_tracker* tracker) {
  cpu::executor ex({.workers = 1});
  const env e{ex, dir / std::string(w.name()), pm::durability::none};
  recover_report rec;
  try {
    rec = w.recover(e);
  } catch (const std::exception& thrown) {
    if (!tracker) throw;
    check::image_verdict out{false, std::string("recovery threw: ") + thrown.what()};
    out.reads = tracker->finish();
    return out;
  }
  std::optional<check::pool_reads> reads;
  if (tracker) reads = tracker->finish();
  const verify_report v = w.verify(e);
  check::image_verdict out = v.ok ? check::image_verdict{true, rec.what}
                                  : check::image_verdict{false, "recovery: " + rec.what + "; verify: " + v.detail};
  out.reads = std::move(reads);
  return out;
}

}  // namespace

check::image_target workload_target(workload& w) {
  return [&w](const std::filesystem::path& dir) { return recover_and_verify(w, dir, nullptr); };
}

check::image_target workload_traced_target(workload& w, std::uint32_t granularity) {
  if (!check::read_tracker::available()) return {};
  return [&w, granularity](const std::filesystem::path& dir) {
    // Made before the executor and the pools, so it hears of every mapping.
    check::read_tracker tracker(granularity);
    return recover_and_verify(w, dir, &tracker);
  };
}

check::check_report check_workload(workload& w, const params& p, style s, const std::string& bug,
                                   std::uint64_t seed, const check::check_options& o) {
  const trace::trace t = trace_workload(w, p, s, bug, seed, o.root);
  check::check_options with_reads = o;
  if (!with_reads.traced_target) with_reads.traced_target = workload_traced_target(w, o.granularity);
  return check::check_trace(t, workload_target(w), with_reads);
}

}  // namespace gpmx::apps
