// Encoding and decoding the trace file. Every integer is little-endian and
// written byte by byte, so the file reads the same on any host.
#include "gpmx/trace/trace_file.hpp"

#include "file_addresses.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>

namespace gpmx::trace {
namespace {

class writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void bytes(const std::uint8_t* p, std::size_t n) { out_.insert(out_.end(), p, p + n); }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  void put(std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) out_.push_back(std::uint8_t(v >> (8 * i)));
  }
  std::vector<std::uint8_t> out_;
};

// Reads from a buffer; every fault throws with the offset it happened at.
class reader {
 public:
  reader(std::span<const std::uint8_t> in, std::string_view origin) : in_(in), origin_(origin) {}
  std::uint8_t u8() { return std::uint8_t(get(1, "a byte")); }
  std::uint32_t u32() { return std::uint32_t(get(4, "a 32-bit field")); }
  std::uint64_t u64() { return get(8, "a 64-bit field"); }
  void bytes(std::uint8_t* p, std::size_t n, const char* what) {
    need(n, what);
    std::memcpy(p, in_.data() + at_, n);
    at_ += n;
  }
  std::uint64_t offset() const { return at_; }
  std::uint64_t left() const { return in_.size() - at_; }
  [[noreturn]] void fail(std::uint64_t offset, const std::string& why) const {
    throw trace_file_error(fmt::format("{}: offset {}: {}", origin_, offset, why), offset);
  }

 private:
  void need(std::uint64_t n, const char* what) const {
    if (left() < n)
      fail(at_, fmt::format("truncated: {} needs {} bytes, {} left", what, n, left()));
  }
  std::uint64_t get(unsigned n, const char* what) {
    need(n, what);
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= std::uint64_t(in_[at_ + i]) << (8 * i);
    at_ += n;
    return v;
  }
  std::span<const std::uint8_t> in_;
  std::string_view origin_;
  std::uint64_t at_ = 0;
};

void write_event(writer& w, const event& e, std::uint64_t address) {
  w.u8(std::uint8_t(e.kind));
  w.u8(std::uint8_t(e.scope_of));
  w.u8(std::uint8_t(e.op));
  w.u8(e.value_bytes);
  w.u32(e.launch);
  w.u64(e.block);
  w.u32(e.warp);
  w.u32(e.lane);
  w.u64(e.po);
  w.u64(address);
  w.u64(e.bytes);
  w.u64(e.value);
  w.u64(e.result);
  w.u64(e.reads_from);
  w.u32(e.text);
  w.u32(e.line);
  w.bytes(e.data.data(), e.data.size());
}

// Reads one record and checks each field on its own; references to other
// records and to strings are checked once everything is read.
event read_event(reader& r, std::uint32_t version) {
  const std::uint64_t at = r.offset();
  event e;
  const std::uint8_t kind = r.u8(), sc = r.u8(), op = r.u8();
  const unsigned kinds = version < 5 ? event_kinds_before_version_5 : event_kind_count;
  if (kind >= kinds) r.fail(at, fmt::format("unknown event kind {} (version {} has {})", kind, version, kinds));
  if (sc > std::uint8_t(scope::system)) r.fail(at + 1, fmt::format("unknown scope {}", sc));
  if (op >= atomic_op_count) r.fail(at + 2, fmt::format("unknown atomic operation {}", op));
  e.kind = event_kind(kind);
  e.scope_of = scope(sc);
  e.op = atomic_op(op);
  e.value_bytes = r.u8();
  if (e.value_bytes > max_value_bytes)
    r.fail(at + 3, fmt::format("value of {} bytes; at most {} are recorded", e.value_bytes, max_value_bytes));
  e.launch = r.u32();
  e.block = r.u64();
  e.warp = r.u32();
  e.lane = r.u32();
  e.po = r.u64();
  e.address = r.u64();
  e.bytes = r.u64();
  e.value = r.u64();
  e.result = r.u64();
  e.reads_from = r.u64();
  e.text = r.u32();
  e.line = r.u32();
  r.bytes(e.data.data(), e.data.size(), "an event's value bytes");
  if (e.kind == event_kind::warp_collective && e.result >= warp_op_count)
    r.fail(at + 56, fmt::format("unknown warp operation {}", e.result));
  return e;
}

void write_pool(writer& w, const pool_image& p, std::uint64_t base) {
  w.u32(std::uint32_t(p.path.size()));
  w.bytes(reinterpret_cast<const std::uint8_t*>(p.path.data()), p.path.size());
  w.u64(base);
  w.u64(p.length);
  w.u64(p.first_event);
  w.u64(p.end_event);
  w.bytes(p.before.data(), p.before.size());
}

