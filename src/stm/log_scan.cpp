#include "gpmx/stm/log_scan.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "gpmx/pm/errors.hpp"

namespace gpmx::stm {
namespace {

[[noreturn]] void corrupt(const std::string& where, const std::string& what) {
  throw pm::pm_error(pm::errc::corrupt_value, fmt::format("{}: the transaction log {}", where, what));
}

}  // namespace

stream_read read_stream(std::span<const log_entry> s, std::uint32_t stream, std::uint64_t from, std::uint64_t to,
                        bool published_end, std::uint64_t epoch, std::uint32_t words, const std::string& where,
                        log_scan& out, std::vector<std::uint64_t>* ends) {
  const std::uint64_t size = s.size();
  const auto at = [&](std::uint64_t pos) { return s[pos % size]; };
  std::uint64_t pos = from;
  while (pos < to) {
    const log_entry h = at(pos);
    if (h == 0) return {pos, true};
    if (!is_header(h)) return {pos, false};
    const std::uint32_t n = header_writes(h);
    if (n == 0) return {pos, false};
    // Past `to`: at the end of a lap a torn record; at a writer's published
    // end, a record whose rest is not durable yet (the truncator's reading).
    if (pos + record_entries(n) > to) return {pos, published_end};
    if (at(pos + 1 + n) != make_mark(header_seq(h), mark_check(epoch, h))) return {pos, false};
    const scanned_record r{header_seq(h), stream, out.writes.size(), n};
    for (std::uint32_t i = 0; i < n; ++i) {
      const log_entry d = at(pos + 1 + i);
      if (data_word(d) >= words)
        corrupt(where, fmt::format("stream {} entry {}: record {} writes word {}, past the {} words of the data",
                                   stream, pos + 1 + i, r.seq, data_word(d), words));
      out.writes.push_back({data_word(d), data_value(d)});
    }
    out.records.push_back(r);
    pos += record_entries(n);
    if (ends != nullptr) ends->push_back(pos);
  }
  return {pos, true};
}

log_scan scan_log(std::span<const log_entry> log, const log_geometry& g, std::uint64_t epoch,
                  std::uint64_t applied_upto, std::uint32_t words, const std::string& where,
                  std::span<const std::uint64_t> starts) {
  if (log.size() < g.entries())
    corrupt(where, fmt::format("region holds {} entries, its geometry needs {}", log.size(), g.entries()));
  if (!starts.empty() && starts.size() < g.streams())
    corrupt(where, fmt::format("has {} stream starts for {} streams", starts.size(), g.streams()));
  log_scan out;
  for (std::uint32_t i = 0; i < g.streams(); ++i) {
    const std::uint64_t from = starts.empty() ? 0 : starts[i];
    if (!read_stream(log.subspan(g.stream_start(i), g.stream_entries(i)), i, from, from + g.stream_entries(i), false,
                     epoch, words, where, out)
             .clean)
      ++out.streams_cut;
  }
  std::sort(out.records.begin(), out.records.end(),
            [](const scanned_record& a, const scanned_record& b) { return a.seq < b.seq; });
  // A record found twice with the same writes is one record written twice
  // (a helper that drained a slot holding an earlier copy: the checker's
  // drain-past-clean bug); applying it once or twice gives the same image.
  // With other writes it cannot come from any run: corrupt.
  const auto same_writes = [&](const scanned_record& a, const scanned_record& b) {
    return a.count == b.count && std::equal(out.writes.begin() + std::ptrdiff_t(a.first_write),
                                            out.writes.begin() + std::ptrdiff_t(a.first_write + a.count),
                                            out.writes.begin() + std::ptrdiff_t(b.first_write),
                                            [](const word_write& x, const word_write& y) {
                                              return x.word == y.word && x.value == y.value;
                                            });
  };
  std::size_t kept = 0;
  for (std::size_t i = 0; i < out.records.size(); ++i) {
    if (kept > 0 && out.records[i].seq == out.records[kept - 1].seq) {
      if (!same_writes(out.records[i], out.records[kept - 1]))
        corrupt(where, fmt::format("holds record {} twice with different writes (streams {} and {})",
                                   out.records[i].seq, out.records[kept - 1].stream, out.records[i].stream));
      ++out.duplicates;
      continue;
    }
    out.records[kept++] = out.records[i];
  }
  out.records.resize(kept);
  const auto after = std::find_if(out.records.begin(), out.records.end(),
                                  [&](const scanned_record& r) { return r.seq > applied_upto; });
  out.stale = std::uint64_t(after - out.records.begin());
  out.records.erase(out.records.begin(), after);
  std::uint64_t expect = applied_upto + 1;
  while (out.prefix < out.records.size() && out.records[out.prefix].seq == expect) {
    ++out.prefix;
    ++expect;
  }
  out.gap_at = out.prefix < out.records.size() ? std::uint32_t(expect) : 0;
  return out;
}

std::uint64_t apply_prefix(const log_scan& scan, std::span<std::uint32_t> home, std::uint64_t applied_upto) {
  for (std::uint64_t i = 0; i < scan.prefix; ++i) {
    const scanned_record& r = scan.records[i];
    for (std::uint32_t k = 0; k < r.count; ++k) {
      const word_write& w = scan.writes[r.first_write + k];
      home[w.word] = w.value;
    }
    applied_upto = r.seq;
  }
  return applied_upto;
}

}  // namespace gpmx::stm
