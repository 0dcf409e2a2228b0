// Resize's loops with AVX-512 (F/BW/DQ/VL): the AVX2 build's loops plus 16-lane two-register
// permutes for the grouped horizontal pass. -ffp-contract=off: AVX-512F has FMA, and a fused
// multiply-add would round differently from the other builds.
#define SWIGFLOW_RESIZE_ISA avx512
#include "swigflow/image/resize_kernels_impl.h"
