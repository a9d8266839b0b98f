#include "common/run_meta.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>
#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/errors.hpp"
#include "gpmx/support/hash_mix.hpp"

namespace gpmx::apps {
namespace {

constexpr std::uint64_t meta_magic = 0x4154454d584d5047ull;  // "GPMXMETA"
constexpr std::size_t name_bytes = 40;
constexpr std::size_t max_params = 32;

struct meta_entry {
  char name[name_bytes];
  std::uint64_t value;
};
struct meta_layout {
  std::uint64_t magic;  // written and persisted last
  std::uint64_t style;
  std::uint64_t count;
  char workload[name_bytes];
  meta_entry entries[max_params];
  std::uint64_t checksum;  // of the words from style to the last entry
};

void copy_name(char (&dst)[name_bytes], std::string_view src, std::string_view what) {
  if (src.size() >= name_bytes)
    throw config_error(fmt::format("{} '{}' is longer than {} characters", what, src, name_bytes - 1));
  std::memset(dst, 0, name_bytes);
  std::memcpy(dst, src.data(), src.size());
}

}  // namespace

static_assert(offsetof(meta_layout, checksum) == meta_checksum_offset);

std::uint64_t meta_checksum(const std::byte* meta) {
  constexpr std::size_t first = offsetof(meta_layout, style), end = offsetof(meta_layout, checksum);
  std::uint64_t h = mix64(end - first);
  for (std::size_t at = first; at < end; at += 8) {
    std::uint64_t word;
    std::memcpy(&word, meta + at, 8);
    h = mix64(h ^ word);
  }
  return h;
}

std::uint64_t run_meta::get(std::string_view name) const {
  const auto it = p.find(name);
  if (it == p.end()) throw config_error(fmt::format("the workload's recorded parameters have no '{}'", name));
  return it->second;
}

void write_meta(pm::pool& pool, std::string_view workload, style s, const params& p) {
  if (p.size() > max_params)
    throw config_error(fmt::format("workload '{}' has {} parameters; at most {} are recorded", workload, p.size(),
                                   max_params));
  pm::region r = pool.create_region("meta", sizeof(meta_layout));
  auto* m = reinterpret_cast<meta_layout*>(r.data());
  m->style = std::uint64_t(s);
  m->count = p.size();
  copy_name(m->workload, workload, "workload name");
  std::size_t i = 0;
  for (const auto& [name, value] : p) {
    copy_name(m->entries[i].name, name, "parameter name");
    m->entries[i++].value = value;
  }
  m->checksum = meta_checksum(r.data());
  r.persist();
  m->magic = meta_magic;
  r.persist(0, sizeof m->magic);
}

run_meta read_meta(pm::pool& pool, const workload& w) {
  const std::string_view workload = w.name();
  const auto& file = pool.path();
  if (!pool.contains("meta"))
    throw pm::pm_error(pm::errc::missing_region,
                       fmt::format("{}: no 'meta' region: the run of '{}' was stopped before its set-up finished; "
                                   "run it again", file.string(), workload));
  const pm::region r = pool.find("meta");
  if (r.size() < sizeof(meta_layout))
    pm::throw_corrupt_value(file, "meta", "size", r.size(), fmt::format("expected at least {} bytes", sizeof(meta_layout)));
  const auto* m = reinterpret_cast<const meta_layout*>(r.data());
  if (m->magic != meta_magic)
    throw pm::pm_error(pm::errc::missing_region,
                       fmt::format("{}: the 'meta' region is incomplete: the run of '{}' was stopped before its "
                                   "set-up finished; run it again", file.string(), workload));
  const std::string_view recorded(m->workload, strnlen(m->workload, name_bytes));
  if (recorded != workload)
    throw pm::pm_error(pm::errc::bad_argument, fmt::format("{}: holds workload '{}', not '{}'", file.string(),
                                                           pm::printable(recorded), workload));
  // A word changed within its valid range (a recorded iteration count made
  // larger, say) passes every check below but the checksum.
  const std::uint64_t sum = meta_checksum(r.data());
  if (m->checksum != sum)
    pm::throw_corrupt_value(file, "meta", "checksum", m->checksum,
                            fmt::format("expected {}, the checksum of the recorded workload, style and parameters", sum));
  pm::check_stored(file, "meta", "style", m->style, 0, 1);
  const std::vector<param_spec> specs = w.parameters();
  pm::check_stored(file, "meta", "parameter count", m->count, specs.size(), specs.size());
  run_meta out;
  out.s = style(m->style);
  for (std::size_t i = 0; i < m->count; ++i) {
    const std::string name(m->entries[i].name, strnlen(m->entries[i].name, name_bytes));
    const bool known = std::any_of(specs.begin(), specs.end(), [&](const param_spec& s) { return s.name == name; });
    if (!known || out.p.contains(name))
      pm::throw_corrupt_region(file, "meta", fmt::format("parameter entry {} is named '{}', {} of workload '{}'", i,
                                                         pm::printable(name), known ? "a second time a parameter" : "not a parameter",
                                                         workload));
    out.p[name] = m->entries[i].value;
  }
  return out;
}

void fresh_directory(const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
}

void require_file(const std::filesystem::path& dir, std::string_view file, std::string_view workload) {
  if (!std::filesystem::exists(dir / file))
    throw pm::pm_error(pm::errc::missing_region,
                       fmt::format("{}: no data of workload '{}' here (missing {}); run it first",
                                   dir.string(), workload, file));
}

}  // namespace gpmx::apps
