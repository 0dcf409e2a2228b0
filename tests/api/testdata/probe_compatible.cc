// CompatProbe evolved compatibly: a new attribute with a default, one more allowed value; and a
// new op beside it.
#include "swigflow/framework/op.h"

REGISTER_OP("CompatProbe")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float}")
    .Attr("mode: {'A', 'B', 'C'} = 'A'")
    .Attr("offset: float = 0")
    .Doc("x, probed.");

REGISTER_OP("CompatProbeV2")
    .Input("x: T")
    .Input("scale: T")
    .Output("y: T")
    .Attr("T: {float}")
    .Doc("x, probed and scaled.");
