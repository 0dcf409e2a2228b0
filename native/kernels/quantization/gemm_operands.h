// 8-bit tensors as operands of the u8 x s8 GEMM (kernels/gemm/int8_gemm.h), for every
// quantized op that multiplies.
//
// TensorFlow computes sum((a - za) * (b - zb)) in int32 (za, zb: the quantized values of 0.0);
// here the same integers come from u8 x s8 products plus zero-point terms:
//   - a qint8 left operand becomes uint8 by adding 128 to values and zero point, a quint8 right
//     operand becomes int8 by subtracting 128 (both exact; the products never saturate);
//   - sum((a - za)(b - zb)) = sum(a * b) - zb * rowsum(a) - za * colsum(b) + K * za * zb,
//     all modulo 2^32 as int32 accumulators wrap.
#ifndef SWIGFLOW_KERNELS_QUANTIZATION_GEMM_OPERANDS_H_
#define SWIGFLOW_KERNELS_QUANTIZATION_GEMM_OPERANDS_H_

#include <cstdint>
#include <vector>

#include "swigflow/framework/tensor.h"
#include "swigflow/kernels/gemm/int8_gemm.h"

namespace swigflow {
namespace quantization {

// One 8-bit operand: its storage, and its zero point (the quantized value of 0.0) in the
// domain the GEMM sees (uint8 for the left operand, int8 for the right one).
struct Operand8 {
  const uint8_t* data;
  bool is_signed;  // qint8
  int32_t zero;
};

// The GEMM operand for 8-bit tensor `t` quantized over [min, max] with TensorFlow's
// MIN_COMBINED-style zero point; `left`: the uint8 side.
Operand8 OperandOf(const Tensor& t, float min, float max, bool left);

// The same with zero point 0 (SCALED quantization: 0.0 is the value 0), shifted into the
// GEMM's domain as above.
Operand8 ScaledOperandOf(const Tensor& t, bool left);

// The zero-point terms of C = sum((a - za)(b - zb)): row_offset[i] = -zb * rowsum(a)[i] +
// K * za * zb, col_offset[j] = -za * colsum(b)[j], from the sums already in the vectors.
void ZeroPointTerms(int32_t za, int32_t zb, int64_t k, std::vector<int32_t>* row_sums,
                    std::vector<int32_t>* col_sums);

// The sum of n bytes, as uint8 or int8.
int32_t ByteSum(const uint8_t* data, int64_t n, bool is_signed);

// The matrix op(B) as the GEMM's right operand, and its column sums in the int8 domain into
// *col_sums unless it is null (a pass over all of B: callers whose zero-point terms do not use
// the sums skip it).
kernels::Int8Right RightOf(const Operand8& b, int64_t ld, bool trans, int64_t k, int64_t n,
                           std::vector<int32_t>* col_sums);

// The left operand as uint8: itself, or a qint8 tensor shifted by 128 into `copy`.
const uint8_t* LeftBytes(const Operand8& a, int64_t n, std::vector<uint8_t>* copy);

}  // namespace quantization
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_QUANTIZATION_GEMM_OPERANDS_H_
