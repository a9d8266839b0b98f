#include <fmt/format.h>

#include "bam/storage_workload.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::apps::bam {

std::unique_ptr<storage_workload> make_bam_bfs();
std::unique_ptr<storage_workload> make_bam_cc();
std::unique_ptr<storage_workload> make_bam_query();
std::unique_ptr<storage_workload> make_bam_vector_add();

const std::vector<std::unique_ptr<storage_workload>>& storage_workloads() {
  static const auto all = [] {
    std::vector<std::unique_ptr<storage_workload>> v;
    v.push_back(make_bam_bfs());
    v.push_back(make_bam_cc());
    v.push_back(make_bam_query());
    v.push_back(make_bam_vector_add());
    return v;
  }();
  return all;
}

storage_workload* find_storage_workload(std::string_view name) {
  for (const auto& w : storage_workloads())
    if (w->name() == name) return w.get();
  return nullptr;
}

params resolve_storage_params(const storage_workload& w, const params& given) {
  params p;
  for (const param_spec& s : w.parameters()) p[s.name] = s.default_value;
  for (const auto& [k, v] : given) {
    if (!p.contains(k)) {
      std::string known;
      for (const param_spec& s : w.parameters()) known += (known.empty() ? "" : ", ") + s.name;
      throw config_error(fmt::format("{} has no parameter '{}' (it has {})", w.name(), k, known));
    }
    p[k] = v;
  }
  return p;
}

}  // namespace gpmx::apps::bam
