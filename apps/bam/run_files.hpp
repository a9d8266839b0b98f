#pragma once
// The small files a storage workload keeps beside its device files: the
// parameters it was prepared with (DIR/bam.meta: "workload NAME", then
// "NAME VALUE" lines) and the result of its last run (DIR/result, raw
// words), which verify compares with the host's computation.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <filesystem>
#include <string_view>
#include <vector>

#include "common/workload.hpp"

namespace gpmx::apps::bam {

void write_meta(const std::filesystem::path& dir, std::string_view workload, const params& p);
// Throws pm-free errors: not_found when the workload was never prepared in
// dir, corrupt_data naming the file when it is not one write_meta wrote
// for this workload.
params read_meta(const std::filesystem::path& dir, std::string_view workload);

[[noreturn]] void throw_result_size(const std::filesystem::path& dir, std::size_t bytes, std::size_t word);
void write_result_bytes(const std::filesystem::path& dir, std::span<const std::byte> bytes);
// not_found naming the workload when it has no result (never executed).
std::vector<std::byte> read_result_bytes(const std::filesystem::path& dir, std::string_view workload);

template <class T>
void write_result(const std::filesystem::path& dir, const std::vector<T>& words) {
  write_result_bytes(dir, std::as_bytes(std::span<const T>(words)));
}
// corrupt_data when the file is not whole words of T.
template <class T>
std::vector<T> read_result(const std::filesystem::path& dir, std::string_view workload) {
  const std::vector<std::byte> b = read_result_bytes(dir, workload);
  if (b.size() % sizeof(T) != 0) throw_result_size(dir, b.size(), sizeof(T));
  std::vector<T> words(b.size() / sizeof(T));
  std::memcpy(words.data(), b.data(), b.size());
  return words;
}

// Common parameter checks; each throws config_error naming the parameter.
void check_range(const params& p, std::string_view name, std::uint64_t low, std::uint64_t high);

}  // namespace gpmx::apps::bam
