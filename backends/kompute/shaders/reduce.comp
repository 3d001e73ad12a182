#version 450
// F32 Sum/Max/Min/Mean reduction over any set of axes of a contiguous input. One workgroup per
// output element (grid-stride over outputs); each thread folds a strided slice of the reduced
// elements, then the workgroup combines the 64 partials by a shared-memory tree.
#extension GL_GOOGLE_include_directive : require

#define WG 64u
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { float x[]; };
layout(std430, binding = 1) writeonly buffer Out { float y[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

#include "common.glsl"

#define OP_SUM 0u
#define OP_MAX 1u
#define OP_MIN 2u
#define OP_MEAN 3u

shared float partial[WG];

float identity(uint op) {
    if (op == OP_MAX) return uintBitsToFloat(0xFF800000u);  // -inf
    if (op == OP_MIN) return uintBitsToFloat(0x7F800000u);  // +inf
    return 0.0;
}

float combine(uint op, float acc, float v) {
    if (op == OP_MAX) return max(acc, v);
    if (op == OP_MIN) return min(acc, v);
    return acc + v;
}

void main() {
    uint n = m[M_N];
    uint op = m[M_OP];
    uint count = m[M_COUNT];
    uint lid = gl_LocalInvocationID.x;
    for (uint o = gl_WorkGroupID.x; o < n; o += gl_NumWorkGroups.x) {
        uint base = strided_offset(o, M_SHAPE, M_STRIDE0);
        float acc = identity(op);
        for (uint r = lid; r < count; r += WG) {
            acc = combine(op, acc, x[base + strided_offset(r, M_STRIDE1, M_STRIDE2)]);
        }
        partial[lid] = acc;
        barrier();
        for (uint s = WG / 2u; s > 0u; s >>= 1) {
            if (lid < s) partial[lid] = combine(op, partial[lid], partial[lid + s]);
            barrier();
        }
        if (lid == 0u) y[o] = op == OP_MEAN ? partial[0] / float(count) : partial[0];
        barrier();
    }
}
