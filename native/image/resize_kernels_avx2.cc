// Resize's loops with AVX2 (8-float vectors, byte-to-float conversions in one instruction).
#define SWIGFLOW_RESIZE_ISA avx2
#include "swigflow/image/resize_kernels_impl.h"
