// Applying an image's granule-stores to the pool's original bytes.
#include "gpmx/check/materialize.hpp"

#include <cstring>
#include <map>
#include <string>

namespace gpmx::check {
namespace {

void check_sizes(const trace::trace& t, const persist_order& order, const store_set& image) {
  if (t.events.size() != order.event_count())
    throw check_error("materialize: the trace has " + std::to_string(t.events.size()) +
                      " events but the persist order was built from " + std::to_string(order.event_count()));
  if (image.universe() != order.size())
    throw check_error("materialize: the image is a set over " + std::to_string(image.universe()) +
                      " granule-stores, the order has " + std::to_string(order.size()));
}

// Applies the image's stores made through `pool` to `out` (the file's bytes).
void apply(const trace::trace& t, const persist_order& order, const store_set& image, const pool_mapping& pool,
           std::span<std::byte> out) {
  const std::uint64_t pool_end = pool.base + pool.length;
  image.for_each([&](std::size_t id) {  // ids are in trace order, hence coherence order per granule
    const granule_store& g = order.node(id);
    if (g.event < pool.first_event || g.event >= pool.end_event) return;
    const trace::event& e = t.events[g.event];
    if (e.address + e.bytes <= pool.base || e.address >= pool_end) return;
    if (e.address < pool.base || e.address + e.bytes > pool_end)
      throw check_error("materialize: the store at event #" + std::to_string(g.event) + " (" +
                        std::to_string(e.bytes) + " bytes) straddles the edge of the pool mapping");
    if (g.end - e.address > e.value_bytes)
      throw check_error("materialize: the store at event #" + std::to_string(g.event) + " wrote " +
                        std::to_string(e.bytes) + " bytes but the trace kept only the first " +
                        std::to_string(e.value_bytes));
    std::memcpy(out.data() + (g.first - pool.base), e.data.data() + (g.first - e.address), g.end - g.first);
  });
}

}  // namespace

std::vector<std::byte> materialize_image(const trace::trace& t, const persist_order& order, const store_set& image,
                                         const pool_mapping& pool, std::span<const std::byte> before) {
  check_sizes(t, order, image);
  if (before.size() != pool.length)
    throw check_error("materialize: the pool's original bytes are " + std::to_string(before.size()) +
                      " long but the mapping is " + std::to_string(pool.length) + " bytes");
  std::vector<std::byte> out(before.begin(), before.end());
  apply(t, order, image, pool, out);
  return out;
}

void materialize_pools_into(const trace::trace& t, const persist_order& order, const store_set& image,
                            std::uint64_t position, std::vector<pool_file>& out) {
  check_sizes(t, order, image);
  std::size_t used = 0;
  std::map<std::string, std::size_t, std::less<>> by_path;
  for (const trace::pool_image& m : t.pools) {  // mapping order: a file's first mapping comes first
    if (m.first_event > position) continue;  // mapped (so created) after the crash
    auto [it, added] = by_path.try_emplace(m.path, used);
    if (added) {
      if (used == out.size()) out.emplace_back();
      pool_file& f = out[used++];
      const auto* b = reinterpret_cast<const std::byte*>(m.before.data());
      f.path = m.path;
      f.bytes.assign(b, b + m.before.size());  // into the memory the last image used
    }
    std::vector<std::byte>& bytes = out[it->second].bytes;
    if (bytes.size() < m.length) bytes.resize(m.length);
    apply(t, order, image, {m.base, m.length, m.first_event, std::min<std::uint64_t>(m.end_event, position)},
          std::span<std::byte>(bytes.data(), m.length));
  }
  out.resize(used);
}

std::vector<pool_file> materialize_pools(const trace::trace& t, const persist_order& order, const store_set& image,
                                         std::uint64_t position) {
  std::vector<pool_file> out;
  materialize_pools_into(t, order, image, position, out);
  return out;
}

}  // namespace gpmx::check
