#include "common/workload.hpp"

#include <charconv>
#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::apps {

std::string_view to_string(style s) { return s == style::sbrp ? "sbrp" : "epoch"; }

style parse_style(std::string_view text) {
  if (text == "epoch") return style::epoch;
  if (text == "sbrp") return style::sbrp;
  throw config_error(fmt::format("unknown style '{}': use epoch or sbrp", text));
}

run_report workload::run_cap_mm(const env&, const params&) {
  throw config_error(fmt::format("workload '{}' has no CPU-assisted (CAP-mm) baseline", name()));
}

seeded_bug find_seeded_bug(const workload& w, std::string_view name) {
  const std::vector<seeded_bug> bugs = w.seeded_bugs();
  for (const seeded_bug& b : bugs)
    if (b.name == name) return b;
  std::string known;
  for (const seeded_bug& b : bugs) known += (known.empty() ? "" : ", ") + b.name;
  throw config_error(fmt::format("workload '{}' has no seeded bug '{}' ({})", w.name(), name,
                                 known.empty() ? "it has none" : "it has: " + known));
}

std::optional<seeded_bug> requested_bug(const workload& w, const env& e, style s) {
  if (e.bug.empty()) return std::nullopt;
  seeded_bug b = find_seeded_bug(w, e.bug);
  if (b.s != s)
    throw config_error(fmt::format("workload '{}': seeded bug '{}' is written in the {} style, not {}", w.name(),
                                   b.name, to_string(b.s), to_string(s)));
  return b;
}

params resolve_params(const workload& w, const params& given) {
  params out;
  const auto specs = w.parameters();
  for (const param_spec& s : specs) out[s.name] = s.default_value;
  for (const auto& [name, value] : given) {
    if (!out.contains(name)) {
      std::string known;
      for (const param_spec& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      throw config_error(fmt::format("workload '{}' has no parameter '{}' (it has: {})", w.name(), name, known));
    }
    out[name] = value;
  }
  return out;
}

void parse_param(std::string_view text, params& given) {
  const auto eq = text.find('=');
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    throw config_error(fmt::format("parameter '{}' is not name=value with a non-negative integer value", text));
  const auto [ptr, ec] = std::from_chars(text.data() + eq + 1, end, v);
  if (ec == std::errc::result_out_of_range)
    throw config_error(fmt::format("parameter '{}': the value exceeds 2^64-1", text));
  if (ec != std::errc() || ptr != end)
    throw config_error(fmt::format("parameter '{}' is not name=value with a non-negative integer value", text));
  given[std::string(text.substr(0, eq))] = v;
}

}  // namespace gpmx::apps
