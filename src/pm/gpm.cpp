#include "gpmx/pm/gpm.hpp"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

#include "format.hpp"
#include "log_meta.hpp"

namespace gpmx::gpm {
namespace {

constexpr const char* map_region = "gpm.data";

// gpm_map hands out raw pointers; the pools behind them live here until
// gpm_unmap.
struct registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<pm::pool>> pools;
};
registry& maps() {
  static registry r;
  return r;
}

struct log_owner {
  std::variant<pm::hcl_log, pm::conv_log> log;
};

gpmlog* make_handle(std::unique_ptr<log_owner> owner) {
  auto* h = new gpmlog{};
  if (auto* l = std::get_if<pm::hcl_log>(&owner->log)) {
    h->kind = gpmlog_kind::hcl;
    h->hcl = l->view();
  } else {
    h->kind = gpmlog_kind::conventional;
    h->conv = std::get<pm::conv_log>(owner->log).view();
  }
  h->owner = owner.release();
  return h;
}

void check_handle(const gpmlog* log, const char* fn) {
  if (!log || !log->owner) throw pm::pm_error(pm::errc::bad_argument, fmt::format("{}: null or closed log", fn));
}

}  // namespace

void* gpm_map(const char* path, std::size_t size, bool create) {
  if (!path) throw pm::pm_error(pm::errc::bad_argument, "gpm_map: null path");
  registry& r = maps();
  std::lock_guard lock(r.mutex);
  if (r.pools.count(path)) throw pm::pm_error(pm::errc::bad_argument, fmt::format("gpm_map: {} is already mapped", path));
  std::unique_ptr<pm::pool> p;
  if (create) {
    if (size == 0) throw pm::pm_error(pm::errc::bad_size, fmt::format("gpm_map: {}: size 0", path));
    const std::uint64_t rounded = (size + pm::region_alignment - 1) / pm::region_alignment * pm::region_alignment;
    const std::uint64_t overhead = pm::format::header_bytes + 2 * pm::format::table_bytes_for(1);
    p = std::make_unique<pm::pool>(pm::pool::create(path, overhead + rounded, {.table_capacity = 1}));
    p->create_region(map_region, size);
  } else {
    p = std::make_unique<pm::pool>(pm::pool::open(path));
  }
  pm::region reg = p->find(map_region);
  if (!create && reg.size() != size)
    throw pm::pm_error(pm::errc::bad_size,
                       fmt::format("gpm_map: {} holds {} bytes, not the {} asked for", path, reg.size(), size));
  void* addr = reg.data();
  r.pools.emplace(path, std::move(p));
  return addr;
}

void gpm_unmap(const char* path, void* addr, std::size_t size) {
  registry& r = maps();
  std::lock_guard lock(r.mutex);
  const auto it = path ? r.pools.find(path) : r.pools.end();
  if (it == r.pools.end())
    throw pm::pm_error(pm::errc::bad_argument, fmt::format("gpm_unmap: {} is not mapped", path ? path : "(null)"));
  pm::region reg = it->second->find(map_region);
  if (reg.data() != addr || reg.size() != size)
    throw pm::pm_error(pm::errc::bad_argument,
                       fmt::format("gpm_unmap: {}: address or size differ from what gpm_map returned", path));
  reg.persist();  // raw stores become durable here at the latest
  r.pools.erase(it);
}

// Every mapped pool registers as a persist domain, gpm_map's among them.
const persist_domain* detail::domain_of_mapping(const void* addr, std::size_t bytes) {
  if (const persist_domain* d = find_persist_domain(addr, bytes)) return d;
  throw pm::pm_error(pm::errc::bad_argument, "gpm_view: the range is not inside any gpm_map'ed file");
}

gpmlog* gpmlog_create_conv(const char* path, std::size_t size, int partitions) {
  if (!path || partitions <= 0)
    throw pm::pm_error(pm::errc::bad_argument, fmt::format("gpmlog_create_conv: {} partitions", partitions));
  return make_handle(std::make_unique<log_owner>(log_owner{pm::conv_log::create(path, size, std::uint32_t(partitions))}));
}

gpmlog* gpmlog_create_hcl(const char* path, std::size_t size, int blocks, int threads) {
  if (!path || blocks <= 0 || threads <= 0)
    throw pm::pm_error(pm::errc::bad_argument,
                       fmt::format("gpmlog_create_hcl: {} blocks of {} threads", blocks, threads));
  return make_handle(std::make_unique<log_owner>(
      log_owner{pm::hcl_log::create(path, size, std::uint32_t(blocks), std::uint32_t(threads))}));
}

gpmlog* gpmlog_open(const char* path) {
  if (!path) throw pm::pm_error(pm::errc::bad_argument, "gpmlog_open: null path");
  pm::log_meta::kind k;
  {
    pm::pool probe = pm::pool::open(path);
    k = pm::log_meta::kind_of(probe);
  }
  if (k == pm::log_meta::hcl) return make_handle(std::make_unique<log_owner>(log_owner{pm::hcl_log::open(path)}));
  return make_handle(std::make_unique<log_owner>(log_owner{pm::conv_log::open(path)}));
}

void gpmlog_close(gpmlog* log) {
  check_handle(log, "gpmlog_close");
  delete static_cast<log_owner*>(log->owner);
  log->owner = nullptr;
  delete log;
}

void gpmlog_clear(gpmlog* log, int partition) {
  check_handle(log, "gpmlog_clear");
  auto* owner = static_cast<log_owner*>(log->owner);
  if (auto* h = std::get_if<pm::hcl_log>(&owner->log)) h->clear();
  else std::get<pm::conv_log>(owner->log).clear(partition);
}

}  // namespace gpmx::gpm
