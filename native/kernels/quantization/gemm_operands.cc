#include "swigflow/kernels/quantization/gemm_operands.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "swigflow/kernels/quantization/quantization_utils.h"

namespace swigflow {
namespace quantization {
namespace {

bool IsSigned(const Tensor& t) {
  return t.dtype() == DataType::kQInt8 || t.dtype() == DataType::kInt8;
}

// Zero point `z` of `t` moved into the GEMM's domain for its side.
int32_t GemmZero(int32_t z, bool is_signed, bool left) {
  // TensorFlow keeps the zero point as int32; the GEMM's domain shifts it by 128 where the
  // values shift.
  if (left && is_signed) return static_cast<int32_t>(static_cast<uint32_t>(z) + 128u);
  if (!left && !is_signed) return static_cast<int32_t>(static_cast<uint32_t>(z) - 128u);
  return z;
}

}  // namespace

Operand8 OperandOf(const Tensor& t, float min, float max, bool left) {
  const bool is_signed = IsSigned(t);
  const int64_t zero = is_signed ? FloatToQuantizedUnclamped<int8_t>(0.0f, min, max)
                                 : FloatToQuantizedUnclamped<uint8_t>(0.0f, min, max);
  return Operand8{static_cast<const uint8_t*>(t.raw()), is_signed,
                  GemmZero(static_cast<int32_t>(zero), is_signed, left)};
}

Operand8 ScaledOperandOf(const Tensor& t, bool left) {
  const bool is_signed = IsSigned(t);
  return Operand8{static_cast<const uint8_t*>(t.raw()), is_signed, GemmZero(0, is_signed, left)};
}

void ZeroPointTerms(int32_t za, int32_t zb, int64_t k, std::vector<int32_t>* row_sums,
                    std::vector<int32_t>* col_sums) {
  const uint32_t uza = static_cast<uint32_t>(za), uzb = static_cast<uint32_t>(zb);
  const uint32_t constant = static_cast<uint32_t>(k) * uza * uzb;
  for (int32_t& r : *row_sums) r = static_cast<int32_t>(constant - uzb * static_cast<uint32_t>(r));
  for (int32_t& c : *col_sums) c = static_cast<int32_t>(0u - uza * static_cast<uint32_t>(c));
}

int32_t ByteSum(const uint8_t* data, int64_t n, bool is_signed) {
  int32_t sum = 0;
  if (is_signed) {
    const auto* s = reinterpret_cast<const int8_t*>(data);
    for (int64_t i = 0; i < n; ++i) sum += s[i];
  } else {
    for (int64_t i = 0; i < n; ++i) sum += data[i];
  }
  return sum;
}

kernels::Int8Right RightOf(const Operand8& b, int64_t ld, bool trans, int64_t k, int64_t n,
                           std::vector<int32_t>* col_sums) {
  const kernels::Int8Right right{b.data, ld, trans, !b.is_signed};
  if (col_sums == nullptr) return right;
  col_sums->assign(static_cast<size_t>(n), 0);
  int32_t* sums = col_sums->data();  // |sum| < 2^31 for any k < 2^24
  const int shift = b.is_signed ? 0 : -128;
  if (trans) {
    for (int64_t j = 0; j < n; ++j) sums[j] = ByteSum(b.data + j * ld, k, b.is_signed) + shift * k;
  } else {
    // Row by row: contiguous loops the compiler vectorizes.
    for (int64_t p = 0; p < k; ++p) {
      const uint8_t* row = b.data + p * ld;
      if (b.is_signed) {
        const auto* srow = reinterpret_cast<const int8_t*>(row);
        for (int64_t j = 0; j < n; ++j) sums[j] += srow[j];
      } else {
        for (int64_t j = 0; j < n; ++j) sums[j] += row[j] + shift;
      }
    }
  }
  return right;
}

const uint8_t* LeftBytes(const Operand8& a, int64_t n, std::vector<uint8_t>* copy) {
  if (!a.is_signed) return a.data;
  copy->resize(static_cast<size_t>(n));
  for (size_t i = 0; i < copy->size(); ++i) (*copy)[i] = a.data[i] ^ 0x80;
  return copy->data();
}

}  // namespace quantization
}  // namespace swigflow
