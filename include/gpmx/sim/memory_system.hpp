#pragma once
// The memory-system timing model of the timed mode: given one warp's memory
// instruction and the virtual time it issues, when it completes. It knows
// no kernels; the warp engine calls access() in (roughly) increasing issue
// time. Deterministic: the same calls give the same answers.
//
// The path of a global or PM line request (docs/sim-memory.md has the
// exact sums a lone dependent load sees at each level):
//   L1 (one line request per cycle per SM, l1.latency) -> on a miss an MSHR
//   of the SM -> the SM's interconnect port (icnt.port_bytes_per_cycle,
//   icnt.latency) -> the L2 partition of the line (bank:
//   l2.bank_bytes_per_cycle, l2.latency) -> on an L2 miss the device that
//   holds the data (global: the line's GDDR channel; pm near: the NVM; pm
//   far: PCIe up, the NVM, PCIe back) -> back through the interconnect
//   (icnt.latency).
//
// PM stores write back from the L1 but write through the L2 (SBRP §6: no
// persist buffer at the L2): a PM line leaving an L1 goes on to the
// persistence domain (the NVM; with persist.eadr and PM-far, the host's
// last-level cache), and the SM learns it is durable an acknowledgement
// later (docs/sim-persistency.md).
#include <array>
#include <cstdint>
#include <vector>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/sim/bandwidth_server.hpp"
#include "gpmx/sim/cache.hpp"
#include "gpmx/sim/coalescer.hpp"
#include "gpmx/sim/config.hpp"
#include "gpmx/sim/memory_stats.hpp"
#include "gpmx/sim/time.hpp"

namespace gpmx::sim {

struct warp_request {
  std::uint32_t sm = 0;
  gpmx::mem_space space = gpmx::mem_space::global;
  gpmx::access_kind kind = gpmx::access_kind::load;
  bool atomic = false;  // an atomic: read-modify-write, or atomic load/store
  // An atomic that reads and writes: lanes on one address take turns (at
  // the L2's atomic unit, or a shared-memory bank). An atomic load or store
  // (a persist acquire's or release's flag) is one pass, as a load is.
  bool read_modify_write = true;
  gpmx::scope atomic_scope = gpmx::scope::device;
  std::uint32_t active = 0;  // lanes taking part
  std::array<lane_access, warp_lanes> lanes{};
};

struct request_timing {
  // Loads and atomics: data back in the SM. Stores: accepted by the L1
  // (write-back) or acknowledged by the L2 (write-through, or write-back
  // without allocation on a miss).
  picos done = 0;
  std::uint32_t sectors = 0;  // after coalescing
  std::uint32_t lines = 0;
};

// The persistency hardware's say over dirty PM lines leaving an L1 by
// capacity (SBRP's eviction rule): a persist buffer must be able to stall
// the eviction and must count the write it becomes.
class pm_eviction_guard {
 public:
  // A dirty PM line is to leave SM `sm`'s L1 at `t`; returns when its write
  // may go (the request that evicts it waits until then).
  virtual picos evicting(std::uint32_t sm, std::uint64_t line, picos t) = 0;
  // Its write went at `t`; the SM learns it is durable at `durable_ack`.
  virtual void evicted(std::uint32_t sm, std::uint64_t line, picos t, picos durable_ack) = 0;

 protected:
  ~pm_eviction_guard() = default;
};

// Told of every PM write as the persistence domain takes it, with when it
// is durable there (not when the SM learns it): crash images of the timed
// mode (durability_tracker.hpp) follow the bytes this way.
class pm_write_listener {
 public:
  // `sectors` of simulated line `line`, written from SM `sm`'s L1, or by an
  // atomic (`atomic`) executed at the L2 or the host, durable at `durable`.
  virtual void pm_written(std::uint32_t sm, std::uint64_t line, std::uint32_t sectors, picos durable,
                          bool atomic) = 0;

 protected:
  ~pm_write_listener() = default;
};

// Which of an L1's dirty lines a flush writes.
enum class flush_scope : std::uint8_t { all, pm, global };

class memory_system {
 public:
  // Validates the configuration (throws config_error).
  explicit memory_system(const sim_config& c);
  memory_system(const memory_system&) = delete;  // servers point into the stats
  memory_system& operator=(const memory_system&) = delete;

  request_timing access(const warp_request& r, picos issue);

  // Writes back the dirty lines of one SM's L1 that `which` names (they
  // stay valid, clean); returns when the last is acknowledged: by the L2
  // for global lines, as durable for PM lines (now if none).
  picos flush_l1(std::uint32_t sm, picos now, flush_scope which = flush_scope::all);
  // Kernel end: flushes every L1 (and nothing else: the L2 keeps its dirty
  // global lines); returns when the last write is acknowledged.
  picos drain(picos now);
  // Writes `sectors` of one line of an SM's L1 to the L2 (a persist
  // buffer's flush: the sectors its persists made dirty, written whether or
  // not the L1 still holds them dirty), clearing their dirty bits; 0 means
  // the line's dirty sectors. Returns when the write is acknowledged as
  // flush_l1 says, `now` if there was nothing to write.
  picos write_back_line(std::uint32_t sm, std::uint64_t line, std::uint32_t sectors, picos now);
  // When every PM write sent from the SM so far is known durable there.
  picos pm_durable(std::uint32_t sm) const { return sms_.at(sm).pm_durable; }
  // Host code (an agent beside a kernel) writes `bytes` of PM back at `t`
  // (a cache-line flush): PM-far through the host's uncore to the NVM,
  // PM-near across PCIe to the GPU's NVM. Returns when they are durable
  // (with eADR on PM-far, at once: the host's caches are persistent).
  picos host_pm_write(std::uint64_t bytes, picos t);

