// Resize's loops for any x86-64 (SSE2) or other CPU.
#define SWIGFLOW_RESIZE_ISA sse2
#include "swigflow/image/resize_kernels_impl.h"
