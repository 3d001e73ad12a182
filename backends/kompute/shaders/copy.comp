#version 450
// A plain buffer copy, 16 bytes per invocation: the bandwidth roofline of `judge measure`.
// Bindings: source words, destination words, metadata (word 0: the count of 16-byte vectors).

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(std430, binding = 2) readonly buffer Meta { uint m[]; };

void main() {
    uint n = m[0];
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
        dst[i] = src[i];
    }
}
