#include "gpmx/pm/conv_log.hpp"

#include <cstring>
#include <string>
#include <fmt/format.h>

#include "gpmx/pm/stored_value.hpp"
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

// Kernel memory: the locks must be reachable wherever the kernels run.
kernel_vector<std::uint32_t> unlocked(std::uint64_t n) { return kernel_vector<std::uint32_t>(n, 0); }
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
  const conv_view v = make_view(*p, m, locks.data());
  return conv_log(std::move(p), v, std::move(locks));
}

namespace {
// The stored geometry must be one create() can make and match the regions'
// sizes; every tail must end on a whole record inside its partition, and the
// size word of the record it ends must fit before it.
void check_stored_log(pool& p, const log_meta::record& m) {
  const auto& f = p.path();
  check_stored(f, log_meta::region_name, "partitions", m.partitions, 1, 0xffffffffull);
  check_stored(f, log_meta::region_name, "partition_bytes", m.partition_bytes, 16, ~0ull / m.partitions);
  if (m.partition_bytes % 8 != 0)
    throw_corrupt_value(f, log_meta::region_name, "partition_bytes", m.partition_bytes, "expected a multiple of 8");
  const region data = p.find(data_name), tails = p.find(tails_name);
  if (tails.size() != m.partitions * 8)
    throw_corrupt_value(f, tails_name, "size", tails.size(), fmt::format("{} partitions need {} bytes", m.partitions, m.partitions * 8));
  if (data.size() != m.partitions * m.partition_bytes)
    throw_corrupt_value(f, data_name, "size", data.size(),
                        fmt::format("{} partitions of {} bytes need {}", m.partitions, m.partition_bytes, m.partitions * m.partition_bytes));
  const auto* t = reinterpret_cast<const std::uint64_t*>(tails.data());
  for (std::uint64_t i = 0; i < m.partitions; ++i) {
    const std::string field = fmt::format("tail of partition {}", i);
    if (t[i] > m.partition_bytes || t[i] % 8 != 0)
      throw_corrupt_value(f, tails_name, field, t[i], fmt::format("expected a multiple of 8 up to {}", m.partition_bytes));
    std::uint64_t size = 0;
    if (t[i] > 0) std::memcpy(&size, data.data() + i * m.partition_bytes + t[i] - 8, 8);
    if (t[i] > 0 && size > t[i] - 8)
      throw_corrupt_value(f, data_name, fmt::format("size of the last entry of partition {}", i), size,
                          fmt::format("the partition's tail leaves at most {} bytes for it", t[i] - 8));
  }
}
}  // namespace

conv_log conv_log::open(const std::filesystem::path& path, durability mode) {
  auto p = std::make_unique<pool>(pool::open(path, mode));
  const log_meta::record m = log_meta::read(*p, log_meta::conventional);
  check_stored_log(*p, m);
  auto locks = unlocked(m.partitions);  // locks are volatile: a restart frees them
  const conv_view v = make_view(*p, m, locks.data());
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
