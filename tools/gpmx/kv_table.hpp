#pragma once
// Results as a two-column table for people, or JSON for machines.
#include <string>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

namespace gpmx::cli {

// A result: rows shown in order; the JSON object keeps the typed values.
struct kv_result {
  std::vector<std::pair<std::string, std::string>> rows;
  nlohmann::json json = nlohmann::json::object();
  // label is shown on the terminal, key names the JSON field.
  template <class T>
  void add(const std::string& label, const std::string& key, const T& value, const std::string& shown) {
    rows.emplace_back(label, shown);
    json[key] = value;
  }
};

// Prints r as a table, or as JSON when json is set.
void print_result(const kv_result& r, bool json);
// "12.3 MB", "512 B": bytes for people.
std::string human_bytes(std::uint64_t bytes);

}  // namespace gpmx::cli
