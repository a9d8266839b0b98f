#include "bam/run_files.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::apps::bam {

namespace {
constexpr const char* meta_file = "bam.meta";
constexpr const char* result_file = "result";
}  // namespace

void write_meta(const std::filesystem::path& dir, std::string_view workload, const params& p) {
  const auto path = dir / meta_file;
  std::ofstream out(path, std::ios::trunc);
  out << "workload " << workload << '\n';
  for (const auto& [k, v] : p) out << k << ' ' << v << '\n';
  out.close();
  if (!out) throw error(error_code::io, fmt::format("{}: cannot write", path.string()));
}

params read_meta(const std::filesystem::path& dir, std::string_view workload) {
  const auto path = dir / meta_file;
  std::ifstream in(path);
  if (!in)
    throw error(error_code::not_found,
                fmt::format("{}: no {} here: run the workload first (gpmx run {})", dir.string(), meta_file, workload));
  std::string line, key, name;
  if (!std::getline(in, line) || !(std::istringstream(line) >> key >> name) || key != "workload")
    throw error(error_code::corrupt_data, fmt::format("{}: the first line is not 'workload NAME'", path.string()));
  if (name != workload)
    throw error(error_code::corrupt_data,
                fmt::format("{}: written by workload {}, not {}", path.string(), name, workload));
  params p;
  for (int n = 2; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::uint64_t value = 0;
    std::string rest;
    if (!(words >> key >> value) || (words >> rest))
      throw error(error_code::corrupt_data, fmt::format("{}: line {} is not 'NAME VALUE'", path.string(), n));
    p[key] = value;
  }
  return p;
}

void write_result_bytes(const std::filesystem::path& dir, std::span<const std::byte> bytes) {
  const auto path = dir / result_file;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  out.close();
  if (!out) throw error(error_code::io, fmt::format("{}: cannot write", path.string()));
}

std::vector<std::byte> read_result_bytes(const std::filesystem::path& dir, std::string_view workload) {
  const auto path = dir / result_file;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw error(error_code::not_found,
                fmt::format("{}: no result here: {} was prepared but never ran to its end", dir.string(), workload));
  std::vector<std::byte> b(std::filesystem::file_size(path));
  in.read(reinterpret_cast<char*>(b.data()), std::streamsize(b.size()));
  if (!in) throw error(error_code::io, fmt::format("{}: cannot read", path.string()));
  return b;
}

void throw_result_size(const std::filesystem::path& dir, std::size_t bytes, std::size_t word) {
  throw error(error_code::corrupt_data,
              fmt::format("{}: {} bytes are not whole {}-byte words", (dir / result_file).string(), bytes, word));
}

void check_range(const params& p, std::string_view name, std::uint64_t low, std::uint64_t high) {
  const auto it = p.find(name);
  if (it == p.end()) throw config_error(fmt::format("parameter {} is missing", name));
  if (it->second < low || it->second > high)
    throw config_error(fmt::format("{}={} must be {} to {}", name, it->second, low, high));
}

}  // namespace gpmx::apps::bam
