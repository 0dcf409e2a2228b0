// 8-bit integer matrix multiplication, u8 x s8 -> s32, in the same Goto/BLIS structure as Sgemm:
// packed panels, a shared packed B per K block, a grid of row and column slivers over the
// threads, and one ISA-specific micro-kernel (int8_micro_kernel.h).
//
// Zero points are not the kernel's business: quantized ops pass the terms they add as
// row_offset[i] + col_offset[j] (from row sums of A and column sums of B, see
// kernels/quantization), so that
//   (a - za)(b - zb) summed over K = sum(a * b) - zb * rowsum(a) - za * colsum(b) + K * za * zb
// runs on the plain u8 x s8 products VNNI multiplies. All arithmetic wraps modulo 2^32 (as
// gemmlowp's int32 accumulators do): every kernel and any number of threads give the same
// integers.
#ifndef SWIGFLOW_KERNELS_GEMM_INT8_GEMM_H_
#define SWIGFLOW_KERNELS_GEMM_INT8_GEMM_H_

#include <cstdint>
#include <vector>

#include "swigflow/framework/cpu_info.h"
#include "swigflow/framework/status.h"
#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/gemm/int8_micro_kernel.h"

namespace swigflow {
namespace kernels {

enum class Int8Isa { kScalar = 0, kAvx2 = 1, kAvxVnni = 2, kAvx512Vnni = 3 };

// "scalar", "avx2", "avx_vnni", "avx512_vnni".
const char* Int8IsaName(Int8Isa isa);

// The best 8-bit kernel within `isa` on this machine: AVX-512 VNNI, else AVX-VNNI, else AVX2.
Int8Isa Int8IsaFor(Isa isa);

// Every 8-bit kernel this machine can run (for tests comparing them).
std::vector<Int8Isa> SupportedInt8Isas();

// The kernel of `isa` (mr, nr, packing) and its cache blocking: mc, kc, nc in rows, K steps and
// columns (kc a multiple of the kernel's group). From SWIGFLOW_INT8_BLOCKING=mc,kc,nc when set,
// else derived from the FP32 config of the same machine (the same bytes per sliver).
struct Int8Blocking {
  gemm::Int8KernelInfo kernel;
  int64_t mc = 0, kc = 0, nc = 0;
};
const Int8Blocking& Int8BlockingFor(Int8Isa isa);

// The right operand: int8, or uint8 taken as (b - 128) in int8 (quint8 weights; callers add
// 128 to its zero point).
struct Int8Right {
  const void* data;
  int64_t ld;
  bool trans;      // stored n x k
  bool unsigned_;  // uint8 storage, flipped to int8 while packing
  // B already packed by PackInt8Right (then the fields above are not read), or null: packed
  // from `data` on every call.
  const uint8_t* packed = nullptr;
};

// B packed once for the products that reuse it (a layer's weights, converted once when the
// layer is made, as BigDL does): the panels GemmU8S8 otherwise packs on every call, after a
// header naming the kernel and blocking they were made for. Any buffer may keep the bytes (a
// uint8 tensor); pass them as Int8Right::packed, with the same isa.
//
// The bytes PackInt8Right writes for a k x n operand. `step_alignment`: the StepAlignment of
// the row sources it will meet (1 for matrices), so their rows can still be read in place.
size_t Int8PackedBytes(int64_t k, int64_t n, Int8Isa isa, int64_t step_alignment = 1);
void PackInt8Right(const Int8Right& b, int64_t k, int64_t n, Int8Isa isa, int64_t step_alignment,
                   uint8_t* dst);
// OK when `packed` (size bytes) is a whole packing for isa's kernel and this process's blocking
// (SWIGFLOW_INT8_BLOCKING changes it), *k and *n then its operand's shape; InvalidArgument saying
// what differs otherwise.
Status CheckInt8Packed(const uint8_t* packed, size_t size, Int8Isa isa, int64_t* k, int64_t* n);

// Room for one sliver's Int8RowRuns: mr origins, mr offset table pointers, and mr tables of
// kc / StepAlignment() offsets for rows whose runs a shared table does not give.
struct Int8RunsSlot {
  uintptr_t* origins;
  const int64_t** offsets;
  int64_t* tables;
};

// A left operand produced on the fly (implicit im2col): writes rows [i0, i0 + rows) x K steps
// [p0, p0 + kc) of A row-major into dst (row stride ld).
class Int8RowSource {
 public:
  virtual ~Int8RowSource() = default;
  virtual void Rows(int64_t i0, int64_t rows, int64_t p0, int64_t kc, uint8_t* dst,
                    int64_t ld) const = 0;
  // The same rows written straight in a byte kernel's layout for groups of 4 steps: slivers of
  // mr rows, group g of a sliver's row r at (g * mr + r) * 4, rows past `rows` zero (p0 and kc
  // are multiples of 4). False when the source cannot; the driver then packs Rows' output. A
  // source that can saves one pass over A (an im2col source: its copy).
  virtual bool PackGroupsOf4(int64_t i0, int64_t rows, int64_t p0, int64_t kc, int mr,
                             uint8_t* dst) const {
    return false;
  }
  // Rows [i0, i0 + rows) (rows <= mr) x steps [p0, p0 + kc) as runs a rows kernel reads in place
  // (Int8RowRuns), written into `slot`; *runs then points there or at tables the source keeps.
  // False when the source cannot; the driver then packs. Runs are StepAlignment() steps of
  // whole groups of 4, and kc a multiple of it.
  virtual bool RowRuns(int64_t i0, int rows, int64_t p0, int64_t kc, int mr,
                       const Int8RunsSlot& slot, gemm::Int8RowRuns* runs) const {
    return false;
  }
  // A K step count the driver's K blocks should be a multiple of, for RowRuns (1: any).
  virtual int64_t StepAlignment() const { return 1; }
};

// Work on each finished block of C: called once per block (all K steps accumulated, offsets
// added) on the thread that computed it, while the block is still in cache. Fused ops turn the
// int32 sums into their 8-bit outputs here, in the same pass. Blocks do not overlap and cover C.
class Int8Epilogue {
 public:
  virtual ~Int8Epilogue() = default;
  // Rows [i0, i0 + rows) x columns [j0, j0 + cols) of C; `c` points at element (i0, j0).
  virtual void Finish(int64_t i0, int64_t rows, int64_t j0, int64_t cols, const int32_t* c,
                      int64_t ldc) const = 0;
  // Finish's work as a kernel can do it on a finished tile in its registers (out, scale and bias
  // at C's element (0, 0)), or null when only Finish can. The driver uses it when the kernel
  // can and K is one block; C is then not written.
  virtual const gemm::Int8Requantize* Requantize() const { return nullptr; }
};

// C[m x n] = op(A)[m x k] * B'[k x n] (+ row_offset[i] + col_offset[j] when row_offset is not
// null; both or neither), then `epilogue` on each block when given. A is uint8 row-major
// (stored k x m when trans_a).
void GemmU8S8(bool trans_a, int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda,
              const Int8Right& b, int32_t* c, int64_t ldc, const int32_t* row_offset,
              const int32_t* col_offset, Int8Isa isa, ThreadPool* pool = ThreadPool::Default(),
              const Int8Epilogue* epilogue = nullptr);

// The same with A from `source`.
void GemmU8S8(const Int8RowSource& source, int64_t m, int64_t n, int64_t k, const Int8Right& b,
              int32_t* c, int64_t ldc, const int32_t* row_offset, const int32_t* col_offset,
              Int8Isa isa, ThreadPool* pool = ThreadPool::Default(),
              const Int8Epilogue* epilogue = nullptr);

}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_INT8_GEMM_H_
