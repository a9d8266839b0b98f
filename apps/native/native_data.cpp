#include "native/native_data.hpp"

#include <bit>
#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::apps::native {

std::vector<param_spec> chunked_parameters(std::uint64_t elements, std::uint32_t threads, std::uint32_t per_thread) {
  return {{"elements", elements, "input elements (uint64); a multiple of threads x per_thread"},
          {"threads", threads, "threads per block, a power of two up to 1024"},
          {"per_thread", per_thread, "consecutive elements each thread owns"},
          {"seed", 1, "seed of the generated input"}};
}

chunked_shape chunked_shape_of(std::string_view workload, const params& p) {
  auto get = [&](const char* n) {
    const auto it = p.find(n);
    if (it == p.end()) throw config_error(fmt::format("{}: parameter '{}' is missing", workload, n));
    return it->second;
  };
  chunked_shape s;
  const std::uint64_t threads = get("threads"), per_thread = get("per_thread");
  s.elements = get("elements");
  s.seed = get("seed");
  if (threads == 0 || threads > 1024 || !std::has_single_bit(threads))
    throw config_error(fmt::format("{}: threads={} must be a power of two from 1 to 1024", workload, threads));
  if (per_thread == 0 || per_thread > (1u << 20))
    throw config_error(fmt::format("{}: per_thread={} must be from 1 to 2^20", workload, per_thread));
  s.threads = std::uint32_t(threads);
  s.per_thread = std::uint32_t(per_thread);
  // Sums of up to 2^31 values below 2^32 fit in 63 bits.
  if (s.elements == 0 || s.elements > (1ull << 31) || s.elements % s.span() != 0)
    throw config_error(fmt::format("{}: elements={} must be a positive multiple of threads x per_thread = {} "
                                   "(at most 2^31)", workload, s.elements, s.span()));
  if (s.elements / s.span() > (1ull << 31) - 1)
    throw config_error(fmt::format("{}: elements={} makes more than 2^31-1 blocks", workload, s.elements));
  return s;
}

pm::region create_input(pm::pool& pool, const char* name, const chunked_shape& s) {
  pm::region r = pool.create_region(name, s.elements * sizeof(std::uint64_t));
  const auto v = r.as<std::uint64_t>();
  for (std::uint64_t i = 0; i < s.elements; ++i) v[i] = input_value(s.seed, i);
  r.persist();
  return r;
}

std::uint64_t pool_bytes(std::initializer_list<std::uint64_t> region_bytes) {
  std::uint64_t total = 1 << 20;  // header, namespace table, meta
  for (std::uint64_t b : region_bytes) total += (b + 4095) / 4096 * 4096;
  return total;
}

}  // namespace gpmx::apps::native
