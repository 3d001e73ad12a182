/* The fused 16-bit pair sweep: every (x, y) of F16 or BF16 through a binary kernel, the binary64
 * reference, its ties and the rulebook, one pair at a time (judge/sweep/fused.py drives it).
 *
 * The reference is oracles.fast.pairs', unchanged: the IEEE binary64 operation on the operands'
 * exact values (add, sub, mul, div), its exact rounding error as `lo` for a sum that may not be
 * exact (TwoSum), rounded to the 16-bit format by integer arithmetic on its encoding, and the
 * elements where it lies exactly on a rounding boundary without being known exact listed
 * (`flag_chunk`) for the host to settle with the pure oracle. `score_pairs` takes the settled
 * bits and exact values and applies judge.scoring.vector.classify's rules with lo, as the chunk
 * scorer does for pair sweeps, plus the exponent grid (pairs off the right bits and worst ULP
 * distance per (exponent of x, exponent of y)).
 *
 * For pow (OP 4) the reference is the C library's binary64 pow, certified by a margin instead
 * (judge.sweep.pair_reference): a pair whose result lies within MARGIN binary64 ulps of a
 * rounding boundary is open, and settled on the host like a tie.
 *
 * maximum and minimum (OP 5, 6) select an operand, exact; under unordered zeros the other zero of
 * a (+0, -0) pair is admitted beside the reference (admitted_pair). The remainder (OP 7) is fmod,
 * exact, and for the floored rule a final sum with the divisor, handled as add's.
 *
 * Configuration (-D): OP (0 add, 1 sub, 2 mul, 3 div, 4 pow, 5 maximum, 6 minimum, 7 rem), MARGIN,
 * KNOWN_EXACT (the operation is exact on this format's operands), NAN_IGNORE (an extremum's NaN
 * operand is missing), ZEROS_UNORDERED, REM_TRUNCATED, FMT_E / FMT_M (exponent and mantissa bits), KIND, HAS_MAX_* and
 * *_BITS, SANITY_BITS as in fused_f32.cu. Compiled by NVRTC for the GPU and by the host C
 * compiler for the CPU twin, without floating-point contraction.
 */

#include "fused_common.h"

#define EXP_MASK (((1u << FMT_E) - 1u) << FMT_M)

DEV int is_nan16(u32 b) { return fmt_nan(b, FMT_E, FMT_M); }

DEV double value16(u32 b) { return value_of(b, FMT_E, FMT_M); }
DEV u32 round16(double y, int *tie) { return round_to(y, FMT_E, FMT_M, tie); }

