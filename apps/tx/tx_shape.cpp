#include "tx/tx_shape.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpmx/exec/errors.hpp"
#include "gpmx/stm/record_format.hpp"

namespace gpmx::apps::tx {

std::string_view to_string(helper_mode m) {
  switch (m) {
    case helper_mode::off: return "off";
    case helper_mode::on: return "on";
    case helper_mode::adaptive: return "adaptive";
  }
  return "?";
}

std::vector<param_spec> with_tx_parameters(std::vector<param_spec> own, std::uint32_t per_thread) {
  const std::vector<param_spec> common = {
      {"blocks", 512, "thread blocks (the paper: 512)"},
      {"threads", 256, "committer threads per block, a multiple of 32 (the paper: 256)"},
      {"per_thread", per_thread, "transactions each committer runs per batch"},
      {"batches", 1, "launches; the log is applied and truncated after each"},
      {"helpers", 1, "0: committers persist their own records; 1: a helper warp per block drains them; "
                     "2: adaptive (the bandwidth monitor switches)"},
      {"ring", 1280, "persistence buffer entries per block (the paper: 1,280)"},
      {"nvram_mbps", 0, "emulated NVRAM write bandwidth in MB/s for kernel persists (0: none)"},
      {"sector", 64, "bytes a throttled persist is charged in (scattered writes pay whole sectors)"},
      {"threshold_mbps", 200, "adaptive: helpers switch on above this persistence bandwidth (the paper: 200)"},
      {"slice_us", 1000, "adaptive: the bandwidth monitor's time slice in microseconds"},
      {"durable", 0, "1: each committer ends with a durable fence on its last record"},
      {"log_entries", 0, "entries per log stream, each a ring truncated while kernels run (0: a stream holds a "
                         "launch's records, truncated after it)"},
      {"seed", 1, "seed of the generated transactions"},
  };
  // A benchmark may give a common parameter its own default and meaning.
  for (const param_spec& c : common)
    if (std::none_of(own.begin(), own.end(), [&](const param_spec& o) { return o.name == c.name; })) own.push_back(c);
  return own;
}

namespace {
[[noreturn]] void bad(std::string_view w, const std::string& what) {
  throw config_error(fmt::format("{}: {}", w, what));
}
}  // namespace

tx_shape tx_shape_of(std::string_view w, const params& p) {
  auto get = [&](const char* name) {
    const auto it = p.find(name);
    if (it == p.end()) bad(w, fmt::format("parameter {} is missing", name));
    return it->second;
  };
  tx_shape s;
  const std::uint64_t blocks = get("blocks"), threads = get("threads"), per = get("per_thread"),
                      batches = get("batches"), helpers = get("helpers"), ring = get("ring");
  if (blocks < 1 || blocks > (1u << 20)) bad(w, fmt::format("blocks={} is not in [1, 2^20]", blocks));
  if (threads < 32 || threads > 992 || threads % 32 != 0)
    bad(w, fmt::format("threads={} is not a multiple of 32 in [32, 992] (a helper warp may join them)", threads));
  if (per < 1 || per > 4096) bad(w, fmt::format("per_thread={} is not in [1, 4096]", per));
  if (batches < 1 || batches > 1024) bad(w, fmt::format("batches={} is not in [1, 1024]", batches));
  if (helpers > 2) bad(w, fmt::format("helpers={} is not 0 (off), 1 (on) or 2 (adaptive)", helpers));
  if (ring < 64 || ring > 16384) bad(w, fmt::format("ring={} is not in [64, 16384] entries", ring));
  s.blocks = std::uint32_t(blocks);
  s.committers = std::uint32_t(threads);
  s.per_thread = std::uint32_t(per);
  s.batches = std::uint32_t(batches);
  s.helpers = helper_mode(helpers);
  s.ring = std::uint32_t(ring);
  if (s.transactions() >= (std::uint64_t(1) << 31))
    bad(w, fmt::format("{} transactions in all: sequence numbers are 32-bit, keep it below 2^31", s.transactions()));
  s.nvram_mbps = get("nvram_mbps");
  const std::uint64_t sector = get("sector");
  if (sector < 8 || sector > 4096 || (sector & (sector - 1)) != 0)
    bad(w, fmt::format("sector={} is not a power of two in [8, 4096]", sector));
  s.sector = std::uint32_t(sector);
  s.threshold_mbps = get("threshold_mbps");
  const std::uint64_t slice = get("slice_us");
  if (slice < 1 || slice > 10'000'000) bad(w, fmt::format("slice_us={} is not in [1, 10^7]", slice));
  s.slice_us = std::uint32_t(slice);
  const std::uint64_t durable = get("durable");
  if (durable > 1) bad(w, fmt::format("durable={} is not 0 or 1", durable));
  s.durable_fence = durable == 1;
  // Runs recorded before the parameter existed did not wrap.
  const auto log_entries = p.find("log_entries");
  s.log_entries = log_entries == p.end() ? 0 : log_entries->second;
  s.seed = get("seed");
  return s;
}

stm::log_geometry log_geometry_of(std::string_view w, const tx_shape& s, std::uint32_t max_writes) {
  const std::uint64_t per_record = stm::record_entries(max_writes);
  stm::log_geometry g;
  if (s.log_entries != 0) {
    // A committer's ring must hold its largest record; a helper's the
    // persistence buffer and one drain more (log_truncator.hpp: progress).
    const std::uint64_t need = s.helpers == helper_mode::off ? per_record : std::max<std::uint64_t>(per_record, std::uint64_t(s.ring) + 32);
    if (s.log_entries < need || s.log_entries > (1ull << 32))
      bad(w, fmt::format("log_entries={} is not in [{}, 2^32]: a ring must hold {}", s.log_entries, need,
                         s.helpers == helper_mode::off ? "a committer's largest record"
                                                       : "the persistence buffer (ring) and one drain of 32 entries"));
    g.wraps = true;
  }
  if (s.helpers != helper_mode::off) {
    g.block_streams = s.blocks;
    g.block_stream_entries = g.wraps ? s.log_entries : std::uint64_t(s.committers) * s.per_thread * per_record;
  }
  if (s.helpers != helper_mode::on) {
    g.thread_streams = s.committer_count();
    g.thread_stream_entries = g.wraps ? s.log_entries : std::uint64_t(s.per_thread) * per_record;
  }
  return g;
}

}  // namespace gpmx::apps::tx
