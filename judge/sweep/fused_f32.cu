/* The fused F32 sweep: reference, certificate and rulebook, one element at a time.
 *
 * Compiled two ways from this one file:
 *   - by NVRTC (cupy.RawModule) for the GPU: kernels `flag_chunk`, `score_chunk`, `ref_at`;
 *   - by the host C compiler for the CPU twin (tests, machines without a GPU): `twin_*`
 *     functions that walk the same per-element code sequentially.
 * Configuration comes as -D macros (judge/sweep/fused.py writes them from the contract):
 *   REF_FN          the F64 function of the reference (exp, log, sin, cos, tanh, erf, sqrt)
 *   KIND            0 exact, 1 declared, 2 sanity (judge.scoring.rules.bound_kind)
 *   HAS_MAX_ULP / MAX_ULP, HAS_MAX_ABS / MAX_ABS_BITS, HAS_MAX_REL / MAX_REL_BITS
 *   SANITY_BITS     2^(-p/2), the sanity factor; THRESH_BITS the F32 overflow threshold
 *   MARGIN          F64 ulps of the certificate (judge.sweep.f32_reference.MARGIN_F64_ULPS)
 * Doubles travel as their bit patterns, so no decimal round trip can change a bound.
 *
 * The certificate (judge.sweep.f32_reference): the F64 function is within its documented error
 * (at most 2 F64 ulps) of the exact value; an element whose F64 result lies more than MARGIN
 * F64 ulps from every F32 rounding boundary rounds to the correctly rounded F32 result. The others
 * are *flagged*: `flag_chunk` lists them, the host settles them with the pure oracle, and
 * `score_chunk` scores them against the settled bits it is given. Every element is scored by the
 * same code, so nothing is merged afterwards.
 *
 * The per-element rules are judge.scoring.vector.classify's, in its order, for lo = None (the F64
 * reference stands in for the exact value), F32 outputs and one F32 input. Each failing "hit
 * variant" (a check, its order, and whether a flushed subnormal broke it) is a bit of `variants`;
 * judge/sweep/fused.py maps the bits back to checks and spells out the first element of each with
 * classify itself, so messages are the rulebook's words.
 *
 * No floating-point contraction: NVRTC gets -fmad=false and the host compiler
 * -ffp-contract=off, so each operation rounds once, as each separate torch/numpy pass does.
 */

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

#ifndef MARGIN
#define MARGIN 16
#endif

#define HIST_BINS 4096
#define NVARIANTS 15
/* hit variants, as judge/sweep/fused.py's VARIANTS lists them */
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

DEV float bits_f32(u32 b) {
#ifdef JUDGE_GPU
    return __int_as_float((int)b);
#else
    float f;
    memcpy(&f, &b, 4);
    return f;
#endif
}

DEV u32 f32_bits(float f) {
#ifdef JUDGE_GPU
    return (u32)__float_as_int(f);
#else
    u32 b;
    memcpy(&b, &f, 4);
    return b;
#endif
}

DEV int is_nan32(u32 b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }
DEV int is_inf32(u32 b) { return (b & 0x7FFFFFFFu) == 0x7F800000u; }
DEV int nonzero_subnormal32(u32 b) { return (b & 0x7F800000u) == 0 && (b & 0x007FFFFFu) != 0; }

/* the F64 reference of input bits x */
DEV double reference(u32 x) { return REF_FN((double)bits_f32(x)); }

/* judge.sweep.f32_reference.near_boundary for one element: the F32 rounding of ref (bits) and
 * whether ref lies within MARGIN F64 ulps of an F32 rounding boundary. */
