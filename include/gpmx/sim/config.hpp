#pragma once
// Every parameter of the timed mode's GPU, with the defaults of the named
// configuration `sbrp-table1` (the GPU of the SBRP paper's Table 1 and its
// simulator configuration). docs/sim-memory.md lists each key with its unit
// and where its default comes from.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpmx/support/error.hpp"

namespace gpmx::sim {

// A configuration, key or value the timed mode cannot use. what() names the
// key and the value at fault.
class config_error : public gpmx::error {
 public:
  explicit config_error(const std::string& what) : gpmx::error(error_code::config, what) {}
};

enum class sched_policy : std::uint8_t { gto, lrr };    // greedy-then-oldest, loose round robin
enum class write_policy : std::uint8_t { back, through };
enum class pm_location : std::uint8_t { far, near };    // far: NVM on the host behind PCIe; near: on the GPU board
// The persistency hardware (docs/sim-persistency.md): GPM's system-scope
// fence, the epoch barrier, or SBRP's per-SM persist buffer.
enum class persist_model : std::uint8_t { gpm, epoch, sbrp };
// When a persist buffer writes its persists: as soon as order allows, only
// at ordering points, or keeping a window of them in flight per SM.
enum class flush_policy : std::uint8_t { eager, lazy, window };
// When a PM write counts as durable (ADR): once the NVM's write queue takes
// it (the memory controller's queue is in the persistence domain), once the
// NVM has written it, or (partition) once it leaves the GPU's L2 for its
// memory partition, PCIe included: what the SBRP simulator's PM partition
// with "persistence on reaching the DRAM queue" amounts to on PM-far.
enum class durable_point : std::uint8_t { queue, media, partition };

// A cache's ways as simulated: at most its number of lines.
constexpr std::uint32_t effective_ways(std::uint64_t size, std::uint32_t line, std::uint32_t ways) {
  return size / line < ways ? std::uint32_t(size / line) : ways;
}

// sched.run_ahead's bound: a lane's recorded loads stay a few KB.
inline constexpr std::uint32_t max_run_ahead = 256;

struct sim_config {
  std::string name = "sbrp-table1";

  struct {
    std::uint32_t count = 30;
    std::uint32_t schedulers = 4;
    // Table 1 and the artifact: up to 1024 threads per SM (not 2048 as on
    // real Volta/Ampere parts); the notes' number is kept.
    std::uint32_t max_threads = 1024;
    std::uint32_t max_blocks = 32;
    std::uint64_t shared_bytes = 64 * 1024;
    std::uint32_t registers = 65536;
    std::uint32_t regs_per_thread = 32;  // a setting: registers a kernel's thread uses
    std::uint32_t issue_cycles = 1;      // core cycles to issue one warp instruction
  } sm;

  struct {
    sched_policy policy = sched_policy::gto;
    // Plain loads a lane performs ahead of its warp's issue (0: none). The
    // simulator's speed, not the machine: the same cycles for kernels whose
    // loads do not race with stores (docs/sim.md, Speed). 64: a lane's
    // records take 2 KB (32 bytes each), and a loop of loads resumes its
    // lane a quarter as often as with 16.
    std::uint32_t run_ahead = 64;
  } sched;

  struct {
    std::uint32_t core_mhz = 1365;  // core, L2 and interconnect clock
  } clock;

  struct {
    std::uint64_t size = 64 * 1024;
    std::uint32_t line = 128;
    std::uint32_t sector = 32;
    std::uint32_t ways = 512;  // 1 set: fully associative (ways >= lines always means that)
    std::uint32_t latency = 20;  // cycles
    std::uint32_t mshrs = 256;
    write_policy write = write_policy::back;
    bool allocate_on_store = true;
  } l1;

  struct {
    std::uint32_t latency = 24;  // cycles; chosen here, not from the paper
    std::uint32_t banks = 32;
    std::uint32_t bank_bytes = 4;
  } shared;

  struct {
    std::uint32_t latency = 8;                 // cycles, one way SM <-> L2; chosen here
    std::uint32_t port_bytes_per_cycle = 32;   // per SM; chosen here
  } icnt;

  struct {
    std::uint64_t size = 3 * 1024 * 1024;
    std::uint32_t partitions = 24;  // 12 channels x 2 sub-partitions
    std::uint32_t ways = 16;
    std::uint32_t line = 128;
    std::uint32_t sector = 32;
    std::uint32_t latency = 160;             // cycles
    std::uint32_t bank_bytes_per_cycle = 32; // per partition
    std::uint32_t atomic_cycles = 4;         // per atomic pass at the bank; chosen here
  } l2;

