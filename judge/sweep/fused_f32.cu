/* The fused F32 sweep: reference, certificate and rulebook, one element at a time.
 *
 * Compiled two ways from this one file:
 *   - by NVRTC (cupy.RawModule) for the GPU: kernels `score_listing`, `score_listed`, `ref_at`;
 *   - by the host C compiler for the CPU twin (tests, machines without a GPU): `twin_*`
 *     functions that walk the same per-element code sequentially.
 * Configuration comes as -D macros (judge/sweep/fused.py writes them from the contract):
 *   REF_FN          the F64 function of the reference (judge.sweep.fused.REF_FUNCTIONS)
 *   KIND            0 exact, 1 declared, 2 sanity (judge.scoring.rules.bound_kind)
 *   HAS_MAX_ULP / MAX_ULP, HAS_MAX_ABS / MAX_ABS_BITS, HAS_MAX_REL / MAX_REL_BITS
 *   SANITY_BITS     2^(-p/2), the sanity factor; THRESH_BITS the F32 overflow threshold
 *   MARGIN          F64 ulps of the certificate (judge.sweep.f32_reference.MARGIN_F64_ULPS)
 * Doubles travel as their bit patterns, so no decimal round trip can change a bound.
 *
 * The certificate (judge.sweep.f32_reference): the F64 function is within its documented error
 * (at most 2 F64 ulps) of the exact value; an element whose F64 result lies more than MARGIN
 * F64 ulps from every F32 rounding boundary rounds to the correctly rounded F32 result. The others
 * are *flagged*: `score_listing` scores every other element and lists these (a few per 2^28), the
 * host settles them with the pure oracle, and `score_listed` scores them against the settled
 * bits, into totals that add up exactly (sums, lowest firsts, maxima with the lowest index on a
 * tie). Every element is scored by the same code (score_elem), once, and the reference is
 * evaluated once per element.
 *
 * The per-element rules are judge.scoring.vector.classify's, in its order, for lo = None (the F64
 * reference stands in for the exact value), F32 outputs and one F32 input. Each failing "hit
 * variant" (a check, its order, and whether a flushed subnormal broke it) is a bit of `variants`;
 * judge/sweep/fused.py maps the bits back to checks and spells out the first element of each with
 * classify itself, so messages are the rulebook's words.
 *
 * No floating-point contraction: NVRTC gets -fmad=false and the host compiler
 * -ffp-contract=off, so each operation rounds once, as each separate torch/numpy pass does.
 * No single-precision arithmetic either: F32 values are read and rounded by integer arithmetic
 * on their encodings (fused_common.h), so no flush-to-zero mode of the device or the compiler
 * can change a subnormal (a first GPU run, with the hardware's conversions, flushed exp's
 * subnormal results to zero; the sampled cross-check against the pure oracle stopped it).
 */

#include "fused_common.h"

#ifndef MARGIN
#define MARGIN 16
#endif

/* the F64 references that are no C library function of their own name */
DEV double ref_neg(double x) { return -x; }
DEV double ref_square(double x) { return x * x; }
DEV double ref_reciprocal(double x) { return 1.0 / x; }
#ifdef JUDGE_GPU
DEV double ref_rsqrt(double x) { return rsqrt(x); } /* CUDA: within 1 ulp */
#else
DEV double ref_rsqrt(double x) { return 1.0 / sqrt(x); } /* two correct roundings: within 1.5 ulp */
#endif

/* the F64 reference of input bits x */
DEV double reference(u32 x) { return REF_FN(value_of(x, 8, 23)); }

/* judge.sweep.f32_reference.near_boundary for one element (fused_common.h) */
DEV int near_boundary(double ref, u32 *r_bits) {
    return near_boundary_of(ref, 8, 23, bits_f64(THRESH_BITS), MARGIN, r_bits);
}

/* One element: input bits x, observed bits o, correctly rounded bits e, F64 reference ref. */
DEV void score_elem(u32 x, u32 o, u32 e, double ref, Elem *el) {
    score_one(o, e, ref, 0.0, 8, 23, fmt_subnormal(x, 8, 23), el);
}

/* Element i scored, unless its reference is flagged: then it is left for score_settled, once the
 * host has settled it (returns 1). One evaluation of the reference per element. */
DEV int score_or_list(Acc *a, u64 start, u64 i, const u32 *y, u32 *hist) {
    u32 x = (u32)(start + i);
    double ref = reference(x);
    u32 e;
    if (near_boundary(ref, &e)) return 1;
    Elem el;
    score_elem(x, y[i], e, ref, &el);
    acc_add(a, &el, i, hist);
    return 0;
}

/* Listed element i scored against its settled bits e. */
DEV void score_settled(Acc *a, u64 start, u32 i, u32 e, const u32 *y, u32 *hist) {
    u32 x = (u32)(start + i);
    Elem el;
    score_elem(x, y[i], e, reference(x), &el);
    acc_add(a, &el, i, hist);
}

