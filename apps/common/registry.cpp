#include "common/registry.hpp"

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::apps {

// Each workload's factory, defined next to it.
std::unique_ptr<workload> make_gpkvs_workload();
std::unique_ptr<workload> make_srad_workload();
std::unique_ptr<workload> make_bfs_workload();

const std::vector<std::unique_ptr<workload>>& all_workloads() {
  static const std::vector<std::unique_ptr<workload>> all = [] {
    std::vector<std::unique_ptr<workload>> v;
    v.push_back(make_gpkvs_workload());
    v.push_back(make_srad_workload());
    v.push_back(make_bfs_workload());
    return v;
  }();
  return all;
}

workload& find_workload(std::string_view name) {
  std::string known;
  for (const auto& w : all_workloads()) {
    if (w->name() == name) return *w;
    known += (known.empty() ? "" : ", ") + std::string(w->name());
  }
  throw config_error(fmt::format("unknown workload '{}' (known: {})", name, known));
}

}  // namespace gpmx::apps
