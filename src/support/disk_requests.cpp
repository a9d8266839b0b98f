#include "gpmx/support/disk_requests.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <charconv>
#include <fstream>
#include <string>

namespace gpmx {

std::optional<disk_requests> parse_disk_stat(std::string_view line) {
  std::uint64_t f[7] = {};
  std::size_t n = 0;
  const char* p = line.data();
  const char* end = line.data() + line.size();
  while (n < 7) {
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    if (p == end) break;
    const auto [next, ec] = std::from_chars(p, end, f[n]);
    if (ec != std::errc()) return std::nullopt;
    p = next;
    ++n;
  }
  if (n < 7) return std::nullopt;
  // read I/Os, read merges, read sectors, read ticks, write I/Os, write merges, write sectors
  return disk_requests{f[0], f[2], f[4], f[6]};
}

std::optional<disk_requests> read_disk_requests(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  const std::string where =
      "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev)) + "/stat";
  std::ifstream in(where);
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return parse_disk_stat(line);
}

double kib_per_request(const disk_requests& before, const disk_requests& after, bool writes) {
  const std::uint64_t requests = writes ? after.writes - before.writes : after.reads - before.reads;
  const std::uint64_t sectors = writes ? after.write_sectors - before.write_sectors : after.read_sectors - before.read_sectors;
  return requests == 0 ? 0.0 : double(sectors) * 512.0 / 1024.0 / double(requests);
}

}  // namespace gpmx
