/* What the fused sweeps share (judge/sweep/fused.py): types, bit casts, the rulebook's checks
 * for one element, and the per-thread accumulation of a chunk's totals with its block reduction
 * (GPU) or its sequential walk (the CPU twin). Included by each fused kernel source. */

#ifndef JUDGE_FUSED_COMMON_H
#define JUDGE_FUSED_COMMON_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define JUDGE_GPU 1
#define DEV __device__ __forceinline__
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
#else
#include <math.h>
#include <stdint.h>
#include <string.h>
#define DEV static inline
typedef uint64_t u64;
typedef int64_t i64;
typedef uint32_t u32;
#endif

#define HIST_BINS 4096
#define NVARIANTS 15
/* hit variants, in judge.scoring.vector.classify's order (judge/sweep/fused.py's VARIANTS) */
#define V_NAN 0
#define V_INF 1
#define V_SIGNED_ZERO 2
#define V_SUB_EXACT 3
#define V_EXACT 4
#define V_ULP 5
#define V_SUB_ULP 6
#define V_BOUND_ABS 7
#define V_SUB_ABS 8
#define V_BOUND_REL 9
#define V_SUB_REL 10
#define V_BOUND_INF 11
#define V_SUB_INF 12
#define V_IMPL 13
#define V_SUB_IMPL 14
/* checks in judge.scoring.tally.BOUND_CHECKS (exact, subnormal, ulp, bound) */
#define OVER_MASK ((1u << V_SUB_EXACT) | (1u << V_EXACT) | (1u << V_ULP) | (1u << V_SUB_ULP) | \
                   (1u << V_BOUND_ABS) | (1u << V_SUB_ABS) | (1u << V_BOUND_REL) | (1u << V_SUB_REL) | \
                   (1u << V_BOUND_INF) | (1u << V_SUB_INF) | (1u << V_SUB_IMPL))
/* mismatch counters: nan, inf, signed_zero, implausible */
#define NMISM 4

DEV double bits_f64(u64 b) {
#ifdef JUDGE_GPU
    return __longlong_as_double((long long)b);
#else
    double d;
    memcpy(&d, &b, 8);
    return d;
#endif
}

DEV u64 f64_bits(double d) {
#ifdef JUDGE_GPU
    return (u64)__double_as_longlong(d);
#else
    u64 b;
    memcpy(&b, &d, 8);
    return b;
#endif
}

/* 2^k, for k in [-1022, 1023]: its encoding (so a product with it rounds once, as ldexp does) */
DEV double pow2(int k) { return bits_f64((u64)(k + 1023) << 52); }

/* Binary formats of E exponent and M mantissa bits (F32: 8, 23; F16: 5, 10; BF16: 8, 7), by
 * integer arithmetic on their encodings and on binary64's: exact, and the same whatever the
 * device does to subnormal single-precision values (a flush-to-zero mode cannot touch them). */

/* the exact binary64 value of a pattern */
DEV double value_of(u32 b, int E, int M) {
    u32 emask = ((1u << E) - 1u) << M, mmask = (1u << M) - 1u;
    u32 e = (b & emask) >> M, m = b & mmask;
    int bias = (1 << (E - 1)) - 1;
    double v;
    if (e == (1u << E) - 1u) v = m ? bits_f64(0x7FF8000000000000ull) : bits_f64(0x7FF0000000000000ull);
    else if (e == 0) v = (double)m * pow2(1 - bias - M); /* exact: m < 2^M, and 2^(1 - bias - M) is normal */
    else v = bits_f64(((u64)((int)e - bias + 1023) << 52) | ((u64)m << (52 - M))); /* the same value, re-encoded */
    return (b >> (E + M)) & 1u ? -v : v;
}

/* oracles.fast.pairs.round_or_flag for one binary64 value: the pattern nearest y (ties to even;
 * NaN to the quiet NaN, overflow to inf), and whether y lies exactly on a rounding boundary */
