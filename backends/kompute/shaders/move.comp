#version 450
// Data movement (Concat, IndexSelect, Gather, Flip, Roll, Triu, Tril, MaskedFill) for elements
// of 1, 2, 4 or 8 bytes, moved as bits: no value is ever read as a float. One invocation owns
// one output word (1, 2 or 4 narrow elements, or half of an 8-byte one) and rebuilds it lane by
// lane from the source element each output element copies (or the op's constant). Lanes past
// the end, and a concat's lanes owned by another input, keep the word's earlier bits.
// Bindings: source words, aux words (U32 indices / U8 mask; unused otherwise), output words
// (read and written), metadata.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) readonly buffer Aux { uint aux[]; };
layout(std430, binding = 2) buffer Dst { uint dst[]; };
layout(std430, binding = 3) readonly buffer Meta { uint m[]; };

#include "common.glsl"

// Metadata (common.glsl's slots, read this family's way): M_N output words, M_OP op id,
// M_SHAPE/M_STRIDE0 the source's logical shape and element strides (rank 8, left-padded),
// M_STRIDE1/M_STRIDE2 Gather's output shape and source strides, and these params:
#define MV_ESIZE 2u     // element size in bytes: 1, 2, 4 or 8
#define MV_NOUT 3u      // output element count
#define MV_DIM 40u      // the output's extent along the moved axis (Gather: the padded axis)
#define MV_INNER 41u    // product of the axes after it
#define MV_SRC_DIM 42u  // the source's extent along it (Triu/Tril: rows)
#define MV_ARG 43u      // Roll: shift mod dim; Concat: first slot of this input; Triu/Tril: diagonal
#define MV_COLS 44u     // Triu/Tril: columns
#define MV_FILL0 45u    // MaskedFill: the fill element's low word
#define MV_FILL1 46u    // and its high word (8-byte elements)

#define OP_CONCAT 0u
#define OP_INDEX_SELECT 1u
#define OP_GATHER 2u
#define OP_FLIP 3u
#define OP_ROLL 4u
#define OP_TRIU 5u
#define OP_TRIL 6u
#define OP_MASKED_FILL 7u

#define COPY 0u
#define KEEP 1u
#define ZERO 2u
#define FILL 3u

uint walk(uint logical) { return strided_offset(logical, M_SHAPE, M_STRIDE0); }

uint gather_source(uint e) {
    uint rest = e;
    uint off = 0u;
    for (int d = MAX_RANK - 1; d >= 0; --d) {
        uint n = m[M_STRIDE1 + uint(d)];
        uint a = rest % n;
        rest /= n;
        off += (uint(d) == m[MV_DIM] ? aux[e] : a) * m[M_STRIDE2 + uint(d)];
    }
    return off;
}

// What output element e holds: COPY of source element s, KEEP, ZERO or FILL.
uint source_of(uint e, out uint s) {
    uint op = m[M_OP];
    s = 0u;
    if (op == OP_TRIU || op == OP_TRIL) {
        int c = int(e % m[MV_COLS]);
        int r = int((e / m[MV_COLS]) % m[MV_SRC_DIM]);
        int diagonal = int(m[MV_ARG]);
        bool kept = op == OP_TRIU ? c - r >= diagonal : c - r <= diagonal;
        s = walk(e);
        return kept ? COPY : ZERO;
    }
    if (op == OP_MASKED_FILL) {
        uint b = (aux[e >> 2] >> ((e & 3u) * 8u)) & 0xFFu;
        s = walk(e);
        return b != 0u ? FILL : COPY;
    }
    if (op == OP_GATHER) {
        s = gather_source(e);
        return COPY;
    }
    uint inner = m[MV_INNER];
    uint dim = m[MV_DIM];
    uint src_dim = m[MV_SRC_DIM];
    uint i = e % inner;
    uint d = (e / inner) % dim;
    uint o = e / (inner * dim);
    uint j;
    if (op == OP_FLIP) {
        j = dim - 1u - d;
    } else if (op == OP_ROLL) {
        j = (d + dim - m[MV_ARG]) % dim;
    } else if (op == OP_INDEX_SELECT) {
        j = aux[d];
    } else {  // OP_CONCAT: this dispatch's input fills slots [start, start + src_dim)
        uint start = m[MV_ARG];
        if (d < start || d >= start + src_dim) return KEEP;
        j = d - start;
    }
    s = walk((o * src_dim + j) * inner + i);
    return COPY;
}

uint load_bits(uint s, uint part, uint esize) {
    if (esize == 8u) return src[2u * s + part];
    if (esize == 4u) return src[s];
    if (esize == 2u) return (src[s >> 1] >> ((s & 1u) * 16u)) & 0xFFFFu;
    return (src[s >> 2] >> ((s & 3u) * 8u)) & 0xFFu;
}

void main() {
    uint esize = m[MV_ESIZE];
    uint nout = m[MV_NOUT];
    uint lanes = esize >= 4u ? 1u : 4u / esize;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint w = gl_GlobalInvocationID.x; w < m[M_N]; w += stride) {
        uint word = dst[w];
        for (uint l = 0u; l < lanes; ++l) {
            uint e = esize == 8u ? w >> 1 : w * lanes + l;
            uint part = esize == 8u ? (w & 1u) : 0u;
            if (e >= nout) break;
            uint s;
            uint how = source_of(e, s);
            if (how == KEEP) continue;
            uint bits = how == COPY ? load_bits(s, part, esize)
                      : how == FILL ? m[part == 0u ? MV_FILL0 : MV_FILL1] : 0u;
            if (lanes == 1u) {
                word = bits;
            } else {
                uint shift = l * esize * 8u;
                uint mask = ((1u << (esize * 8u)) - 1u) << shift;
                word = (word & ~mask) | ((bits << shift) & mask);
            }
        }
        dst[w] = word;
    }
}
