#include "group_commit.hpp"

#include <algorithm>
#include <bit>

namespace gpmx::cpu::detail {
namespace {

// A journal's range entry is 16 bytes: a gap no longer than that costs no
// more as copied bytes than as a second entry.
constexpr std::size_t stored_gap_bytes = 16;

// The least a worker waiting for a flush spins before it sleeps.
constexpr std::chrono::microseconds min_spin{50};

}  // namespace

group_commit::group_commit() = default;

group_commit::~group_commit() {
  {
    std::lock_guard lock(m_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  if (flusher_.joinable()) flusher_.join();
}

bool group_commit::gather(pm_line_list& lines, durability_batch& batch) {
  // Keep the lines of domains that flush cheaply for the caller; turn the
  // others into runs of adjacent lines (a thread records in store order,
  // so most of its lines already come in runs).
  // A line the thread stored only part of stays a run of its own, with its
  // marks (the flush decides, by domain, whether they matter).
  constexpr std::uint64_t whole = ~std::uint64_t(0);
  const std::size_t first_run = batch.runs.size();
  std::size_t kept = 0;
  for (const pm_line& l : lines) {
    if (!l.domain->shares_flushes()) {
      lines[kept++] = l;
      continue;
    }
    std::vector<line_run>& runs = batch.runs;
    if (runs.size() > first_run && runs.back().domain == l.domain && runs.back().last + 1 == l.line &&
        runs.back().stored == whole && l.stored == whole)
      ++runs.back().last;
    else
      runs.push_back({l.domain, l.line, l.line, l.stored});
  }
  const bool took = kept != lines.size();
  lines.resize(kept);
  return took;
}

bool group_commit::gather_range(const persist_domain* d, const void* p, std::size_t bytes, durability_batch& batch) {
  if (bytes == 0 || !d->shares_flushes()) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  batch.runs.push_back({d, a / persist_line_bytes, (a + bytes - 1) / persist_line_bytes});
  return true;
}

void group_commit::hand_over(durability_batch& batch) {
  // Runs with no ticket are lines threads left at their end: flushed all the
  // same, nobody woken by them.
  if (batch.runs.empty()) return;
  const std::uint64_t ticket = enqueue(batch.runs, batch.tickets.size());
  for (std::uint64_t* t : batch.tickets) *t = ticket;
  batch.runs.clear();
  batch.tickets.clear();
}

std::uint64_t group_commit::enqueue(const std::vector<line_run>& runs, std::uint64_t waits) {
  std::uint64_t ticket = 0;
  bool wake = false;
  {
    std::lock_guard lock(m_);
    // Started by the first hand-over, so a process that never waits for an
    // msync starts no thread (and stays single-threaded for its forks).
    if (!flusher_.joinable()) flusher_ = std::thread([this] { flusher_loop(); });
    // Only the first hand-over of a group wakes the flusher (a wake is a
    // system call); it then waits for the workers to go quiet.
    wake = pending_.empty();
    pending_.insert(pending_.end(), runs.begin(), runs.end());
    ticket = ++issued_;
    stats_.waits += waits;
    for (const line_run& r : runs) stats_.lines += r.last - r.first + 1;
  }
  if (wake) work_cv_.notify_one();
  return ticket;
}

void group_commit::rethrow_if_failed(std::uint64_t ticket) const {
  if (!failed_.load(std::memory_order_acquire)) return;  // the common case takes no lock
  std::lock_guard lock(m_);
  for (const failure& f : failures_)
    if (ticket > f.from && ticket <= f.to) std::rethrow_exception(f.error);
}

void group_commit::wait_past(std::uint64_t seen, std::chrono::microseconds timeout) const {
  const auto passed = [&] { return completed_.load(std::memory_order_acquire) > seen; };
  const auto now = std::chrono::steady_clock::now();
  const auto deadline = now + timeout;
  // Spin (yielding the core) for about as long as a flush takes, then
  // sleep: a sleeping worker's wake-up costs more than the spin where an
  // idle core is halted (a virtual machine's, up to a millisecond), and
  // yielding leaves the core to the flusher when it needs one. Measured in
  // docs/benchmarks.md ("Workers that wait for a flush spin first").
  std::chrono::nanoseconds spin{};
  {
    std::lock_guard lock(m_);
    spin = std::min<std::chrono::nanoseconds>(std::max<std::chrono::nanoseconds>(last_flush_, min_spin), timeout);
  }
  while (!passed() && std::chrono::steady_clock::now() < now + spin) std::this_thread::yield();
  if (passed()) return;
  std::unique_lock lock(m_);
  done_cv_.wait_until(lock, deadline, passed);
}

std::uint64_t group_commit::issued() const {
  std::lock_guard lock(m_);
  return issued_;
}

void group_commit::rethrow_failure_after(std::uint64_t since) const {
  if (!failed_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(m_);
  for (const failure& f : failures_)
    if (f.to > since) std::rethrow_exception(f.error);
}

void group_commit::drain() const {
  std::unique_lock lock(m_);
  done_cv_.wait(lock, [&] { return completed_.load(std::memory_order_relaxed) == issued_; });
}

durability_stats group_commit::stats() const {
  std::lock_guard lock(m_);
  return stats_;
}

void group_commit::set_worker_busy(bool busy) {
  // No lock unless the flusher waits for quiet workers: workers change state
  // every few rounds in kernels that never persist. Sequentially consistent
  // on both sides: either this worker sees gathering_ and wakes the
  // flusher, or the flusher sees the count at 0 before it waits.
  if (busy) {
    busy_workers_.fetch_add(1);
    return;
  }
  if (busy_workers_.fetch_sub(1) == 1 && gathering_.load()) {
    std::lock_guard lock(m_);
    work_cv_.notify_one();
  }
}

void group_commit::flusher_loop() {
  std::vector<line_run> batch;
  std::unique_lock lock(m_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    if (pending_.empty()) return;  // stopping, and nothing left to make durable
    gathering_.store(true);
    work_cv_.wait_for(lock, last_flush_, [&] { return stopping_ || busy_workers_.load() == 0; });
    gathering_.store(false);
    batch.swap(pending_);
    const std::uint64_t from = completed_.load(std::memory_order_relaxed), to = issued_;
    lock.unlock();
    std::uint64_t calls = 0;
    std::exception_ptr error;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      calls = flush(batch);
    } catch (...) {
      error = std::current_exception();
    }
    const auto took = std::chrono::steady_clock::now() - t0;
    batch.clear();
    lock.lock();
    ++stats_.flushes;
    stats_.calls += calls;
    last_flush_ = std::chrono::duration_cast<std::chrono::nanoseconds>(took);
    stats_.flush_ns += std::uint64_t(last_flush_.count());
    if (error) {
      failures_.push_back({from, to, error});
      failed_.store(true, std::memory_order_release);
    }
    completed_.store(to, std::memory_order_release);
    done_cv_.notify_all();
  }
}

void merge_stored_bytes(const line_run* runs, std::size_t n, std::size_t gap_bytes,
                        std::vector<persist_domain::merged_range>& out) {
  out.clear();
  std::uintptr_t begin = 0, end = 0, asked = 0;
  bool open = false;
  auto add = [&](std::uintptr_t b, std::uintptr_t e) {
    if (open && b <= end + gap_bytes && e + gap_bytes >= begin) {
      begin = std::min(begin, b);
      end = std::max(end, e);
    } else {
      if (open) out.push_back({reinterpret_cast<const void*>(begin), end - begin, asked});
      begin = b, end = e, asked = 0, open = true;
    }
    asked += e - b;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const line_run& r = runs[i];
    const std::uintptr_t at = r.first * persist_line_bytes;
    if (r.stored == ~std::uint64_t(0)) {
      add(at, (r.last + 1) * persist_line_bytes);
      continue;
    }
    // Each stretch of stored bytes in the line.
    for (std::uint64_t m = r.stored; m != 0;) {
      const int lo = std::countr_zero(m);
      const int len = std::countr_one(m >> lo);
      add(at + std::uintptr_t(lo), at + std::uintptr_t(lo + len));
      m = len + lo >= 64 ? 0 : m & (~std::uint64_t(0) << (lo + len));
    }
  }
  if (open) out.push_back({reinterpret_cast<const void*>(begin), end - begin, asked});
}

void merge_runs_by_unit(const line_run* runs, std::size_t n, std::size_t unit_bytes,
                        std::vector<persist_domain::merged_range>& out) {
  out.clear();
  const std::uintptr_t unit = std::max<std::uintptr_t>(1, unit_bytes / persist_line_bytes);
  std::size_t i = 0;
  while (i < n) {
    std::uintptr_t first = runs[i].first, last = runs[i].last;
    std::size_t asked = (last - first + 1) * persist_line_bytes;
    std::size_t j = i + 1;
    while (j < n && runs[j].first / unit <= last / unit + 1) {
      last = std::max(last, runs[j].last);
      asked += (runs[j].last - runs[j].first + 1) * persist_line_bytes;
      ++j;
    }
    out.push_back({reinterpret_cast<const void*>(first * persist_line_bytes), (last - first + 1) * persist_line_bytes,
                   asked});
    i = j;
  }
}

namespace {

struct domain_runs {
  const persist_domain* domain;
  std::size_t begin, end;  // in the grouped runs
};

// `runs` grouped by domain into `out`, each domain's in the order they came
// (a counting sort over the few domains a flush touches: a comparison sort
// of thousands of runs was a fifth of the flusher's time).
void group_by_domain(const std::vector<line_run>& runs, std::vector<line_run>& out, std::vector<domain_runs>& groups) {
  groups.clear();
  std::size_t last = 0;
  for (const line_run& r : runs) {
    if (groups.empty() || groups[last].domain != r.domain) {
      last = 0;
      while (last < groups.size() && groups[last].domain != r.domain) ++last;
      if (last == groups.size()) groups.push_back({r.domain, 0, 0});
    }
    ++groups[last].end;  // a count for now
  }
  std::size_t at = 0;
  for (domain_runs& g : groups) {
    g.begin = at;
    at += g.end;
    g.end = g.begin;  // the next free place while scattering
  }
  out.resize(runs.size());
  last = 0;
  for (const line_run& r : runs) {
    if (groups[last].domain != r.domain) {
      last = 0;
      while (groups[last].domain != r.domain) ++last;
    }
    out[groups[last].end++] = r;
  }
}

}  // namespace

std::uint64_t group_commit::flush(std::vector<line_run>& runs) {
  thread_local std::vector<line_run> grouped;
  thread_local std::vector<domain_runs> groups;
  thread_local std::vector<persist_domain::merged_range> ranges;
  group_by_domain(runs, grouped, groups);
  std::uint64_t calls = 0;
  for (const domain_runs& g : groups) {
    // Every range of one domain goes to it at once (persist_group).
    line_run* const first = grouped.data() + g.begin;
    const std::size_t n = g.end - g.begin;
    const persist_domain* d = g.domain;
    if (d->persists_stored_bytes()) {
      // A journal copies the bytes stored, in any order: a thread's runs
      // come together, and sorting every thread's runs by line merged only a
      // fifth of them (and made larger records, by the gaps it joined).
      merge_stored_bytes(first, n, stored_gap_bytes, ranges);
    } else {
      // Whole lines merged where their flush units touch (msync: pages).
      std::sort(first, first + n, [](const line_run& a, const line_run& b) { return a.first < b.first; });
      merge_runs_by_unit(first, n, d->flush_unit_bytes(), ranges);
    }
    calls += d->persist_group(ranges.data(), ranges.size());
  }
  return calls;
}

}  // namespace gpmx::cpu::detail
