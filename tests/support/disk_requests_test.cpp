#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "gpmx/support/disk_requests.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {

TEST(DiskRequests, ParsesTheKernelsStatLine) {
  // A line as /sys/block/vda/stat prints it: reads, merges, sectors, ticks, then the same for writes, ...
  const auto d = gpmx::parse_disk_stat("   12345      678   987654     4321    23456     7890  1234560     8765        0  "
                                       "   9999    13086        0        0        0        0");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->reads, 12345u);
  EXPECT_EQ(d->read_sectors, 987654u);
  EXPECT_EQ(d->writes, 23456u);
  EXPECT_EQ(d->write_sectors, 1234560u);
  EXPECT_FALSE(gpmx::parse_disk_stat("1 2 3"));
  EXPECT_FALSE(gpmx::parse_disk_stat("1 2 x 4 5 6 7"));
}

TEST(DiskRequests, MeanRequestSizeIsSectorsOverRequests) {
  const gpmx::disk_requests before{10, 80, 100, 1000}, after{12, 96, 104, 1512};
  EXPECT_DOUBLE_EQ(gpmx::kib_per_request(before, after, true), 512 * 512.0 / 1024 / 4);  // 4 writes, 512 sectors
  EXPECT_DOUBLE_EQ(gpmx::kib_per_request(before, after, false), 16 * 512.0 / 1024 / 2);  // 2 reads, 16 sectors
  EXPECT_DOUBLE_EQ(gpmx::kib_per_request(before, before, true), 0.0);
}

// On a file system with a block device of its own (where the tests run,
// usually), a synced write shows as at least one more write request.
TEST(DiskRequests, ASyncedWriteReachesTheFilesDevice) {
  const gpmx::scratch_dir dir(std::filesystem::current_path(), "disk-requests");
  const auto file = dir / "f";
  const auto before = gpmx::read_disk_requests(dir.path());
  if (!before) GTEST_SKIP() << dir.path() << " has no block device of its own (tmpfs, overlay)";
  const int fd = ::open(file.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  const std::vector<char> data(1 << 20, 'x');
  ASSERT_EQ(::write(fd, data.data(), data.size()), ssize_t(data.size()));
  ASSERT_EQ(::fdatasync(fd), 0);
  ::close(fd);
  const auto after = gpmx::read_disk_requests(file);
  ASSERT_TRUE(after);
  EXPECT_GT(after->writes, before->writes);
  EXPECT_GE(after->write_sectors - before->write_sectors, std::uint64_t(data.size() / 512));
}

}  // namespace
