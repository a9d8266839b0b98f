#include "gpmx/pm/conv_log.hpp"

#include <cstring>
#include <fmt/format.h>

#include "log_meta.hpp"

namespace gpmx::pm {
namespace {
constexpr const char* data_name = "gpmx.conv.data";
constexpr const char* tails_name = "gpmx.conv.tails";

conv_view make_view(pool& p, const log_meta::record& m, std::uint32_t* locks) {
  conv_view v;
  v.data = p.find(data_name).data();
  v.tails = reinterpret_cast<std::uint64_t*>(p.find(tails_name).data());
  v.locks = locks;
  v.partitions = std::uint32_t(m.partitions);
  v.partition_bytes = m.partition_bytes;
  v.domain = p.domain();
  return v;
}

std::unique_ptr<std::uint32_t[]> unlocked(std::uint64_t n) { return std::make_unique<std::uint32_t[]>(n); }
}  // namespace

conv_log conv_log::create(const std::filesystem::path& path, std::uint64_t bytes, std::uint32_t partitions,
                          durability mode) {
  if (partitions == 0)
    throw pm_error(errc::bad_argument, fmt::format("{}: a conventional log needs at least one partition", path.string()));
  const std::uint64_t partition_bytes = bytes / partitions / 8 * 8;
  if (partition_bytes < 16)
    throw pm_error(errc::bad_size, fmt::format("{}: {} bytes over {} partitions leave {} bytes each; at least 16",
                                               path.string(), bytes, partitions, partition_bytes));
  auto p = std::make_unique<pool>(log_meta::create_pool(path, partition_bytes * partitions, 8ull * partitions, mode));
  p->create_region(data_name, partition_bytes * partitions);
  p->create_region(tails_name, 8ull * partitions);
  const log_meta::record m{log_meta::conventional, 0, 0, 0, partitions, partition_bytes, 0};
  log_meta::write(*p, m);
  auto locks = unlocked(partitions);
  const conv_view v = make_view(*p, m, locks.get());
  return conv_log(std::move(p), v, std::move(locks));
}

conv_log conv_log::open(const std::filesystem::path& path, durability mode) {
  auto p = std::make_unique<pool>(pool::open(path, mode));
  const log_meta::record m = log_meta::read(*p, log_meta::conventional);
  auto locks = unlocked(m.partitions);  // locks are volatile: a restart frees them
  const conv_view v = make_view(*p, m, locks.get());
  return conv_log(std::move(p), v, std::move(locks));
}

void conv_log::clear(int partition) {
  if (partition >= int(view_.partitions))
    throw pm_error(errc::bad_argument, fmt::format("{}: partition {} of {}", pool_->path().string(), partition,
                                                   view_.partitions));
  const std::uint32_t first = partition < 0 ? 0 : std::uint32_t(partition);
  const std::uint32_t last = partition < 0 ? view_.partitions : first + 1;
  for (std::uint32_t p = first; p < last; ++p) view_.tails[p] = 0;
  pool_->persist(view_.tails + first, 8ull * (last - first));
}

std::uint64_t conv_log::size_of(std::uint32_t partition) const {
  if (partition >= view_.partitions)
    throw pm_error(errc::bad_argument, fmt::format("{}: partition {} of {}", pool_->path().string(), partition,
                                                   view_.partitions));
  return view_.tails[partition];
}

}  // namespace gpmx::pm
