#version 450
// Strided unary kernels (F32, F16, F64): out[i] = op(in[offset(i)]) over a rank<=8 view.
// Stride-0 axes broadcast; the output is contiguous. One selector shader per dtype.
#extension GL_GOOGLE_include_directive : require
#include "dtype.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { T x[]; };
layout(std430, binding = 1) writeonly buffer Out { T y[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

#include "common.glsl"
#include "unary_ops.glsl"

void main() {
    uint n = m[M_N];
    uint op = m[M_OP];
    bool contiguous = (m[M_FLAGS] & 1u) != 0u;
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += step) {
        uint src = contiguous ? i : strided_offset(i, M_SHAPE, M_STRIDE0);
        y[i] = T(apply_unary(op, C(x[src])));
    }
}