pool_image read_pool(reader& r, std::uint32_t i, std::uint64_t events) {
  const std::uint64_t at = r.offset();
  pool_image p;
  const std::uint32_t n = r.u32();
  if (n > r.left()) r.fail(at, fmt::format("truncated: path of pool {} has {} bytes, {} left", i, n, r.left()));
  p.path.resize(n);
  r.bytes(reinterpret_cast<std::uint8_t*>(p.path.data()), n, "a pool's path");
  p.base = r.u64();
  p.length = r.u64();
  p.first_event = r.u64();
  p.end_event = r.u64();
  if (p.first_event > p.end_event || p.end_event > events)
    r.fail(at, fmt::format("pool {} is mapped for events [{}, {}), but the trace has {}", i, p.first_event,
                           p.end_event, events));
  if (p.length > r.left())
    r.fail(at, fmt::format("truncated: pool {} holds {} bytes, {} left", i, p.length, r.left()));
  p.before.resize(p.length);
  r.bytes(p.before.data(), p.length, "a pool's bytes");
  return p;
}

void check_references(const trace& t, const reader& r) {
  for (std::uint64_t i = 0; i < t.events.size(); ++i) {
    const event& e = t.events[i];
    const std::uint64_t at = header_bytes + i * record_bytes;
    if (e.text != no_string && e.text >= t.strings.size())
      r.fail(at + 72, fmt::format("event #{} names string {}, but the table has {}", i, e.text, t.strings.size()));
    if (is_agent(e) && e.warp >= t.strings.size())  // an agent's name is a string
      r.fail(at + 16, fmt::format("agent event #{} names string {} as its agent, but the table has {}", i, e.warp,
                                  t.strings.size()));
    if (e.kind == event_kind::kernel_begin && e.line != 0 && e.value >= t.strings.size())
      r.fail(at + 48, fmt::format("launch #{} names string {} as its file, but the table has {}", i, e.value,
                                  t.strings.size()));
    if (e.reads_from == no_event) continue;
    if (e.kind != event_kind::pacq)
      r.fail(at + 64, fmt::format("event #{} is a {} and cannot read from an event", i, to_string(e.kind)));
    if (e.reads_from >= i || t.events[e.reads_from].kind != event_kind::prel)
      r.fail(at + 64, fmt::format("pacq #{} reads from #{}, which is no earlier prel", i, e.reads_from));
  }
}

}  // namespace

std::vector<std::uint8_t> encode(const trace& t) {
  writer w;
  w.bytes(reinterpret_cast<const std::uint8_t*>(file_magic), sizeof file_magic);
  w.u32(file_version);
  w.u32(std::uint32_t(record_bytes));
  w.u64(t.events.size());
  w.u32(std::uint32_t(t.strings.size()));
  w.u32(std::uint32_t(t.pools.size()));
  const file_addresses addresses(t);
  for (std::uint64_t i = 0; i < t.events.size(); ++i) write_event(w, t.events[i], addresses.of_event(i));
  for (const std::string& s : t.strings) {
    w.u32(std::uint32_t(s.size()));
    w.bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  }
  for (std::size_t i = 0; i < t.pools.size(); ++i) write_pool(w, t.pools[i], addresses.pool_base(i));
  return w.take();
}

trace decode(std::span<const std::uint8_t> bytes, std::string_view origin) {
  reader r(bytes, origin);
  std::uint8_t magic[sizeof file_magic];
  r.bytes(magic, sizeof magic, "the magic number");
  if (std::memcmp(magic, file_magic, sizeof magic) != 0) r.fail(0, "not a gpmx trace (bad magic number)");
  const std::uint32_t version = r.u32();
  if (version < oldest_file_version || version > file_version)
    r.fail(8, fmt::format("version {}; this build reads versions {} to {}", version, oldest_file_version,
                          file_version));
  const std::uint32_t size = r.u32();
  if (size != record_bytes) r.fail(12, fmt::format("records of {} bytes; version {} has {}", size, version, record_bytes));
  const std::uint64_t count = r.u64();
  const std::uint32_t nstrings = r.u32();
  const std::uint32_t npools = r.u32();
  if (count > r.left() / record_bytes)
    r.fail(16, fmt::format("truncated: header announces {} events, but only {} bytes follow", count, r.left()));

  trace t;
  t.events.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) t.events.push_back(read_event(r, version));
  for (std::uint32_t i = 0; i < nstrings; ++i) {
    const std::uint64_t at = r.offset();
    const std::uint32_t n = r.u32();
    if (n > r.left()) r.fail(at, fmt::format("truncated: string {} of {} bytes, {} left", i, n, r.left()));
    std::string s(n, '\0');
    r.bytes(reinterpret_cast<std::uint8_t*>(s.data()), n, "a string");
    t.strings.push_back(std::move(s));
  }
  for (std::uint32_t i = 0; i < npools; ++i) t.pools.push_back(read_pool(r, i, count));
  if (r.left() != 0) r.fail(r.offset(), fmt::format("{} unexpected bytes after the pool images", r.left()));
  check_references(t, r);
  return t;
}

void write_trace(const trace& t, const std::filesystem::path& path) {
  const std::vector<std::uint8_t> bytes = encode(t);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw error(error_code::io, fmt::format("cannot create trace file '{}'", path.string()));
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  out.close();
  if (!out) throw error(error_code::io, fmt::format("cannot write trace file '{}'", path.string()));
}

trace read_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::io, fmt::format("cannot open trace file '{}'", path.string()));
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode(bytes, path.string());
}

}  // namespace gpmx::trace
