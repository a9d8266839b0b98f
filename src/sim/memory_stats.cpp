#include "gpmx/sim/memory_stats.hpp"

#include <fmt/format.h>

#include <iterator>

namespace gpmx::sim {

namespace {

void add(cache_counters& a, const cache_counters& b) {
  a.hits += b.hits;
  a.pending_hits += b.pending_hits;
  a.misses += b.misses;
  a.sector_hits += b.sector_hits;
  a.sector_misses += b.sector_misses;
}

cache_counters total(const std::array<std::array<cache_counters, op_class_count>, cached_space_count>& t) {
  cache_counters sum;
  for (const auto& space : t)
    for (const auto& c : space) add(sum, c);
  return sum;
}

constexpr const char* space_names[cached_space_count] = {"global", "pm"};

// Every key written here is a fixed identifier: nothing needs escaping.
void json_counters(std::string& out, const char* level,
                   const std::array<std::array<cache_counters, op_class_count>, cached_space_count>& t) {
  fmt::format_to(std::back_inserter(out), "\"{}\": {{", level);
  for (unsigned s = 0; s < cached_space_count; ++s) {
    fmt::format_to(std::back_inserter(out), "{}\"{}\": {{", s ? ", " : "", space_names[s]);
    for (unsigned o = 0; o < op_class_count; ++o) {
      const auto& c = t[s][o];
      fmt::format_to(std::back_inserter(out),
                     "{}\"{}\": {{\"hits\": {}, \"pending_hits\": {}, \"misses\": {}, \"sector_hits\": {}, "
                     "\"sector_misses\": {}}}",
                     o ? ", " : "", to_string(op_class(o)), c.hits, c.pending_hits, c.misses, c.sector_hits,
                     c.sector_misses);
    }
    out += "}";
  }
  out += "}";
}

void json_series(std::string& out, const char* name, const time_series& ts) {
  fmt::format_to(std::back_inserter(out), "\"{}\": [{}]", name, fmt::join(ts.buckets(), ", "));
}

}  // namespace

std::string_view to_string(op_class o) {
  switch (o) {
    case op_class::load: return "load";
    case op_class::store: return "store";
    case op_class::atomic: return "atomic";
  }
  return "?";
}

cache_counters memory_stats::l1_total() const { return total(l1); }
cache_counters memory_stats::l2_total() const { return total(l2); }

std::string to_json(const memory_stats& s) {
  std::string out = "{";
  json_counters(out, "l1", s.l1);
  out += ", ";
  json_counters(out, "l2", s.l2);
  auto it = std::back_inserter(out);
  fmt::format_to(it, ", \"warp_requests\": {}, \"line_requests\": {}, \"sectors_requested\": {}", s.warp_requests,
                 s.line_requests, s.sectors_requested);
  fmt::format_to(it, ", \"mshr_wait_ps\": {}, \"mshr_waits\": {}", s.mshr_wait, s.mshr_waits);
  fmt::format_to(it,
                 ", \"bytes\": {{\"l2_to_l1\": {}, \"l1_to_l2\": {}, \"gddr_read\": {}, \"gddr_write\": {}, "
                 "\"nvm_read\": {}, \"nvm_write\": {}, \"pcie_to_gpu\": {}, \"pcie_to_host\": {}}}",
                 s.l2_to_l1_bytes, s.l1_to_l2_bytes, s.gddr_read_bytes, s.gddr_write_bytes, s.nvm_read_bytes,
                 s.nvm_write_bytes, s.pcie_to_gpu_bytes, s.pcie_to_host_bytes);
  fmt::format_to(it, ", \"l1_writebacks\": {}, \"l2_writebacks\": {}, \"host_atomics\": {}", s.l1_writebacks,
                 s.l2_writebacks, s.host_atomics);
  fmt::format_to(it, ", \"pm_line_writes\": {}, \"l1_invalidations\": {}, \"host_pm_write_bytes\": {}",
                 s.pm_line_writes, s.l1_invalidations, s.host_pm_write_bytes);
  fmt::format_to(it, ", \"shared\": {{\"accesses\": {}, \"conflict_cycles\": {}}}", s.shared_accesses,
                 s.shared_conflict_cycles);
  fmt::format_to(it, ", \"bandwidth_over_time\": {{\"bucket_ps\": {}, ", s.gddr_bw.bucket_width());
  json_series(out, "icnt", s.icnt_bw);
  out += ", ";
  json_series(out, "gddr", s.gddr_bw);
  out += ", ";
  json_series(out, "nvm", s.nvm_bw);
  out += ", ";
  json_series(out, "pcie_to_gpu", s.pcie_to_gpu_bw);
  out += ", ";
  json_series(out, "pcie_to_host", s.pcie_to_host_bw);
  out += "}}";
  return out;
}

std::string format_table(const memory_stats& s) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{:<6} {:<7} {:<7} {:>12} {:>12} {:>12} {:>14} {:>14}\n", "level", "space", "op", "hits",
                 "pending", "misses", "sector_hits", "sector_misses");
  for (const auto& [level, t] : {std::pair{"L1", &s.l1}, std::pair{"L2", &s.l2}})
    for (unsigned sp = 0; sp < cached_space_count; ++sp)
      for (unsigned o = 0; o < op_class_count; ++o) {
        const auto& c = (*t)[sp][o];
        fmt::format_to(it, "{:<6} {:<7} {:<7} {:>12} {:>12} {:>12} {:>14} {:>14}\n", level, space_names[sp],
                       to_string(op_class(o)), c.hits, c.pending_hits, c.misses, c.sector_hits, c.sector_misses);
      }
  auto row = [&](std::string_view name, std::uint64_t v) { fmt::format_to(it, "{:<28} {:>16}\n", name, v); };
  row("warp requests", s.warp_requests);
  row("line requests", s.line_requests);
  row("sectors requested", s.sectors_requested);
  row("MSHR waits", s.mshr_waits);
  row("MSHR wait (ps)", s.mshr_wait);
  row("bytes L2 -> L1", s.l2_to_l1_bytes);
  row("bytes L1 -> L2", s.l1_to_l2_bytes);
  row("bytes GDDR read", s.gddr_read_bytes);
  row("bytes GDDR write", s.gddr_write_bytes);
  row("bytes NVM read", s.nvm_read_bytes);
  row("bytes NVM write", s.nvm_write_bytes);
  row("bytes PCIe to GPU", s.pcie_to_gpu_bytes);
  row("bytes PCIe to host", s.pcie_to_host_bytes);
  row("L1 write-backs", s.l1_writebacks);
  row("L2 write-backs", s.l2_writebacks);
  row("host atomics", s.host_atomics);
  row("PM line writes (to durability)", s.pm_line_writes);
  row("L1 lines invalidated", s.l1_invalidations);
  row("bytes host agents persisted", s.host_pm_write_bytes);
  row("shared accesses", s.shared_accesses);
  row("shared conflict cycles", s.shared_conflict_cycles);
  return out;
}

}  // namespace gpmx::sim