DEV int near_boundary(double ref, u32 *r_bits) {
    float r = (float)ref;
    double rd = (double)r;
    double up = (double)nextafterf(r, bits_f32(0x7F800000u));  /* towards +inf */
    double dn = (double)nextafterf(r, bits_f32(0xFF800000u));  /* towards -inf */
    double mid_up = (rd + up) * 0.5;
    double mid_dn = (rd + dn) * 0.5;
    if (isinf(up)) mid_up = rd + (rd - mid_dn);
    if (isinf(dn)) mid_dn = rd - (mid_up - rd);
    double a = fabs(ref - mid_up), b = fabs(ref - mid_dn);
    double dist = a < b ? a : b;
    if (isinf(r)) dist = fabs(ref) - bits_f64(THRESH_BITS);
    double bound = (fabs(ref) * 0x1p-52 + 0x1p-1074) * (double)MARGIN;
    *r_bits = f32_bits(r);
#ifdef PLANT_ONE_SIDED
    dist = a; /* a planted bug: only the boundary above is looked at */
#endif
    return isfinite(ref) && dist <= bound;
}

/* |ordinal(a) - ordinal(b)| (judge.scoring.xp.ordinal_distance) */
DEV i64 ulp_distance(u32 a, u32 b) {
    i64 oa = (i64)(a & 0x7FFFFFFFu), ob = (i64)(b & 0x7FFFFFFFu);
    if (a & 0x80000000u) oa = -oa;
    if (b & 0x80000000u) ob = -ob;
    i64 d = oa - ob;
    return d < 0 ? -d : d;
}

/* floor(log2|hi|) at least emin (judge.scoring.vector._ulp_exponent, lo = None) */
DEV int ulp_exponent(double hi) {
    if (hi == 0.0) return -126;
    int e;
    frexp(fabs(hi), &e);
    e -= 1;
    return e < -126 ? -126 : e;
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
    double err, real, rel;
} Elem;

/* One element: input bits x, observed bits o, correctly rounded bits e, F64 reference ref. */
DEV void score_elem(u32 x, u32 o, u32 e, double ref, Elem *el) {
    float of = bits_f32(o), ef = bits_f32(e);
    int obs_nan = is_nan32(o), exp_nan = is_nan32(e);
    int same = (o == e) || (obs_nan && exp_nan);
    double obs_f = (double)of, exp_f = (double)ef;
    int obs_inf = is_inf32(o), exp_inf = is_inf32(e);
    el->variants = 0;
    el->mism = 0;
    el->worst = 0;
    el->rel_ok = 0;
    /* the measurements over the whole chunk (add_chunk's `known`) */
    el->known = !obs_nan && !obs_inf && !exp_nan && isfinite(ref);
    double diff = fabs(obs_f - ref);
    if (el->known) {
        el->err = diff;
        el->real = ldexp(diff, -(ulp_exponent(ref) - 23));
        if (ref != 0.0) {
            el->rel_ok = 1;
            el->rel = diff / fabs(ref);
        }
    }
    int finite_pair = !obs_nan && !exp_nan && !obs_inf && !exp_inf;
    i64 dist = ulp_distance(o, e);
    el->dist = dist;
    el->in_hist = finite_pair;
    el->bin = (u32)(dist < HIST_BINS ? dist : HIST_BINS);
    if (same) return;
    el->worst = finite_pair;
    if (obs_nan != exp_nan) {
        el->variants |= 1u << V_NAN;
        el->mism |= 1u << 0;
    }
    if (obs_nan || exp_nan) return; /* `both` is false: no other rule applies */
    int has_exact = isfinite(ref);
    int kn = has_exact && !obs_inf; /* classify's err_known */
    int inf_case = (obs_inf != exp_inf) || (obs_inf && exp_inf);
    (void)kn;
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
    int fl = obs_f == 0.0 && exp_f != 0.0 && fabs(exp_f) < 0x1p-126 &&
             ((signbit(obs_f) != 0) == (signbit(exp_f) != 0) || nonzero_subnormal32(x));
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
    if (kn && ref != 0.0 && diff / fabs(ref) > bits_f64(MAX_REL_BITS))
        el->variants |= 1u << (fl ? V_SUB_REL : V_BOUND_REL);
#endif
#if HAS_MAX_ABS || HAS_MAX_REL
    if (!kn) el->variants |= 1u << (fl ? V_SUB_INF : V_BOUND_INF);
#endif
#else
    double mag = fabs(ref);
    double limit = bits_f64(SANITY_BITS) * (mag < 1.0 ? 1.0 : mag);
    if (!kn || diff > limit) {
        el->variants |= 1u << (fl ? V_SUB_IMPL : V_IMPL);
        el->mism |= 1u << 3;
    }
#endif
}

