/* The fused 16-bit pair sweep: every (x, y) of F16 or BF16 through a binary kernel, the binary64
 * reference, its ties and the rulebook, one pair at a time (judge/sweep/fused.py drives it).
 *
 * The reference is oracles.fast.pairs', unchanged: the IEEE binary64 operation on the operands'
 * exact values (add, sub, mul, div), its exact rounding error as `lo` for a sum that may not be
 * exact (TwoSum), rounded to the 16-bit format by integer arithmetic on its encoding, and the
 * elements where it lies exactly on a rounding boundary without being known exact listed
 * (`flag_pairs`) for the host to settle with the pure oracle. `score_pairs` takes the settled
 * bits and exact values and applies judge.scoring.vector.classify's rules with lo, as the chunk
 * scorer does for pair sweeps, plus the exponent grid (pairs off the right bits and worst ULP
 * distance per (exponent of x, exponent of y)).
 *
 * Configuration (-D): OP (0 add, 1 sub, 2 mul, 3 div), KNOWN_EXACT (the operation is exact on
 * this format's operands), FMT_E / FMT_M (exponent and mantissa bits), KIND, HAS_MAX_* and
 * *_BITS, SANITY_BITS as in fused_f32.cu. Compiled by NVRTC for the GPU and by the host C
 * compiler for the CPU twin, without floating-point contraction.
 */

#include "fused_common.h"

#define FBITS (1 + FMT_E + FMT_M)
#define BIAS ((1 << (FMT_E - 1)) - 1)
#define EMIN (1 - BIAS)
#define PREC (FMT_M + 1)
#define QMIN (EMIN - PREC + 1)
#define EXP_MASK (((1u << FMT_E) - 1u) << FMT_M)
#define MAN_MASK ((1u << FMT_M) - 1u)
#define SIGN16 (1u << (FBITS - 1))
#define INF16 EXP_MASK
#define NAN16 (EXP_MASK | (1u << (FMT_M - 1)))

DEV int is_nan16(u32 b) { return (b & ~SIGN16) > INF16; }
DEV int is_inf16(u32 b) { return (b & ~SIGN16) == INF16; }
DEV int nonzero_subnormal16(u32 b) { return (b & EXP_MASK) == 0 && (b & MAN_MASK) != 0; }

DEV double value16(u32 b) { return value_of(b, FMT_E, FMT_M); }
DEV u32 round16(double y, int *tie) { return round_to(y, FMT_E, FMT_M, tie); }

/* The reference of pair p: rounded bits, hi, lo, and whether it is an open tie. */
DEV u32 reference_pair(u32 p, double *hi, double *lo, int *open) {
    double a = value16(p >> 16), b = value16(p & 0xFFFFu);
    double h, l = 0.0;
#if OP == 0 || OP == 1
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
#elif OP == 2
    h = a * b;
#else
    h = a / b;
#endif
    int tie;
    u32 bits = round16(h, &tie);
    int regular = isfinite(a) && isfinite(b) && a != 0.0 && b != 0.0;
#if KNOWN_EXACT
    int exact = 1;
#elif OP == 0 || OP == 1
    int exact = !regular || l == 0.0;
#else
    int exact = !regular;
#endif
    *hi = h;
    *lo = l;
    *open = tie && !exact;
    return bits;
}

/* floor(log2|hi + lo|) at least emin (judge.scoring.vector._ulp_exponent with lo) */
DEV int ulp_exponent_lo(double hi, double lo) {
    if (hi == 0.0) return EMIN;
    int e;
    double fr = frexp(fabs(hi), &e);
    e -= 1;
    if (fr == 0.5 && lo != 0.0 && (signbit(lo) != 0) != (signbit(hi) != 0)) e -= 1;
    return e < EMIN ? EMIN : e;
}

DEV i64 ulp_distance16(u32 a, u32 b) {
    i64 oa = (i64)(a & ~SIGN16), ob = (i64)(b & ~SIGN16);
    if (a & SIGN16) oa = -oa;
    if (b & SIGN16) ob = -ob;
    i64 d = oa - ob;
    return d < 0 ? -d : d;
}

/* One pair: input bits p (x << 16 | y), observed o, correctly rounded e, exact value hi + lo. */
DEV void score_pair(u32 p, u32 o, u32 e, double hi, double lo, Elem *el) {
    int obs_nan = is_nan16(o), exp_nan = is_nan16(e);
    int obs_inf = is_inf16(o), exp_inf = is_inf16(e);
    int same = (o == e) || (obs_nan && exp_nan);
    double obs_f = value16(o), exp_f = value16(e);
    int daz = nonzero_subnormal16(p >> 16) || nonzero_subnormal16(p & 0xFFFFu);
    el->variants = 0;
    el->mism = 0;
    el->worst = 0;
    el->rel_ok = 0;
    el->known = !obs_nan && !obs_inf && !exp_nan && isfinite(hi);
    double diff = fabs((obs_f - hi) - lo);
    if (el->known) {
        el->err = diff;
        el->real = ldexp(diff, -(ulp_exponent_lo(hi, lo) - PREC + 1));
        if (hi != 0.0) {
            el->rel_ok = 1;
            el->rel = diff / fabs(hi);
        }
    }
    int finite_pair = !obs_nan && !exp_nan && !obs_inf && !exp_inf;
    i64 dist = ulp_distance16(o, e);
    el->dist = dist;
    el->in_hist = finite_pair;
    el->bin = (u32)(dist < HIST_BINS ? dist : HIST_BINS);
    if (same) return;
    el->worst = finite_pair;
    apply_rules(el, obs_nan, exp_nan, obs_inf, exp_inf, obs_f, exp_f, hi, diff, dist, daz, ldexp(1.0, EMIN));
}

