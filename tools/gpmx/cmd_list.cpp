// gpmx list: the workloads with their parameters and defaults.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "bam/storage_workload.hpp"
#include "common/registry.hpp"

namespace gpmx::cli {
namespace {

void print_list(bool json) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& w : apps::all_workloads()) {
    nlohmann::json j{{"name", w->name()}, {"summary", w->summary()}, {"cap_mm_baseline", w->has_cap_mm()}};
    j["parameters"] = nlohmann::json::array();
    for (const auto& p : w->parameters())
      j["parameters"].push_back({{"name", p.name}, {"default", p.default_value}, {"help", p.help}});
    all.push_back(j);
    if (json) continue;
    fmt::print("{}  {}\n", w->name(), w->summary());
    for (const auto& p : w->parameters())
      fmt::print("    -p {:<24} {}\n", fmt::format("{}={}", p.name, p.default_value), p.help);
  }
  for (const auto& w : apps::bam::storage_workloads()) {
    nlohmann::json j{{"name", w->name()}, {"summary", w->summary()}, {"storage", true}, {"methods", w->methods()}};
    j["parameters"] = nlohmann::json::array();
    for (const auto& p : w->parameters())
      j["parameters"].push_back({{"name", p.name}, {"default", p.default_value}, {"help", p.help}});
    all.push_back(j);
    if (json) continue;
    std::string methods;
    for (std::size_t i = 0; i < w->methods().size(); ++i)
      methods += fmt::format("{}{} {}", i == 0 ? "" : ", ", i, w->methods()[i]);
    fmt::print("{}  {}\n    storage workload (docs/bam.md); method: {}\n", w->name(), w->summary(), methods);
    for (const auto& p : w->parameters())
      fmt::print("    -p {:<24} {}\n", fmt::format("{}={}", p.name, p.default_value), p.help);
  }
  if (json) fmt::print("{}\n", all.dump(2));
  else fmt::print("\nStyles: --style epoch (default) or sbrp. Data: --data DIR (default ./gpmx-data).\n");
}

}  // namespace

void register_list(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("list", "List the workloads with their parameters and defaults");
  sub->add_flag("--json", *json, "print JSON instead of a table");
  sub->callback([json] { print_list(*json); });
}

}  // namespace gpmx::cli
