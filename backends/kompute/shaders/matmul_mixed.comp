#version 450
// Mixed-precision batched matmul: lhs, rhs and out each F32, F16 or BF16 (-DLHS_*, -DRHS_*,
// -DOUT_*), contiguous row-major, batch axes with GQA as in matmul.comp. Halves are stored
// natively (16-bit storage); BF16 rides as uint16_t bits, widened exactly (bits << 16). Every
// product and sum is F32 (fused multiply-add in k order: deterministic); the F32 sum is rounded
// once into the output format on store (nearest-even).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require

#include "bf16.glsl"

#if defined(LHS_F16)
#define LT float16_t
#define LLOAD(v) float(v)
#elif defined(LHS_BF16)
#define LT uint16_t
#define LLOAD(v) uintBitsToFloat(uint(v) << 16)
#else
#define LT float
#define LLOAD(v) (v)
#endif

#if defined(RHS_F16)
#define RT float16_t
#define RLOAD(v) float(v)
#elif defined(RHS_BF16)
#define RT uint16_t
#define RLOAD(v) uintBitsToFloat(uint(v) << 16)
#else
#define RT float
#define RLOAD(v) (v)
#endif

#if defined(OUT_F16)
#define OT float16_t
#define OSTORE(c) float16_t(c)
#elif defined(OUT_BF16)
#define OT uint16_t
#define OSTORE(c) uint16_t(bf16_bits(c))
#else
#define OT float
#define OSTORE(c) (c)
#endif

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Lhs { LT a[]; };
layout(std430, binding = 1) readonly buffer Rhs { RT w[]; };
layout(std430, binding = 2) writeonly buffer Out { OT y[]; };
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
            acc = fma(LLOAD(a[lhs0 + kk]), RLOAD(w[rhs0 + kk * cols]), acc);
        }
        y[o] = OSTORE(acc);
    }
}
