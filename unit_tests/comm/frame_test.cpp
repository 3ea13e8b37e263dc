// The wire format: every frame kind starts with its byte, and a data header comes back as it
// was sent.
#include "comm/frame.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace lightning::comm {
namespace {

TEST(Frame, ADataHeaderComesBackWhole) {
  DataHeader h;
  h.tag = 1ull << 40;
  h.from = 3;
  h.to = 5;
  h.size = 100;
  h.payload_tag = 17;
  h.failed_task = 42;
  h.inline_payload = Payload{1, 2, 3};
  const std::vector<uint8_t> frame = data_frame(h);
  ASSERT_FALSE(frame.empty());
  EXPECT_EQ(frame[0], static_cast<uint8_t>(FrameKind::kData));
  const DataHeader back = read_data_frame(frame);
  EXPECT_EQ(back.tag, h.tag);
  EXPECT_EQ(back.from, 3u);
  EXPECT_EQ(back.to, 5u);
  EXPECT_EQ(back.size, 100u);
  EXPECT_EQ(back.payload_tag, 17);
  EXPECT_EQ(back.failed_task, 42u);
  EXPECT_EQ(back.inline_payload, (Payload{1, 2, 3}));
}

TEST(Frame, ATruncatedDataHeaderThrows) {
  DataHeader h;
  h.inline_payload = Payload{1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> frame = data_frame(h);
  frame.resize(frame.size() - 4);
  EXPECT_ANY_THROW(read_data_frame(frame));
}

TEST(Frame, ControlAndSignalFramesStartWithTheirKind) {
  EXPECT_EQ(signal_frame(FrameKind::kHeartbeat), std::vector<uint8_t>{0});
  EXPECT_EQ(signal_frame(FrameKind::kGoodbye), std::vector<uint8_t>{3});
  EXPECT_EQ(control_frame({9, 8}), (std::vector<uint8_t>{1, 9, 8}));
}

}  // namespace
}  // namespace lightning::comm
