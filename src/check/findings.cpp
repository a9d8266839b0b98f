#include "gpmx/check/findings.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <tuple>

#include "gpmx/support/byte_wire.hpp"

namespace gpmx::check {
namespace {

// Bumped whenever the layout changes: ranks of different builds refuse each other.
constexpr std::uint64_t wire_version = 1;

void put_failure(byte_writer& w, const check_failure& f) {
  w.text(f.cause);
  w.boolean(f.scoped_persistency_bug);
  w.u64(f.position);
  w.text(f.crash_at);
  w.text(f.verdict);
  w.texts(f.why);
  w.texts(f.lost);
  w.texts(f.kept);
  w.text(f.trusted);
  w.u64(f.lost_count);
  w.u64(f.kept_count);
  w.u64(f.images);
  w.f64(f.found_after_s);
  w.u64(f.found_after_images);
}

check_failure get_failure(byte_reader& r) {
  check_failure f;
  f.cause = r.text();
  f.scoped_persistency_bug = r.boolean();
  f.position = r.u64();
  f.crash_at = r.text();
  f.verdict = r.text();
  f.why = r.texts();
  f.lost = r.texts();
  f.kept = r.texts();
  f.trusted = r.text();
  f.lost_count = r.u64();
  f.kept_count = r.u64();
  f.images = r.u64();
  f.found_after_s = r.f64();
  f.found_after_images = r.u64();
  return f;
}

}  // namespace

std::string encode_findings(const findings& f) {
  byte_writer w;
  w.u64(wire_version);
  w.u64(f.events);
  w.u64(f.granule_stores);
  w.u64(f.images_made);
  w.u64(f.images_checked);
  w.u64(f.failed_images);
  w.u64(f.causes.size());
  for (const cause_findings& c : f.causes) {
    w.text(c.key);
    w.u64(c.first_image);
    w.u64(c.smallest_image);
    put_failure(w, c.failure);
    w.u64s(c.smallest);
  }
  return w.take();
}

findings decode_findings(const std::string& bytes, const std::string& what) {
  byte_reader r(bytes, what);
  if (const std::uint64_t v = r.u64(); v != wire_version)
    throw check_error(fmt::format("{}: findings format {}, this gpmx reads format {} (ranks of different builds?)",
                                  what, v, wire_version));
  findings f;
  f.events = r.u64();
  f.granule_stores = r.u64();
  f.images_made = r.u64();
  f.images_checked = r.u64();
  f.failed_images = r.u64();
  const std::uint64_t n = r.u64();
  for (std::uint64_t i = 0; i < n; ++i) {
    cause_findings c;
    c.key = r.text();
    c.first_image = r.u64();
    c.smallest_image = r.u64();
    c.failure = get_failure(r);
    c.smallest = r.u64s();
    f.causes.push_back(std::move(c));
  }
  r.expect_end();
  return f;
}

findings merge_findings(const std::vector<findings>& parts) {
  if (parts.empty()) return {};
  findings out;
  out.events = parts.front().events;
  out.granule_stores = parts.front().granule_stores;
  out.images_made = parts.front().images_made;
  std::map<std::string, std::size_t> by_key;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const findings& part = parts[p];
    if (std::tie(part.events, part.granule_stores, part.images_made) !=
        std::tie(out.events, out.granule_stores, out.images_made))
      throw check_error(fmt::format(
          "share {} made {} images from {} events and {} granule-stores, share 0 made {} from {} and {}: "
          "the shares did not check the same trace with the same options",
          p, part.images_made, part.events, part.granule_stores, out.images_made, out.events, out.granule_stores));
    out.images_checked += part.images_checked;
    out.failed_images += part.failed_images;
    for (const cause_findings& c : part.causes) {
      auto [it, added] = by_key.try_emplace(c.key, out.causes.size());
      if (added) {
        out.causes.push_back(c);
        continue;
      }
      cause_findings& m = out.causes[it->second];
      const std::size_t images = m.failure.images + c.failure.images;
      // The first to fail in time, and what had been checked by then.
      if (c.failure.found_after_s < m.failure.found_after_s) {
        m.failure.found_after_s = c.failure.found_after_s;
        m.failure.found_after_images = c.failure.found_after_images;
      }
      m.first_image = std::min(m.first_image, c.first_image);
      if (std::tie(c.failure.lost_count, c.failure.position, c.smallest_image) <
          std::tie(m.failure.lost_count, m.failure.position, m.smallest_image)) {
        const double found_s = m.failure.found_after_s;
        const std::size_t found_images = m.failure.found_after_images;
        m.failure = c.failure;
        m.failure.found_after_s = found_s;
        m.failure.found_after_images = found_images;
        m.smallest_image = c.smallest_image;
        m.smallest = c.smallest;
      }
      m.failure.images = images;
    }
  }
  std::stable_sort(out.causes.begin(), out.causes.end(),
                   [](const cause_findings& a, const cause_findings& b) { return a.first_image < b.first_image; });
  return out;
}

}  // namespace gpmx::check
