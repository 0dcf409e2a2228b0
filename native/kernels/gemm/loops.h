// The loops around the micro-kernel (Goto's and BLIS's), written once for the FP32 and the
// 8-bit GEMM:
//
//   for each column block jc of C (nc columns)
//     for each K block pc (kc steps)
//       B's kc x nc panel: product.Panel (once), then packed by the threads together
//       the panel's tiles split over the threads in a grid (ChooseGrid); each thread:
//         for each block ic of its rows (at most mc rows, all of equal size)
//           A's block: packed or read where it lies, and the tile kernel chosen, once
//           for each column sliver s (nr columns)
//             for each row sliver ir (mr rows): the tile
//           the block's epilogue
//
// Every element of C is summed by one thread over the K blocks in K order, so results do not
// depend on the number of threads. What a product does at each level (element types, how A and
// B reach their packed form, the kernel flavours, epilogues) is the Product's:
//
//   void Panel(const LoopPanel&)            B's panel is about to be used (one thread)
//   bool PacksB() const                     whether B's panels are packed by the threads
//   void PackB(const LoopPanel&, s0, s1)    packs slivers [s0, s1) of the panel
//   W Work(const LoopPanel&, rows)          a thread's state for blocks of at most `rows` rows;
//                                           W has:
//     void Block(ic, mc, body)                readies A's block and calls body(tile) once, tile
//                                             being the kernel chosen for the whole block:
//                                             tile(sliver, ir, rows, s, cols)
//     B Sliver(s, cols)                       column sliver s of the panel, as tile takes it
//     void EndBlock(ic, mc, s_begin, s_end)   after the block's tiles (epilogues)
#ifndef SWIGFLOW_KERNELS_GEMM_LOOPS_H_
#define SWIGFLOW_KERNELS_GEMM_LOOPS_H_

#include <algorithm>
#include <cstdint>

#include "swigflow/framework/thread_pool.h"
#include "swigflow/kernels/gemm/partition.h"

namespace swigflow {
namespace kernels {
namespace gemm {

// The tile and block sizes the loops step by.
struct LoopSizes {
  int mr = 1, nr = 1;              // a tile: mr rows x nr columns
  int64_t mc = 1, kc = 1, nc = 1;  // a block of A: at most mc rows; K blocks; C's column blocks
};

// One K block of one column block.
struct LoopPanel {
  int64_t jc = 0, nc = 0;  // C's columns [jc, jc + nc)
  int64_t pc = 0, kc = 0;  // K steps [pc, pc + kc)
  bool first = false;      // the first K block of the product's range
  bool last = false;       // and the last
};

// B's panels in the order the loops use them: column blocks of nc, and within one K blocks of kc
// over [k_begin, k_end); fn(panel) for each. The one walk of that order: RunLoops, and the 8-bit
// prepacked weights' size and packer (whose panels RunLoops then meets in the order they lie).
template <typename Fn>
void ForEachPanel(const LoopSizes& sizes, int64_t n, int64_t k_begin, int64_t k_end, Fn&& fn) {
  for (int64_t jc = 0; jc < n; jc += sizes.nc) {
    for (int64_t pc = k_begin; pc < k_end; pc += sizes.kc) {
      LoopPanel panel;
      panel.jc = jc;
      panel.nc = std::min(sizes.nc, n - jc);
      panel.pc = pc;
      panel.kc = std::min(sizes.kc, k_end - pc);
      panel.first = pc == k_begin;
      panel.last = pc + panel.kc >= k_end;
      fn(panel);
    }
  }
}

// C's rows [0, m) x columns [0, n) over K steps [k_begin, k_end), on `threads` parts of `pool`
// (null: this thread).
template <typename Product>
void RunLoops(Product& product, const LoopSizes& sizes, int64_t m, int64_t n, int64_t k_begin,
              int64_t k_end, int64_t threads, ThreadPool* pool) {
  const int mr = sizes.mr, nr = sizes.nr;
  const int64_t row_slivers = (m + mr - 1) / mr;
  ForEachPanel(sizes, n, k_begin, k_end, [&](const LoopPanel& panel) {
    const int64_t nc = panel.nc;
    const int64_t col_slivers = (nc + nr - 1) / nr;
    const Grid grid = ChooseGrid(threads, row_slivers, col_slivers);
    // Packed by column groups like the grid's when it splits columns only: each thread then
    // packs what it multiplies.
    const int64_t pack_parts = grid.rows == 1 ? grid.cols : std::min(threads, col_slivers);
    product.Panel(panel);
    if (product.PacksB()) {
      RunParts(pool, pack_parts, [&](int64_t part) {
        product.PackB(panel, col_slivers * part / pack_parts,
                      col_slivers * (part + 1) / pack_parts);
      });
    }
    RunParts(pool, grid.rows * grid.cols, [&](int64_t part) {
      const int64_t gr = part / grid.cols, gc = part % grid.cols;
      const int64_t i_begin = row_slivers * gr / grid.rows * mr;
      const int64_t i_end = std::min(m, row_slivers * (gr + 1) / grid.rows * mr);
      const int64_t s_begin = col_slivers * gc / grid.cols;
      const int64_t s_end = col_slivers * (gc + 1) / grid.cols;
      if (i_begin >= i_end || s_begin >= s_end) return;
      // Blocks of equal size (whole slivers) rather than full blocks and a short last one:
      // each B sliver is then used by as many A slivers in every block.
      const int64_t slivers = (i_end - i_begin + mr - 1) / mr;
      const int64_t blocks = (slivers * mr + sizes.mc - 1) / sizes.mc;
      const int64_t block_rows = (slivers + blocks - 1) / blocks * mr;
      auto worker = product.Work(panel, block_rows);
      for (int64_t ic = i_begin; ic < i_end; ic += block_rows) {
        const int64_t mc = std::min(block_rows, i_end - ic);
        worker.Block(ic, mc, [&](const auto& tile) {
          for (int64_t s = s_begin; s < s_end; ++s) {
            const int cols = static_cast<int>(std::min<int64_t>(nr, nc - s * nr));
            const auto sliver = worker.Sliver(s, cols);
            for (int64_t ir = 0; ir < mc; ir += mr) {
              tile(sliver, ir, static_cast<int>(std::min<int64_t>(mr, mc - ir)), s, cols);
            }
          }
        });
        worker.EndBlock(ic, mc, s_begin, s_end);
      }
    });
  });
}

}  // namespace gemm
}  // namespace kernels
}  // namespace swigflow

#endif  // SWIGFLOW_KERNELS_GEMM_LOOPS_H_
