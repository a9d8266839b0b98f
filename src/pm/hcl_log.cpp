#include "gpmx/pm/hcl_log.hpp"

#include <cstring>
#include <fmt/format.h>

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

hcl_log hcl_log::open(const std::filesystem::path& path, durability mode) {
  auto p = std::make_unique<pool>(pool::open(path, mode));
  const log_meta::record m = log_meta::read(*p, log_meta::hcl);
  const hcl_view v = make_view(*p, m);
  return hcl_log(std::move(p), v);
}

void hcl_log::clear() {
  region tails = pool_->find(tails_name);
  std::memset(tails.data(), 0, tails.size());
  tails.persist();
}

std::uint64_t hcl_log::size_of(std::uint64_t block, std::uint32_t thread) const {
  if (block >= view_.blocks || thread >= view_.threads)
    throw pm_error(errc::log_geometry, fmt::format("{}: thread {} of block {} lies outside the log's {} x {}",
                                                   pool_->path().string(), thread, block, view_.blocks, view_.threads));
  return std::uint64_t(view_.tails[view_.slot(block, thread)]) * 4;
}

}  // namespace gpmx::pm
