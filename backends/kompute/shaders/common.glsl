// Shared by every kernel: the metadata buffer layout and the strided index walk.
//
// kp 0.9.0 hands push and specialization constants over as floats only, so everything integral
// (counts, op ids, shapes, strides, parameter bits) rides in one uint32 buffer, `m`, bound last.
// Shapes are left-padded with 1s to MAX_RANK axes; strides are in elements.

#define MAX_RANK 8
#define M_N 0u          // logical element count of the output
#define M_OP 1u         // op id within the kernel's selector
#define M_FLAGS 2u      // bit0: input 0 contiguous, bit1: input 1 contiguous
#define M_COUNT 3u      // reductions: elements folded into each output
#define M_DIM_STRIDE 4u // arg-reductions: element stride of the reduced axis
#define M_SHAPE 8u      // output shape (elementwise) / kept shape (reductions)
#define M_STRIDE0 16u   // strides of input 0 (elementwise) / kept strides (reductions)
#define M_STRIDE1 24u   // strides of input 1 (elementwise) / reduced shape (reductions)
#define M_STRIDE2 32u   // reduced strides (reductions)
#define M_PARAM 40u     // op params as raw bits (8 words)
#define M_WORDS 48

// Element offset of logical element `i` (row-major over the shape at `shape_at`) in an operand
// whose strides are at `stride_at`.
uint strided_offset(uint i, uint shape_at, uint stride_at) {
    uint off = 0u;
    for (int d = MAX_RANK - 1; d >= 0; --d) {
        uint s = m[shape_at + uint(d)];
        off += (i % s) * m[stride_at + uint(d)];
        i /= s;
    }
    return off;
}
