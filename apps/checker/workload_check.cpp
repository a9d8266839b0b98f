#include "checker/workload_check.hpp"

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

check::image_target workload_target(workload& w) {
  return [&w](const std::filesystem::path& dir) {
    cpu::executor ex({.workers = 1});
    const env e{ex, dir / std::string(w.name()), pm::durability::none};
    const recover_report rec = w.recover(e);
    const verify_report v = w.verify(e);
    if (v.ok) return check::image_verdict{true, rec.what};
    return check::image_verdict{false, "recovery: " + rec.what + "; verify: " + v.detail};
  };
}

check::image_target workload_traced_target(workload& w, std::uint32_t granularity) {
  if (!check::read_tracker::available()) return {};
  return [&w, granularity](const std::filesystem::path& dir) {
    // Made before the executor and the pools, so it hears of every mapping.
    check::read_tracker tracker(granularity);
    cpu::executor ex({.workers = 1});
    const env e{ex, dir / std::string(w.name()), pm::durability::none};
    check::image_verdict out;
    try {
      out.detail = "recovery: " + w.recover(e).what;
    } catch (const std::exception& ex_) {
      out.detail = std::string("recovery threw: ") + ex_.what();
      out.reads = tracker.finish();
      return out;
    }
    out.reads = tracker.finish();  // the check reads everything: not recovery's reads
    const verify_report v = w.verify(e);
    out.ok = v.ok;
    if (!v.ok) out.detail += "; verify: " + v.detail;
    return out;
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
