#version 450
// F32 batched matmul over contiguous row-major operands: out[b, i, j] = Σ_k lhs[b, i, k]·rhs[b', k, j].
// One thread per output element (grid-stride), fused multiply-add in k order: deterministic.
// Batch axes (left-padded to MAX_RANK): lhs extents at M_SHAPE, GQA ratios lhs/rhs at M_STRIDE0,
// rhs extents at M_STRIDE1; lhs batch index i on an axis reads rhs index i / ratio.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Lhs { float a[]; };
layout(std430, binding = 1) readonly buffer Rhs { float w[]; };
layout(std430, binding = 2) writeonly buffer Out { float y[]; };
layout(std430, binding = 3) readonly buffer Meta { uint m[]; };

#include "common.glsl"

uint rhs_batch(uint b) {
    uint rb = 0u;
    uint scale = 1u;
    for (int d = MAX_RANK - 1; d >= 0; --d) {
        uint extent = m[M_SHAPE + uint(d)];
        rb += ((b % extent) / m[M_STRIDE0 + uint(d)]) * scale;
        scale *= m[M_STRIDE1 + uint(d)];
        b /= extent;
    }
    return rb;
}

void main() {
    uint total = m[M_N];
    uint rows = m[M_PARAM];
    uint cols = m[M_PARAM + 1u];
    uint depth = m[M_PARAM + 2u];
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint o = gl_GlobalInvocationID.x; o < total; o += step) {
        uint j = o % cols;
        uint i = (o / cols) % rows;
        uint b = o / (cols * rows);
        uint lhs0 = (b * rows + i) * depth;
        uint rhs0 = rhs_batch(b) * depth * cols + j;
        float acc = 0.0;
        for (uint kk = 0u; kk < depth; ++kk) {
            acc = fma(a[lhs0 + kk], w[rhs0 + kk * cols], acc);
        }
        y[o] = acc;
    }
}
