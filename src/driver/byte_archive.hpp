// cereal archives over a byte vector, for the wire format: the layout of cereal's own binary
// archives (raw arithmetic values, 64-bit size tags), written and read without a
// std::streambuf. A control message goes out with every launch that involves another rank,
// about ninety fields each; through a stream buffer each field cost some sixty instructions of
// virtual calls and bounds checks, here a copy of a few bytes.
#pragma once

#include <cereal/cereal.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace lightning::driver::rpc {

/// Writes into `out` (emptied); finish() trims it to what was written. The storage doubles
/// when full, so a message costs a few allocations however many fields it has.
class ByteOutputArchive final
    : public cereal::OutputArchive<ByteOutputArchive, cereal::AllowEmptyClassElision> {
 public:
  explicit ByteOutputArchive(std::vector<uint8_t>& out)
      : cereal::OutputArchive<ByteOutputArchive, cereal::AllowEmptyClassElision>(this), out_(out) {
    out_.resize(256);  // most control messages fit
  }

  /// Appends `size` bytes.
  void saveBinary(const void* data, size_t size) {
    if (size > out_.size() - used_) grow(size);
    std::memcpy(out_.data() + used_, data, size);
    used_ += size;
  }
  /// Appends one value: a copy of fixed size, inlined (most fields are one integer).
  template <class T>
  void save_value(const T& t) {
    if (sizeof t > out_.size() - used_) grow(sizeof t);
    std::memcpy(out_.data() + used_, &t, sizeof t);
    used_ += sizeof t;
  }
  /// Gives the vector its final size; nothing may be saved after.
  void finish() { out_.resize(used_); }

 private:
  void grow(size_t size) {
    size_t capacity = 2 * out_.size();
    while (capacity - used_ < size) capacity *= 2;
    out_.resize(capacity);
  }

  std::vector<uint8_t>& out_;
  size_t used_ = 0;
};

/// Reads from bytes that outlive it; reading past their end throws cereal::Exception.
class ByteInputArchive final
    : public cereal::InputArchive<ByteInputArchive, cereal::AllowEmptyClassElision> {
 public:
  ByteInputArchive(const uint8_t* data, size_t size)
      : cereal::InputArchive<ByteInputArchive, cereal::AllowEmptyClassElision>(this),
        next_(data),
        end_(data + size) {}

  /// Takes the next `size` bytes.
  void loadBinary(void* data, size_t size) {
    if (size > static_cast<size_t>(end_ - next_)) truncated(size);
    std::memcpy(data, next_, size);
    next_ += size;
  }
  /// Takes one value: a copy of fixed size, inlined.
  template <class T>
  void load_value(T& t) {
    if (sizeof t > static_cast<size_t>(end_ - next_)) truncated(sizeof t);
    std::memcpy(&t, next_, sizeof t);
    next_ += sizeof t;
  }
  /// Bytes not read yet.
  size_t left() const { return static_cast<size_t>(end_ - next_); }

 private:
  [[noreturn]] void truncated(size_t wanted) const {
    throw cereal::Exception("truncated: " + std::to_string(wanted) + " bytes wanted, " +
                            std::to_string(end_ - next_) + " left");
  }

  const uint8_t* next_;
  const uint8_t* end_;
};

// What cereal's binary archives define for themselves, for these two (cereal finds them by
// argument-dependent lookup in this namespace).
template <class T>
std::enable_if_t<std::is_arithmetic_v<T>> CEREAL_SAVE_FUNCTION_NAME(ByteOutputArchive& a,
                                                                    const T& t) {
  a.save_value(t);
}
template <class T>
std::enable_if_t<std::is_arithmetic_v<T>> CEREAL_LOAD_FUNCTION_NAME(ByteInputArchive& a, T& t) {
  a.load_value(t);
}
template <class T>
void CEREAL_SAVE_FUNCTION_NAME(ByteOutputArchive& a, const cereal::BinaryData<T>& b) {
  a.saveBinary(b.data, static_cast<size_t>(b.size));
}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(ByteInputArchive& a, cereal::BinaryData<T>& b) {
  a.loadBinary(b.data, static_cast<size_t>(b.size));
}
template <class Archive, class T>
CEREAL_ARCHIVE_RESTRICT(ByteInputArchive, ByteOutputArchive)
CEREAL_SERIALIZE_FUNCTION_NAME(Archive& a, cereal::NameValuePair<T>& t) {
  a(t.value);
}
template <class Archive, class T>
CEREAL_ARCHIVE_RESTRICT(ByteInputArchive, ByteOutputArchive)
CEREAL_SERIALIZE_FUNCTION_NAME(Archive& a, cereal::SizeTag<T>& t) {
  a(t.size);
}

}  // namespace lightning::driver::rpc

CEREAL_REGISTER_ARCHIVE(lightning::driver::rpc::ByteOutputArchive)
CEREAL_REGISTER_ARCHIVE(lightning::driver::rpc::ByteInputArchive)
CEREAL_SETUP_ARCHIVE_TRAITS(lightning::driver::rpc::ByteInputArchive,
                            lightning::driver::rpc::ByteOutputArchive)