/* The reference of pair p: rounded bits, hi, lo, and whether it is an open tie. */
DEV u32 reference_pair(u32 p, double *hi, double *lo, int *open) {
    double a = value16(p >> 16), b = value16(p & 0xFFFFu);
    double h, l = 0.0;
#if OP == 0 || OP == 1 || OP == 7
#if OP == 7
    /* the remainder: fmod is exact; floored adds the divisor where the signs differ, a sum
     * (exact for F16 operands, TwoSum's lo for BF16 ones); x + -0 is x, the zeros included */
    double d = b, t = fmod(a, b);
    a = t;
#if REM_TRUNCATED
    b = -0.0;
#else
    b = (t != 0.0 && (signbit(t) != 0) != (signbit(d) != 0)) ? d : -0.0;
#endif
#endif
#if OP == 1
    b = -b;
#endif
    h = a + b;
#if !KNOWN_EXACT
    { /* Knuth's TwoSum: a + b = h + l exactly */
        double bb = h - a;
        l = (a - (h - bb)) + (b - bb);
        if (!isfinite(l)) l = 0.0;
    }
#endif
#if OP == 1
    b = -b;
#endif
#if OP == 7 && !REM_TRUNCATED
    if (h == 0.0) h = copysign(0.0, d); /* a zero floored remainder takes the divisor's sign */
#endif
#elif OP == 2
    h = a * b;
#elif OP == 3
    h = a / b;
#elif OP == 5 || OP == 6
    /* an extremum: one of the operands (or NaN), -0 below +0 */
    if (a != a || b != b) {
#if NAN_IGNORE
        h = a != a ? b : a;
#else
        h = a + b; /* NaN */
#endif
    } else if (a == 0.0 && b == 0.0) {
#if OP == 5
        h = (signbit(a) && signbit(b)) ? -0.0 : 0.0;
#else
        h = (signbit(a) || signbit(b)) ? -0.0 : 0.0;
#endif
    } else {
#if OP == 5
        h = a > b ? a : b;
#else
        h = a < b ? a : b;
#endif
    }
#else
    h = pow(a, b);
#endif
#if OP == 4
    /* a libm function, certified by the margin (judge.sweep.pair_reference): pairs near a
     * boundary are open, for the host to settle */
    double thresh = ldexp(2.0 - ldexp(1.0, -FMT_M), (1 << (FMT_E - 1)) - 1) +
                    ldexp(1.0, (1 << (FMT_E - 1)) - 2 - FMT_M);
    u32 bits;
    int flagged = near_boundary_of(h, FMT_E, FMT_M, thresh, MARGIN, &bits);
    *hi = h;
    *lo = l;
    *open = flagged;
    return bits;
#else
    int tie;
    u32 bits = round16(h, &tie);
    int regular = isfinite(a) && isfinite(b) && a != 0.0 && b != 0.0;
#if KNOWN_EXACT
    int exact = 1;
#elif OP == 0 || OP == 1 || OP == 7
    int exact = !regular || l == 0.0;
#else
    int exact = !regular;
#endif
    *hi = h;
    *lo = l;
    *open = tie && !exact;
    return bits;
#endif
}

/* The further result the contract admits at pair p beside the reference, or NO_ALT: the other
 * zero of an extremum's (+0, -0) under unordered zeros (oracles.fast.pairs.admitted). */
#define NO_ALT 0xFFFFFFFFu
DEV u32 admitted_pair(u32 p) {
#if (OP == 5 || OP == 6) && ZEROS_UNORDERED
    u32 x = p >> 16, y = p & 0xFFFFu, sign = 1u << (FMT_E + FMT_M);
    if ((x & ~sign) == 0 && (y & ~sign) == 0 && x != y) return OP == 5 ? sign : 0u;
#endif
    (void)p;
    return NO_ALT;
}

/* One pair: input bits p (x << 16 | y), observed o, correctly rounded e, exact value hi + lo. */
DEV void score_pair(u32 p, u32 o, u32 e, double hi, double lo, Elem *el) {
    int daz = fmt_subnormal(p >> 16, FMT_E, FMT_M) || fmt_subnormal(p & 0xFFFFu, FMT_E, FMT_M);
    score_one(o, e, hi, lo, FMT_E, FMT_M, daz, el);
}

/* The reference of local pair i, with the settled values where the host settled it. */
DEV u32 expected_pair(u32 p, u32 i, const u32 *s_idx, const u32 *s_bits, const double *s_hi,
                      const double *s_lo, u32 ns, double *hi, double *lo, int *missing) {
    int open;
    u32 bits = reference_pair(p, hi, lo, &open);
    if (!open) return bits;
    i64 k = settled_at(i, s_idx, ns);
    if (k >= 0) {
        *hi = s_hi[k];
        *lo = s_lo[k];
        return s_bits[k];
    }
    *missing = 1;
    return bits;
}

/* the exponent grid: a differing pair counts at (exponent of x, exponent of y) */
#define SIDE (1u << FMT_E)
DEV u32 grid_cell(u32 p) {
    return (((p >> 16) & EXP_MASK) >> FMT_M) * SIDE + (((p & 0xFFFFu) & EXP_MASK) >> FMT_M);
}

/* Pair i of the chunk from `start`, scored against output y[i], added to a and to the exponent
 * grid. */
