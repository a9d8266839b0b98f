#pragma once
// Durability shared among waiting threads (group commit). A GPU hides the
// latency of a persist behind thousands of threads in flight; a cpu worker
// that flushed for each thread in turn would serialize it. So, in the
// parallel schedule, a kernel thread that must wait for durability hands
// its recorded lines to the group and parks; one flusher thread takes every
// pending line at once, merges them into ranges, makes them durable with
// as few calls as the domains allow, and completes every ticket it covered.
// Only domains whose flush is a system call share flushes
// (persist_domain::shares_flushes); others are flushed by the thread itself.
//
// When to flush: as soon as no worker can hand over more lines (every one
// is quiet: its last round ran nothing), so that a group holds every thread
// the resident work brings to a durability point; a flusher that started at
// the first hand-over would split each wave of threads into a few early
// ones and the rest, one device flush each. While a worker is still busy the
// flusher waits, but no longer than the last flush took: waiting longer than
// a flush cannot gather more than flushing at once and again would.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/persist_domain.hpp"

namespace gpmx::cpu::detail {

struct line_run {
  const persist_domain* domain;
  std::uintptr_t first, last;  // lines, inclusive
  // The bytes stored, as pm_line::stored: every byte of a run of several
  // lines; a run of one line may hold fewer (only a domain that persists
  // stored bytes looks at them).
  std::uint64_t stored = ~std::uint64_t(0);
};

// For a domain that persists stored bytes (persists_stored_bytes): the
// bytes of `runs`, in any order (as threads handed them over), as ranges:
// a stretch of stored bytes joins the range before it where the two
// overlap or lie at most `gap_bytes` apart, on either side (a journal pays
// a 16-byte range entry for a range and one byte per byte of a gap), else
// starts a range. Ranges may overlap (a journal replays them in order, and
// copies each one's bytes after the one before it). Replaces `out`.
void merge_stored_bytes(const line_run* runs, std::size_t n, std::size_t gap_bytes,
                        std::vector<persist_domain::merged_range>& out);
// For any other domain: whole lines of `runs` (sorted by first line), runs
// whose flush units of `unit_bytes` touch joined into one range; each
// range's `asked` counts only its runs' lines. Replaces `out`.
void merge_runs_by_unit(const line_run* runs, std::size_t n, std::size_t unit_bytes,
                        std::vector<persist_domain::merged_range>& out);

// One worker's hand-overs during a round of its blocks, given to the flusher
// at the round's end under one ticket (group_commit::hand_over): one lock
// per round instead of one per waiting thread.
struct durability_batch {
  std::vector<line_run> runs;
  std::vector<std::uint64_t*> tickets;  // each waiting thread's ticket, set at the hand-over
};

class group_commit {
 public:
  group_commit();
  ~group_commit();  // makes what is pending durable, then stops the flusher
  group_commit(const group_commit&) = delete;
  group_commit& operator=(const group_commit&) = delete;

  // Takes the lines of `lines` whose domain shares flushes into a worker's
  // batch, leaving the others for the caller to flush itself; returns
  // whether it took any. The caller then waits on the batch
  // (block_scheduler::wait_durable), whose ticket reads ticket_pending
  // until hand_over.
  static bool gather(pm_line_list& lines, durability_batch& batch);
  // The same for [p, p + bytes) of domain d (a range persist).
  static bool gather_range(const persist_domain* d, const void* p, std::size_t bytes, durability_batch& batch);
  static constexpr std::uint64_t ticket_pending = ~std::uint64_t(0);
  // Hands every run of `batch` to the flusher under one ticket, stores the
  // ticket where each waiter reads it, and empties the batch.
  void hand_over(durability_batch& batch);

  // Whether every ticket up to `ticket` has completed (durable or failed).
  bool complete(std::uint64_t ticket) const { return completed_.load(std::memory_order_acquire) >= ticket; }
  // After complete(ticket): throws the error of the flush that covered it, if any.
  void rethrow_if_failed(std::uint64_t ticket) const;
  // Blocks until some ticket completes after `seen` tickets had, or
  // `timeout`: yield-spinning for about as long as the last flush took,
  // then asleep.
  void wait_past(std::uint64_t seen, std::chrono::microseconds timeout) const;
  std::uint64_t completed() const { return completed_.load(std::memory_order_acquire); }
  // Returns once every ticket handed out so far has completed: a launch
  // ends with nothing pending, so no domain is flushed after it may close.
  void drain() const;
  // Tickets handed out so far.
  std::uint64_t issued() const;
  // Throws the error of a failed flush that covered a ticket after `since`
  // (a launch's lines that no thread waited for: those its threads left at
  // their end), if any.
  void rethrow_failure_after(std::uint64_t since) const;

  durability_stats stats() const;

  // A worker running a launch is busy (it may still hand over lines) or
  // quiet; it says so on every change, and is quiet when it leaves.
  void set_worker_busy(bool busy);

 private:
  // Takes runs under a new ticket; `waits`: threads that wait on it.
  std::uint64_t enqueue(const std::vector<line_run>& runs, std::uint64_t waits);
  void flusher_loop();
  // Makes every run durable: grouped by domain; a journal's stored bytes in
  // the order they came, another domain's lines sorted and merged where
  // their flush units touch; one persist_group per domain. Returns the
  // number of calls made.
  static std::uint64_t flush(std::vector<line_run>& runs);

  mutable std::mutex m_;
  mutable std::condition_variable work_cv_;
  mutable std::condition_variable done_cv_;
  std::vector<line_run> pending_;
  std::uint64_t issued_ = 0;  // tickets handed out
  std::atomic<std::uint64_t> completed_{0};
  // Failed flushes: tickets (from, to] and the error that ended them.
  struct failure {
    std::uint64_t from, to;
    std::exception_ptr error;
  };
  std::vector<failure> failures_;
  std::atomic<bool> failed_{false};  // failures_ is not empty
  bool stopping_ = false;
  std::atomic<unsigned> busy_workers_{0};
  std::atomic<bool> gathering_{false};  // the flusher waits for busy workers to go quiet
  std::chrono::nanoseconds last_flush_{0};  // bounds how long a flush waits for busy workers
  durability_stats stats_{};
  std::thread flusher_;  // started by the first enqueue
};

}  // namespace gpmx::cpu::detail
