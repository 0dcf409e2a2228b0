// A custom op whose kernel throws, for the test that exceptions cross from a library built with
// the system's libstdc++ into the extension module, which carries its own: the first element of
// the input picks what is thrown.
#include <cstdint>
#include <new>
#include <stdexcept>

#include "swigflow/framework/op.h"

namespace {

using swigflow::DataType;
using swigflow::OpKernel;
using swigflow::OpKernelContext;

REGISTER_OP("ThrowFromKernel")
    .Input("what: int32")
    .Output("out: int32")
    .Doc("Throws std::bad_alloc (0), std::length_error (1) or std::runtime_error (2).");

class ThrowFromKernelOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const int32_t what = ctx->input(0).data<int32_t>()[0];
    if (what == 0) throw std::bad_alloc();
    if (what == 1) throw std::length_error("vector::reserve");
    if (what == 2) throw std::runtime_error("kernel gave up");
    ctx->allocate_output(0, ctx->input(0).shape());
  }
};

REGISTER_KERNEL("ThrowFromKernel", DataType::kInvalid, ThrowFromKernelOp);

}  // namespace
