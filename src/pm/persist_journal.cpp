#include "persist_journal.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "file_io.hpp"
#include "gpmx/pm/errors.hpp"

#if defined(__SANITIZE_THREAD__)
#define GPMX_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GPMX_UNDER_TSAN 1
#endif
#endif
#if defined(GPMX_UNDER_TSAN)
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line);
#endif

namespace gpmx::pm {
namespace fs = std::filesystem;
namespace {

// Copies persisted lines out of the mapping into a record. Other kernel
// threads may be storing into the same lines (words they have not persisted
// yet, which a record may hold or not, as a PM cache may write a line back
// with them or not; each is copied again by its own persist). Those reads
// race with the stores by design, so ThreadSanitizer is told to skip them.
void copy_lines(std::byte* dst, const std::byte* src, std::uint64_t bytes) {
#if defined(GPMX_UNDER_TSAN)
  AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
#endif
  std::memcpy(dst, src, bytes);
#if defined(GPMX_UNDER_TSAN)
  AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
#endif
}

constexpr char journal_magic[8] = {'G', 'P', 'M', 'X', 'J', 'R', 'N', 'L'};
constexpr std::uint64_t journal_version = 1;
constexpr std::uint64_t record_magic = 0x3152434a584d5047ull;  // "GPMXJCR1"
constexpr std::uint64_t slot_bytes = 512;                       // a header slot: one sector, written whole
// Zeros are written ahead of the appends (so that an append allocates no
// block and its fdatasync writes data only), first 64 KiB, then doubling up
// to 4 MiB at a time: a pool persisted once pays little, a busy one few
// growths.
constexpr std::uint64_t first_room = std::uint64_t(64) << 10;
constexpr std::uint64_t largest_growth = std::uint64_t(4) << 20;
constexpr std::uint64_t page = 4096;
constexpr std::uint64_t largest_record = std::uint64_t(1) << 20;

struct header {
  char magic[8];
  std::uint64_t version;
  std::uint8_t uuid[16];
  std::uint64_t generation;
  std::uint64_t checksum;  // of every byte above
};

struct record_head {
  std::uint64_t magic;
  std::uint64_t generation;
  std::uint64_t sequence;
  std::uint64_t ranges;
  std::uint64_t data_bytes;
  std::uint64_t checksum;  // of the fields above, the range table and the data
};

// Eight bytes at a time: a flush's record holds up to megabytes and is
// summed on the flusher's path. Detects torn writes, not an adversary.
std::uint64_t mix(const void* data, std::size_t bytes, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::uint64_t header_sum(const header& h) { return mix(&h, offsetof(header, checksum), 0x6a09e667f3bcc908ull); }
std::uint64_t head_sum(const record_head& r) { return mix(&r, offsetof(record_head, checksum), 0xbb67ae8584caa73bull); }

std::uint64_t padded(std::uint64_t n) { return (n + 7) / 8 * 8; }

// A bit per page of the pool: the pages records of a generation hold.
std::vector<std::uint64_t> page_bits(std::uint64_t pool_size) { return std::vector<std::uint64_t>(pool_size / page / 64 + 1, 0); }
void mark_pages(std::vector<std::uint64_t>& bits, const persist_journal::range& r) {
  for (std::uint64_t p = r.offset / page; r.bytes > 0 && p <= (r.offset + r.bytes - 1) / page; ++p)
    bits[p / 64] |= std::uint64_t(1) << (p % 64);
}

[[noreturn]] void io_fail(const fs::path& p, const std::string& what) {
  throw pm_error(errc::io, fmt::format("{}: {}: {}", p.string(), what, std::strerror(errno)));
}

void write_exact(int fd, const void* data, std::uint64_t bytes, std::uint64_t at, const fs::path& shown) {
  if (const int err = pwrite_all(fd, data, bytes, at)) {
    errno = err;
    io_fail(shown, fmt::format("writing {} bytes at offset {} failed", bytes, at));
  }
}

// Reads up to `bytes`; returns how many were read (fewer at the end of the file).
std::uint64_t read_some(int fd, void* data, std::uint64_t bytes, std::uint64_t at, const fs::path& shown) {
  auto* p = static_cast<char*>(data);
  std::uint64_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd, p + done, bytes - done, off_t(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_fail(shown, fmt::format("reading {} bytes at offset {} failed", bytes - done, at + done));
    if (n == 0) break;
    done += std::uint64_t(n);
  }
  return done;
}

void sync_fd(int fd, const fs::path& shown, const char* what) {
  if (::fdatasync(fd) != 0) io_fail(shown, fmt::format("fdatasync {} failed", what));
}

void zero_fill(int fd, std::uint64_t from, std::uint64_t to, const fs::path& shown) {
  if (const int err = write_zeros(fd, from, to)) {
    errno = err;
    io_fail(shown, fmt::format("writing zeros over [{}, {}) failed", from, to));
  }
}

struct current_header {
  int slot = -1;  // -1: neither slot is valid
  header h{};
};

current_header read_current(int fd, const fs::path& shown) {
  current_header best;
  for (int slot = 0; slot < 2; ++slot) {
    header h{};
    if (read_some(fd, &h, sizeof h, std::uint64_t(slot) * slot_bytes, shown) != sizeof h) continue;
    if (std::memcmp(h.magic, journal_magic, sizeof h.magic) != 0 || h.version != journal_version ||
        header_sum(h) != h.checksum)
      continue;
    if (best.slot < 0 || h.generation > best.h.generation) best = {slot, h};
  }
  return best;
}

header make_header(const std::uint8_t* uuid, std::uint64_t generation) {
  header h{};
  std::memcpy(h.magic, journal_magic, sizeof h.magic);
  h.version = journal_version;
  std::memcpy(h.uuid, uuid, sizeof h.uuid);
  h.generation = generation;
  h.checksum = header_sum(h);
  return h;
}

class fd_guard {
 public:
  explicit fd_guard(int fd) : fd_(fd) {}
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

fs::path persist_journal::path_for(const fs::path& pool_path) { return pool_path.string() + ".journal"; }

persist_journal::replay_result persist_journal::replay(const fs::path& pool_path, const std::uint8_t* uuid) {
  const fs::path path = path_for(pool_path);
  const fd_guard jfd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (jfd.get() < 0) {
    if (errno == ENOENT) return {};
    io_fail(path, "cannot open the pool's journal");
  }
  const current_header cur = read_current(jfd.get(), path);
  if (cur.slot < 0)
    throw pm_error(errc::checksum_mismatch,
                   fmt::format("{}: neither header of the pool's persist journal is valid, so stores it made durable "
                               "may be missing from {}; nothing was written. Move the journal away to open the pool "
                               "as its file holds it",
                               path.string(), pool_path.string()));
  replay_result result;
  if (std::memcmp(cur.h.uuid, uuid, sizeof cur.h.uuid) != 0) {
    result.foreign = true;  // left by a pool since replaced at this path
    return result;
  }
  struct stat st {};
  if (::fstat(jfd.get(), &st) != 0) io_fail(path, "cannot stat the pool's journal");
  const auto file_bytes = std::uint64_t(st.st_size);

  const fd_guard pfd(::open(pool_path.c_str(), O_RDWR | O_CLOEXEC));
  if (pfd.get() < 0) io_fail(pool_path, "cannot open the pool to replay its journal");
  struct stat pst {};
  if (::fstat(pfd.get(), &pst) != 0) io_fail(pool_path, "cannot stat the pool");
  const auto pool_size = std::uint64_t(pst.st_size);
  // Ranges are copied through a mapping: a flush's record holds hundreds of
  // small ranges, and a pwrite each made replay a hundred times slower.
  void* mapped = pool_size == 0 ? MAP_FAILED
                                : ::mmap(nullptr, pool_size, PROT_READ | PROT_WRITE, MAP_SHARED, pfd.get(), 0);
  if (mapped == MAP_FAILED) io_fail(pool_path, "cannot map the pool to replay its journal");
  struct unmap_guard {
    void* p;
    std::uint64_t n;
    ~unmap_guard() { ::munmap(p, n); }
  } unmap_pool{mapped, pool_size};
  auto* pool_bytes = static_cast<std::byte*>(mapped);
  std::vector<std::uint64_t> pages = page_bits(pool_size);
  std::uint64_t end = records_start;
  std::vector<std::byte> body;
  std::vector<range> ranges;
  for (std::uint64_t at = records_start;;) {
    record_head r{};
    if (at + sizeof r > file_bytes || read_some(jfd.get(), &r, sizeof r, at, path) != sizeof r) break;
    if (r.magic != record_magic || r.generation != cur.h.generation || r.sequence != result.records) break;
    if (r.ranges == 0 || r.ranges > file_bytes / sizeof(range) || r.data_bytes > file_bytes) break;
    const std::uint64_t body_bytes = r.ranges * sizeof(range) + r.data_bytes;
    if (at + sizeof r + body_bytes > file_bytes) break;
    body.resize(body_bytes);
    if (read_some(jfd.get(), body.data(), body_bytes, at + sizeof r, path) != body_bytes) break;
    if (mix(body.data(), body_bytes, head_sum(r)) != r.checksum) break;
    ranges.resize(r.ranges);
    std::memcpy(ranges.data(), body.data(), r.ranges * sizeof(range));
    std::uint64_t sum = 0;
    bool inside = true;
    for (const range& g : ranges) {
      inside = inside && g.offset <= pool_size && g.bytes <= pool_size - g.offset;
      sum += g.bytes;
    }
    if (!inside || sum != r.data_bytes)
      throw pm_error(errc::corrupt_value,
                     fmt::format("{}: record {} passes its checksum but names ranges outside the {}-byte pool {}; "
                                 "nothing after record {} was applied",
                                 path.string(), r.sequence, pool_size, pool_path.string(), r.sequence));
    const std::byte* data = body.data() + r.ranges * sizeof(range);
    for (const range& g : ranges) {
      std::memcpy(pool_bytes + g.offset, data, g.bytes);
      data += g.bytes;
      mark_pages(pages, g);
    }
    ++result.records;
    at += padded(sizeof r + body_bytes);
    end = at;
  }
  if (result.records == 0) return result;
  // The mapping's pages hold the records now; the journal goes on holding
  // them until the pool is synced (by the journal object that appends after
  // them, or by empty_kept).
  result.generation = cur.h.generation;
  result.end = end;
  result.slot = cur.slot;
  result.pages = std::move(pages);
  return result;
}

void persist_journal::empty_kept(const fs::path& pool_path, const replay_result& kept) {
  if (kept.records == 0) return;
  const fs::path path = path_for(pool_path);
  const fd_guard pfd(::open(pool_path.c_str(), O_RDWR | O_CLOEXEC));
  if (pfd.get() < 0) io_fail(pool_path, "cannot open the pool to sync it");
  sync_fd(pfd.get(), pool_path, "of the pool after replaying its journal");
  const fd_guard jfd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (jfd.get() < 0) io_fail(path, "cannot open the pool's journal");
  const current_header cur = read_current(jfd.get(), path);
  if (cur.slot < 0 || cur.h.generation != kept.generation) return;  // emptied already
  const header next = make_header(cur.h.uuid, cur.h.generation + 1);
  write_exact(jfd.get(), &next, sizeof next, std::uint64_t(1 - cur.slot) * slot_bytes, path);
  sync_fd(jfd.get(), path, "of the emptied journal");
}

persist_journal::persist_journal(fs::path pool_path, int pool_fd, const std::byte* base, std::uint64_t pool_size,
                                 const std::uint8_t* uuid, std::uint64_t capacity, const replay_result* kept)
    : pool_path_(std::move(pool_path)),
      path_(path_for(pool_path_)),
      pool_fd_(pool_fd),
      base_(base),
      pool_size_(pool_size),
      capacity_(std::max(capacity, std::uint64_t(2) << 20)),
      journaled_pages_(page_bits(pool_size)) {
  std::memcpy(uuid_, uuid, sizeof uuid_);
  if (kept == nullptr || kept->records == 0) return;
  fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st {};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0) io_fail(path_, "cannot reopen the pool's journal after replay");
  // Records after the kept ones were torn or never written: the next
  // record overwrites them, and replay stops at the first invalid one.
  generation_ = kept->generation;
  sequence_ = kept->records;
  at_ = kept->end;
  next_slot_ = 1 - kept->slot;
  written_ = std::uint64_t(st.st_size);
  for (std::size_t i = 0; i < journaled_pages_.size() && i < kept->pages.size(); ++i)
    journaled_pages_[i] = kept->pages[i];
}

persist_journal::~persist_journal() {
  try {
    sync_pool_and_empty();
  } catch (...) {
    // The records stay; the next open replays them, a state as legal as
    // after a crash here.
  }
  if (fd_ >= 0) ::close(fd_);
}

void persist_journal::open_or_create() {
  const int fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    const current_header cur = read_current(fd, path_);
    struct stat st {};
    if (cur.slot >= 0 && std::memcmp(cur.h.uuid, uuid_, sizeof uuid_) == 0 && ::fstat(fd, &st) == 0) {
      fd_ = fd;
      generation_ = cur.h.generation;
      next_slot_ = 1 - cur.slot;
      written_ = std::uint64_t(st.st_size);
      // The file may hold records of this generation that replay applied
      // (or that were torn): a new generation makes all of them invalid.
      ++generation_;
      write_header_locked();
      return;
    }
    ::close(fd);  // another pool's journal, or damaged after replay looked: replaced whole
  } else if (errno != ENOENT) {
    io_fail(path_, "cannot open the pool's journal");
  }
  // Built under a temporary name so that the journal's name always holds a
  // valid header.
  const fs::path tmp = path_.string() + fmt::format(".creating.{}", ::getpid());
  const int nfd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (nfd < 0) io_fail(tmp, "cannot create the pool's journal");
  try {
    const header h = make_header(uuid_, 1);
    zero_fill(nfd, 0, records_start + first_room, tmp);
    write_exact(nfd, &h, sizeof h, 0, tmp);
    if (::fsync(nfd) != 0) io_fail(tmp, "fsync of the new journal failed");
    if (::rename(tmp.c_str(), path_.c_str()) != 0) io_fail(path_, "cannot rename the new journal into place");
    const fs::path dir = path_.parent_path().empty() ? fs::path(".") : path_.parent_path();
    const fd_guard dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd.get() < 0 || ::fsync(dfd.get()) != 0) io_fail(dir, "fsync of the journal's directory failed");
  } catch (...) {
    ::close(nfd);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
  fd_ = nfd;
  generation_ = 1;
  next_slot_ = 1;
  written_ = records_start + first_room;
}

void persist_journal::write_header_locked() {
  const header h = make_header(uuid_, generation_);
  write_exact(fd_, &h, sizeof h, std::uint64_t(next_slot_) * slot_bytes, path_);
  sync_fd(fd_, path_, "of the journal's header");
  next_slot_ = 1 - next_slot_;
}

void persist_journal::grow_to_locked(std::uint64_t end) {
  if (end <= written_) return;
  const std::uint64_t want = std::max(end, written_ + std::min(written_, largest_growth));
  const std::uint64_t to = std::min(capacity_, (want + first_room - 1) / first_room * first_room);
  zero_fill(fd_, written_, to, path_);
  written_ = to;
}

bool persist_journal::holds_page_of(const range& r) const {
  for (std::uint64_t p = r.offset / page; r.bytes > 0 && p <= (r.offset + r.bytes - 1) / page; ++p)
    if ((journaled_pages_[p / 64] >> (p % 64)) & 1) return true;
  return false;
}

void persist_journal::append(std::span<const range> ranges) {
  std::uint64_t data = 0;
  for (const range& r : ranges) {
    if (r.offset > pool_size_ || r.bytes > pool_size_ - r.offset)
      throw pm_error(errc::bad_argument, fmt::format("{}: journal range [{}, {}) lies outside the {}-byte pool",
                                                     pool_path_.string(), r.offset, r.offset + r.bytes, pool_size_));
    data += r.bytes;
  }
  if (data == 0) return;
  const std::uint64_t bytes = padded(sizeof(record_head) + ranges.size() * sizeof(range) + data);
  std::lock_guard lock(m_);
  // A large record (a region zeroed at creation, a whole-pool persist)
  // would be written twice, to the journal and later to the pool: writing
  // back the pool's dirty pages once costs less.
  if (bytes > std::min(largest_record, (capacity_ - records_start) / 4)) {
    empty_locked();
    return;
  }
  if (fd_ < 0) open_or_create();
  if (at_ + bytes > capacity_) empty_locked();

  // Every byte but the padding is written below: only that is zeroed (a
  // flush's record can be hundreds of KB).
  buffer_.resize(bytes);
  record_head r{record_magic, generation_, sequence_, ranges.size(), data, 0};
  std::byte* out = buffer_.data() + sizeof r;
  std::memcpy(out, ranges.data(), ranges.size() * sizeof(range));
  out += ranges.size() * sizeof(range);
  for (const range& g : ranges) {
    copy_lines(out, base_ + g.offset, g.bytes);
    out += g.bytes;
  }
  std::fill(out, buffer_.data() + bytes, std::byte{0});
  r.checksum = mix(buffer_.data() + sizeof r, std::size_t(out - buffer_.data()) - sizeof r, head_sum(r));
  std::memcpy(buffer_.data(), &r, sizeof r);
  grow_to_locked(at_ + bytes);
  write_exact(fd_, buffer_.data(), bytes, at_, path_);
  sync_fd(fd_, path_, "of a journal record");
  at_ += bytes;
  ++sequence_;
  ++counts_.records;
  counts_.record_bytes += bytes;
  for (const range& g : ranges) mark_pages(journaled_pages_, g);
}

void persist_journal::empty_locked() {
  sync_fd(pool_fd_, pool_path_, "of the pool");
  ++counts_.pool_syncs;
  if (sequence_ == 0) return;  // no record of this generation to invalidate
  ++generation_;
  write_header_locked();
  at_ = records_start;
  sequence_ = 0;
  std::fill(journaled_pages_.begin(), journaled_pages_.end(), 0);
}

void persist_journal::synced_by_file(std::span<const range> ranges) {
  std::lock_guard lock(m_);
  if (sequence_ == 0) return;
  for (const range& r : ranges)
    if (holds_page_of(r)) {
      empty_locked();
      return;
    }
}

void persist_journal::sync_pool_and_empty() {
  std::lock_guard lock(m_);
  if (sequence_ > 0) empty_locked();
}

persist_journal::counts persist_journal::stats() const {
  std::lock_guard lock(m_);
  return counts_;
}

}  // namespace gpmx::pm
