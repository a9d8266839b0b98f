#include "gpmx/sim/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

namespace gpmx::sim {

namespace {

enum class ptype : std::uint8_t { u32, u64, real, boolean, sched, write, pmloc, pmodel, pflush, pdomain };

// One parameter: its key, unit, type, and where it lives in a sim_config.
// `ref` returns a pointer to the field, whose type `type` names.
struct param {
  std::string_view key;
  std::string_view unit;
  ptype type;
  void* (*ref)(sim_config&);
};

#define GPMX_SIM_FIELD(member) [](sim_config& c) -> void* { return &c.member; }

// The stable order describe() prints.
const std::array params{
    param{"sm.count", "", ptype::u32, GPMX_SIM_FIELD(sm.count)},
    param{"sm.schedulers", "", ptype::u32, GPMX_SIM_FIELD(sm.schedulers)},
    param{"sm.max_threads", "threads", ptype::u32, GPMX_SIM_FIELD(sm.max_threads)},
    param{"sm.max_blocks", "blocks", ptype::u32, GPMX_SIM_FIELD(sm.max_blocks)},
    param{"sm.shared_bytes", "bytes", ptype::u64, GPMX_SIM_FIELD(sm.shared_bytes)},
    param{"sm.registers", "registers", ptype::u32, GPMX_SIM_FIELD(sm.registers)},
    param{"sm.regs_per_thread", "registers", ptype::u32, GPMX_SIM_FIELD(sm.regs_per_thread)},
    param{"sm.issue_cycles", "cycles", ptype::u32, GPMX_SIM_FIELD(sm.issue_cycles)},
    param{"sched.policy", "", ptype::sched, GPMX_SIM_FIELD(sched.policy)},
    param{"sched.run_ahead", "loads", ptype::u32, GPMX_SIM_FIELD(sched.run_ahead)},
    param{"clock.core_mhz", "MHz", ptype::u32, GPMX_SIM_FIELD(clock.core_mhz)},
    param{"l1.size", "bytes", ptype::u64, GPMX_SIM_FIELD(l1.size)},
    param{"l1.line", "bytes", ptype::u32, GPMX_SIM_FIELD(l1.line)},
    param{"l1.sector", "bytes", ptype::u32, GPMX_SIM_FIELD(l1.sector)},
    param{"l1.ways", "", ptype::u32, GPMX_SIM_FIELD(l1.ways)},
    param{"l1.latency", "cycles", ptype::u32, GPMX_SIM_FIELD(l1.latency)},
    param{"l1.mshrs", "", ptype::u32, GPMX_SIM_FIELD(l1.mshrs)},
    param{"l1.write_policy", "", ptype::write, GPMX_SIM_FIELD(l1.write)},
    param{"l1.allocate_on_store", "", ptype::boolean, GPMX_SIM_FIELD(l1.allocate_on_store)},
    param{"shared.latency", "cycles", ptype::u32, GPMX_SIM_FIELD(shared.latency)},
    param{"shared.banks", "", ptype::u32, GPMX_SIM_FIELD(shared.banks)},
    param{"shared.bank_bytes", "bytes", ptype::u32, GPMX_SIM_FIELD(shared.bank_bytes)},
    param{"icnt.latency", "cycles", ptype::u32, GPMX_SIM_FIELD(icnt.latency)},
    param{"icnt.port_bytes_per_cycle", "bytes/cycle", ptype::u32, GPMX_SIM_FIELD(icnt.port_bytes_per_cycle)},
    param{"l2.size", "bytes", ptype::u64, GPMX_SIM_FIELD(l2.size)},
    param{"l2.partitions", "", ptype::u32, GPMX_SIM_FIELD(l2.partitions)},
    param{"l2.ways", "", ptype::u32, GPMX_SIM_FIELD(l2.ways)},
    param{"l2.line", "bytes", ptype::u32, GPMX_SIM_FIELD(l2.line)},
    param{"l2.sector", "bytes", ptype::u32, GPMX_SIM_FIELD(l2.sector)},
    param{"l2.latency", "cycles", ptype::u32, GPMX_SIM_FIELD(l2.latency)},
    param{"l2.bank_bytes_per_cycle", "bytes/cycle", ptype::u32, GPMX_SIM_FIELD(l2.bank_bytes_per_cycle)},
    param{"l2.atomic_cycles", "cycles", ptype::u32, GPMX_SIM_FIELD(l2.atomic_cycles)},
    param{"gddr.channels", "", ptype::u32, GPMX_SIM_FIELD(gddr.channels)},
    param{"gddr.bandwidth_gbs", "GB/s", ptype::real, GPMX_SIM_FIELD(gddr.bandwidth_gbs)},
    param{"gddr.latency_ns", "ns", ptype::real, GPMX_SIM_FIELD(gddr.latency_ns)},
    param{"pcie.bandwidth_gbs", "GB/s", ptype::real, GPMX_SIM_FIELD(pcie.bandwidth_gbs)},
    param{"pcie.latency_ns", "ns", ptype::real, GPMX_SIM_FIELD(pcie.latency_ns)},
    param{"nvm.read_gbs", "GB/s", ptype::real, GPMX_SIM_FIELD(nvm.read_gbs)},
    param{"nvm.write_gbs", "GB/s", ptype::real, GPMX_SIM_FIELD(nvm.write_gbs)},
    param{"nvm.latency_ns", "ns", ptype::real, GPMX_SIM_FIELD(nvm.latency_ns)},
    param{"pm.location", "", ptype::pmloc, GPMX_SIM_FIELD(pm.location)},
    param{"persist.model", "", ptype::pmodel, GPMX_SIM_FIELD(persist.model)},
    param{"persist.flush", "", ptype::pflush, GPMX_SIM_FIELD(persist.flush)},
    param{"persist.window", "persists", ptype::u32, GPMX_SIM_FIELD(persist.window)},
    param{"persist.buffer_percent", "% of L1 lines", ptype::real, GPMX_SIM_FIELD(persist.buffer_percent)},
    param{"persist.domain", "", ptype::pdomain, GPMX_SIM_FIELD(persist.domain)},
    param{"persist.eadr", "", ptype::boolean, GPMX_SIM_FIELD(persist.eadr)},
    param{"persist.promote_scopes", "", ptype::boolean, GPMX_SIM_FIELD(persist.promote_scopes)},
    param{"persist.ordered_drain", "", ptype::boolean, GPMX_SIM_FIELD(persist.ordered_drain)},
    param{"persist.full_past_window", "", ptype::boolean, GPMX_SIM_FIELD(persist.full_past_window)},
    param{"persist.epoch_sync_barriers", "", ptype::boolean, GPMX_SIM_FIELD(persist.epoch_sync_barriers)},
    param{"persist.device_acquire_waits", "", ptype::boolean, GPMX_SIM_FIELD(persist.device_acquire_waits)},
    param{"host.llc_size", "bytes", ptype::u64, GPMX_SIM_FIELD(host.llc_size)},
    param{"host.llc_latency_ns", "ns", ptype::real, GPMX_SIM_FIELD(host.llc_latency_ns)},
    param{"stats.bucket_ns", "ns", ptype::real, GPMX_SIM_FIELD(stats.bucket_ns)},
};

#undef GPMX_SIM_FIELD

const param* find_param(std::string_view key) {
  for (const auto& p : params)
    if (p.key == key) return &p;
  return nullptr;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

[[noreturn]] void unknown_key(std::string_view key, std::string_view value) {
  // The nearest keys: within a third of the key's length in edits, or
  // sharing its section ("l1." for "l1.sise"); all keys if none is near.
  std::vector<std::string_view> near;
  auto dot = key.find('.');
  for (const auto& p : params) {
    bool same_section = dot != std::string_view::npos && p.key.substr(0, dot + 1) == key.substr(0, dot + 1);
    if (edit_distance(key, p.key) <= std::max<std::size_t>(2, key.size() / 3) || same_section)
      near.push_back(p.key);
  }
  if (near.empty())
    for (const auto& p : params) near.push_back(p.key);
  throw config_error(fmt::format("unknown simulator parameter '{}' (value '{}'); valid keys{}: {}", key, value,
                                 near.size() == params.size() ? "" : " near it", fmt::join(near, ", ")));
}

[[noreturn]] void bad_value(std::string_view key, std::string_view value, std::string_view why) {
  throw config_error(fmt::format("bad value '{}' for simulator parameter '{}': {}", value, key, why));
}

std::uint64_t parse_unsigned(std::string_view key, std::string_view text, std::uint64_t max) {
  if (text.empty()) bad_value(key, text, "empty");
  if (text.front() == '-') bad_value(key, text, "negative");
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) bad_value(key, text, "too large");
  if (ec != std::errc{} || end == text.data()) bad_value(key, text, "not a whole number");
  std::string_view rest(end, std::size_t(text.data() + text.size() - end));
  unsigned shift = 0;
  if (!rest.empty()) {
    switch (rest.front()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: bad_value(key, text, "not a whole number (suffixes: K, M, G)");
    }
    rest.remove_prefix(1);
    if (rest == "B" || rest == "iB") rest = {};
    if (!rest.empty()) bad_value(key, text, "not a whole number (suffixes: K, M, G)");
  }
  if (shift && v > (max >> shift)) bad_value(key, text, "too large");
  v <<= shift;
  if (v > max) bad_value(key, text, fmt::format("too large (at most {})", max));
  return v;
}

double parse_real(std::string_view key, std::string_view text) {
  if (text.empty()) bad_value(key, text, "empty");
  if (text.front() == '-') bad_value(key, text, "negative");
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) bad_value(key, text, "not a number");
  if (!std::isfinite(v)) bad_value(key, text, "not a finite number");
  if (v < 0) bad_value(key, text, "negative");
  return v;
}

template <class E, std::size_t N>
E parse_enum(std::string_view key, std::string_view text, const std::array<E, N>& values) {
  for (E e : values)
    if (to_string(e) == text) return e;
  std::vector<std::string_view> names;
  for (E e : values) names.push_back(to_string(e));
  bad_value(key, text, fmt::format("expected one of {}", fmt::join(names, ", ")));
}

std::string format_size(std::uint64_t v) {
  if (v != 0 && v % (1ull << 30) == 0) return fmt::format("{}G", v >> 30);
  if (v != 0 && v % (1ull << 20) == 0) return fmt::format("{}M", v >> 20);
  if (v != 0 && v % (1ull << 10) == 0) return fmt::format("{}K", v >> 10);
  return fmt::format("{}", v);
}

std::string value_text(const param& p, sim_config& c) {
  void* f = p.ref(c);
  switch (p.type) {
    case ptype::u32: return fmt::format("{}", *static_cast<std::uint32_t*>(f));
    case ptype::u64: return format_size(*static_cast<std::uint64_t*>(f));
    case ptype::real: return fmt::format("{}", *static_cast<double*>(f));
    case ptype::boolean: return *static_cast<bool*>(f) ? "true" : "false";
    case ptype::sched: return std::string(to_string(*static_cast<sched_policy*>(f)));
    case ptype::write: return std::string(to_string(*static_cast<write_policy*>(f)));
    case ptype::pmloc: return std::string(to_string(*static_cast<pm_location*>(f)));
    case ptype::pmodel: return std::string(to_string(*static_cast<persist_model*>(f)));
    case ptype::pflush: return std::string(to_string(*static_cast<flush_policy*>(f)));
    case ptype::pdomain: return std::string(to_string(*static_cast<durable_point*>(f)));
  }
  return {};
}

[[noreturn]] void invalid(std::string_view what) { throw config_error(fmt::format("invalid simulator configuration: {}", what)); }

bool pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void validate_cache(std::string_view level, std::uint64_t size, std::uint32_t line, std::uint32_t sector,
                    std::uint32_t ways) {
  if (!pow2(line)) invalid(fmt::format("{}.line={} is not a power of two", level, line));
  if (!pow2(sector) || sector > line)
    invalid(fmt::format("{}.sector={} is not a power of two no larger than the line ({})", level, sector, line));
  if (line / sector > 32) invalid(fmt::format("{}.line/{}.sector = {} sectors; at most 32", level, level, line / sector));
  if (ways == 0) invalid(fmt::format("{}.ways=0", level));
  if (size == 0 || size % line != 0)
    invalid(fmt::format("{}.size={} is not a nonzero multiple of the line ({})", level, size, line));
  // Ways at least the number of lines: fully associative (one set of every
  // line), so the L1's 512 ways stay fully associative when l1.size shrinks.
  const std::uint64_t lines = size / line;
  if (ways < lines && lines % ways != 0)
    invalid(fmt::format("{}.size={} ({} lines) does not divide into sets of {}.ways={}", level, size, lines, level,
                        ways));
}

}  // namespace

