#version 450
// Contiguous casts between F32 and a 16-bit float packed two per uint32 word (lane 0 = low
// half). NARROW: one thread per output word, F32 in; an odd count leaves a padding lane of 0.
// WIDEN: one thread per element, F32 out. HALF_F16 converts with packHalf2x16/unpackHalf2x16;
// HALF_BF16 with the exact bf16 load and the round-to-nearest-even store of bf16.glsl.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uint x[]; };
layout(std430, binding = 1) writeonly buffer Out { uint y[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

#include "common.glsl"
#include "bf16.glsl"

#ifdef HALF_F16
uint narrow_pair(float a, float b) { return packHalf2x16(vec2(a, b)); }
float widen_lane(uint word, uint lane) { return unpackHalf2x16(word)[lane]; }
#else
uint narrow_pair(float a, float b) { return bf16_bits(a) | (bf16_bits(b) << 16); }
float widen_lane(uint word, uint lane) { return bf16_lane(word, lane); }
#endif

void main() {
    uint n = m[M_N];
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
#ifdef NARROW
    uint words = (n + 1u) / 2u;
    for (uint w = gl_GlobalInvocationID.x; w < words; w += step) {
        float lo = uintBitsToFloat(x[2u * w]);
        float hi = 2u * w + 1u < n ? uintBitsToFloat(x[2u * w + 1u]) : 0.0;
        y[w] = narrow_pair(lo, hi);
    }
#else
    for (uint i = gl_GlobalInvocationID.x; i < n; i += step) {
        y[i] = floatBitsToUint(widen_lane(x[i / 2u], i & 1u));
    }
#endif
}
