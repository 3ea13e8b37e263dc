#include "comm/frame.hpp"

#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <sstream>

namespace lightning::comm {

std::vector<uint8_t> signal_frame(FrameKind kind) {
  return {static_cast<uint8_t>(kind)};
}

std::vector<uint8_t> control_frame(const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> frame;
  frame.reserve(bytes.size() + 1);
  frame.push_back(static_cast<uint8_t>(FrameKind::kControl));
  frame.insert(frame.end(), bytes.begin(), bytes.end());
  return frame;
}

std::vector<uint8_t> data_frame(const DataHeader& header) {
  std::ostringstream os;
  os.put(static_cast<char>(FrameKind::kData));
  {
    cereal::BinaryOutputArchive archive(os);
    archive(header);
  }
  const std::string text = os.str();
  return std::vector<uint8_t>(text.begin(), text.end());
}

DataHeader read_data_frame(const std::vector<uint8_t>& frame) {
  DataHeader h;
  std::istringstream is(std::string(frame.begin() + 1, frame.end()));
  cereal::BinaryInputArchive archive(is);
  archive(h);
  return h;
}

}  // namespace lightning::comm