std::string_view to_string(sched_policy p) { return p == sched_policy::gto ? "gto" : "lrr"; }
std::string_view to_string(write_policy p) { return p == write_policy::back ? "back" : "through"; }
std::string_view to_string(pm_location p) { return p == pm_location::far ? "far" : "near"; }
std::string_view to_string(persist_model m) {
  return m == persist_model::gpm ? "gpm" : m == persist_model::epoch ? "epoch" : "sbrp";
}
std::string_view to_string(durable_point d) {
  return d == durable_point::queue ? "queue" : d == durable_point::media ? "media" : "partition";
}
std::string_view to_string(flush_policy f) {
  return f == flush_policy::eager ? "eager" : f == flush_policy::lazy ? "lazy" : "window";
}

std::vector<std::string> config_names() { return {"sbrp-table1", "sbrp-table1-near", "sbrp-table1-lrr"}; }

sim_config named_config(std::string_view name) {
  sim_config c;
  if (name == "sbrp-table1") return c;
  if (name == "sbrp-table1-near") {
    c.name = name;
    c.pm.location = pm_location::near;
    return c;
  }
  if (name == "sbrp-table1-lrr") {
    c.name = name;
    c.sched.policy = sched_policy::lrr;
    return c;
  }
  throw config_error(fmt::format("unknown simulator configuration '{}'; named configurations: {}", name,
                                 fmt::join(config_names(), ", ")));
}

