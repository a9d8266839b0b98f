#include "gpmx/pm/hcl_log.hpp"

#include <cstring>
#include <vector>
#include <fmt/format.h>

#include "gpmx/pm/stored_value.hpp"
#include "log_meta.hpp"

namespace gpmx::pm {
namespace {
constexpr const char* data_name = "gpmx.hcl.data";
constexpr const char* tails_name = "gpmx.hcl.tails";

hcl_view make_view(pool& p, const log_meta::record& m) {
  hcl_view v;
  v.data = reinterpret_cast<std::uint32_t*>(p.find(data_name).data());
  v.tails = reinterpret_cast<std::uint32_t*>(p.find(tails_name).data());
  v.blocks = std::uint32_t(m.blocks);
  v.threads = std::uint32_t(m.threads);
  v.capacity_words = std::uint32_t(m.capacity_words);
  v.domain = p.domain();
  return v;
}
}  // namespace

hcl_log hcl_log::create(const std::filesystem::path& path, std::uint64_t bytes, std::uint32_t blocks,
                        std::uint32_t threads, durability mode) {
  if (blocks == 0 || threads == 0 || threads > 1024)
    throw pm_error(errc::bad_argument, fmt::format("{}: HCL log for {} blocks of {} threads; both must be at least 1 "
                                                   "and threads at most 1024",
                                                   path.string(), blocks, threads));
  const std::uint64_t lanes = std::uint64_t(blocks) * ((threads + 31) / 32) * 32;
  const std::uint64_t capacity_words = bytes / (lanes * 4);
  if (capacity_words == 0 || capacity_words > 0xffffffffull)
    throw pm_error(errc::bad_size, fmt::format("{}: {} bytes give {} logging threads {} words each; need 1 to 2^32-1",
                                               path.string(), bytes, lanes, capacity_words));
  auto p = std::make_unique<pool>(log_meta::create_pool(path, lanes * capacity_words * 4, lanes * 4, mode));
  p->create_region(data_name, lanes * capacity_words * 4);
  p->create_region(tails_name, lanes * 4);
  const log_meta::record m{log_meta::hcl, blocks, threads, capacity_words, 0, 0, 0};
  log_meta::write(*p, m);
  const hcl_view v = make_view(*p, m);
  return hcl_log(std::move(p), v);
}

namespace {
// The stored geometry must be one create() can make and must match the
// regions' sizes, or the view's word() and slot() would leave them.
void check_geometry(pool& p, const log_meta::record& m) {
  const auto& f = p.path();
  check_stored(f, log_meta::region_name, "blocks", m.blocks, 1, 0xffffffffull);
  check_stored(f, log_meta::region_name, "threads", m.threads, 1, 1024);
  check_stored(f, log_meta::region_name, "capacity_words", m.capacity_words, 1, 0xffffffffull);
  const std::uint64_t lanes = m.blocks * ((m.threads + 31) / 32) * 32;
  const std::uint64_t tails_bytes = p.find(tails_name).size(), data_bytes = p.find(data_name).size();
  if (tails_bytes != lanes * 4)
    throw_corrupt_value(f, tails_name, "size", tails_bytes, fmt::format("{} x {} threads need {} bytes", m.blocks, m.threads, lanes * 4));
  if (data_bytes / 4 / lanes != m.capacity_words || data_bytes % (lanes * 4) != 0)
    throw_corrupt_value(f, data_name, "size", data_bytes,
                        fmt::format("{} lanes of {} words need {} bytes", lanes, m.capacity_words, lanes * m.capacity_words * 4));
}

void check_tails(const pool& p, const hcl_view& v) {
  const std::uint64_t lanes = std::uint64_t(v.blocks) * v.warps_per_block() * 32;
  for (std::uint64_t i = 0; i < lanes; ++i)
    if (v.tails[i] > v.capacity_words)
      throw_corrupt_value(p.path(), tails_name, fmt::format("tail of lane {}", i), v.tails[i],
                          fmt::format("a slot holds at most {} words", v.capacity_words));
}
}  // namespace

hcl_log hcl_log::open(const std::filesystem::path& path, durability mode) {
  auto p = std::make_unique<pool>(pool::open(path, mode));
  const log_meta::record m = log_meta::read(*p, log_meta::hcl);
  check_geometry(*p, m);
  const hcl_view v = make_view(*p, m);
  check_tails(*p, v);
  return hcl_log(std::move(p), v);
}

void hcl_log::for_each_entry(
    std::size_t bytes, const std::function<void(std::uint64_t, std::uint32_t, const void*)>& visit) const {
  const auto words = std::uint32_t((bytes + 3) / 4);
  std::vector<std::uint32_t> entry(words);
  for (std::uint64_t b = 0; b < view_.blocks; ++b)
    for (std::uint32_t t = 0; t < view_.threads; ++t) {
      const std::uint32_t tail = view_.tails[view_.slot(b, t)];
      if (tail > view_.capacity_words || tail % words != 0)
        throw_corrupt_value(pool_->path(), tails_name, fmt::format("tail of thread {} of block {}", t, b), tail,
                            fmt::format("expected whole entries of {} words, at most {} words", words, view_.capacity_words));
      for (std::uint32_t at = tail; at >= words; at -= words) {  // newest first, as recovery undoes
        for (std::uint32_t k = 0; k < words; ++k) entry[k] = *view_.word(b, t, at - words + k);
        visit(b, t, entry.data());
      }
    }
}

void hcl_log::clear() {
  region tails = pool_->find(tails_name);
  std::memset(tails.data(), 0, tails.size());
  tails.persist();
}

std::vector<std::uint64_t> hcl_log::occupied_slots() const {
  std::vector<std::uint64_t> out;
  const std::uint64_t per_block = std::uint64_t(view_.warps_per_block()) * 32;
  for (std::uint64_t b = 0; b < view_.blocks; ++b)
    for (std::uint32_t t = 0; t < view_.threads; ++t) {
      const std::uint64_t s = b * per_block + t;
      const std::uint32_t tail = view_.tails[s];
      if (tail > view_.capacity_words)  // open checked it; a store since may not have
        throw_corrupt_value(pool_->path(), tails_name, fmt::format("tail of thread {} of block {}", t, b), tail,
                            fmt::format("a slot holds at most {} words", view_.capacity_words));
      if (tail != 0) out.push_back(s);
    }
  return out;
}

std::uint64_t hcl_log::size_of(std::uint64_t block, std::uint32_t thread) const {
  if (block >= view_.blocks || thread >= view_.threads)
    throw pm_error(errc::log_geometry, fmt::format("{}: thread {} of block {} lies outside the log's {} x {}",
                                                   pool_->path().string(), thread, block, view_.blocks, view_.threads));
  return std::uint64_t(view_.tails[view_.slot(block, thread)]) * 4;
}

}  // namespace gpmx::pm
