/* Pass 1 of both fused sweeps (fused_f32.cu, fused_pairs.cu), over the including source's
 * `flag_step(u32 element)`: the local indices among start .. start + n - 1 that it flags, for the
 * host to settle with the pure oracle. Included after flag_step is defined. */

#ifndef JUDGE_FUSED_PASSES_H
#define JUDGE_FUSED_PASSES_H

#ifdef JUDGE_GPU

/* The flagged local indices, in no order (count holds how many; out gets at most cap). */
extern "C" __global__ void flag_chunk(u64 start, u64 n, u32 *out, u32 *count, u32 cap) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        if (flag_step((u32)(start + i))) {
            u32 k = atomicAdd(count, 1u);
            if (k < cap) out[k] = (u32)i;
        }
    }
}

#else

/* The flagged local indices, ascending; returns how many (out gets at most cap). */
u64 twin_flag_chunk(u64 start, u64 n, u32 *out, u64 cap) {
    u64 k = 0;
    for (u64 i = 0; i < n; i++) {
        if (flag_step((u32)(start + i))) {
            if (k < cap) out[k] = (u32)i;
            k++;
        }
    }
    return k;
}

#endif
#endif
