#version 450
// Contiguous BF16 unary kernel, pair-thread: one thread per uint32 word = two bf16 lanes,
// f32 math. An odd element count leaves a padding lane in the last word; it is computed and
// discarded by the host.
#extension GL_GOOGLE_include_directive : require
#define C float

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uint x[]; };
layout(std430, binding = 1) writeonly buffer Out { uint y[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

#include "common.glsl"
#include "unary_ops.glsl"
#include "bf16.glsl"

void main() {
    uint words = (m[M_N] + 1u) / 2u;
    uint op = m[M_OP];
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint w = gl_GlobalInvocationID.x; w < words; w += step) {
        uint word = x[w];
        uint lo = bf16_bits(apply_unary(op, bf16_lane(word, 0u)));
        uint hi = bf16_bits(apply_unary(op, bf16_lane(word, 1u)));
        y[w] = lo | (hi << 16);
    }
}
