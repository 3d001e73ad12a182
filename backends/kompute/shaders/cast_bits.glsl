// Float conversions done on bit patterns in integer arithmetic only (no float instruction, so a
// driver that flushes subnormals or picks its own rounding cannot change a result). Wider
// formats are exact; narrowing rounds once to nearest, ties to even, with gradual underflow.

// F16 bits -> F32 bits, exact (subnormals normalised, NaN payload kept).
uint f16_to_f32_bits(uint h) {
    uint sign = (h & 0x8000u) << 16;
    uint e = (h >> 10) & 0x1Fu;
    uint man = h & 0x3FFu;
    if (e == 0x1Fu) return sign | 0x7F800000u | (man << 13);
    if (e == 0u) {
        if (man == 0u) return sign;
        uint p = uint(findMSB(man));  // value = man * 2^-24 = 1.f * 2^(p - 24)
        return sign | ((p + 103u) << 23) | ((man ^ (1u << p)) << (23u - p));
    }
    return sign | ((e + 112u) << 23) | (man << 13);
}

// F8E4M3 bits -> the bits of a float with `mbits` fraction bits, exponent bias `bias` and sign at
// bit `top`, exact; NaN (S.1111.111) becomes `nan` with the sign.
uint f8_to_bits(uint b, uint top, uint mbits, uint bias, uint nan) {
    uint sign = (b >> 7) << top;
    uint mag = b & 0x7Fu;
    if (mag == 0x7Fu) return sign | nan;
    if (mag == 0u) return sign;
    uint e = mag >> 3;
    uint frac = mag & 7u;
    int ex = int(e) - 7;
    if (e == 0u) {  // subnormal: frac * 2^-9
        uint p = uint(findMSB(frac));
        ex = int(p) - 9;
        frac = (frac ^ (1u << p)) << (3u - p);
    }
    return sign | (uint(ex + int(bias)) << mbits) | (frac << (mbits - 3u));
}

// Round sig >> s to nearest even (s in 1..32; bit 0 of sig may hold a sticky bit) and add it to
// `base`, the exponent field below the significand's implicit bit.
uint round_shift(uint base, uint sig, uint s) {
    uint q = s < 32u ? sig >> s : 0u;
    uint rem = s < 32u ? sig & ((1u << s) - 1u) : sig;
    uint half_ = 1u << (s - 1u);
    uint r = base + q;
    if (rem > half_ || (rem == half_ && (r & 1u) == 1u)) r += 1u;
    return r;
}

// F32 bits -> F8E4M3 bits: non-saturating (above 448 after rounding, ±inf and NaN give NaN).
uint f32_to_f8_bits(uint b) {
    uint sign = (b >> 24) & 0x80u;
    uint e = (b >> 23) & 0xFFu;
    if (e >= 136u) return sign | 0x7Fu;  // |x| >= 512, inf, NaN
    if (e < 117u) return sign;           // |x| < 2^-10: below half the smallest subnormal
    uint sig = ((b & 0x7FFFFFu) | 0x800000u) << 8;  // bit 31 = the implicit bit
    uint s = e >= 121u ? 28u : 149u - e;  // 4 significand bits when normal, fewer below 2^-6
    uint base = e >= 121u ? (e - 121u) << 3 : 0u;
    return sign | min(round_shift(base, sig, s), 0x7Fu);
}

// F32 bits -> F64 bits (lo, hi), exact (a signalling NaN is quieted, as IEEE convertFormat does).
uvec2 f32_to_f64_bits(uint b) {
    uint sign = b & 0x80000000u;
    uint e = (b >> 23) & 0xFFu;
    uint man = b & 0x7FFFFFu;
    if (e == 0xFFu) {  // ±inf; NaN comes out quiet with its payload
        uint quiet = man != 0u ? 0x80000u : 0u;
        return uvec2(man << 29, sign | 0x7FF00000u | quiet | (man >> 3));
    }
    uint ex = e + 896u;  // rebias 127 -> 1023
    if (e == 0u) {
        if (man == 0u) return uvec2(0u, sign);
        uint p = uint(findMSB(man));  // value = man * 2^-149 = 1.f * 2^(p - 149)
        man = (man ^ (1u << p)) << (23u - p);
        ex = p + 874u;
    }
    return uvec2(man << 29, sign | (ex << 20) | (man >> 3));
}

// F64 bits (lo, hi) -> F32 bits: overflow to ±inf, NaN quiet with its top payload bits.
uint f64_to_f32_bits(uint lo, uint hi) {
    uint sign = hi & 0x80000000u;
    uint e = (hi >> 20) & 0x7FFu;
    uint man = hi & 0xFFFFFu;
    if (e == 0x7FFu) {
        if ((man | lo) != 0u) return sign | 0x7FC00000u | (man << 3) | (lo >> 29);
        return sign | 0x7F800000u;
    }
    if (e >= 1151u) return sign | 0x7F800000u;  // |x| >= 2^128
    if (e < 873u) return sign;                  // |x| < 2^-150: at most half the smallest subnormal
    uint sticky = (lo & 0x1FFFFFu) != 0u ? 1u : 0u;
    uint sig = ((man | 0x100000u) << 11) | (lo >> 21) | sticky;  // bit 31 = the implicit bit
    uint s = e >= 897u ? 8u : 905u - e;
    uint base = e >= 897u ? (e - 897u) << 23 : 0u;
    return sign | round_shift(base, sig, s);
}