void apply_setting(sim_config& c, std::string_view kv) {
  const auto eq = kv.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw config_error(fmt::format("--set '{}': expected KEY=VALUE (gpmx sim --list-configs shows the keys)", kv));
  set_parameter(c, kv.substr(0, eq), kv.substr(eq + 1));
}

void set_parameter(sim_config& c, std::string_view key, std::string_view value) {
  if (key == "name") {
    c.name = value;
    return;
  }
  const param* p = find_param(key);
  if (!p) unknown_key(key, value);
  void* f = p->ref(c);
  switch (p->type) {
    case ptype::u32:
      *static_cast<std::uint32_t*>(f) =
          std::uint32_t(parse_unsigned(key, value, std::numeric_limits<std::uint32_t>::max()));
      break;
    case ptype::u64:
      *static_cast<std::uint64_t*>(f) = parse_unsigned(key, value, std::uint64_t(1) << 50);
      break;
    case ptype::real: *static_cast<double*>(f) = parse_real(key, value); break;
    case ptype::boolean:
      if (value == "true" || value == "1" || value == "yes") *static_cast<bool*>(f) = true;
      else if (value == "false" || value == "0" || value == "no") *static_cast<bool*>(f) = false;
      else bad_value(key, value, "expected true or false");
      break;
    case ptype::sched:
      *static_cast<sched_policy*>(f) =
          parse_enum(key, value, std::array{sched_policy::gto, sched_policy::lrr});
      break;
    case ptype::write:
      *static_cast<write_policy*>(f) =
          parse_enum(key, value, std::array{write_policy::back, write_policy::through});
      break;
    case ptype::pmloc:
      *static_cast<pm_location*>(f) = parse_enum(key, value, std::array{pm_location::far, pm_location::near});
      break;
    case ptype::pmodel:
      *static_cast<persist_model*>(f) =
          parse_enum(key, value, std::array{persist_model::gpm, persist_model::epoch, persist_model::sbrp});
      break;
    case ptype::pflush:
      *static_cast<flush_policy*>(f) =
          parse_enum(key, value, std::array{flush_policy::eager, flush_policy::lazy, flush_policy::window});
      break;
    case ptype::pdomain:
      *static_cast<durable_point*>(f) =
          parse_enum(key, value, std::array{durable_point::queue, durable_point::media, durable_point::partition});
      break;
  }
}

