#include "pmemobj_atm.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gpmx/exec/errors.hpp"
#include "tx/atm.hpp"

#if defined(GPMX_HAVE_PMEMOBJ)
#include <libpmem.h>
#include <libpmemobj.h>
#endif

namespace gpmx::bench {

#if defined(GPMX_HAVE_PMEMOBJ)
namespace atm = apps::tx::atm;
namespace {

[[noreturn]] void fail(const std::filesystem::path& pool, const std::string& what) {
  const char* why = pmemobj_errormsg();
  throw std::runtime_error(fmt::format("{}: {}: {}", pool.string(), what, why && *why ? why : std::strerror(errno)));
}

// Volatile locks striped over the accounts, taken in stripe order.
class account_locks {
 public:
  explicit account_locks(std::size_t stripes) : locks_(stripes) {}
  std::pair<std::size_t, std::size_t> stripes_of(std::uint32_t a, std::uint32_t b) const {
    std::size_t x = a % locks_.size(), y = b % locks_.size();
    return x < y ? std::pair{x, y} : std::pair{y, x};
  }
  std::mutex& at(std::size_t i) { return locks_[i]; }

 private:
  std::vector<std::mutex> locks_;
};

void transfer(PMEMobjpool* pop, std::uint32_t* balance, const atm::transfer& x, const std::filesystem::path& p) {
  if (pmemobj_tx_begin(pop, nullptr, TX_PARAM_NONE) != 0) fail(p, "pmemobj_tx_begin");
  if (pmemobj_tx_xadd_range_direct(&balance[x.from], sizeof(std::uint32_t), POBJ_XADD_NO_ABORT) != 0 ||
      pmemobj_tx_xadd_range_direct(&balance[x.to], sizeof(std::uint32_t), POBJ_XADD_NO_ABORT) != 0) {
    pmemobj_tx_abort(errno);
    pmemobj_tx_end();
    fail(p, "pmemobj_tx_add_range_direct");
  }
  balance[x.from] -= x.amount;
  balance[x.to] += x.amount;
  pmemobj_tx_commit();
  if (pmemobj_tx_end() != 0) fail(p, "pmemobj_tx_end");
}

}  // namespace

bool have_pmemobj() { return true; }

pmemobj_atm_result run_pmemobj_atm(const pmemobj_atm_options& o) {
  if (o.accounts < 2) throw config_error(fmt::format("pmemobj baseline: {} accounts (at least 2)", o.accounts));
  const std::size_t bytes = std::size_t(o.accounts) * sizeof(std::uint32_t);
  // The balances, plus room for the allocator, lanes and undo logs.
  const std::size_t pool_bytes = std::max<std::size_t>(PMEMOBJ_MIN_POOL, 2 * bytes + (64u << 20));
  PMEMobjpool* pop = pmemobj_create(o.pool.c_str(), "gpmx-atm", pool_bytes, 0600);
  if (!pop) fail(o.pool, "pmemobj_create");
  const auto close = [&] {
    pmemobj_close(pop);
    std::error_code ec;
    std::filesystem::remove(o.pool, ec);
  };
  pmemobj_atm_result r;
  try {
    PMEMoid root = pmemobj_root(pop, bytes);
    if (OID_IS_NULL(root)) fail(o.pool, "pmemobj_root");
    auto* balance = static_cast<std::uint32_t*>(pmemobj_direct(root));
    for (std::uint32_t i = 0; i < o.accounts; ++i) balance[i] = atm::initial_balance;
    pmemobj_persist(pop, balance, bytes);
    r.is_pmem = pmem_is_pmem(balance, bytes) != 0;
    r.threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    account_locks locks(65536);
    std::vector<std::exception_ptr> errors(r.threads);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < r.threads; ++w)
      pool.emplace_back([&, w] {
        try {
          for (std::uint32_t c = w; c < o.committers; c += r.threads)
            for (std::uint32_t k = 0; k < o.per_thread; ++k) {
              const atm::transfer x = atm::transfer_of(o.seed, o.accounts, c, 0, k);
              const auto [s1, s2] = locks.stripes_of(x.from, x.to);
              std::scoped_lock held(locks.at(s1));
              std::unique_lock second(locks.at(s2), std::defer_lock);
              if (s2 != s1) second.lock();
              transfer(pop, balance, x, o.pool);
            }
        } catch (...) {
          errors[w] = std::current_exception();
        }
      });
    for (std::thread& t : pool) t.join();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    r.transfers = std::uint64_t(o.committers) * o.per_thread;
    const std::vector<std::uint32_t> ref = atm::reference(o.seed, o.accounts, o.committers, o.per_thread, 1);
    r.matches_reference = std::memcmp(ref.data(), balance, bytes) == 0;
  } catch (...) {
    close();
    throw;
  }
  close();
  return r;
}

#else

bool have_pmemobj() { return false; }

pmemobj_atm_result run_pmemobj_atm(const pmemobj_atm_options&) {
  throw config_error("pmemobj baseline: this build has no libpmemobj (install libpmemobj-dev and rebuild)");
}

#endif

}  // namespace gpmx::bench
