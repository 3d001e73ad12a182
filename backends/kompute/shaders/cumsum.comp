#version 450
// Inclusive prefix sum along one axis of a strided view (F32, F16, F64; BF16 with -DDT_BF16).
// One thread per lane (an index of every axis but the scanned one), grid-stride over lanes; the
// lane folds its elements in order in the accumulator C (f32 for halves) and stores each prefix.
// M_SHAPE: input shape with the scanned axis set to 1; M_STRIDE0: input strides;
// M_DIM_STRIDE: input stride of the scanned axis; M_COUNT: its extent; M_PARAM: inner count.
#extension GL_GOOGLE_include_directive : require
#ifdef DT_BF16
#extension GL_EXT_shader_16bit_storage : require
#define T uint16_t
#define C float
#include "bf16.glsl"
#define LOAD(v) uintBitsToFloat(uint(v) << 16)
#define STORE(c) uint16_t(bf16_bits(c))
#else
#include "dtype.glsl"
#define LOAD(v) C(v)
#define STORE(c) T(c)
#endif

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { T x[]; };
layout(std430, binding = 1) writeonly buffer Out { T y[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

#include "common.glsl"

void main() {
    uint lanes = m[M_N];
    uint count = m[M_COUNT];
    uint dstride = m[M_DIM_STRIDE];
    uint inner = m[M_PARAM];
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint lane = gl_GlobalInvocationID.x; lane < lanes; lane += step) {
        uint src = strided_offset(lane, M_SHAPE, M_STRIDE0);
        uint dst = (lane / inner) * count * inner + lane % inner;
        C acc = C(0.0);
        for (uint d = 0u; d < count; ++d) {
            acc += LOAD(x[src + d * dstride]);
            y[dst + d * inner] = STORE(acc);
        }
    }
}
