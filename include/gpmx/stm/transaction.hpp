#pragma once
// A pessimistic, word-granularity software transaction (the helper-warp
// paper's GPU STM; docs/transactions.md). Every access, read or write,
// takes the word's ownership record exclusively; a conflict goes to the
// smaller committer id (priority), which aborts the owner through its
// status word and steals the orec, or else the caller aborts itself. Writes
// go to a private redo log and reads see it first; at commit the words are
// written to the visible copy and the record is handed to a sink (which
// makes it durable or queues it for a helper warp) before the orecs are
// released. Every access checks the caller's own status first, so a
// pre-empted (zombie) transaction stops at its next access.
//
//   stm::transaction<Ctx> tx(t, shared, my_id);
//   do {
//     tx.begin();
//     const auto a = tx.read(i), b = tx.read(j);
//     if (!tx.failed()) { tx.write(i, a - x); tx.write(j, b + x); }
//   } while (!tx.commit(sink) && (tx.wait_before_retry(), true));
//
// (stm::atomically wraps that loop.) Kernel code.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/stm_fail.hpp"
#include "gpmx/stm/tx_memory.hpp"

namespace gpmx::stm {

// What a commit hands to its sink: the sequence number and the write log.
struct redo_view {
  std::uint32_t seq;
  const std::uint32_t* words;
  const std::uint32_t* values;
  std::uint32_t count;
};

// Where a sink will put a record, decided before the record's sequence
// number is taken (Sink::reserve): a slot of the helper's ring, or the
// committer's own stream.
struct sink_place {
  std::uint32_t pos = 0;  // the ring's first entry
  bool queued = false;    // through the helper's ring
};

template <class Ctx, std::uint32_t MaxOwned = 32, std::uint32_t MaxWrites = 16>
class transaction {
 public:
  GPMX_HD transaction(Ctx& t, const tx_shared& s, std::uint32_t id) : t_(t), s_(s), id_(id) {}

  GPMX_HD void begin() {
    owned_ = 0;
    writes_ = 0;
    failed_ = false;
    conflict_orec_ = no_conflict;
    if (incarnation_ == 0) incarnation_ = t_.atomic_load(&s_.status[id_], memory_order::acquire, scope::device) >> 2;
    incarnation_ = (incarnation_ + 1) & incarnation_mask;
    if (incarnation_ == 0) incarnation_ = 1;
    t_.atomic_store(&s_.status[id_], state(tx_active), memory_order::seq_cst, scope::device);
  }

  // The word's value as this transaction sees it (its own write first);
  // 0 once the transaction has failed.
  GPMX_HD std::uint32_t read(std::uint32_t word) {
    if (!acquire(word)) return 0;
    for (std::uint32_t i = writes_; i-- > 0;)
      if (write_words_[i] == word) return write_values_[i];
    return load_word(t_, &s_.data[word]);
  }

  GPMX_HD void write(std::uint32_t word, std::uint32_t value) {
    if (!acquire(word)) return;
    for (std::uint32_t i = 0; i < writes_; ++i)
      if (write_words_[i] == word) {
        write_values_[i] = value;
        return;
      }
    if (writes_ == MaxWrites) detail::stm_fail("a transaction wrote more words than its write log holds", writes_ + 1, MaxWrites);
    write_words_[writes_] = word;
    write_values_[writes_] = value;
    ++writes_;
  }

  GPMX_HD bool failed() const { return failed_; }
  // The thread running the transaction (for a body's reads outside the
  // transactional data, through views).
  GPMX_HD Ctx& ctx() const { return t_; }
  GPMX_HD std::uint32_t writes() const { return writes_; }
  // The sequence number of this thread's last committed writing transaction (0: none).
  GPMX_HD std::uint32_t last_seq() const { return last_seq_; }

  // Commits unless pre-empted: reserves the record's place in sink, takes
  // the next sequence number while holding every orec, writes the visible
  // copy, hands the record to sink (which may persist it before
  // returning), then releases the orecs. Returns whether it committed. A
  // read-only transaction takes no number.
  //
  // The place comes first: a record that took its number before its place
  // in a helper's ring could find the ring's log stream filled with larger
  // numbers drained while it was descheduled, none of which the truncator
  // may apply before it, and the helper could then never drain it (seen on
  // a GPU: one run in 13 hung). Reserved first, a record's larger-numbered
  // predecessors in its stream are at most the ring's capacity
  // (docs/transactions.md, truncation: progress).
  template <class Sink>
  GPMX_HD bool commit(Sink& sink) {
    if (failed_ || !enter_committing()) {
      finish_abort();
      return false;
    }
    if (writes_ > 0) {
      const sink_place place = sink.reserve(t_, writes_);
      const std::uint32_t seq =
          t_.atomic_add(s_.seq, 1u, memory_order::acq_rel, scope::device) + 1u;
      last_seq_ = seq;
      for (std::uint32_t i = 0; i < writes_; ++i) store_word(t_, &s_.data[write_words_[i]], write_values_[i]);
      sink.commit(t_, redo_view{seq, write_words_, write_values_, writes_}, place);
    }
    release_all();
    t_.atomic_store(&s_.status[id_], state(tx_idle), memory_order::seq_cst, scope::device);
    count(t_, s_, count_commits);
    return true;
  }