/* The settled bits of flagged element i (sorted local indices), or the rounded F64 bits. */
DEV u32 expected_bits(u32 i, int flagged, u32 r_bits, const u32 *s_idx, const u32 *s_bits, u32 ns,
                      int *missing) {
    if (!flagged) return r_bits;
    u32 lo = 0, hi = ns;
    while (lo < hi) {
        u32 mid = lo + (hi - lo) / 2;
        if (s_idx[mid] < i) lo = mid + 1; else hi = mid;
    }
    if (lo < ns && s_idx[lo] == i) return s_bits[lo];
    *missing = 1;
    return r_bits;
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
    u64 missing;           /* flagged elements with no settled bits (a driver error) */
} Stats;

#ifdef JUDGE_GPU

#define THREADS 256
#define WARPS (THREADS / 32)

DEV u64 warp_sum(u64 v) {
    for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xFFFFFFFFu, v, o);
    return v;
}
DEV u64 warp_min(u64 v) {
    for (int o = 16; o; o >>= 1) { u64 w = __shfl_down_sync(0xFFFFFFFFu, v, o); v = w < v ? w : v; }
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

/* Pass 1: list the flagged elements of inputs start .. start + n - 1 (local indices). */
extern "C" __global__ void flag_chunk(u64 start, u64 n, u32 *out, u32 *count, u32 cap) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u32 r;
        if (near_boundary(reference((u32)(start + i)), &r)) {
            u32 k = atomicAdd(count, 1u);
            if (k < cap) out[k] = (u32)i;
        }
    }
}

/* The reference at listed inputs: F64 value, rounded bits, flag. */
extern "C" __global__ void ref_at(const u64 *x, u64 n, double *ref, u32 *bits, u32 *flag) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double r = reference((u32)x[i]);
        u32 b;
        flag[i] = near_boundary(r, &b);
        ref[i] = r;
        bits[i] = b;
    }
}

/* Pass 2: score elements start .. start + n - 1 against outputs y; each block takes `per_block`
 * consecutive elements and writes its partial sums and extremes; hist and counts by atomics. */