DEV u32 round_to(double y, int E, int M, int *tie) {
    int bias = (1 << (E - 1)) - 1, emin = 1 - bias, prec = M + 1, qmin = emin - prec + 1;
    u64 inf = (u64)((1u << E) - 1u) << M, nan = inf | (1ull << (M - 1));
    u64 b = f64_bits(y);
    u64 mag = b & 0x7FFFFFFFFFFFFFFFull;
    i64 biased = (i64)(mag >> 52);
    u64 m = mag & 0xFFFFFFFFFFFFFull;
    if (biased > 0) m |= 1ull << 52;
    i64 e = (biased > 1 ? biased : 1) - 1075;
    i64 q = (biased - 1023 > emin ? biased - 1023 : emin) - (prec - 1);
    i64 sh = q - e;
    if (sh < 1) sh = 1;
    if (sh > 62) sh = 62;
    u64 big = m >> sh, rem = m & ((1ull << sh) - 1ull), half = 1ull << (sh - 1);
    int t = rem == half;
#ifdef PLANT_TIE_OFF_BY_ONE
    t = rem == half + 1ull; /* a planted bug: the tie test is one unit off */
#endif
    int up = rem > half || (t && (big & 1ull));
    u64 out = ((u64)(q - qmin) << (prec - 1)) + big + (u64)up;
    if (out > inf) out = inf;
    int special = biased == 2047;
    if (special) out = m > (1ull << 52) ? nan : inf;
    out |= (b >> 63) << (E + M);
    *tie = t && !special;
    return (u32)out;
}

/* the next pattern towards +inf (up) or -inf (down) of a non-NaN pattern, as nextafter */
DEV u32 next_pattern(u32 b, int E, int M, int up) {
    u32 sign = 1u << (E + M), inf = ((1u << E) - 1u) << M;
    u32 mag = b & ~sign;
    int neg = (b & sign) != 0;
    if (mag == inf && (neg != up)) return b;  /* +inf up, -inf down: stays */
    if (mag == 0) return up ? 1u : (sign | 1u);  /* from ±0: the smallest subnormal */
    return (neg != up) ? b + 1u : b - 1u;  /* away from zero, or towards it */
}

/* judge.sweep.f32_reference.near_boundary for one binary64 value and a format of E exponent and
 * M mantissa bits: the rounding of ref (bits) and whether ref lies within `margin` F64 ulps of
 * a rounding boundary of the format (a midpoint between neighbours, or the overflow threshold
 * `thresh`). */
DEV int near_boundary_of(double ref, int E, int M, double thresh, int margin, u32 *r_bits) {
    int tie;
    u32 r = round_to(ref, E, M, &tie);
    double rd = value_of(r, E, M);
    int nan = (r & ~(1u << (E + M))) > (((1u << E) - 1u) << M);
    double up = nan ? rd : value_of(next_pattern(r, E, M, 1), E, M);
    double dn = nan ? rd : value_of(next_pattern(r, E, M, 0), E, M);
    double mid_up = (rd + up) * 0.5;
    double mid_dn = (rd + dn) * 0.5;
    if (isinf(up)) mid_up = rd + (rd - mid_dn);
    if (isinf(dn)) mid_dn = rd - (mid_up - rd);
    double a = fabs(ref - mid_up), b = fabs(ref - mid_dn);
    double dist = a < b ? a : b;
    if (isinf(rd)) dist = fabs(ref) - thresh;
    double bound = (fabs(ref) * 0x1p-52 + 0x1p-1074) * (double)margin;
    *r_bits = r;
#ifdef PLANT_ONE_SIDED
    dist = a; /* a planted bug: only the boundary above is looked at */
#endif
    return isfinite(ref) && dist <= bound;
}

typedef struct {
    u32 variants; /* failing hit variants */
    u32 mism;     /* bit k: mismatch counter k */
    int in_hist;  /* a finite pair: counted in the ULP histogram at bin */
    u32 bin;
    int worst;    /* a differing finite pair: a candidate for the worst ULP distance `dist` */
    i64 dist;
    int known;    /* add_chunk's measured set: err, real (and rel where rel_ok) below */
    int rel_ok;
    double err, real, habs;
} Elem;

/* classify's rules for one element whose bits differ (and are not two NaNs): obs/exp NaN and
 * inf flags, their values, the exact value's hi (the reference), |obs - exact|, the ULP
 * distance, whether an input was a nonzero subnormal, and 2^emin of the output format. */