  // Drops one SM's L1 lines (after flush_l1 to keep dirty data): epoch
  // persistency's invalidation. Returns how many lines were dropped.
  std::size_t invalidate_l1(std::uint32_t sm);
  // Drops the SM's clean PM lines (dirty ones stay: they hold the SM's own
  // unpersisted stores). Returns how many.
  std::size_t invalidate_l1_pm(std::uint32_t sm);

  // The persistency hardware that rules PM evictions (null: none).
  void set_eviction_guard(pm_eviction_guard* g) { guard_ = g; }
  // Who hears of PM writes (null: nobody).
  void set_pm_write_listener(pm_write_listener* l) { listener_ = l; }
  // The L1 line address of a simulated address.
  std::uint64_t line_of(std::uint64_t addr) const { return addr & ~std::uint64_t(cfg_.l1.line - 1); }

  const memory_stats& stats() const { return stats_; }
  // Zeroes the counters and series; the caches and queues keep their state.
  void reset_stats();

  const sim_config& config() const { return cfg_; }
  picos cycles(std::uint64_t n) const { return cycles_to_picos(n, cfg_.clock.core_mhz); }
  // The L2 partition and GDDR channel of a line (for tests and reports).
  std::uint32_t partition_of(std::uint64_t line_addr) const;
  std::uint32_t channel_of(std::uint64_t line_addr) const;

 private:
  struct sm_state {
    sectored_cache l1;
    picos l1_next_free = 0;      // the L1 takes one line request per cycle
    picos shared_next_free = 0;  // shared memory: one pass per cycle
    bandwidth_server port;
    std::vector<picos> mshr_heap;  // completion times of misses in flight (min-heap)
    picos pm_durable = 0;          // the latest durable acknowledgement of a PM write sent
  };
  struct partition_state {
    sectored_cache l2;
    bandwidth_server bank;
  };
  // A write from the SM into the L2: when the L2 acknowledges it (queueing
  // at the port and bank included), the queueing it met at the port and
  // bank, and the queueing the write-back of a dirty L2 victim it caused met
  // on the way to its device.
  struct write_result {
    picos ack = 0;
    picos queued = 0;
    picos victim_wait = 0;
    picos durable_ack = 0;  // PM: when the SM learns the write is durable
  };

  request_timing access_shared(const warp_request& r, picos issue);
  picos l1_pipeline(sm_state& s, picos t);
  picos mshr_acquire(sm_state& s, picos t);
  void mshr_release_at(sm_state& s, picos done);
  picos load_line(sm_state& s, const line_request& lr, unsigned space, picos t);
  picos store_line(sm_state& s, const line_request& lr, unsigned space, picos t);
  picos atomic_line(sm_state& s, const line_request& lr, unsigned space, bool at_host, std::uint32_t passes,
                    picos t);
  // Reads `mask` of a line from the L2 on: arrival at the port -> data back
  // in the SM.
  picos read_from_l2(sm_state& s, std::uint64_t line, std::uint32_t mask, unsigned space, op_class op, picos t);
  // Writes `mask` of a line from the SM into the L2.
  write_result write_to_l2(sm_state& s, std::uint64_t line, std::uint32_t mask, unsigned space, op_class op, picos t);
  picos device_read(unsigned space, std::uint32_t partition, std::uint32_t bytes, picos t);
  picos device_write(unsigned space, std::uint32_t partition, std::uint32_t bytes, picos t);  // returns the wait
  // A PM write from the L2 to the persistence domain: returns when it is
  // durable (at the NVM, or at the host's LLC under eADR on PM-far), and
  // in `wait` the queueing it met on the way.
  picos pm_write(std::uint32_t bytes, picos t, picos& wait);
  // A dirty L1 victim: written to the L2 (PM evictions asked of the guard
  // first); returns the write's result and the wait the guard imposed.
  write_result write_victim(sm_state& s, const evicted_line& victim, picos t, picos& held);
  // Allocates `mask` of a line in its L2 partition (dirty when `dirty`),
  // writing back a dirty victim; returns the victim's write-back wait.
  picos l2_allocate(partition_state& p, std::uint32_t partition, std::uint64_t line, std::uint32_t mask,
                    unsigned space, bool dirty, picos t, picos ready);
  std::uint32_t bytes_of(std::uint32_t mask) const;

  sim_config cfg_;
  picos cycle_ = 0, l1_latency_ = 0, icnt_latency_ = 0, host_latency_ = 0;
  unsigned line_shift_ = 0;
  std::uint32_t partitions_per_channel_ = 1;
  std::uint64_t nvm_write_ticks_ = 0;
  picos ack_return_ = 0;  // a durability acknowledgement's way back to the SM
  pm_eviction_guard* guard_ = nullptr;
  pm_write_listener* listener_ = nullptr;
  std::vector<sm_state> sms_;
  std::vector<partition_state> parts_;
  std::vector<bandwidth_server> gddr_;
  bandwidth_server nvm_, pcie_to_host_, pcie_to_gpu_;
  std::array<line_request, max_line_requests> lines_{};
  memory_stats stats_;
};

}  // namespace gpmx::sim
