#include "common/registry.hpp"

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::apps {

// Each workload's factory, defined next to it.
std::unique_ptr<workload> make_gpkvs_workload();
std::unique_ptr<workload> make_gpdb_workload();
std::unique_ptr<workload> make_hashmap_workload();
std::unique_ptr<workload> make_multiqueue_workload();
std::unique_ptr<workload> make_reduction_workload();
std::unique_ptr<workload> make_scan_workload();
std::unique_ptr<workload> make_prefix_sum_workload();
std::unique_ptr<workload> make_srad_workload();
std::unique_ptr<workload> make_bfs_workload();
std::unique_ptr<workload> make_blk_workload();
std::unique_ptr<workload> make_hotspot_workload();
std::unique_ptr<workload> make_cfd_workload();
std::unique_ptr<workload> make_dnn_workload();
namespace tx {
std::unique_ptr<workload> make_tx_atm_workload();
std::unique_ptr<workload> make_tx_hash_workload();
std::unique_ptr<workload> make_tx_bvh_workload();
}

const std::vector<std::unique_ptr<workload>>& all_workloads() {
  static const std::vector<std::unique_ptr<workload>> all = [] {
    std::vector<std::unique_ptr<workload>> v;
    v.push_back(make_gpkvs_workload());
    v.push_back(make_gpdb_workload());
    v.push_back(make_hashmap_workload());
    v.push_back(make_multiqueue_workload());
    v.push_back(make_reduction_workload());
    v.push_back(make_scan_workload());
    v.push_back(make_prefix_sum_workload());
    v.push_back(make_srad_workload());
    v.push_back(make_bfs_workload());
    v.push_back(make_blk_workload());
    v.push_back(make_hotspot_workload());
    v.push_back(make_cfd_workload());
    v.push_back(make_dnn_workload());
    v.push_back(tx::make_tx_atm_workload());
    v.push_back(tx::make_tx_hash_workload());
    v.push_back(tx::make_tx_bvh_workload());
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
