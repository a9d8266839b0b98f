#pragma once
// A persist journal: how a pool file on a device makes persisted stores
// durable without writing back whole pages of the pool.
//
// An fdatasync of the pool writes every dirty 4 KiB page, so a key-value
// SET that dirties three lines on three pages writes 12 KiB. The journal
// instead appends the persisted lines' bytes (one record per flush, many
// threads' lines in it) to a file beside the pool, `<pool>.journal`, and
// syncs only that file. The pool's pages reach the device whenever the
// kernel writes them back; the journal is emptied after a whole-pool sync
// (when it fills, when the pool closes), and replayed at the next open
// after a crash. docs/persistency-models.md section 4 says why replaying
// keeps every guarantee.
//
//   [0, 4096)            two header slots (512 bytes apart): magic, uuid of
//                        the pool, generation, checksum; the valid slot with
//                        the higher generation is current
//   [4096, capacity)     records of the current generation, back to back:
//                        head, range table, data, padded to 8 bytes
//
// A record is valid when its magic, generation, sequence number (0, 1, ...)
// and checksum match; replay applies records in order and stops at the
// first invalid one (a torn last record was never acknowledged).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace gpmx::pm {

// What replaying a pool's journal found (persist_journal::replay).
struct journal_replay {
  std::uint64_t records = 0;  // applied, and kept in the journal
  bool foreign = false;       // a journal of another pool at this path: ignored
  // With records: where appends go on, and the pool pages the records hold.
  std::uint64_t generation = 0, end = 0;
  int slot = 0;  // the current header slot
  std::vector<std::uint64_t> pages;  // bit per pool page
};

class persist_journal {
 public:
  struct range {
    std::uint64_t offset;  // in the pool file
    std::uint64_t bytes;
  };
  using replay_result = journal_replay;

  static std::filesystem::path path_for(const std::filesystem::path& pool_path);
  // Applies the journal of the pool at `pool_path` (if it has one with valid
  // records) to the pool file. The records stay: a journal object appends
  // after them (the pool's pages reach the device later, as in the run that
  // crashed), or empty_kept syncs the pool and empties the journal.
  // Idempotent: a crash during or after it leaves a journal that replays to
  // the same bytes. Throws pm_error naming the journal if neither header is
  // valid (the pool may lack persisted stores: nothing is written then).
  static replay_result replay(const std::filesystem::path& pool_path, const std::uint8_t* uuid);
  // For replayed records that no journal object will append after (the
  // pool is not journaled): syncs the pool and empties the journal.
  static void empty_kept(const std::filesystem::path& pool_path, const replay_result& kept);

  // Appends to the journal of the pool mapped at `base`, whose file is open
  // as `pool_fd` (kept by the caller). Without replayed records the journal
  // file is created, or its generation advanced, at the first append; with
  // them appends go on after them.
  persist_journal(std::filesystem::path pool_path, int pool_fd, const std::byte* base, std::uint64_t pool_size,
                  const std::uint8_t* uuid, std::uint64_t capacity, const replay_result* kept = nullptr);
  ~persist_journal();
  persist_journal(const persist_journal&) = delete;
  persist_journal& operator=(const persist_journal&) = delete;

  // Makes the current bytes of every range durable: one record and one
  // fdatasync of the journal, or a whole-pool sync when the record would
  // take more than 1 MiB or a quarter of the journal. Thread-safe.
  void append(std::span<const range> ranges);
  // After the pool file was written by other means (a checkpoint's file
  // writes, synced, or a write behind them): empties the journal if a
  // record covers any of the ranges, so that a replay never puts older
  // bytes over them.
  void synced_by_file(std::span<const range> ranges);
  // Syncs the pool and empties the journal (a clean close). Thread-safe.
  void sync_pool_and_empty();

  // Counts for benchmarks and tests.
  struct counts {
    std::uint64_t records = 0, pool_syncs = 0;
    std::uint64_t record_bytes = 0;  // written to the journal: heads, range tables, data, padding
  };
  counts stats() const;
  static constexpr std::uint64_t records_start = 4096;

 private:
  void open_or_create();
  void empty_locked();  // syncs the pool, writes the next generation's header
  void write_header_locked();
  void grow_to_locked(std::uint64_t end);
  bool holds_page_of(const range& r) const;  // whether a record of this generation holds a page of r

  std::filesystem::path pool_path_, path_;
  int pool_fd_;
  int fd_ = -1;
  const std::byte* base_;
  std::uint64_t pool_size_, capacity_;
  std::uint8_t uuid_[16];
  std::uint64_t generation_ = 0, sequence_ = 0;
  std::uint64_t at_ = records_start;  // where the next record goes
  std::uint64_t written_ = 0;         // bytes of the file written (zeros or data): appends below it need no allocation
  int next_slot_ = 0;                 // header slot the next generation goes to
  std::vector<std::uint64_t> journaled_pages_;  // bit per pool page a record of this generation holds
  std::vector<std::byte> buffer_;
  counts counts_;
  mutable std::mutex m_;
};

}  // namespace gpmx::pm