  struct {
    std::uint32_t channels = 12;
    double bandwidth_gbs = 336;  // all channels together
    double latency_ns = 100;
  } gddr;

  struct {
    double bandwidth_gbs = 28;  // each direction
    double latency_ns = 300;    // one way
  } pcie;

  struct {
    double read_gbs = 84;
    double write_gbs = 42;
    double latency_ns = 300;
  } nvm;

  struct {
    pm_location location = pm_location::far;
  } pm;

  struct {
    persist_model model = persist_model::epoch;
    flush_policy flush = flush_policy::window;
    std::uint32_t window = 6;           // persists in flight per SM (SBRP's default)
    double buffer_percent = 50;         // persist-buffer entries as a share of L1 lines
    durable_point domain = durable_point::queue;  // ADR: the NVM's write queue is persistent
    bool eadr = false;                  // PM-far: durable at the host's last-level cache
    bool promote_scopes = false;        // block-scope pAcq/pRel act at device scope (SBRP's Figure 7)
    // Kernel end: the buffers drain in order (the formal model's rule), or
    // all at once, ordering ignored (to measure what order costs there).
    bool ordered_drain = true;
    // window: a store waiting for a full buffer's entry sends one more
    // persist past the window. The paper does not say what a full buffer
    // does; its simulator flushes past its limit when a store finds the
    // buffer full, so this is the default. false: the window holds.
    bool full_past_window = true;
    // gpm/epoch: every try of a persist acquire and every block barrier is
    // a barrier too (SBRP's simulator runs its epoch baseline this way: the
    // SBRP program with each scoped operation, acquires and __syncthreads
    // included, flushing, waiting and invalidating); false: only the
    // persistency operations are.
    bool epoch_sync_barriers = false;
    // sbrp: a device-scope pAcq (each try) holds its warp until every
    // persist buffered before it in the SM is durable, then drops the L1's
    // PM lines (SBRP's simulator makes it a durable entry); false: it only
    // drops them and orders the warp's later persists.
    bool device_acquire_waits = false;
  } persist;

  struct {
    // The host's last-level cache, for a later eADR option (durable at the
    // LLC) and for system-scope atomics on host-resident PM. Chosen here.
    std::uint64_t llc_size = 32ull * 1024 * 1024;
    double llc_latency_ns = 30;
  } host;

  struct {
    double bucket_ns = 1000;  // width of the bandwidth-over-time buckets
  } stats;
};

// The named configurations: sbrp-table1 (the defaults), sbrp-table1-near
// (pm.location=near), sbrp-table1-lrr (sched.policy=lrr). Throws
// config_error for an unknown name.
sim_config named_config(std::string_view name);
std::vector<std::string> config_names();

// Sets one parameter from its text: integers and sizes accept binary K/M/G
// suffixes (64K = 65536), rates and latencies decimals, enums their names,
// booleans true/false. Throws config_error naming the key and value for an
// unknown key (with the nearest valid keys), a value that does not parse, or
// a negative one. Does not check the configuration as a whole: validate().
void set_parameter(sim_config& c, std::string_view key, std::string_view value);
// One command-line setting, "KEY=VALUE" (--set): set_parameter, or
// config_error naming a text with no '=' or no key.
void apply_setting(sim_config& c, std::string_view key_equals_value);

// Every key with its value, as set_parameter reads it back, in a stable
// order: what to print for the configuration a run used. The first entry is
// "name". parameter_unit gives each key's unit ("" for counts, names and
// flags); format_config writes one "key = value unit" line per key.
std::vector<std::pair<std::string, std::string>> describe(const sim_config& c);
std::vector<std::string> parameter_keys();
std::string_view parameter_unit(std::string_view key);  // throws config_error for an unknown key
std::string format_config(const sim_config& c);

// Throws config_error if the configuration cannot be simulated: sizes that
// do not divide evenly into lines, sets and partitions, ways that do not
// fit, zero rates or counts, L1 and L2 line or sector sizes that differ.
// Ways at least the number of lines mean a fully associative cache.
void validate(const sim_config& c);

std::string_view to_string(sched_policy p);
std::string_view to_string(write_policy p);
std::string_view to_string(pm_location p);
std::string_view to_string(persist_model m);
std::string_view to_string(flush_policy f);
std::string_view to_string(durable_point d);

}  // namespace gpmx::sim