DEV void apply_rules(Elem *el, int obs_nan, int exp_nan, int obs_inf, int exp_inf, double obs_f,
                     double exp_f, double hi, double diff, i64 dist, int daz, double tiny) {
    if (obs_nan != exp_nan) {
        el->variants |= 1u << V_NAN;
        el->mism |= 1u << 0;
    }
    if (obs_nan || exp_nan) return; /* `both` is false: no other rule applies */
    int has_exact = isfinite(hi);
    int kn = has_exact && !obs_inf; /* classify's err_known */
    int inf_case = (obs_inf != exp_inf) || (obs_inf && exp_inf);
    (void)kn;
    (void)dist;
#if KIND == 0
    int inf = inf_case;
#else
    int inf = inf_case && !has_exact;
#endif
    if (inf) {
        el->variants |= 1u << V_INF;
        el->mism |= 1u << 1;
        return;
    }
    /* rest: judge.scoring.rules.flushed */
    int fl = obs_f == 0.0 && exp_f != 0.0 && fabs(exp_f) < tiny &&
             ((signbit(obs_f) != 0) == (signbit(exp_f) != 0) || daz);
#if KIND == 0
    if (obs_f == 0.0 && exp_f == 0.0) {
        el->variants |= 1u << V_SIGNED_ZERO;
        el->mism |= 1u << 2;
    } else {
        el->variants |= 1u << (fl ? V_SUB_EXACT : V_EXACT);
    }
#elif KIND == 1
#if HAS_MAX_ULP
    if (dist > (i64)MAX_ULP) el->variants |= 1u << (fl ? V_SUB_ULP : V_ULP);
#endif
#if HAS_MAX_ABS
    if (kn && diff > bits_f64(MAX_ABS_BITS)) el->variants |= 1u << (fl ? V_SUB_ABS : V_BOUND_ABS);
#endif
#if HAS_MAX_REL
    if (kn && hi != 0.0 && diff / fabs(hi) > bits_f64(MAX_REL_BITS))
        el->variants |= 1u << (fl ? V_SUB_REL : V_BOUND_REL);
#endif
#if HAS_MAX_ABS || HAS_MAX_REL
    if (!kn) el->variants |= 1u << (fl ? V_SUB_INF : V_BOUND_INF);
#endif
#else
    double mag = fabs(hi);
    double limit = bits_f64(SANITY_BITS) * (mag < 1.0 ? 1.0 : mag);
    if (!kn || diff > limit) {
        el->variants |= 1u << (fl ? V_SUB_IMPL : V_IMPL);
        el->mism |= 1u << 3;
    }
#endif
}

/* Patterns of a format of E exponent and M mantissa bits. */
DEV int fmt_nan(u32 b, int E, int M) { return (b & ~(1u << (E + M))) > (((1u << E) - 1u) << M); }
DEV int fmt_inf(u32 b, int E, int M) { return (b & ~(1u << (E + M))) == (((1u << E) - 1u) << M); }
DEV int fmt_subnormal(u32 b, int E, int M) { return (b & (((1u << E) - 1u) << M)) == 0 && (b & ((1u << M) - 1u)); }

/* |ordinal(a) - ordinal(b)| (judge.scoring.xp.ordinal_distance) */
DEV i64 ulp_distance(u32 a, u32 b, int E, int M) {
    u32 sign = 1u << (E + M);
    i64 oa = (i64)(a & ~sign), ob = (i64)(b & ~sign);
    if (a & sign) oa = -oa;
    if (b & sign) ob = -ob;
    i64 d = oa - ob;
    return d < 0 ? -d : d;
}

/* floor(log2|hi + lo|), at least emin (judge.scoring.vector._ulp_exponent) */
DEV int ulp_exponent(double hi, double lo, int emin) {
    if (hi == 0.0) return emin;
    u64 hb = f64_bits(hi);
    int be = (int)((hb >> 52) & 0x7FF), e, power = (hb & 0xFFFFFFFFFFFFFull) == 0;
    if (be == 0 || be == 0x7FF) { /* subnormal (or not finite): frexp's way */
        double fr = frexp(fabs(hi), &e);
        e -= 1;
        power = fr == 0.5;
    } else {
        e = be - 1023; /* a normal binary64: floor(log2|hi|) is its exponent */
    }
    if (power && lo != 0.0 && (signbit(lo) != 0) != (signbit(hi) != 0)) e -= 1;
    return e < emin ? emin : e;
}