  // After a failed commit: waits until the orec that made this transaction
  // give way changes hands (it holds none itself, so the wait cannot be a
  // cycle). A pre-empted transaction retries at once.
  GPMX_HD void wait_before_retry() {
    if (conflict_orec_ == no_conflict) return;
    const std::uint64_t* orec = &s_.orecs[conflict_orec_];
    const std::uint64_t seen = conflict_owner_;
    t_.spin_wait([&] { return t_.atomic_load(orec, memory_order::acquire, scope::device) != seen; });
  }

 private:
  static constexpr std::uint32_t no_conflict = ~0u;
  static constexpr std::uint32_t incarnation_mask = 0x3fffffffu;
  GPMX_HD std::uint32_t state(tx_status st) const { return (incarnation_ << 2) | st; }

  GPMX_HD bool acquire(std::uint32_t word) {
    if (failed_) return false;
    if (word >= s_.words) detail::stm_fail("a transaction accessed a word past the end of the data", word, s_.words);
    bool held = false;
    for (std::uint32_t i = 0; i < owned_ && !held; ++i) held = owned_orecs_[i] == word;
    if (!held && !take(word)) return false;
    // The zombie check: stolen orecs are stolen only after the status says
    // aborted, so a transaction still active here read consistent values.
    if (t_.atomic_load(&s_.status[id_], memory_order::acquire, scope::device) == state(tx_aborted)) return fail();
    return true;
  }

  GPMX_HD bool take(std::uint32_t orec) {
    if (owned_ == MaxOwned) detail::stm_fail("a transaction accessed more words than it can own", owned_ + 1, MaxOwned);
    std::uint64_t* lock = &s_.orecs[orec];
    const std::uint64_t mine = (std::uint64_t(incarnation_) << 32) | (id_ + 1);
    for (;;) {
      const std::uint64_t cur = t_.atomic_load(lock, memory_order::acquire, scope::device);
      if (cur == mine) break;
      if (cur == 0) {
        if (t_.atomic_cas(lock, std::uint64_t(0), mine, memory_order::acq_rel, scope::device) == 0) break;
        continue;
      }
      const std::uint32_t owner = std::uint32_t(cur) - 1, attempt = std::uint32_t(cur >> 32);
      if (owner < id_) return give_way(orec, cur);  // the owner has priority
      // Abort exactly the attempt that holds the orec.
      const std::uint32_t active = (attempt << 2) | tx_active, aborted = (attempt << 2) | tx_aborted;
      const std::uint32_t was =
          t_.atomic_cas(&s_.status[owner], active, aborted, memory_order::acq_rel, scope::device);
      if (was == ((attempt << 2) | tx_committing)) return give_way(orec, cur);  // it keeps what it holds
      if (was != active && was != aborted) continue;  // that attempt is over: look again
      if (t_.atomic_cas(lock, cur, mine, memory_order::acq_rel, scope::device) == cur) {
        count(t_, s_, count_preemptions);
        break;
      }
    }
    owned_orecs_[owned_++] = orec;
    return true;
  }

  GPMX_HD bool give_way(std::uint32_t orec, std::uint64_t owner_word) {
    conflict_orec_ = orec;
    conflict_owner_ = owner_word;
    return fail();
  }
  GPMX_HD bool fail() {
    failed_ = true;
    return false;
  }

  GPMX_HD bool enter_committing() {
    return t_.atomic_cas(&s_.status[id_], state(tx_active), state(tx_committing), memory_order::acq_rel,
                         scope::device) == state(tx_active);
  }

  GPMX_HD void release_all() {
    // CAS, not a store: an orec stolen while this transaction was aborted
    // belongs to the thief now.
    const std::uint64_t mine = (std::uint64_t(incarnation_) << 32) | (id_ + 1);
    for (std::uint32_t i = 0; i < owned_; ++i)
      (void)t_.atomic_cas(&s_.orecs[owned_orecs_[i]], mine, std::uint64_t(0), memory_order::acq_rel, scope::device);
    owned_ = 0;
  }

  GPMX_HD void finish_abort() {
    release_all();
    t_.atomic_store(&s_.status[id_], state(tx_idle), memory_order::seq_cst, scope::device);
    count(t_, s_, count_aborts);
  }

  Ctx& t_;
  const tx_shared& s_;
  std::uint32_t id_;
  std::uint32_t owned_ = 0, writes_ = 0;
  bool failed_ = false;
  std::uint32_t conflict_orec_ = no_conflict;
  std::uint64_t conflict_owner_ = 0;
  std::uint32_t last_seq_ = 0;
  std::uint32_t incarnation_ = 0;
  std::uint32_t owned_orecs_[MaxOwned];
  std::uint32_t write_words_[MaxWrites];
  std::uint32_t write_values_[MaxWrites];
};

// Runs body(tx) as a transaction until it commits, giving way between
// attempts; returns the number of attempts. body must stop using values it
// read once tx.failed() (they may be inconsistent).
template <class Tx, class Sink, class Body>
GPMX_HD std::uint32_t atomically(Tx& tx, Sink& sink, Body&& body) {
  for (std::uint32_t attempts = 1;; ++attempts) {
    tx.begin();
    body(tx);
    if (tx.commit(sink)) return attempts;
    tx.wait_before_retry();
  }
}

}  // namespace gpmx::stm