std::vector<std::pair<std::string, std::string>> describe(const sim_config& c) {
  sim_config copy = c;  // the field table hands out non-const pointers; read a copy
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(params.size() + 1);
  out.emplace_back("name", c.name);
  for (const auto& p : params) out.emplace_back(std::string(p.key), value_text(p, copy));
  return out;
}

std::vector<std::string> parameter_keys() {
  std::vector<std::string> keys{"name"};
  for (const auto& p : params) keys.emplace_back(p.key);
  return keys;
}

std::string_view parameter_unit(std::string_view key) {
  if (key == "name") return "";
  const param* p = find_param(key);
  if (!p) unknown_key(key, "");
  return p->unit;
}

std::string format_config(const sim_config& c) {
  std::string out;
  for (const auto& [key, value] : describe(c)) {
    auto unit = parameter_unit(key);
    out += fmt::format("{:<28} = {}{}{}\n", key, value, unit.empty() ? "" : " ", unit);
  }
  return out;
}

void validate(const sim_config& c) {
  auto nonzero = [](std::string_view key, std::uint64_t v) {
    if (v == 0) invalid(fmt::format("{}=0; must be at least 1", key));
  };
  auto positive = [](std::string_view key, double v) {
    if (!(v > 0) || !std::isfinite(v)) invalid(fmt::format("{}={}; must be a positive rate", key, v));
  };
  auto non_negative = [](std::string_view key, double v) {
    if (!(v >= 0) || !std::isfinite(v)) invalid(fmt::format("{}={}; must not be negative", key, v));
  };
  nonzero("sm.count", c.sm.count);
  nonzero("sm.schedulers", c.sm.schedulers);
  nonzero("sm.max_blocks", c.sm.max_blocks);
  nonzero("sm.regs_per_thread", c.sm.regs_per_thread);
  nonzero("sm.issue_cycles", c.sm.issue_cycles);
  if (c.sm.max_threads == 0 || c.sm.max_threads % 32 != 0)
    invalid(fmt::format("sm.max_threads={} is not a nonzero multiple of the warp (32)", c.sm.max_threads));
  if (std::uint64_t(c.sm.regs_per_thread) * 32 > c.sm.registers)
    invalid(fmt::format("sm.registers={} cannot hold one warp of sm.regs_per_thread={}", c.sm.registers,
                        c.sm.regs_per_thread));
  if (c.sched.run_ahead > max_run_ahead)
    invalid(fmt::format("sched.run_ahead={}; at most {}", c.sched.run_ahead, max_run_ahead));
  nonzero("clock.core_mhz", c.clock.core_mhz);

  validate_cache("l1", c.l1.size, c.l1.line, c.l1.sector, c.l1.ways);
  nonzero("l1.mshrs", c.l1.mshrs);

  nonzero("shared.banks", c.shared.banks);
  if (c.shared.banks > 64) invalid(fmt::format("shared.banks={}; at most 64", c.shared.banks));
  if (!pow2(c.shared.bank_bytes)) invalid(fmt::format("shared.bank_bytes={} is not a power of two", c.shared.bank_bytes));

  nonzero("icnt.port_bytes_per_cycle", c.icnt.port_bytes_per_cycle);

  nonzero("l2.partitions", c.l2.partitions);
  if (c.l2.size % c.l2.partitions != 0)
    invalid(fmt::format("l2.size={} does not divide into l2.partitions={}", c.l2.size, c.l2.partitions));
  validate_cache("l2 partition (l2.size / l2.partitions)", c.l2.size / c.l2.partitions, c.l2.line, c.l2.sector,
                 c.l2.ways);
  if (c.l2.line != c.l1.line || c.l2.sector != c.l1.sector)
    invalid(fmt::format("l1 and l2 lines differ (l1.line={} l1.sector={}, l2.line={} l2.sector={})", c.l1.line,
                        c.l1.sector, c.l2.line, c.l2.sector));
  nonzero("l2.bank_bytes_per_cycle", c.l2.bank_bytes_per_cycle);

  nonzero("gddr.channels", c.gddr.channels);
  if (c.l2.partitions % c.gddr.channels != 0)
    invalid(fmt::format("l2.partitions={} is not a multiple of gddr.channels={}", c.l2.partitions, c.gddr.channels));
  positive("gddr.bandwidth_gbs", c.gddr.bandwidth_gbs);
  non_negative("gddr.latency_ns", c.gddr.latency_ns);
  positive("pcie.bandwidth_gbs", c.pcie.bandwidth_gbs);
  non_negative("pcie.latency_ns", c.pcie.latency_ns);
  positive("nvm.read_gbs", c.nvm.read_gbs);
  positive("nvm.write_gbs", c.nvm.write_gbs);
  non_negative("nvm.latency_ns", c.nvm.latency_ns);
  non_negative("host.llc_latency_ns", c.host.llc_latency_ns);
  nonzero("persist.window", c.persist.window);
  if (!(c.persist.buffer_percent > 0) || c.persist.buffer_percent > 100)
    invalid(fmt::format("persist.buffer_percent={}; must be above 0 and at most 100", c.persist.buffer_percent));
  if (c.sm.max_threads / 32 > 64)
    invalid(fmt::format("sm.max_threads={} is {} warps; the persist buffer's warp masks hold 64",
                        c.sm.max_threads, c.sm.max_threads / 32));
  positive("stats.bucket_ns", c.stats.bucket_ns);
}

}  // namespace gpmx::sim