/* The reference of local pair i, with the settled values where the host settled it. */
DEV u32 expected_pair(u32 p, u32 i, const u32 *s_idx, const u32 *s_bits, const double *s_hi,
                      const double *s_lo, u32 ns, double *hi, double *lo, int *missing) {
    int open;
    u32 bits = reference_pair(p, hi, lo, &open);
    if (!open) return bits;
    u32 a = 0, b = ns;
    while (a < b) {
        u32 mid = a + (b - a) / 2;
        if (s_idx[mid] < i) a = mid + 1; else b = mid;
    }
    if (a < ns && s_idx[a] == i) {
        *hi = s_hi[a];
        *lo = s_lo[a];
        return s_bits[a];
    }
    *missing = 1;
    return bits;
}

/* the exponent grid: a differing pair counts at (exponent of x, exponent of y) */
#define SIDE (1u << FMT_E)
DEV u32 grid_cell(u32 p) {
    return (((p >> 16) & EXP_MASK) >> FMT_M) * SIDE + (((p & 0xFFFFu) & EXP_MASK) >> FMT_M);
}

#ifdef JUDGE_GPU

/* Pass 1: the open ties among pairs start .. start + n - 1 (local indices). */
extern "C" __global__ void flag_pairs(u64 start, u64 n, u32 *out, u32 *count, u32 cap) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        double hi, lo;
        int open;
        reference_pair((u32)(start + i), &hi, &lo, &open);
        if (open) {
            u32 k = atomicAdd(count, 1u);
            if (k < cap) out[k] = (u32)i;
        }
    }
}

/* Pass 2: score pairs start .. start + n - 1 against outputs y (16-bit patterns). */
extern "C" __global__ void score_pairs(u64 start, u64 n, u64 per_block, const unsigned short *y,
                                       const u32 *s_idx, const u32 *s_bits, const double *s_hi,
                                       const double *s_lo, u32 ns, u64 *hist, u64 *counts, u64 *firsts,
                                       u64 *keys, double *reals, u64 *real_idx, double *abs_max,
                                       double *rel_max, u64 *off, u64 *worst) {
    __shared__ u32 sh_hist[HIST_BINS + 1];
    for (int b = threadIdx.x; b <= HIST_BINS; b += THREADS) sh_hist[b] = 0;
    __syncthreads();
    u64 b0 = (u64)blockIdx.x * per_block;
    u64 b1 = b0 + per_block < n ? b0 + per_block : n;
    Acc a;
    acc_init(&a);
    for (u64 i = b0 + threadIdx.x; i < b1; i += THREADS) {
        u32 p = (u32)(start + i);
        double hi, lo;
        int missing = 0;
        u32 e = expected_pair(p, (u32)i, s_idx, s_bits, s_hi, s_lo, ns, &hi, &lo, &missing);
        a.c[NVARIANTS + NMISM + 1] += missing;
        u32 o = y[i];
        Elem el;
        score_pair(p, o, e, hi, lo, &el);
        acc_add(&a, &el, i, sh_hist);
        if (o != e && !(is_nan16(o) && is_nan16(e))) {
            u32 cell = grid_cell(p);
            atomicAdd(&off[cell], 1ull);
            if (el.in_hist && el.dist) atomicMax(&worst[cell], (u64)el.dist);
        }
    }
    acc_finish(&a, sh_hist, hist, counts, firsts, keys, reals, real_idx, abs_max, rel_max);
}

/* The reference at listed pairs: bits, hi, lo, open tie. */
extern "C" __global__ void pair_ref_at(const u64 *p, u64 n, u32 *bits, double *hi, double *lo, u32 *open) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int t;
        bits[i] = reference_pair((u32)p[i], &hi[i], &lo[i], &t);
        open[i] = t;
    }
}

#else /* the CPU twin */

u64 twin_flag_pairs(u64 start, u64 n, u32 *out, u64 cap) {
    u64 k = 0;
    for (u64 i = 0; i < n; i++) {
        double hi, lo;
        int open;
        reference_pair((u32)(start + i), &hi, &lo, &open);
        if (open) {
            if (k < cap) out[k] = (u32)i;
            k++;
        }
    }
    return k;
}

void twin_pair_ref_at(const u64 *p, u64 n, u32 *bits, double *hi, double *lo, u32 *open) {
    for (u64 i = 0; i < n; i++) {
        int t;
        bits[i] = reference_pair((u32)p[i], &hi[i], &lo[i], &t);
        open[i] = t;
    }
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
    for (u64 i = 0; i < n; i++) {
        u32 p = (u32)(start + i);
        double hi, lo;
        int missing = 0;
        u32 e = expected_pair(p, (u32)i, s_idx, s_bits, s_hi, s_lo, ns, &hi, &lo, &missing);
        a.c[NVARIANTS + NMISM + 1] += missing;
        u32 o = y[i];
        Elem el;
        score_pair(p, o, e, hi, lo, &el);
        acc_add(&a, &el, i, hist);
        if (o != e && !(is_nan16(o) && is_nan16(e))) {
            u32 cell = grid_cell(p);
            off[cell]++;
            if (el.in_hist && (u64)el.dist > worst[cell]) worst[cell] = (u64)el.dist;
        }
    }
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
