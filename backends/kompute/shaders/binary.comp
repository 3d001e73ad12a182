#version 450
// Binary kernels with per-operand strides: out[i] = op(lhs[offset0(i)], rhs[offset1(i)]).
// Each operand arrives already broadcast to the output shape (stride 0 on broadcast axes).
// F32/F16/F64 run one thread per element; BF16 (-DDT_BF16) is lane-masked: one thread per
// output word computes both lanes, gathering each operand lane from its own word.
#extension GL_GOOGLE_include_directive : require
#ifdef DT_BF16
#define T uint
#define C float
#else
#include "dtype.glsl"
#endif

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Lhs { T a[]; };
layout(std430, binding = 1) readonly buffer Rhs { T b[]; };
layout(std430, binding = 2) writeonly buffer Out { T y[]; };
layout(std430, binding = 3) readonly buffer Meta { uint m[]; };

#include "common.glsl"
#include "binary_ops.glsl"

uint operand_offset(uint i, uint flag, uint stride_at) {
    return (m[M_FLAGS] & flag) != 0u ? i : strided_offset(i, M_SHAPE, stride_at);
}

#ifdef DT_BF16
#include "bf16.glsl"

uint lane_result(uint op, uint e) {
    uint ia = operand_offset(e, 1u, M_STRIDE0);
    uint ib = operand_offset(e, 2u, M_STRIDE1);
    float va = bf16_lane(a[ia >> 1], ia & 1u);
    float vb = bf16_lane(b[ib >> 1], ib & 1u);
    return bf16_bits(apply_binary(op, va, vb));
}

void main() {
    uint n = m[M_N];
    uint op = m[M_OP];
    uint words = (n + 1u) / 2u;
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint w = gl_GlobalInvocationID.x; w < words; w += step) {
        uint lo = lane_result(op, 2u * w);
        uint hi = 2u * w + 1u < n ? lane_result(op, 2u * w + 1u) : 0u;
        y[w] = lo | (hi << 16);
    }
}
#else
void main() {
    uint n = m[M_N];
    uint op = m[M_OP];
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += step) {
        C va = C(a[operand_offset(i, 1u, M_STRIDE0)]);
        C vb = C(b[operand_offset(i, 2u, M_STRIDE1)]);
        y[i] = T(apply_binary(op, va, vb));
    }
}
#endif
