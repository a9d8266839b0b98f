// The NVMe entry formats and command builders.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "gpmx/storage/nvme.hpp"

namespace {
using namespace gpmx::storage;

TEST(NvmeFormat, EntriesHaveTheSpecificationsLayout) {
  EXPECT_EQ(sizeof(nvme_command), 64u);
  EXPECT_EQ(offsetof(nvme_command, cid), 2u);
  EXPECT_EQ(offsetof(nvme_command, prp1), 24u);
  EXPECT_EQ(offsetof(nvme_command, cdw10), 40u);
  EXPECT_EQ(sizeof(nvme_completion), 16u);
  EXPECT_EQ(offsetof(nvme_completion, sqhd), 8u);
  EXPECT_EQ(offsetof(nvme_completion, cid), 12u);
  EXPECT_EQ(offsetof(nvme_completion, status), 14u);
}

TEST(NvmeFormat, ReadCommandCarriesLbaCountAndBuffer) {
  char buffer[8];
  const nvme_command c = make_io_command(nvme_opcode::read, 0x123456789aull, 8, buffer);
  EXPECT_EQ(c.opcode, 0x02);
  EXPECT_EQ(c.slba(), 0x123456789aull);
  EXPECT_EQ(c.cdw10, 0x3456789au);
  EXPECT_EQ(c.cdw11, 0x12u);
  EXPECT_EQ(c.cdw12, 7u);  // zero-based count
  EXPECT_EQ(c.blocks(), 8u);
  EXPECT_EQ(c.prp1, reinterpret_cast<std::uintptr_t>(buffer));
  EXPECT_EQ(make_io_command(nvme_opcode::write, 0, 65536, buffer).blocks(), 65536u);
  EXPECT_EQ(make_flush_command().opcode, 0x00);
}

TEST(NvmeFormat, CompletionSplitsPhaseAndStatus) {
  nvme_completion e;
  e.status = std::uint16_t((0x80 << 1) | 1);
  EXPECT_TRUE(e.phase());
  EXPECT_EQ(e.status_code(), 0x80);
  EXPECT_EQ(std::string(status_name(0x80)), "LBA out of range");
}

}  // namespace
