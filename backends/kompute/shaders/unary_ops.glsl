// The 16-op unary selector plus the parameterised pointwise ops (Affine, Clamp, PowI), over the
// compute type C. GLSL has no double-precision exp/log/sin/cos/tanh/pow, so in the f64 build
// those are evaluated in f32 (FMATH); everything else is native double.

#ifdef C_IS_DOUBLE
#define FMATH(f, v) C(f(float(v)))
#define FMATH2(f, a, b) C(f(float(a), float(b)))
C param_c(uint k) { return packDouble2x32(uvec2(m[M_PARAM + 2u * k], m[M_PARAM + 2u * k + 1u])); }
#else
#define FMATH(f, v) f(v)
#define FMATH2(f, a, b) f(a, b)
C param_c(uint k) { return uintBitsToFloat(m[M_PARAM + k]); }
#endif

#define OP_AFFINE 16u
#define OP_CLAMP 17u
#define OP_POWI 18u

C sigmoid_c(C v) { return C(1) / (C(1) + FMATH(exp, -v)); }

C apply_unary(uint op, C v) {
    switch (op) {
    case 0u: return -v;
    case 1u: return v * v;
    case 2u: return sqrt(v);
    case 3u: return FMATH(exp, v);
    case 4u: return FMATH(log, v);
    case 5u: return FMATH(sin, v);
    case 6u: return FMATH(cos, v);
    case 7u: return FMATH(tanh, v);
    case 8u: return sigmoid_c(v);
    case 9u: return v * sigmoid_c(v);
    case 10u: {
        // tanh approximation of GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        C inner = C(0.7978845608028654) * (v + C(0.044715) * v * v * v);
        return C(0.5) * v * (C(1) + FMATH(tanh, inner));
    }
    case 11u: return max(v, C(0));
    case 12u: return v > C(0) ? C(1) : C(0);
    case 13u: return abs(v);
    case 14u: return sign(v);
    case 15u: return C(1) / v;
    case OP_AFFINE: return v * param_c(0u) + param_c(1u);
    case OP_CLAMP: return clamp(v, param_c(0u), param_c(1u));
    case OP_POWI: {
        int e = int(m[M_PARAM]);
        if (e == 0) return C(1);
        if (e == 1) return v;
        if (e == 2) return v * v;
        if (e == 3) return v * v * v;
        return FMATH2(pow, v, C(e));
    }
    }
    return C(0);
}