/* The reference at listed input x: F64 value, rounded bits, flag. */
DEV void ref_step(u32 x, double *ref, u32 *bits, u32 *flag) {
    *ref = reference(x);
    *flag = near_boundary(*ref, bits);
}

#ifdef JUDGE_GPU

/* The reference at listed inputs: F64 value, rounded bits, flag. */
extern "C" __global__ void ref_at(const u64 *x, u64 n, double *ref, u32 *bits, u32 *flag) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ref_step((u32)x[i], &ref[i], &bits[i], &flag[i]);
}

/* Elements start .. start + n - 1 scored against outputs y, each block taking `per_block`
 * consecutive elements (its partial sums and extremes written per block, hist and counts by
 * atomics), except the flagged ones, which are listed (local indices, in no order; count holds how many, out gets
 * at most cap) and left out of the totals: score_listed adds them once settled. */
extern "C" __global__ void score_listing(u64 start, u64 n, u64 per_block, const u32 *y, u32 *out, u32 *count,
                                         u32 cap, u64 *hist, u64 *counts, u64 *firsts, u64 *keys,
                                         double *reals, u64 *real_idx, double *abs_max, double *rel_max) {
    __shared__ Block sh;
    Acc a;
    block_begin(&sh, &a);
    u64 b0 = (u64)blockIdx.x * per_block;
    u64 b1 = b0 + per_block < n ? b0 + per_block : n;
    for (u64 i = b0 + threadIdx.x; i < b1; i += THREADS) {
        if (score_or_list(&a, start, i, y, sh.hist)) {
            u32 k = atomicAdd(count, 1u);
            if (k < cap) out[k] = (u32)i;
        }
    }
    acc_finish(&a, &sh, hist, counts, firsts, keys, reals, real_idx, abs_max, rel_max);
}

/* The listed elements idx[0 .. k - 1] (ascending) scored against their settled bits. */
extern "C" __global__ void score_listed(u64 start, u64 per_block, const u32 *y, const u32 *idx,
                                        const u32 *bits, u32 k, u64 *hist, u64 *counts, u64 *firsts,
                                        u64 *keys, double *reals, u64 *real_idx, double *abs_max,
                                        double *rel_max) {
    __shared__ Block sh;
    Acc a;
    block_begin(&sh, &a);
    u64 b0 = (u64)blockIdx.x * per_block;
    u64 b1 = b0 + per_block < k ? b0 + per_block : k;
    for (u64 j = b0 + threadIdx.x; j < b1; j += THREADS) score_settled(&a, start, idx[j], bits[j], y, sh.hist);
    acc_finish(&a, &sh, hist, counts, firsts, keys, reals, real_idx, abs_max, rel_max);
}

#else /* the CPU twin */

void twin_ref_at(const u64 *x, u64 n, double *ref, u32 *bits, u32 *flag) {
    for (u64 i = 0; i < n; i++) ref_step((u32)x[i], &ref[i], &bits[i], &flag[i]);
}

/* Whether err / habs may raise the maximum m (tests of acc_add's filter). */
int twin_rel_may_raise(double err, double habs, double m) { return rel_may_raise(err, habs, m); }

/* The flag of one F64 value (tests of the certificate). */
int twin_near_boundary(double ref, u32 *bits) { return near_boundary(ref, bits); }

/* The one-pass scorer over one chunk (score_listing): returns how many were listed (out, ascending,
 * gets at most cap). */
u64 twin_score_listing(u64 start, u64 n, const u32 *y, u32 *out, u64 cap, u32 *hist, Stats *st) {
    Acc a;
    acc_init(&a);
    u64 k = 0;
    for (u64 i = 0; i < n; i++) {
        if (score_or_list(&a, start, i, y, hist)) {
            if (k < cap) out[k] = (u32)i;
            k++;
        }
    }
    acc_stats(&a, st);
    return k;
}

/* The listed elements scored against their settled bits (score_listed). */
void twin_score_listed(u64 start, const u32 *y, const u32 *idx, const u32 *bits, u32 k, u32 *hist, Stats *st) {
    Acc a;
    acc_init(&a);
    for (u32 j = 0; j < k; j++) score_settled(&a, start, idx[j], bits[j], y, hist);
    acc_stats(&a, st);
}

/* Per element, for the element-by-element test against classify: variants and mismatches. */
void twin_classify(u64 n, const u32 *x, const u32 *o, const u32 *e, const double *ref,
                   u32 *variants, u32 *mism, i64 *dist) {
    for (u64 i = 0; i < n; i++) {
        Elem el;
        score_elem(x[i], o[i], e[i], ref[i], &el);
        variants[i] = el.variants;
        mism[i] = el.mism;
        dist[i] = el.dist;
    }
}

#endif
