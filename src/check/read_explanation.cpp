#include "read_explanation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "gpmx/check/explain.hpp"

namespace gpmx::check {
namespace {

namespace fs = std::filesystem;

fs::path relative_to(const fs::path& p, const fs::path& dir) {
  return fs::absolute(p).lexically_normal().lexically_relative(fs::absolute(dir).lexically_normal());
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

read_explanation explain_reads(const trace::trace& t, const persist_order& order, const store_set& image,
                               std::uint64_t position, const pool_reads& reads, const fs::path& image_dir,
                               const fs::path& root) {
  // The issued granule-stores of each granule address, in trace order.
  const std::size_t issued = order.issued_before(position);
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_granule;
  for (std::size_t id = 0; id < issued; ++id) by_granule[order.node(id).granule].push_back(id);
  const std::uint64_t mask = ~std::uint64_t(order.granularity() - 1);

  read_explanation out;
  std::unordered_set<std::uint64_t> named;  // lost events already listed
  for (const pool_reads::file& f : reads.files) {
    const fs::path rel = relative_to(f.path, image_dir);
    for (const trace::pool_image& p : t.pools) {
      if (p.first_event > position || relative_to(p.path, root) != rel) continue;
      const std::uint64_t end = std::min<std::uint64_t>(p.end_event, position);
      for (std::uint64_t offset : f.offsets) {
        if (offset >= p.length) continue;
        const auto it = by_granule.find((p.base + offset) & mask);
        if (it == by_granule.end()) continue;
        // This mapping's stores to the granule: the latest issued, and the latest the image kept.
        std::size_t latest = SIZE_MAX, kept = SIZE_MAX;
        for (std::size_t id : it->second) {
          const std::uint64_t e = order.node(id).event;
          if (e < p.first_event || e >= end) continue;
          latest = id;
          if (image.contains(id)) kept = id;
        }
        if (latest == SIZE_MAX) continue;
        ++out.granules_read;
        if (image.contains(latest)) continue;
        ++out.granules_stale;
        const std::uint64_t lost_event = order.node(latest).event;
        if (!named.insert(lost_event).second || out.stale.size() >= 5) continue;
        out.stale.push_back(fmt::format(
            "{} was lost; {} read {} in its place", store_phrase(t, lost_event), reads.reader,
            kept == SIZE_MAX ? std::string("the bytes from before the program's stores")
                             : store_phrase(t, order.node(kept).event)));
      }
    }
  }
  if (out.granules_stale == 0) {
    out.summary = fmt::format("{} read {} the program stored to and every one held its latest store, "
                              "so it did not look at what was lost",
                              reads.reader, plural(out.granules_read, "granule", "granules"));
  } else {
    out.summary = fmt::format("{} read {} the program stored to, and in {} the latest store was lost: {}{}",
                              reads.reader, plural(out.granules_read, "granule", "granules"),
                              plural(out.granules_stale, "of them", "of them"), out.stale.front(),
                              named.size() > 1 ? fmt::format(" (and {} more lost {})", named.size() - 1,
                                                             named.size() == 2 ? "store" : "stores")
                                               : std::string());
  }
  if (!reads.complete) out.summary += " (tracking incomplete: " + reads.note + ")";
  return out;
}

}  // namespace gpmx::check
