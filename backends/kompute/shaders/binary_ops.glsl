// The 6-op binary selector over the compute type C.
C apply_binary(uint op, C a, C b) {
    switch (op) {
    case 0u: return a + b;
    case 1u: return a - b;
    case 2u: return a * b;
    case 3u: return a / b;
    case 4u: return max(a, b);
    case 5u: return min(a, b);
    }
    return C(0);
}
