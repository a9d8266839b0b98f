#include "common/directory_lock.hpp"

namespace gpmx::apps {

std::optional<exclusive_lock> lock_workload_directory(const std::filesystem::path& dir, bool create) {
  const std::filesystem::path full = std::filesystem::absolute(dir).lexically_normal();
  const std::filesystem::path parent = full.parent_path();
  if (create) std::filesystem::create_directories(parent);
  else if (!std::filesystem::is_directory(parent)) return std::nullopt;
  const std::filesystem::path file = parent / (full.filename().string() + ".lock");
  return std::optional<exclusive_lock>(std::in_place, file, "workload directory " + dir.string());
}

}  // namespace gpmx::apps