DEV void pair_step(Acc *a, u64 start, u64 i, const unsigned short *y, const u32 *s_idx, const u32 *s_bits,
                   const double *s_hi, const double *s_lo, u32 ns, u32 *hist, u64 *off, u64 *worst) {
    u32 p = (u32)(start + i);
    double hi, lo;
    int missing = 0;
    u32 e = expected_pair(p, (u32)i, s_idx, s_bits, s_hi, s_lo, ns, &hi, &lo, &missing);
    acc_count(a, C_MISSING, (u64)missing);
    u32 o = y[i];
    if (o == admitted_pair(p)) e = o; /* a result the contract admits beside the reference */
    Elem el;
    score_pair(p, o, e, hi, lo, &el);
    acc_add(a, &el, i, hist);
    if (o != e && !(is_nan16(o) && is_nan16(e))) {
        u32 cell = grid_cell(p);
        bump(&off[cell]);
        if (el.in_hist && el.dist) raise_to(&worst[cell], (u64)el.dist);
    }
}

/* Whether pair p is an open tie (pass 1). */
DEV int flag_step(u32 p) {
    double hi, lo;
    int open;
    reference_pair(p, &hi, &lo, &open);
    return open;
}

/* The reference at listed pair p: bits, hi, lo, open tie. */
DEV void ref_step(u32 p, u32 *bits, double *hi, double *lo, u32 *open) {
    int t;
    *bits = reference_pair(p, hi, lo, &t);
    *open = t;
}

#include "fused_passes.h" /* pass 1: flag_chunk, twin_flag_chunk */

#ifdef JUDGE_GPU

/* Pass 2: score pairs start .. start + n - 1 against outputs y (16-bit patterns). */
extern "C" __global__ void score_pairs(u64 start, u64 n, u64 per_block, const unsigned short *y,
                                       const u32 *s_idx, const u32 *s_bits, const double *s_hi,
                                       const double *s_lo, u32 ns, u64 *hist, u64 *counts, u64 *firsts,
                                       u64 *keys, double *reals, u64 *real_idx, double *abs_max,
                                       double *rel_max, u64 *off, u64 *worst) {
    __shared__ Block sh;
    Acc a;
    block_begin(&sh, &a);
    u64 b0 = (u64)blockIdx.x * per_block;
    u64 b1 = b0 + per_block < n ? b0 + per_block : n;
    for (u64 i = b0 + threadIdx.x; i < b1; i += THREADS)
        pair_step(&a, start, i, y, s_idx, s_bits, s_hi, s_lo, ns, sh.hist, off, worst);
    acc_finish(&a, &sh, hist, counts, firsts, keys, reals, real_idx, abs_max, rel_max);
}

/* The reference at listed pairs: bits, hi, lo, open tie. */
extern "C" __global__ void pair_ref_at(const u64 *p, u64 n, u32 *bits, double *hi, double *lo, u32 *open) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ref_step((u32)p[i], &bits[i], &hi[i], &lo[i], &open[i]);
}

#else /* the CPU twin */

void twin_pair_ref_at(const u64 *p, u64 n, u32 *bits, double *hi, double *lo, u32 *open) {
    for (u64 i = 0; i < n; i++) ref_step((u32)p[i], &bits[i], &hi[i], &lo[i], &open[i]);
}

u32 twin_round16(double y, u32 *tie) {
    int t;
    u32 b = round16(y, &t);
    *tie = t;
    return b;
}

void twin_score_pairs(u64 start, u64 n, const unsigned short *y, const u32 *s_idx, const u32 *s_bits,
                      const double *s_hi, const double *s_lo, u32 ns, u32 *hist, Stats *st, u64 *off,
                      u64 *worst) {
    Acc a;
    acc_init(&a);
    for (u64 i = 0; i < n; i++) pair_step(&a, start, i, y, s_idx, s_bits, s_hi, s_lo, ns, hist, off, worst);
    acc_stats(&a, st);
}

void twin_classify_pairs(u64 n, const u32 *p, const u32 *o, const u32 *e, const double *hi,
                         const double *lo, u32 *variants, u32 *mism, i64 *dist) {
    for (u64 i = 0; i < n; i++) {
        Elem el;
        score_pair(p[i], o[i], e[i], hi[i], lo[i], &el);
        variants[i] = el.variants;
        mism[i] = el.mism;
        dist[i] = el.dist;
    }
}

#endif
