// TensorFlow's classic first custom op, written against swigflow's headers: ZeroOut keeps the
// first element of an int32 tensor and zeroes the rest.
//
// Build it against the installed wheel and load it from Python:
//
//   g++ -std=c++17 -shared -fPIC zero_out.cc -o zero_out.so $(python -c 'import swigflow.sysconfig
//       as s; print(*s.get_compile_flags(), *s.get_link_flags())')
//   swigflow.load_op_library("./zero_out.so").zero_out(np.array([[5, 2], [3, 4]], np.int32))
#include <cstdint>

#include "swigflow/framework/op.h"

namespace {

using swigflow::DataType;
using swigflow::OpKernel;
using swigflow::OpKernelContext;
using swigflow::Tensor;

REGISTER_OP("ZeroOut")
    .Input("to_zero: int32")
    .Output("zeroed: int32")
    .Doc("A tensor of the input's shape: its first element, then zeros.");

class ZeroOutOp : public OpKernel {
 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* output = ctx->allocate_output(0, input.shape());  // zero-filled
    if (input.num_elements() > 0) output->data<int32_t>()[0] = input.data<int32_t>()[0];
  }
};

REGISTER_KERNEL("ZeroOut", DataType::kInvalid, ZeroOutOp);  // no type attribute

}  // namespace
