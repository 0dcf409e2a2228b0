// CompatProbe changed in ways that break its callers: a new input, and a value of `mode` gone.
#include "swigflow/framework/op.h"

REGISTER_OP("CompatProbe")
    .Input("x: T")
    .Input("scale: float")
    .Output("y: T")
    .Attr("T: {float}")
    .Attr("mode: {'A'} = 'A'")
    .Doc("x, probed.");
