#version 450
// Contiguous casts done on bit patterns (cast_bits.glsl): F32 <-> F64 and F8E4M3 <-> F32, F16,
// BF16. Build with one SRC_* and one DST_* define. Data travels as uint32 words: F8E4M3 four per
// word, F16/BF16 two per word (lane 0 = low bits), F64 as (low word, high word). One thread per
// output word (per element for F64 out); a partly used last word keeps the bits it held past
// the element count.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uint x[]; };
layout(std430, binding = 1) buffer Out { uint y[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

#include "common.glsl"
#include "cast_bits.glsl"

#if defined(SRC_F8E4M3)
#define IN_BITS 8
#elif defined(SRC_F16) || defined(SRC_BF16)
#define IN_BITS 16
#else
#define IN_BITS 32
#endif

#if defined(DST_F8E4M3)
#define OUT_BITS 8
#elif defined(DST_F16) || defined(DST_BF16)
#define OUT_BITS 16
#else
#define OUT_BITS 32
#endif

// Bits of input element i (8/16-bit lanes unpacked; F32 whole words).
uint lane(uint i) {
#if IN_BITS == 32
    return x[i];
#else
    const uint per = 32u / uint(IN_BITS);
    return (x[i / per] >> ((i % per) * uint(IN_BITS))) & ((1u << uint(IN_BITS)) - 1u);
#endif
}

// Bits of output element i.
uint convert(uint i) {
#if defined(DST_F8E4M3) && defined(SRC_F16)
    return f32_to_f8_bits(f16_to_f32_bits(lane(i)));
#elif defined(DST_F8E4M3) && defined(SRC_BF16)
    return f32_to_f8_bits(lane(i) << 16);
#elif defined(DST_F8E4M3)
    return f32_to_f8_bits(lane(i));
#elif defined(SRC_F8E4M3) && defined(DST_F16)
    return f8_to_bits(lane(i), 15u, 10u, 15u, 0x7E00u);
#elif defined(SRC_F8E4M3) && defined(DST_BF16)
    return f8_to_bits(lane(i), 15u, 7u, 127u, 0x7FC0u);
#elif defined(SRC_F8E4M3)
    return f8_to_bits(lane(i), 31u, 23u, 127u, 0x7FC00000u);
#else  // SRC_F64, DST_F32
    return f64_to_f32_bits(x[2u * i], x[2u * i + 1u]);
#endif
}

void main() {
    uint n = m[M_N];
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#ifdef DST_F64
    for (uint i = gl_GlobalInvocationID.x; i < n; i += step) {
        uvec2 d = f32_to_f64_bits(x[i]);
        y[2u * i] = d.x;
        y[2u * i + 1u] = d.y;
    }
#else
    const uint per = 32u / uint(OUT_BITS);
    uint words = (n + per - 1u) / per;
    for (uint w = gl_GlobalInvocationID.x; w < words; w += step) {
        uint count = min(per, n - w * per);
        uint word = 0u;
        for (uint j = 0u; j < count; ++j) word |= convert(w * per + j) << (j * uint(OUT_BITS));
        if (count < per) word |= y[w] & (0xFFFFFFFFu << (count * uint(OUT_BITS)));
        y[w] = word;
    }
#endif
}