extern "C" __global__ void score_chunk(u64 start, u64 n, u64 per_block, const u32 *y,
                                       const u32 *s_idx, const u32 *s_bits, u32 ns,
                                       u64 *hist, u64 *counts, u64 *firsts, u64 *keys,
                                       double *reals, u64 *real_idx, double *abs_max, double *rel_max) {
    __shared__ u32 sh_hist[HIST_BINS + 1];
    __shared__ u64 sh_u[WARPS];
    __shared__ double sh_d[WARPS];
    for (int b = threadIdx.x; b <= HIST_BINS; b += THREADS) sh_hist[b] = 0;
    __syncthreads();
    u64 b0 = (u64)blockIdx.x * per_block;
    u64 b1 = b0 + per_block < n ? b0 + per_block : n;
    u64 c[NVARIANTS + NMISM + 2]; /* variant counts, mismatches, over, missing */
    u64 f[NVARIANTS];
    for (int k = 0; k < NVARIANTS + NMISM + 2; k++) c[k] = 0;
    for (int k = 0; k < NVARIANTS; k++) f[k] = ~0ull;
    u64 h0 = 0, h1 = 0, wkey = 0, ridx = ~0ull;
    double rmax = -1.0, amax = 0.0, relmax = 0.0;
    for (u64 i = b0 + threadIdx.x; i < b1; i += THREADS) {
        u32 x = (u32)(start + i);
        double ref = reference(x);
        u32 r;
        int flagged = near_boundary(ref, &r);
        int missing = 0;
        u32 e = expected_bits((u32)i, flagged, r, s_idx, s_bits, ns, &missing);
        c[NVARIANTS + NMISM + 1] += missing;
        Elem el;
        score_elem(x, y[i], e, ref, &el);
        if (el.in_hist) {
            if (el.bin == 0) h0++;
            else if (el.bin == 1) h1++;
            else atomicAdd(&sh_hist[el.bin], 1u);
        }
        if (el.worst) {
            u64 key = ((u64)el.dist << 32) | (0xFFFFFFFFull - i);
            wkey = key > wkey ? key : wkey;
        }
        if (el.known) {
            if (el.real > rmax) { rmax = el.real; ridx = i; } /* ascending i: ties keep the first */
            amax = el.err > amax ? el.err : amax;
            if (el.rel_ok) relmax = el.rel > relmax ? el.rel : relmax;
        }
        if (el.variants) {
            for (int k = 0; k < NVARIANTS; k++) {
                if (el.variants & (1u << k)) {
                    c[k]++;
                    if (i < f[k]) f[k] = i;
                }
            }
            if (el.variants & OVER_MASK) c[NVARIANTS + NMISM]++;
        }
        for (int k = 0; k < NMISM; k++) c[NVARIANTS + k] += (el.mism >> k) & 1u;
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    /* sums */
    for (int k = 0; k < NVARIANTS + NMISM + 2 + 2; k++) {
        u64 v = k < NVARIANTS + NMISM + 2 ? c[k] : (k == NVARIANTS + NMISM + 2 ? h0 : h1);
        v = warp_sum(v);
        if (lane == 0) sh_u[warp] = v;
        __syncthreads();
        if (threadIdx.x == 0) {
            u64 s = 0;
            for (int w = 0; w < WARPS; w++) s += sh_u[w];
            if (s) {
                if (k < NVARIANTS + NMISM + 2) atomicAdd(&counts[k], s);
                else atomicAdd(&hist[k - (NVARIANTS + NMISM + 2)], s);
            }
        }
        __syncthreads();
    }
    /* first elements */
    for (int k = 0; k < NVARIANTS; k++) {
        u64 v = warp_min(f[k]);
        if (lane == 0) sh_u[warp] = v;
        __syncthreads();
        if (threadIdx.x == 0) {
            u64 m = ~0ull;
            for (int w = 0; w < WARPS; w++) m = sh_u[w] < m ? sh_u[w] : m;
            if (m != ~0ull) atomicMin(&firsts[k], m);
        }
        __syncthreads();
    }
    /* worst ULP key, per block */
    {
        u64 v = warp_max(wkey);
        if (lane == 0) sh_u[warp] = v;
        __syncthreads();
        if (threadIdx.x == 0) {
            u64 m = 0;
            for (int w = 0; w < WARPS; w++) m = sh_u[w] > m ? sh_u[w] : m;
            keys[blockIdx.x] = m;
        }
        __syncthreads();
    }
    /* error maxima, per block */
    {
        double v = warp_maxd(amax);
        if (lane == 0) sh_d[warp] = v;
        __syncthreads();
        if (threadIdx.x == 0) {
            double m = 0.0;
            for (int w = 0; w < WARPS; w++) m = sh_d[w] > m ? sh_d[w] : m;
            abs_max[blockIdx.x] = m;
        }
        __syncthreads();
        v = warp_maxd(relmax);
        if (lane == 0) sh_d[warp] = v;
        __syncthreads();
        if (threadIdx.x == 0) {
            double m = 0.0;
            for (int w = 0; w < WARPS; w++) m = sh_d[w] > m ? sh_d[w] : m;
            rel_max[blockIdx.x] = m;
        }
        __syncthreads();
    }
    /* worst ULP-real error with its first index, per block */
    {
        double v = rmax;
        u64 j = ridx;
        warp_argmax(&v, &j);
        __shared__ u64 sh_j[WARPS];
        if (lane == 0) { sh_d[warp] = v; sh_j[warp] = j; }
        __syncthreads();
        if (threadIdx.x == 0) {
            double m = -1.0;
            u64 mj = ~0ull;
            for (int w = 0; w < WARPS; w++)
                if (sh_d[w] > m || (sh_d[w] == m && sh_j[w] < mj)) { m = sh_d[w]; mj = sh_j[w]; }
            reals[blockIdx.x] = m;
            real_idx[blockIdx.x] = mj;
        }
    }
    /* the rest of the histogram */
    __syncthreads();
    for (int b = threadIdx.x; b <= HIST_BINS; b += THREADS)
        if (sh_hist[b]) atomicAdd(&hist[b], (u64)sh_hist[b]);
}

#else /* the CPU twin */

/* Pass 1: the flagged local indices of start .. start + n - 1; returns how many (out gets cap). */
u64 twin_flag_chunk(u64 start, u64 n, u32 *out, u64 cap) {
    u64 k = 0;
    for (u64 i = 0; i < n; i++) {
        u32 r;
        if (near_boundary(reference((u32)(start + i)), &r)) {
            if (k < cap) out[k] = (u32)i;
            k++;
        }
    }
    return k;
}

void twin_ref_at(const u64 *x, u64 n, double *ref, u32 *bits, u32 *flag) {
    for (u64 i = 0; i < n; i++) {
        ref[i] = reference((u32)x[i]);
        flag[i] = near_boundary(ref[i], &bits[i]);
    }
}

/* The flag of one F64 value (tests of the certificate). */
int twin_near_boundary(double ref, u32 *bits) { return near_boundary(ref, bits); }

/* Pass 2 over one chunk: hist (HIST_BINS + 1 bins) and stats, as the GPU's reduced results. */
void twin_score_chunk(u64 start, u64 n, const u32 *y, const u32 *s_idx, const u32 *s_bits, u32 ns,
                      u64 *hist, Stats *st) {
    for (int k = 0; k < NVARIANTS; k++) { st->vcount[k] = 0; st->vfirst[k] = ~(u64)0; }
    for (int k = 0; k < NMISM; k++) st->mism[k] = 0;
    st->over = st->worst_key = st->missing = 0;
    st->real_max = -1.0;
    st->real_idx = ~(u64)0;
    st->abs_max = st->rel_max = 0.0;
    for (u64 i = 0; i < n; i++) {
        u32 x = (u32)(start + i);
        double ref = reference(x);
        u32 r;
        int flagged = near_boundary(ref, &r);
        int missing = 0;
        u32 e = expected_bits((u32)i, flagged, r, s_idx, s_bits, ns, &missing);
        st->missing += missing;
        Elem el;
        score_elem(x, y[i], e, ref, &el);
        if (el.in_hist) hist[el.bin]++;
        if (el.worst) {
            u64 key = ((u64)el.dist << 32) | (0xFFFFFFFFull - i);
            if (key > st->worst_key) st->worst_key = key;
        }
        if (el.known) {
            if (el.real > st->real_max) { st->real_max = el.real; st->real_idx = i; }
            if (el.err > st->abs_max) st->abs_max = el.err;
            if (el.rel_ok && el.rel > st->rel_max) st->rel_max = el.rel;
        }
        for (int k = 0; k < NVARIANTS; k++) {
            if (el.variants & (1u << k)) {
                st->vcount[k]++;
                if (i < st->vfirst[k]) st->vfirst[k] = i;
            }
        }
        if (el.variants & OVER_MASK) st->over++;
        for (int k = 0; k < NMISM; k++) st->mism[k] += (el.mism >> k) & 1u;
    }
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