/* One element, measured and judged (classify's rules and add_chunk's measurements): observed
 * bits o, correctly rounded bits e, the exact value hi + lo (lo = 0 where hi alone stands for it),
 * in a format of E exponent and M mantissa bits; daz: an input was a nonzero subnormal. */
DEV void score_one(u32 o, u32 e, double hi, double lo, int E, int M, int daz, Elem *el) {
    int emin = 2 - (1 << (E - 1));
    int obs_nan = fmt_nan(o, E, M), exp_nan = fmt_nan(e, E, M);
    int obs_inf = fmt_inf(o, E, M), exp_inf = fmt_inf(e, E, M);
    int same = (o == e) || (obs_nan && exp_nan);
    double obs_f = value_of(o, E, M), exp_f = value_of(e, E, M);
    el->variants = 0;
    el->mism = 0;
    el->worst = 0;
    el->rel_ok = 0;
    /* the measurements over the whole chunk (add_chunk's `known`) */
    el->known = !obs_nan && !obs_inf && !exp_nan && isfinite(hi);
    double diff = fabs((obs_f - hi) - lo);
    if (el->known) {
        el->err = diff;
        el->real = diff * pow2(M - ulp_exponent(hi, lo, emin)); /* ldexp's result: one rounding of the exact product */
        if (hi != 0.0) {
            el->rel_ok = 1;
            el->habs = fabs(hi); /* rel = err / habs, divided only where it may raise the maximum (acc_add) */
        }
    }
    int finite_pair = !obs_nan && !exp_nan && !obs_inf && !exp_inf;
    i64 dist = ulp_distance(o, e, E, M);
    el->dist = dist;
    el->in_hist = finite_pair;
    el->bin = (u32)(dist < HIST_BINS ? dist : HIST_BINS);
    if (same) return;
    el->worst = finite_pair;
    apply_rules(el, obs_nan, exp_nan, obs_inf, exp_inf, obs_f, exp_f, hi, diff, dist, daz, pow2(emin));
}

/* The settled entry of local index i among the host's sorted indices, or -1 */
DEV i64 settled_at(u32 i, const u32 *s_idx, u32 ns) {
    u32 lo = 0, hi = ns;
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        if (s_idx[mid] < i) lo = mid + 1; else hi = mid;
    }
    return lo < ns && s_idx[lo] == i ? (i64)lo : -1;
}

/* counters both sides update: by atomics on the GPU, in place in the twin */
DEV void bump(u64 *p) {
#ifdef JUDGE_GPU
    atomicAdd(p, 1ull);
#else
    (*p)++;
#endif
}
DEV void raise_to(u64 *p, u64 v) {
#ifdef JUDGE_GPU
    atomicMax(p, v);
#else
    if (v > *p) *p = v;
#endif
}

/* What one chunk adds up to (the same layout on both sides). */
typedef struct {
    u64 vcount[NVARIANTS];
    u64 vfirst[NVARIANTS]; /* lowest local index, ~0 where none */
    u64 mism[NMISM];
    u64 over;
    u64 worst_key;         /* (dist << 32) | (0xFFFFFFFF - local index), 0 where none */
    double real_max;       /* -1 where none */
    u64 real_idx;
    double abs_max, rel_max;
    u64 missing;           /* flagged elements with no settled values (a driver error) */
    u64 h0, h1;            /* histogram bins 0 and 1 (the twin; the GPU adds them to hist) */
} Stats;

#define NCOUNTS (NVARIANTS + NMISM + 2) /* variant counts, mismatches, over, missing */
#define C_MISSING (NVARIANTS + NMISM + 1)

/* One thread's (or the twin's) running totals. On the GPU the counts and firsts, rarely touched
 * (only failing elements add to them), are the block's, in shared memory, by shared atomics: a
 * thread keeps in registers only what every element updates. */
typedef struct {
#ifdef JUDGE_GPU
    u64 *c, *f;
#else
    u64 c[NCOUNTS];
    u64 f[NVARIANTS];
#endif
    u64 h0, h1, wkey, ridx;
    double rmax, amax, relmax;
} Acc;

DEV void acc_init_own(Acc *a) {
    a->h0 = a->h1 = a->wkey = 0;
    a->ridx = ~(u64)0;
    a->rmax = -1.0;
    a->amax = a->relmax = 0.0;
}

