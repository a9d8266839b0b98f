#include "tx/tx_workload.hpp"

#include <fmt/format.h>

#include "native/native_data.hpp"

namespace gpmx::apps::tx {

std::vector<seeded_bug> tx_seeded_bugs() {
  return {{bug_mark_with_records,
           "commit marks are written with their records, before a persist fence makes the records durable",
           style::epoch, "epoch"},
          {bug_drain_past_clean,
           "the helper warp drains every reserved entry of the persistence buffer, also those whose dirty bit "
           "is not set yet",
           style::epoch, "epoch"},
          {bug_truncate_first,
           "the log is truncated (its epoch moved on, or with -p log_entries its rings' starts moved while "
           "kernels run) before the home image the records were applied to is durable",
           style::epoch, "epoch"}};
}

stm::seeded_faults faults_of(const env& e) {
  stm::seeded_faults f;
  f.mark_with_records = e.has_bug(bug_mark_with_records);
  f.drain_past_clean = e.has_bug(bug_drain_past_clean);
  return f;
}

opened_heap make_heap(const env& e, const workload& w, const params& p, std::uint32_t words, std::uint32_t max_writes) {
  const tx_shape s = tx_shape_of(w.name(), p);
  if (s.nvram_mbps != 0 && e.ex.cpu().options().policy == cpu::schedule::timed)
    throw config_error(fmt::format("{}: nvram_mbps={} throttles in wall-clock time; in the timed mode the NVM "
                                   "model sets the bandwidth (--set nvm.write_gbs=G)",
                                   w.name(), s.nvram_mbps));
  const stm::log_geometry g = log_geometry_of(w.name(), s, max_writes);
  fresh_directory(e.dir);
  auto pool = std::make_unique<pm::pool>(
      pm::pool::create(e.dir / pool_file, native::pool_bytes({stm::tx_heap_bytes(words, g)}), {.mode = e.mode}));
  stm::tx_heap::create(*pool, words, g);
  stm::tx_heap heap = stm::tx_heap::open(*pool, words, g);
  return {std::move(pool), run_meta{}, s, heap, nullptr};
}

void finish_heap(const env& e, opened_heap& h, const workload& w, const params& p, style st) {
  h.pool->find("tx_home").persist();
  write_meta(*h.pool, w.name(), st, p);
  h.meta = read_meta(*h.pool, w);
  if (!e.ex.on_gpu()) throttle_pool(*h.pool, h.shape);
  else if (h.shape.nvram_mbps != 0)
    h.gpu_throttle = e.ex.gpu()->throttle_pm_writes(double(h.shape.nvram_mbps) * 1e6, h.shape.sector);
}

opened_heap open_heap(const env& e, const workload& w, std::uint32_t (*words_of)(const params&),
                      std::uint32_t max_writes) {
  require_file(e.dir, pool_file, w.name());
  auto pool = std::make_unique<pm::pool>(pm::pool::open(e.dir / pool_file, e.mode));
  run_meta m = read_meta(*pool, w);
  const tx_shape s = check_recorded(*pool, [&] { return tx_shape_of(w.name(), m.p); });
  const std::uint32_t words = check_recorded(*pool, [&] { return words_of(m.p); });
  stm::tx_heap heap = stm::tx_heap::open(*pool, words, log_geometry_of(w.name(), s, max_writes));
  return {std::move(pool), std::move(m), s, heap, nullptr};
}

recover_report recover_heap(stm::tx_heap& heap) {
  const std::uint64_t before = heap.applied_upto();
  const auto t0 = std::chrono::steady_clock::now();
  const stm::checkpoint_report c = heap.checkpoint();
  recover_report r;
  r.seconds = seconds_since(t0);
  r.repaired = c.applied > 0 || c.discarded > 0;
  r.what = fmt::format("applied {} durable records (sequence {} to {}) to the home image", c.applied, before + 1,
                       c.applied_upto);
  if (c.applied == 0) r.what = fmt::format("no durable record after sequence {}", before);
  if (c.gap_at != 0)
    r.what += fmt::format("; record {} is missing, so {} later records were discarded", c.gap_at, c.discarded);
  r.what += fmt::format("; log truncated (epoch {})", heap.epoch());
  return r;
}

verify_report check_promises(const stm::tx_heap& heap) {
  verify_report v;
  const stm::log_scan s = heap.scan();
  if (s.prefix > 0) {
    v.detail = fmt::format("{} durable records after sequence {} are not applied to the home image: recover first",
                           s.prefix, heap.applied_upto());
    return v;
  }
  if (heap.applied_upto() < heap.committed_through()) {
    v.detail = fmt::format("records up to {} were promised durable, the home image holds only up to {}",
                           heap.committed_through(), heap.applied_upto());
    return v;
  }
  v.ok = true;
  return v;
}

run_report report_of(const tx_stats& st, const opened_heap& h, std::string unit) {
  const tx_shape& s = h.shape;
  run_report r;
  r.unit = std::move(unit);
  r.operations = st.commits;
  r.seconds = st.kernel_seconds;
  r.batches = s.batches;
  const auto add = [&](const char* name, double v) { r.figures.emplace_back(name, v); };
  add("commits", double(st.commits));
  add("aborts", double(st.aborts));
  add("preemptions", double(st.preemptions));
  add("records_by_committers", double(st.direct));
  add("records_by_helpers", double(st.ring));
  add("ring_full_waits", double(st.ring_full));
  add("helper_drains", double(st.batches));
  add("median_occupancy", st.median_occupancy());
  add("mean_occupancy", st.batches == 0 ? -1 : double(st.occupancy_sum) / double(st.batches) / double(s.ring));
  add("helper_switches", double(st.switches));
  add("monitor_slices_on", double(st.monitor_slices_on));
  add("monitor_slices", double(st.monitor_slices));
  add("steady_persist_mbps", st.steady_persist_mbps());
  add("checkpoint_seconds", st.checkpoint_seconds);
  add("log_room_waits", double(st.log_room_waits));
  add("records_applied_while_running", double(st.applied_while_running));
  add("truncations_while_running", double(st.truncations_while_running));
  const pm::write_throttle* t = h.pool->throttle();
  add("nvram_bytes_charged", t                ? double(t->charged_bytes())
                             : h.gpu_throttle ? double(h.gpu_throttle->charged_bytes())
                                              : 0.0);
  return r;
}

}  // namespace gpmx::apps::tx
