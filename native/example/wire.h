// Protobuf wire-format primitives: a bounds-checked reader and the writers the encoder needs.
#ifndef SWIGFLOW_EXAMPLE_WIRE_H_
#define SWIGFLOW_EXAMPLE_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace swigflow {
namespace example {
namespace wire {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Reads from [pos, end) of one buffer. Every method returns false, and reads nothing more, when
// the bytes are malformed or run out; offset() then tells where.
class Reader {
 public:
  Reader(const char* begin, const char* end, const char* origin)
      : pos_(begin), end_(end), origin_(origin) {}

  bool done() const { return pos_ == end_; }
  const char* pos() const { return pos_; }
  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }
  size_t offset() const { return static_cast<size_t>(pos_ - origin_); }

  bool ReadVarint(uint64_t* value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ == end_) return false;
      const uint8_t byte = static_cast<uint8_t>(*pos_++);
      result |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) {
        // The tenth byte may only carry the top bit of a 64-bit value.
        if (shift == 63 && byte > 1) return false;
        *value = result;
        return true;
      }
    }
    return false;  // more than ten bytes
  }

  // A tag: field number (> 0) and wire type.
  bool ReadTag(uint32_t* field, WireType* type) {
    uint64_t tag;
    if (!ReadVarint(&tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return false;
    *field = static_cast<uint32_t>(tag >> 3);
    *type = static_cast<WireType>(tag & 7);
    return true;
  }

  bool ReadFixed32(uint32_t* value) {
    if (end_ - pos_ < 4) return false;
    const auto* p = reinterpret_cast<const uint8_t*>(pos_);
    *value =
        uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
    pos_ += 4;
    return true;
  }

  // A length-delimited field: a Reader over its bytes (sharing this one's origin).
  bool ReadDelimited(Reader* sub) {
    uint64_t length;
    if (!ReadVarint(&length) || length > static_cast<uint64_t>(end_ - pos_)) return false;
    *sub = Reader(pos_, pos_ + length, origin_);
    pos_ += length;
    return true;
  }

  // Skips a field of `type` whose tag was just read (groups up to a nesting depth).
  bool Skip(uint32_t field, WireType type, int depth = 0) {
    uint64_t ignored;
    Reader sub(nullptr, nullptr, nullptr);
    switch (type) {
      case kVarint:
        return ReadVarint(&ignored);
      case kFixed64:
        return Advance(8);
      case kLengthDelimited:
        return ReadDelimited(&sub);
      case kFixed32:
        return Advance(4);
      case kStartGroup: {
        if (depth >= 32) return false;
        for (;;) {
          uint32_t inner;
          WireType inner_type;
          if (!ReadTag(&inner, &inner_type)) return false;
          if (inner_type == kEndGroup) return inner == field;
          if (!Skip(inner, inner_type, depth + 1)) return false;
        }
      }
      default:  // kEndGroup without a group, or wire types 6 and 7
        return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (static_cast<size_t>(end_ - pos_) < n) return false;
    pos_ += n;
    return true;
  }

  const char* pos_;
  const char* end_;
  const char* origin_;
};

inline void WriteVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

inline void WriteTag(uint32_t field, WireType type, std::string* out) {
  WriteVarint((uint64_t{field} << 3) | type, out);
}

inline size_t VarintSize(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

}  // namespace wire
}  // namespace example
}  // namespace swigflow

#endif  // SWIGFLOW_EXAMPLE_WIRE_H_