DEV void acc_count(Acc *a, int k, u64 v) {
#ifdef JUDGE_GPU
    if (v) atomicAdd(&a->c[k], v);
#else
    a->c[k] += v;
#endif
}

DEV void acc_first(Acc *a, int k, u64 i) {
#ifdef JUDGE_GPU
    atomicMin(&a->f[k], i);
#else
    if (i < a->f[k]) a->f[k] = i;
#endif
}

/* Whether err / habs may exceed m once rounded. Not when err < t = RN(m * habs): err is then at
 * most t's predecessor, which lies below m * habs exactly (t is the nearest to it; an infinite t
 * stands for a product above every finite err), so err / habs < m, and its rounding is at most m. */
DEV int rel_may_raise(double err, double habs, double m) {
#ifdef PLANT_REL_FILTER_EQUAL
    return !(err <= m * habs); /* a planted bug: an err equal to the rounded product is skipped */
#endif
    return !(err < m * habs);
}

/* Add element i (local index, ascending per accumulator); bins from 2 up go to `hist`. */
DEV void acc_add(Acc *a, const Elem *el, u64 i, u32 *hist) {
    if (el->in_hist) {
        if (el->bin == 0) a->h0++;
        else if (el->bin == 1) a->h1++;
#ifdef JUDGE_GPU
        else atomicAdd(&hist[el->bin], 1u);
#else
        else hist[el->bin]++;
#endif
    }
    if (el->worst) {
        u64 key = ((u64)el->dist << 32) | (0xFFFFFFFFull - i);
        a->wkey = key > a->wkey ? key : a->wkey;
    }
    if (el->known) {
        if (el->real > a->rmax) { a->rmax = el->real; a->ridx = i; } /* ascending i: ties keep the first */
        a->amax = el->err > a->amax ? el->err : a->amax;
        if (el->rel_ok && rel_may_raise(el->err, el->habs, a->relmax)) {
            double rel = el->err / el->habs;
            a->relmax = rel > a->relmax ? rel : a->relmax;
        }
    }
    if (el->variants) {
        for (int k = 0; k < NVARIANTS; k++) {
            if (el->variants & (1u << k)) {
                acc_count(a, k, 1);
                acc_first(a, k, i);
            }
        }
        if (el->variants & OVER_MASK) acc_count(a, NVARIANTS + NMISM, 1);
    }
    if (el->mism)
        for (int k = 0; k < NMISM; k++) acc_count(a, NVARIANTS + k, (el->mism >> k) & 1u);
}

#ifdef JUDGE_GPU

#define THREADS 256
#define WARPS (THREADS / 32)

DEV u64 warp_sum(u64 v) {
    for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xFFFFFFFFu, v, o);
    return v;
}
DEV u64 warp_max(u64 v) {
    for (int o = 16; o; o >>= 1) { u64 w = __shfl_down_sync(0xFFFFFFFFu, v, o); v = w > v ? w : v; }
    return v;
}
DEV double warp_maxd(double v) {
    for (int o = 16; o; o >>= 1) { double w = __shfl_down_sync(0xFFFFFFFFu, v, o); v = w > v ? w : v; }
    return v;
}
/* (value, index) with the larger value, the lower index on a tie */
DEV void warp_argmax(double *v, u64 *i) {
    for (int o = 16; o; o >>= 1) {
        double w = __shfl_down_sync(0xFFFFFFFFu, *v, o);
        u64 j = __shfl_down_sync(0xFFFFFFFFu, *i, o);
        if (w > *v || (w == *v && j < *i)) { *v = w; *i = j; }
    }
}

/* What a block shares: its histogram (bins from 2 up; 0 and 1 are per thread), counts and firsts. */
typedef struct {
    u32 hist[HIST_BINS + 1];
    u64 c[NCOUNTS];
    u64 f[NVARIANTS];
} Block;

/* A block's start, every thread calls it: the shared totals cleared, this thread's accumulator. */
__device__ void block_begin(Block *sh, Acc *a) {
    for (int b = threadIdx.x; b <= HIST_BINS; b += THREADS) sh->hist[b] = 0;
    for (int k = threadIdx.x; k < NCOUNTS; k += THREADS) sh->c[k] = 0;
    for (int k = threadIdx.x; k < NVARIANTS; k += THREADS) sh->f[k] = ~0ull;
    __syncthreads();
    a->c = sh->c;
    a->f = sh->f;
    acc_init_own(a);
}

