// CRC-32C for swigflow.io.crc32c / masked_crc32c.
%{
#include "swigflow/io/crc32c.h"
%}

%ignoreall
%rename(Crc32cExtend) swigflow::crc32c::Extend;
%rename(Crc32cMask) swigflow::crc32c::Mask;
%rename(Crc32cUnmask) swigflow::crc32c::Unmask;
%rename(Crc32cImplementation) swigflow::crc32c::Implementation;
SWIGFLOW_RELEASE_GIL(swigflow::crc32c::Extend)
%include "swigflow/io/crc32c.h"
%unignoreall
