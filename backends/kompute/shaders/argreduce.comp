#version 450
// ArgMax/ArgMin along one axis of a contiguous input (F32, F16, F64, and BF16 read as packed
// words with -DDT_BF16); U32 index out. One workgroup per output element; each thread keeps its
// best (value, index) pair, then a shared-memory tree merges them, lower index winning ties.
#extension GL_GOOGLE_include_directive : require
#ifdef DT_BF16
#define T uint
#define C float
#else
#include "dtype.glsl"
#endif

#define WG 64u
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { T x[]; };
layout(std430, binding = 1) writeonly buffer Out { uint y[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

#include "common.glsl"

#define OP_ARGMAX 0u
#define NO_INDEX 0xFFFFFFFFu

shared C best_value[WG];
shared uint best_index[WG];

#ifdef DT_BF16
#include "bf16.glsl"
C load(uint e) { return bf16_lane(x[e >> 1], e & 1u); }
#else
C load(uint e) { return C(x[e]); }
#endif

// Is (v, i) strictly better than (bv, bi)? A missing index never wins and always loses; NaN
// never wins (the contracts' rule) and loses to any number, so a NaN can neither take a thread's
// slot nor survive the tree merge against a number. An all-NaN slice keeps no index: index 0.
bool better(uint op, C v, uint i, C bv, uint bi) {
    if (i == NO_INDEX || isnan(v)) return false;
    if (bi == NO_INDEX || isnan(bv)) return true;
    bool wins = op == OP_ARGMAX ? v > bv : v < bv;
    return wins || (v == bv && i < bi);
}

void main() {
    uint n = m[M_N];
    uint op = m[M_OP];
    uint count = m[M_COUNT];
    uint dim_stride = m[M_DIM_STRIDE];
    uint lid = gl_LocalInvocationID.x;
    for (uint o = gl_WorkGroupID.x; o < n; o += gl_NumWorkGroups.x) {
        uint base = strided_offset(o, M_SHAPE, M_STRIDE0);
        C bv = C(0);
        uint bi = NO_INDEX;
        for (uint r = lid; r < count; r += WG) {
            C v = load(base + r * dim_stride);
            if (better(op, v, r, bv, bi)) {
                bv = v;
                bi = r;
            }
        }
        best_value[lid] = bv;
        best_index[lid] = bi;
        barrier();
        for (uint s = WG / 2u; s > 0u; s >>= 1) {
            if (lid < s && better(op, best_value[lid + s], best_index[lid + s],
                                  best_value[lid], best_index[lid])) {
                best_value[lid] = best_value[lid + s];
                best_index[lid] = best_index[lid + s];
            }
            barrier();
        }
        if (lid == 0u) y[o] = best_index[0] == NO_INDEX ? 0u : best_index[0];
        barrier();
    }
}
