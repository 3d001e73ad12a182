// bf16 lanes packed two per uint32 word (lane 0 = low half). Loads are exact (bits << 16);
// stores round f32 to nearest-even on the upper 16 bits, NaN stored as the canonical qNaN.
float bf16_lane(uint word, uint lane) {
    return uintBitsToFloat(lane == 0u ? (word << 16) : (word & 0xFFFF0000u));
}

uint bf16_bits(float f) {
    if (isnan(f)) return 0x7FC0u;
    uint b = floatBitsToUint(f);
    return (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;
}
