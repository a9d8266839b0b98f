#include "log_meta.hpp"

#include <cstring>
#include <fmt/format.h>

#include "format.hpp"

namespace gpmx::pm::log_meta {
namespace {
std::uint64_t round_up(std::uint64_t v) { return (v + region_alignment - 1) / region_alignment * region_alignment; }
std::uint64_t sum_of(const record& r) { return format::checksum(&r, offsetof(record, checksum)); }
const char* kind_name(std::uint64_t k) { return k == hcl ? "HCL" : k == conventional ? "conventional" : "unknown"; }
}  // namespace

pool create_pool(const std::filesystem::path& path, std::uint64_t data_bytes, std::uint64_t tail_bytes,
                 durability mode) {
  const std::uint32_t capacity = 8;
  const std::uint64_t size = format::header_bytes + 2 * format::table_bytes_for(capacity) + round_up(data_bytes) +
                             round_up(tail_bytes) + round_up(sizeof(record)) + region_alignment;
  return pool::create(path, size, {.mode = mode, .table_capacity = capacity});
}

void write(pool& p, record r) {
  r.checksum = sum_of(r);
  region m = p.create_region(region_name, sizeof r);
  std::memcpy(m.data(), &r, sizeof r);
  m.persist();
}

namespace {
record read_any(pool& p) {
  if (!p.contains(region_name))
    throw pm_error(errc::not_a_pool, fmt::format("{}: not a gpmx log (no {} region; was its creation interrupted?)",
                                                 p.path().string(), region_name));
  record r;
  std::memcpy(&r, p.find(region_name).data(), sizeof r);
  if (sum_of(r) != r.checksum)
    throw pm_error(errc::checksum_mismatch, fmt::format("{}: log metadata checksum mismatch", p.path().string()));
  if (r.kind != hcl && r.kind != conventional)
    throw pm_error(errc::not_a_pool, fmt::format("{}: unknown log kind {}", p.path().string(), r.kind));
  return r;
}
}  // namespace

kind kind_of(pool& p) { return kind(read_any(p).kind); }

record read(pool& p, kind expected) {
  const record r = read_any(p);
  if (r.kind != expected)
    throw pm_error(errc::bad_argument, fmt::format("{}: is a {} log, opened as a {} log", p.path().string(),
                                                   kind_name(r.kind), kind_name(expected)));
  return r;
}

}  // namespace gpmx::pm::log_meta
