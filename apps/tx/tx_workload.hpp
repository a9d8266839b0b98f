#pragma once
// What the transaction benchmarks share as workloads (`gpmx run tx-*`):
// one pool file holding the meta region and the transactional heap
// (stm::tx_heap); run creates it and runs the batches; recover applies the
// log's durable prefix and truncates it; verify checks the promises
// (every record promised durable was applied) before the benchmark's own
// invariant.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/stm/tx_heap.hpp"
#include "tx/tx_runner.hpp"
#include "tx/tx_shape.hpp"

namespace gpmx::apps::tx {

inline constexpr const char* pool_file = "tx.pool";

// Seeded bugs every transaction benchmark knows.
inline constexpr const char* bug_mark_with_records = "mark-with-records";
inline constexpr const char* bug_drain_past_clean = "drain-past-clean";
inline constexpr const char* bug_truncate_first = "truncate-before-home";
std::vector<seeded_bug> tx_seeded_bugs();
stm::seeded_faults faults_of(const env& e);

// An open pool with its heap and recorded parameters.
struct opened_heap {
  std::unique_ptr<pm::pool> pool;
  run_meta meta;
  tx_shape shape;
  stm::tx_heap heap;
  // On a GPU with nvram_mbps set: the kernels' emulated NVRAM (the pool's
  // own throttle is the cpu executor's).
  std::unique_ptr<gpu_write_throttle> gpu_throttle;
};

// run(): fresh directory, the pool with `words` words set by init(home)
// and persisted, the meta written last.
template <class Init>
opened_heap create_heap(const env& e, const workload& w, const params& p, style st, std::uint32_t words,
                        std::uint32_t max_writes, Init&& init);
opened_heap open_heap(const env& e, const workload& w, std::uint32_t (*words_of)(const params&),
                      std::uint32_t max_writes);

// recover(): the checkpoint, reported.
recover_report recover_heap(stm::tx_heap& heap);
// verify()'s common part: fails (ok false) when durable records wait to be
// applied or when applied_upto is below the promise; else ok with no detail.
verify_report check_promises(const stm::tx_heap& heap);
// verify()'s way out: v, not ok, with why as its detail.
inline verify_report fail(verify_report& v, std::string why) {
  v.ok = false;
  v.detail = std::move(why);
  return v;
}
// The report of a run from its statistics, with the figures the benches
// read (aborts, buffer occupancy, switches, bytes charged by the throttle).
run_report report_of(const tx_stats& st, const opened_heap& h, std::string unit);

// --- template definitions ---
opened_heap make_heap(const env& e, const workload& w, const params& p, std::uint32_t words, std::uint32_t max_writes);
void finish_heap(const env& e, opened_heap& h, const workload& w, const params& p, style st);

template <class Init>
opened_heap create_heap(const env& e, const workload& w, const params& p, style st, std::uint32_t words,
                        std::uint32_t max_writes, Init&& init) {
  opened_heap h = make_heap(e, w, p, words, max_writes);
  init(h.heap.home());
  finish_heap(e, h, w, p, st);
  return h;
}

}  // namespace gpmx::apps::tx
