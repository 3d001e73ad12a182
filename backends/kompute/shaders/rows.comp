#version 450
// F32 row ops over the last axis of a contiguous input: softmax, RMS norm, layer norm (no
// affine). One workgroup per row (grid-stride over rows); each thread folds a strided slice of
// the row, the workgroup combines the 64 partials by a shared-memory tree, then every thread
// writes its slice. Everything, the accumulators included, is F32.
//   softmax: m = max (a NaN counts as +inf), then S = sum exp(x - m), then exp(x - m) / S; a row
//            whose m is not finite (NaN, +inf, or only -inf) is NaN; -inf beside a finite m is +0.
//   rms:     x / sqrt(sum(x^2) / n + eps)
//   layer:   mean, then v = sum((x - mean)^2) / n (two passes), then (x - mean) / sqrt(v + eps)
// The metadata holds the row count (M_N), the row length (M_COUNT) and eps's f32 bits (M_PARAM).
#extension GL_GOOGLE_include_directive : require

#define WG 64u
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { float x[]; };
layout(std430, binding = 1) writeonly buffer Out { float y[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

#include "common.glsl"

#define OP_SOFTMAX 0u
#define OP_RMS 1u
#define OP_LAYER 2u

shared float partial[WG];

bool is_nan(float v) { return (floatBitsToUint(v) & 0x7FFFFFFFu) > 0x7F800000u; }

bool is_finite(float v) { return (floatBitsToUint(v) & 0x7F800000u) != 0x7F800000u; }

// The workgroup's sum (or maximum) of each thread's v; every thread gets the result.
float wg_combine(float v, bool take_max) {
    uint lid = gl_LocalInvocationID.x;
    partial[lid] = v;
    barrier();
    for (uint s = WG / 2u; s > 0u; s >>= 1) {
        if (lid < s) {
            float a = partial[lid], b = partial[lid + s];
            partial[lid] = take_max ? (b > a ? b : a) : a + b;
        }
        barrier();
    }
    float r = partial[0];
    barrier();  // partial is reused by the next combine
    return r;
}

// e^(v - top), +0 for v = -inf. Some drivers' exp (lavapipe's) returns 0 where e^d is subnormal,
// so below d = -64 it is formed as e^(d + 64) (d + 64 is exact there) times f32(e^-64).
float shifted_exp(float v, float top) {
    if (v == uintBitsToFloat(0xFF800000u)) return 0.0;
    float d = v - top;
    return d < -64.0 ? exp(d + 64.0) * 1.60381089e-28 : exp(d);
}

void softmax_row(uint base, uint count) {
    uint lid = gl_LocalInvocationID.x;
    float top = uintBitsToFloat(0xFF800000u);  // -inf
    for (uint i = lid; i < count; i += WG) {
        float v = is_nan(x[base + i]) ? uintBitsToFloat(0x7F800000u) : x[base + i];
        top = v > top ? v : top;
    }
    top = wg_combine(top, true);
    if (!is_finite(top)) {
        for (uint i = lid; i < count; i += WG) y[base + i] = uintBitsToFloat(0x7FC00000u);
        return;
    }
    float acc = 0.0;
    for (uint i = lid; i < count; i += WG) acc += shifted_exp(x[base + i], top);
    float total = wg_combine(acc, false);
    for (uint i = lid; i < count; i += WG) y[base + i] = shifted_exp(x[base + i], top) / total;
}

void norm_row(uint op, uint base, uint count, float eps) {
    uint lid = gl_LocalInvocationID.x;
    float n = float(count);
    float mean = 0.0;
    if (op == OP_LAYER) {
        float acc = 0.0;
        for (uint i = lid; i < count; i += WG) acc += x[base + i];
        mean = wg_combine(acc, false) / n;
    }
    float acc = 0.0;
    for (uint i = lid; i < count; i += WG) {
        float d = x[base + i] - mean;
        acc += d * d;
    }
    float root = sqrt(wg_combine(acc, false) / n + eps);
    for (uint i = lid; i < count; i += WG) y[base + i] = (x[base + i] - mean) / root;
}

void main() {
    uint rows = m[M_N];
    uint op = m[M_OP];
    uint count = m[M_COUNT];
    float eps = uintBitsToFloat(m[M_PARAM]);
    for (uint r = gl_WorkGroupID.x; r < rows; r += gl_NumWorkGroups.x) {
        if (op == OP_SOFTMAX) {
            softmax_row(r * count, count);
        } else {
            norm_row(op, r * count, count, eps);
        }
    }
}