/* The block's sum of v, by thread 0 (every thread calls it). */
__device__ u64 block_sum(u64 v, u64 *sh_u) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) sh_u[warp] = v;
    __syncthreads();
    u64 s = 0;
    if (threadIdx.x == 0)
        for (int w = 0; w < WARPS; w++) s += sh_u[w];
    __syncthreads();
    return s;
}

/* The block's totals: sums and firsts by atomics, extremes per block; every thread calls it. */
__device__ void acc_finish(Acc *a, Block *sh, u64 *hist, u64 *counts, u64 *firsts, u64 *keys,
                           double *reals, u64 *real_idx, double *abs_max, double *rel_max) {
    __shared__ u64 sh_u[WARPS];
    __shared__ u64 sh_j[WARPS];
    __shared__ double sh_d[WARPS];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u64 h0 = block_sum(a->h0, sh_u), h1 = block_sum(a->h1, sh_u); /* its syncs also end the shared atomics */
    if (threadIdx.x == 0) {
        if (h0) atomicAdd(&hist[0], h0);
        if (h1) atomicAdd(&hist[1], h1);
        for (int k = 0; k < NCOUNTS; k++)
            if (sh->c[k]) atomicAdd(&counts[k], sh->c[k]);
        for (int k = 0; k < NVARIANTS; k++)
            if (sh->f[k] != ~0ull) atomicMin(&firsts[k], sh->f[k]);
    }
    u64 v = warp_max(a->wkey);
    if (lane == 0) sh_u[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        u64 m = 0;
        for (int w = 0; w < WARPS; w++) m = sh_u[w] > m ? sh_u[w] : m;
        keys[blockIdx.x] = m;
    }
    __syncthreads();
    double d = warp_maxd(a->amax);
    if (lane == 0) sh_d[warp] = d;
    __syncthreads();
    if (threadIdx.x == 0) {
        double m = 0.0;
        for (int w = 0; w < WARPS; w++) m = sh_d[w] > m ? sh_d[w] : m;
        abs_max[blockIdx.x] = m;
    }
    __syncthreads();
    d = warp_maxd(a->relmax);
    if (lane == 0) sh_d[warp] = d;
    __syncthreads();
    if (threadIdx.x == 0) {
        double m = 0.0;
        for (int w = 0; w < WARPS; w++) m = sh_d[w] > m ? sh_d[w] : m;
        rel_max[blockIdx.x] = m;
    }
    __syncthreads();
    double r = a->rmax;
    u64 j = a->ridx;
    warp_argmax(&r, &j);
    if (lane == 0) { sh_d[warp] = r; sh_j[warp] = j; }
    __syncthreads();
    if (threadIdx.x == 0) {
        double m = -1.0;
        u64 mj = ~0ull;
        for (int w = 0; w < WARPS; w++)
            if (sh_d[w] > m || (sh_d[w] == m && sh_j[w] < mj)) { m = sh_d[w]; mj = sh_j[w]; }
        reals[blockIdx.x] = m;
        real_idx[blockIdx.x] = mj;
    }
    for (int b = threadIdx.x; b <= HIST_BINS; b += THREADS)
        if (sh->hist[b]) atomicAdd(&hist[b], (u64)sh->hist[b]);
}

#else

DEV void acc_init(Acc *a) {
    for (int k = 0; k < NCOUNTS; k++) a->c[k] = 0;
    for (int k = 0; k < NVARIANTS; k++) a->f[k] = ~(u64)0;
    acc_init_own(a);
}

/* The twin's totals as a Stats (its histogram holds bins 2 and up). */
static void acc_stats(const Acc *a, Stats *st) {
    for (int k = 0; k < NVARIANTS; k++) { st->vcount[k] = a->c[k]; st->vfirst[k] = a->f[k]; }
    for (int k = 0; k < NMISM; k++) st->mism[k] = a->c[NVARIANTS + k];
    st->over = a->c[NVARIANTS + NMISM];
    st->missing = a->c[NVARIANTS + NMISM + 1];
    st->worst_key = a->wkey;
    st->real_max = a->rmax;
    st->real_idx = a->ridx;
    st->abs_max = a->amax;
    st->rel_max = a->relmax;
    st->h0 = a->h0;
    st->h1 = a->h1;
}

#endif
#endif
