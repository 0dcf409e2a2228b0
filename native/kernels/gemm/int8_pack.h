// The 8-bit GEMM's packed panels (the layout int8_micro_kernel.h describes) and the packers
// that make them: A's blocks from matrices and row sources, B's panels from int8 or uint8
// weights. Internal to int8_gemm; SSE2 only (part of x86-64), so no run-time dispatch.
#ifndef SWIGFLOW_KERNELS_GEMM_INT8_PACK_H_
#define SWIGFLOW_KERNELS_GEMM_INT8_PACK_H_

#include <cstddef>
#include <cstdint>

#include "swigflow/kernels/gemm/int8_gemm.h"
#include "swigflow/kernels/gemm/int8_micro_kernel.h"

namespace swigflow {
namespace kernels {
namespace int8 {

using gemm::Int8Element;
using gemm::Int8KernelInfo;

inline int ElementBytes(const Int8KernelInfo& kernel) {
  return kernel.element == Int8Element::kBytes ? 1 : 2;
}

// Groups of K steps in kc steps (the last one zero-padded).
inline int64_t GroupsOf(const Int8KernelInfo& kernel, int64_t kc) {
  return (kc + kernel.k_group - 1) / kernel.k_group;
}

// Bytes of one packed sliver of kc steps: of A (`width` = mr) or of B (`width` = nr).
inline int64_t SliverBytes(const Int8KernelInfo& kernel, int64_t kc, int width) {
  return GroupsOf(kernel, kc) * width * kernel.k_group * ElementBytes(kernel);
}

// Bytes of B's packed kc x nc panel: whole slivers of nr columns.
inline int64_t PanelBytes(const Int8KernelInfo& kernel, int64_t kc, int64_t nc) {
  return (nc + kernel.nr - 1) / kernel.nr * SliverBytes(kernel, kc, kernel.nr);
}

// K steps per block: `blocking`'s, rounded to whole runs of a row source read in place (its
// StepAlignment `align`, when that is whole groups and the kernel reads rows in place).
int64_t BlockK(const Int8Blocking& blocking, int64_t align);

// Scratch buffer `which` (0: A's block, 1: B's panel, 2: a row source's rows) of the calling
// thread, at least n bytes, contents undefined. Grown,
// never shrunk.
uint8_t* ScratchBytes(int which, size_t n);

// Writes `count` values of one packed group: bytes as they are, or widened to int16.
template <typename Value>
inline void PutGroup(const Int8KernelInfo& kernel, const Value* values, void* dst) {
  if (kernel.element == Int8Element::kBytes) {
    auto* d = static_cast<int8_t*>(dst);
    for (int t = 0; t < kernel.k_group; ++t) d[t] = static_cast<int8_t>(values[t]);
  } else {
    auto* d = static_cast<int16_t*>(dst);
    for (int t = 0; t < kernel.k_group; ++t) d[t] = static_cast<int16_t>(values[t]);
  }
}

// Rows [i0, i0 + mc) x steps [p0, p0 + kc) of A (row i, step p at at(i, p)) as the kernel's
// slivers of mr rows, zero past the last row and step.
template <typename At>
void PackA(const Int8KernelInfo& kernel, const At& at, int64_t mc, int64_t kc, uint8_t* dst) {
  const int mr = kernel.mr, group = kernel.k_group;
  const int64_t groups = GroupsOf(kernel, kc);
  const int64_t group_bytes = group * ElementBytes(kernel);
  for (int64_t ir = 0; ir < mc; ir += mr) {
    for (int r = 0; r < mr; ++r) {
      const bool valid = ir + r < mc;
      for (int64_t g = 0; g < groups; ++g) {
        int values[4] = {0, 0, 0, 0};
        for (int t = 0; t < group; ++t) {
          const int64_t p = g * group + t;
          if (valid && p < kc) values[t] = at(ir + r, p);
        }
        // Unsigned bytes: PutGroup's int8 store keeps the bit pattern.
        PutGroup(kernel, values, dst + (g * mr + r) * group_bytes);
      }
    }
    dst += groups * mr * group_bytes;
  }
}

// PackA for byte groups from rows in memory (row i at a[i * lda]): whole groups copied as words.
void PackRowBytes(const Int8KernelInfo& kernel, const uint8_t* a, int64_t lda, int64_t mc,
                  int64_t kc, uint8_t* dst);

// Steps [p0, p0 + kc) x columns [j0, j0 + nc) of B' as slivers of nr columns, zero past the
// last column and step.
void PackB(const Int8KernelInfo& kernel, const Int8Right& b, int64_t p0, int64_t j0, int64_t kc,
           int64_t nc, uint8_t* dst);

}  // namespace int8
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_INT8_PACK_H_
