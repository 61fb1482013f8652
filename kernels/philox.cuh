// cuarray philox.cuh: the counter-based generator Philox4x32-10 and the distributions of
// cuarray::random. Conventions: see kernels/README.md; the counter layout and the word
// assignment are documented in src/random/mod.rs.
//
// Every function here has a twin in src/random/host.rs that gives the same bits. To make
// that possible, floating-point arithmetic is written with the `_rn` intrinsics (which the
// compiler never contracts into an FMA; FMAs are explicit), and ln, cos and sin are our own
// polynomials (and, for f32's ln, a table) over basic operations, so nothing depends on
// the device math library.

// ---- Philox4x32-10 ------------------------------------------------------------------
// Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC'11),
// with Random123's multipliers and Weyl key increments. `c` is the counter, replaced by the
// output; (k0, k1) is the key.
__device__ __forceinline__ void philox4x32_10(unsigned int (&c)[4], unsigned int k0, unsigned int k1) {
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        const unsigned int lo0 = 0xD2511F53u * c[0];
        const unsigned int hi0 = __umulhi(0xD2511F53u, c[0]);
        const unsigned int lo1 = 0xCD9E8D57u * c[2];
        const unsigned int hi1 = __umulhi(0xCD9E8D57u, c[2]);
        const unsigned int n0 = hi1 ^ c[1] ^ k0;
        const unsigned int n2 = hi0 ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = lo1;
        c[2] = n2;
        c[3] = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

// The key and the counter's stream words of one launch.
struct rand_ctx {
    unsigned int k0, k1, s0, s1;
    // rand_f32::neg2_ln's table in shared memory, for distributions with LN_TABLE.
    const float2* ln_tab;
};

// The 4 words of Philox block `b` of the stream (counter = [b low, b high, stream low,
// stream high]) under `key`.
__device__ __forceinline__ void philox_block(unsigned int (&c)[4], unsigned long long b, unsigned int k0,
                                             unsigned int k1, const rand_ctx& x) {
    c[0] = (unsigned int)b;
    c[1] = (unsigned int)(b >> 32);
    c[2] = x.s0;
    c[3] = x.s1;
    philox4x32_10(c, k0, k1);
}

// (1 / c, ln c) of the 16 intervals of rand_f32::neg2_ln: 1 / c for c the interval's
// middle, rounded to float, and ln c as -ln of that float, rounded (the interval holding 1
// has exactly (1, 0)). Kernels that use it expand it once per block into shared memory
// (`rand_ln_entry`), one entry for each interval of each exponent.
__device__ const float2 cuarray_rand_ln_tab[16] = {
    {0x1.661ec6p0f, -0x1.57bf74p-2f},  {0x1.571ed4p0f, -0x1.2bef08p-2f}, {0x1.49539ep0f, -0x1.01eae4p-2f},
    {0x1.3c995ap0f, -0x1.b31d84p-3f},  {0x1.30d190p0f, -0x1.6574ecp-3f}, {0x1.25e228p0f, -0x1.1aa2bep-3f},
    {0x1.1bb4a4p0f, -0x1.a4e764p-4f},  {0x1.12358ep0f, -0x1.1973b6p-4f}, {0x1.0953f4p0f, -0x1.252f40p-5f},
    {0x1.000000p0f, 0.0f},             {0x1.e573acp-1f, 0x1.b42de0p-5f}, {0x1.ca4b30p-1f, 0x1.c5e54cp-4f},
    {0x1.b20364p-1f, 0x1.526e5ep-3f},  {0x1.9c2d14p-1f, 0x1.bc286cp-3f}, {0x1.886e60p-1f, 0x1.1058bep-2f},
    {0x1.767dcep-1f, 0x1.40430ap-2f},
};

// The shared table of rand_f32::neg2_ln: entry 16 (k + 1) + i, for the exponent k in
// [-1, 32] of v = u 2^32 and the interval i of its mantissa, is
// (-2 / c 2^-k, -2 (k - 32) ln 2 - 2 ln c), the first exact (a power of two times
// -2 / c), the second by one FMA.
constexpr int RAND_LN_ENTRIES = 16 * 34;
__device__ __forceinline__ float2 rand_ln_entry(int e) {
    const float2 t = cuarray_rand_ln_tab[e & 15];
    const int k = (e >> 4) - 1;
    const float scale = __uint_as_float((unsigned int)(127 - k) << 23);
    return make_float2(__fmul_rn(__fmul_rn(t.x, -2.0f), scale),
                       __fmaf_rn((float)(k - 32), -0x1.62e430p0f, __fmul_rn(t.y, -2.0f)));
}

// ---- real arithmetic, f32 (one word per value) ---------------------------------------
struct rand_f32 {
    typedef float C;
    static constexpr int W = 1;
    static __device__ __forceinline__ float param(unsigned long long p) {
        return __double2float_rn(__longlong_as_double((long long)p));
    }
    static __device__ __forceinline__ float fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
    static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
    static __device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
    static __device__ __forceinline__ float sqrt(float a) { return __fsqrt_rn(a); }
    // [0, 1) is unit_int(w) * unit_step(): the top 24 bits of the word (exact as a
    // float), times 2^-24.
    static __device__ __forceinline__ float unit_int(const unsigned int* w) { return __uint2float_rn(w[0] >> 8); }
    static __device__ __forceinline__ float unit_step() { return 0x1p-24f; }
    // (0, 1]: float(word) 2^-32 + 2^-33, rounded once (never 0: 2^-33 at least).
    static __device__ __forceinline__ float unit_pos(const unsigned int* w) {
        return __fmaf_rn(__uint2float_rn(w[0]), 0x1p-32f, 0x1p-33f);
    }
    // -2 ln(u) for u = unit_pos(w), with no division. v = float(word) + 1/2, rounded once,
    // is u 2^32 exactly (scaling by 2^32 commutes with the rounding). v = 2^k z with z's
    // bits in [0x3f330000, 0x3fb30000) (z in [0.699, 1.398)); the 16 intervals of z by the
    // top 4 bits of (bits - 0x3f330000), each with its (1 / c, ln c) from
    // cuarray_rand_ln_tab (the interval holding 1 has exactly (1, 0)); then
    // ln u = (k - 32) ln 2 + ln c + log1p(r) for r = z / c - 1 by one FMA (|r| < 0.03), and
    // log1p by a minimax polynomial (the layout of ARM's optimized-routines logf). The
    // factor -2 is folded into every step exactly: the shared entry of (k, interval)
    // (rand_ln_entry) gives -2 r = v (-2 / c 2^-k) + 2 by one FMA and the sum of the first
    // two terms, times -2; the polynomial's coefficients are scaled so that each
    // intermediate is a power of two times log1p's own. The result is +0 at u = 1.
    static __device__ __forceinline__ float neg2_ln(const unsigned int* w, const rand_ctx& x) {
        const float v = __fadd_rn(__uint2float_rn(w[0]), 0.5f);
        const int e = ((int)(__float_as_uint(v) - 0x3f330000u) >> 19) + 16;
        const float2 t = x.ln_tab[e];
        const float r = __fmaf_rn(v, t.x, 2.0f);
        float p = __fmaf_rn(r, 0x1.0028c8p-5f, 0x1.557b7cp-4f);
        p = __fmaf_rn(p, r, 0x1.fffffep-3f);
        return __fadd_rn(t.y, __fmaf_rn(p, __fmul_rn(r, r), r));
    }
    // The square root of x >= 0 from -2 ln: the sequence CUDA's correctly rounded sqrt runs
    // for normal inputs (an approximate reciprocal root, then one FMA correction; correctly
    // rounded given rsqrt.approx's documented error, on every architecture), without its
    // range check and slow path: x is 0 or in [2^-24, 46]; at 0 the sequence gives NaN,
    // which the max turns into +0 = sqrt(+0). The host twin is IEEE sqrt.
    static __device__ __forceinline__ float sqrt_pos(float x) {
        float r;
        asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
        const float s = __fmul_rn(x, r);
        const float h = __fmul_rn(r, 0.5f);
        return fmaxf(__fmaf_rn(__fmaf_rn(-s, s, x), h, s), 0.0f);
    }
    // cos and sin of an angle the word gives, uniform over the circle in steps of
    // 2 pi / 2^25: x = (bits 7-29 of w + 2^6) / 2^22 - 1 in [-1, 1) (exact, by the exponent
    // trick) is the angle x pi / 4 of the quarter turn around the x axis, by minimax
    // polynomials for sin(x pi / 4) (degree 7) and cos(x pi / 4) (degree 6); bit 30 flips
    // the sign of the cos (the quarter around -x), and bit 31 swaps the two (the quarters
    // around y and -y).
    static __device__ __forceinline__ void cos_sin(const unsigned int* w, float& c, float& s) {
        const unsigned int y = (w[0] << 2) + 0x100u;
        const float x = __fsub_rn(__uint_as_float((y >> 9) + 0x40000000u), 3.0f);
        const float x2 = __fmul_rn(x, x);
        float ps = -0x1.2d936ap-15f;
        ps = __fmaf_rn(ps, x2, 0x1.465e94p-9f);
        ps = __fmaf_rn(ps, x2, -0x1.4abbbap-4f);
        ps = __fmaf_rn(ps, x2, 0x1.921fb6p-1f);
        const float sa = __fmul_rn(ps, x);
        float pc = -0x1.4ea9ecp-12f;
        pc = __fmaf_rn(pc, x2, 0x1.03b162p-6f);
        pc = __fmaf_rn(pc, x2, -0x1.3bd3a2p-2f);
        const float ca = __uint_as_float(__float_as_uint(__fmaf_rn(pc, x2, 1.0f)) ^ ((w[0] << 1) & 0x80000000u));
        const bool swap = (int)w[0] < 0;
        c = swap ? sa : ca;
        s = swap ? ca : sa;
    }
};

// ---- real arithmetic, f64 (two words per value) --------------------------------------
struct rand_f64 {
    typedef double C;
    static constexpr int W = 2;
    static __device__ __forceinline__ double param(unsigned long long p) {
        return __longlong_as_double((long long)p);
    }
    static __device__ __forceinline__ double fma(double a, double b, double c) { return __fma_rn(a, b, c); }
    static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
    static __device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
    static __device__ __forceinline__ double sqrt(double a) { return __dsqrt_rn(a); }
    // The two words as one 64-bit value, the first word low.
    static __device__ __forceinline__ unsigned long long u64(const unsigned int* w) {
        return ((unsigned long long)w[1] << 32) | w[0];
    }
    // [0, 1) is unit_int(w) * unit_step(): the top 53 bits (exact as a double), times
    // 2^-53.
    static __device__ __forceinline__ double unit_int(const unsigned int* w) { return __ull2double_rn(u64(w) >> 11); }
    static __device__ __forceinline__ double unit_step() { return 0x1p-53; }
    // (0, 1]: (top 53 bits + 1) * 2^-53 (exact, never 0).
    static __device__ __forceinline__ double unit_pos(const unsigned int* w) {
        return __dmul_rn(__ull2double_rn((u64(w) >> 11) + 1ull), 0x1p-53);
    }
    // -2 ln(u) for u = unit_pos(w) (+0 at u = 1), and its square root.
    static __device__ __forceinline__ double neg2_ln(const unsigned int* w, const rand_ctx&) {
        return __dmul_rn(2.0, __dsub_rn(0.0, ln(unit_pos(w))));
    }
    static __device__ __forceinline__ double sqrt_pos(double x) { return __dsqrt_rn(x); }
    static __device__ __forceinline__ double ln(double v) {
        const unsigned long long b = (unsigned long long)__double_as_longlong(v);
        int e = (int)(b >> 52) - 1023;
        unsigned long long mb = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
        if (mb > 0x3ff6a09e667f3bccull) {
            mb -= 0x0010000000000000ull;
            e += 1;
        }
        const double m = __longlong_as_double((long long)mb);
        const double s = __ddiv_rn(__dsub_rn(m, 1.0), __dadd_rn(m, 1.0));
        const double z = __dmul_rn(s, s);
        double p = 0x1.af286bca1af28p-5;
        p = __fma_rn(p, z, 0x1.e1e1e1e1e1e1ep-5);
        p = __fma_rn(p, z, 0x1.1111111111111p-4);
        p = __fma_rn(p, z, 0x1.3b13b13b13b14p-4);
        p = __fma_rn(p, z, 0x1.745d1745d1746p-4);
        p = __fma_rn(p, z, 0x1.c71c71c71c71cp-4);
        p = __fma_rn(p, z, 0x1.2492492492492p-3);
        p = __fma_rn(p, z, 0x1.999999999999ap-3);
        p = __fma_rn(p, z, 0x1.5555555555555p-2);
        p = __fma_rn(p, z, 1.0);
        const double lnm = __dmul_rn(__dadd_rn(s, s), p);
        const double ef = (double)e;
        return __fma_rn(ef, 0x1.62e42fee00000p-1, __fma_rn(ef, 0x1.a39ef35793c76p-33, lnm));
    }
    // cos and sin of 2 pi x / 2^64, x the two words as one 64-bit value.
    static __device__ __forceinline__ void cos_sin(const unsigned int* w, double& c, double& s) {
        const unsigned long long y = u64(w) + 0x2000000000000000ull;
        const unsigned int q = (unsigned int)(y >> 62);
        const long long g = (long long)(y & 0x3fffffffffffffffull) - 0x2000000000000000ll;
        const double a = __dmul_rn(__ll2double_rn(g), 0x1.921fb54442d18p-62);
        const double a2 = __dmul_rn(a, a);
        double ps = 0x1.952c77030ad4ap-49;
        ps = __fma_rn(ps, a2, -0x1.ae7f3e733b81fp-41);
        ps = __fma_rn(ps, a2, 0x1.6124613a86d09p-33);
        ps = __fma_rn(ps, a2, -0x1.ae64567f544e4p-26);
        ps = __fma_rn(ps, a2, 0x1.71de3a556c734p-19);
        ps = __fma_rn(ps, a2, -0x1.a01a01a01a01ap-13);
        ps = __fma_rn(ps, a2, 0x1.1111111111111p-7);
        ps = __fma_rn(ps, a2, -0x1.5555555555555p-3);
        const double sa = __fma_rn(__dmul_rn(a, a2), ps, a);
        double pc = -0x1.6827863b97d97p-53;
        pc = __fma_rn(pc, a2, 0x1.ae7f3e733b81fp-45);
        pc = __fma_rn(pc, a2, -0x1.93974a8c07c9dp-37);
        pc = __fma_rn(pc, a2, 0x1.1eed8eff8d898p-29);
        pc = __fma_rn(pc, a2, -0x1.27e4fb7789f5cp-22);
        pc = __fma_rn(pc, a2, 0x1.a01a01a01a01ap-16);
        pc = __fma_rn(pc, a2, -0x1.6c16c16c16c17p-10);
        pc = __fma_rn(pc, a2, 0x1.5555555555555p-5);
        pc = __fma_rn(pc, a2, -0x1.0000000000000p-1);
        const double ca = __fma_rn(a2, pc, 1.0);
        c = (q == 0) ? ca : (q == 1) ? -sa : (q == 2) ? -ca : sa;
        s = (q == 0) ? sa : (q == 1) ? ca : (q == 2) ? -sa : -ca;
    }
};

template <typename T> struct rand_real { typedef rand_f32 R; };
template <> struct rand_real<double> { typedef rand_f64 R; };

// The largest value of the type below x (x finite).
__device__ __forceinline__ unsigned int rand_down_bits32(unsigned int b) {
    return (b & 0x7fffffffu) == 0 ? 0x80000001u : (b & 0x80000000u) ? b + 1 : b - 1;
}
__device__ __forceinline__ unsigned short rand_down_bits16(unsigned short b) {
    return (b & 0x7fff) == 0 ? (unsigned short)0x8001 : (b & 0x8000) ? (unsigned short)(b + 1) : (unsigned short)(b - 1);
}
__device__ __forceinline__ float rand_next_down(float x) {
    return __uint_as_float(rand_down_bits32(__float_as_uint(x)));
}
__device__ __forceinline__ double rand_next_down(double x) {
    const unsigned long long b = (unsigned long long)__double_as_longlong(x);
    const unsigned long long d = (b << 1) == 0 ? 0x8000000000000001ull : (b >> 63) ? b + 1 : b - 1;
    return __longlong_as_double((long long)d);
}
__device__ __forceinline__ cuarray_f16 rand_next_down(cuarray_f16 x) {
    cuarray_f16 r;
    r.bits = rand_down_bits16(x.bits);
    return r;
}
__device__ __forceinline__ cuarray_bf16 rand_next_down(cuarray_bf16 x) {
    cuarray_bf16 r;
    r.bits = rand_down_bits16(x.bits);
    return r;
}

// ---- distributions ----------------------------------------------------------------------
// Each maps the 4 * W words of one thread's group to 4 values; slot e owns words
// [W e, W e + W). Constructed from the two 64-bit parameters (a, b) of the launch.

// Uniform in [a, b) (f64 bit patterns of values of T): with s = (b - a) 2^-k rounded
// (k = 24, or 53 for f64), a + s m by one FMA for the value's top-bits integer m, then the
// never-`b` rule: a result that rounds up to b becomes the largest value below b, in the
// compute type and again after rounding to T (only f16 and bf16 round again).
template <typename T>
struct rand_uniform {
    typedef typename rand_real<T>::R R;
    typedef typename R::C C;
    static constexpr int W = R::W;
    static constexpr bool LN_TABLE = false;
    C lo, hi, step, top;
    T top_t;
    __device__ __forceinline__ rand_uniform(unsigned long long a, unsigned long long b) {
        lo = R::param(a);
        hi = R::param(b);
        step = R::mul(R::sub(hi, lo), R::unit_step());
        top = rand_next_down(hi);
        top_t = rand_next_down(T(hi));
    }
    __device__ __forceinline__ void operator()(const unsigned int (&r)[4 * W], T (&v)[4], unsigned long long,
                                               const rand_ctx&) const {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            C x = R::fma(R::unit_int(r + W * e), step, lo);
            if (x >= hi) x = top;
            T t = T(x);
            if (!cuarray_is_same<T, C>::value && static_cast<C>(t) >= hi) t = top_t;
            v[e] = t;
        }
    }
};

// Normal (mean a, standard deviation b) by Box-Muller: slots (0, 1) and (2, 3) are pairs;
// the first W words of a pair give the radius r = sqrt(-2 ln u) with u in (0, 1], the next
// W the angle; with rs = r sd (one rounding), the pair's values are mean + rs cos and
// mean + rs sin (one FMA each). STANDARD (the host picks it for mean 0 and sd 1): r cos and
// r sin, one multiply each.
template <typename T, bool STANDARD>
struct rand_normal {
    typedef typename rand_real<T>::R R;
    typedef typename R::C C;
    static constexpr int W = R::W;
    static constexpr bool LN_TABLE = W == 1;
    C mean, sd;
    __device__ __forceinline__ rand_normal(unsigned long long a, unsigned long long b)
        : mean(R::param(a)), sd(R::param(b)) {}
    __device__ __forceinline__ void operator()(const unsigned int (&r)[4 * W], T (&v)[4], unsigned long long,
                                               const rand_ctx& x) const {
#pragma unroll
        for (int p = 0; p < 2; ++p) {
            const unsigned int* w = r + 2 * W * p;
            const C rad = R::sqrt_pos(R::neg2_ln(w, x));
            C c, s;
            R::cos_sin(w + W, c, s);
            if (STANDARD) {
                v[2 * p] = T(R::mul(rad, c));
                v[2 * p + 1] = T(R::mul(rad, s));
            } else {
                const C rs = R::mul(rad, sd);
                v[2 * p] = T(R::fma(rs, c, mean));
                v[2 * p + 1] = T(R::fma(rs, s, mean));
            }
        }
    }
};

// Exponential (scale a): -ln u scale with u in (0, 1], computed as (-2 ln u) (scale / 2),
// the same product (both factors exact multiples by powers of two): never inf or NaN, and
// +0 rather than -0 at u = 1.
template <typename T>
struct rand_exponential {
    typedef typename rand_real<T>::R R;
    typedef typename R::C C;
    static constexpr int W = R::W;
    static constexpr bool LN_TABLE = W == 1;
    C half_scale;
    __device__ __forceinline__ rand_exponential(unsigned long long a, unsigned long long)
        : half_scale(R::mul(R::param(a), C(0.5))) {}
    __device__ __forceinline__ void operator()(const unsigned int (&r)[4 * W], T (&v)[4], unsigned long long,
                                               const rand_ctx& x) const {
#pragma unroll
        for (int e = 0; e < 4; ++e) v[e] = T(R::mul(R::neg2_ln(r + W * e, x), half_scale));
    }
};

// Integers low + offset in [0, range) (a = low as 64-bit two's complement, b = range =
// high - low).
// W = 1 (range a power of two up to 2^32, or any range up to 2^24): Lemire's multiply,
// m = x range for the slot's word x, offset m >> 32, accepted when the low half of m is at
// least t = 2^32 mod range (t = 0 for powers of two: always). A rejected slot (probability
// t / 2^32 < 2^-8) takes 64 fresh bits instead, words 0 and 1 of the slot's fallback block
// (the group's counter under the key + (e + 1) * 0x9E3779B97F4A7C15, e the slot), and
// the offset floor(y range / 2^64) of those.
// W = 2: floor(x range / 2^64) of the slot's two words (range up to 2^32, or a power of
// two); W = 4: floor(x range / 2^128) of its four (any range below 2^64).
template <typename T, int WORDS>
struct rand_int {
    static constexpr int W = WORDS;
    static constexpr bool LN_TABLE = false;
    unsigned long long lo, range;
    unsigned int t;
    __device__ __forceinline__ rand_int(unsigned long long a, unsigned long long b) : lo(a), range(b), t(0) {
        if (W == 1 && (range & (range - 1)) != 0) t = (unsigned int)((1ull << 32) % range);
    }
    __device__ __noinline__ unsigned long long fallback(unsigned long long grp, int e, const rand_ctx& x) const {
        const unsigned long long key =
            (((unsigned long long)x.k1 << 32) | x.k0) + (unsigned long long)(e + 1) * 0x9E3779B97F4A7C15ull;
        unsigned int c[4];
        philox_block(c, grp, (unsigned int)key, (unsigned int)(key >> 32), x);
        return __umul64hi(((unsigned long long)c[1] << 32) | c[0], range);
    }
    __device__ __forceinline__ void operator()(const unsigned int (&r)[4 * W], T (&v)[4], unsigned long long grp,
                                               const rand_ctx& x) const {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const unsigned int* w = r + W * e;
            unsigned long long off;
            if (W == 1) {
                const unsigned long long m = (unsigned long long)w[0] * range;
                off = m >> 32;
                if ((unsigned int)m < t) off = fallback(grp, e, x);
            } else if (W == 2) {
                off = __umul64hi(((unsigned long long)w[1] << 32) | w[0], range);
            } else {
                const unsigned long long xl = ((unsigned long long)w[1] << 32) | w[0];
                const unsigned long long xh = ((unsigned long long)w[3] << 32) | w[2];
                const unsigned long long a = __umul64hi(xl, range);
                const unsigned long long bl = xh * range;
                const unsigned long long bh = __umul64hi(xh, range);
                off = bh + ((bl + a < bl) ? 1ull : 0ull);
            }
            v[e] = (T)(lo + off);
        }
    }
};

// Bernoulli: true when the word is below the threshold a = round(p 2^32).
struct rand_bernoulli {
    static constexpr int W = 1;
    static constexpr bool LN_TABLE = false;
    unsigned long long threshold;
    __device__ __forceinline__ rand_bernoulli(unsigned long long a, unsigned long long) : threshold(a) {}
    __device__ __forceinline__ void operator()(const unsigned int (&r)[4], bool (&v)[4], unsigned long long,
                                               const rand_ctx&) const {
#pragma unroll
        for (int e = 0; e < 4; ++e) v[e] = (unsigned long long)r[e] < threshold;
    }
};

// ---- the fill loop ------------------------------------------------------------------
// Output element j is slot `head + j` counted from the first slot of group `group0`; group g
// is the W Philox blocks g W .. g W + W - 1 (counter = block index in words 0-1, `stream` in
// words 2-3; key = `key`). Threads count groups in the index type I (the host picks `int`
// when every group index plus a trip of the grid fits and the low words of the launch's
// block indices do not carry). First, trips of G whole groups
// `step` apart (each coalesced across the warp; their Philox chains are independent, so
// the scheduler interleaves them), one vector store each: whole groups exist when the call
// starts on a group boundary (head == 0; the output is aligned to a group). Then the rest,
// one group per thread at a time: whole groups as vectors, the last one and every group of
// a call with head != 0 by element.
// The 4 W words of group `group0 + t`. With a 32-bit index the host guarantees that the
// low words of the launch's block indices do not carry, so the counter's second word is
// the same for the whole launch and Philox's first rounds are partly loop-invariant.
template <int W, typename I>
__device__ __forceinline__ void philox_group(unsigned int (&r)[4 * W], unsigned long long group0, I t,
                                             const rand_ctx& x) {
#pragma unroll
    for (int q = 0; q < W; ++q) {
        unsigned int c[4];
        if (sizeof(I) == 4) {
            const unsigned long long b0 = group0 * (unsigned long long)W;
            c[0] = (unsigned int)b0 + (unsigned int)t * (unsigned int)W + (unsigned int)q;
            c[1] = (unsigned int)(b0 >> 32);
            c[2] = x.s0;
            c[3] = x.s1;
            philox4x32_10(c, x.k0, x.k1);
        } else {
            philox_block(c, (group0 + (unsigned long long)t) * (unsigned long long)W + (unsigned long long)q, x.k0,
                         x.k1, x);
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) r[4 * q + k] = c[k];
    }
}

template <typename T>
__device__ __forceinline__ void rand_store4(T* p, const T (&v)[4]) {
    cuarray_vec<T, 4> pack;
#pragma unroll
    for (int e = 0; e < 4; ++e) pack.v[e] = v[e];
    *reinterpret_cast<cuarray_vec<T, 4>*>(p) = pack;
}

template <int W, int G, typename I, typename T, typename D>
__device__ __forceinline__ void philox_fill(T* out, long long n, unsigned long long group0, long long head,
                                            unsigned long long key, unsigned long long stream, const D& dist) {
    static_assert(D::W == W, "words per value of the distribution and of the host disagree");
    __shared__ float2 ln_tab[RAND_LN_ENTRIES];
    if (D::LN_TABLE) {
        for (int e = threadIdx.x; e < RAND_LN_ENTRIES; e += blockDim.x) ln_tab[e] = rand_ln_entry(e);
        __syncthreads();
    }
    const rand_ctx x = {(unsigned int)key, (unsigned int)(key >> 32), (unsigned int)stream,
                        (unsigned int)(stream >> 32), D::LN_TABLE ? ln_tab : nullptr};
    const I groups = (I)((n + head + 3) >> 2);
    const I whole = head == 0 ? (I)(n >> 2) : (I)0;
    const I step = (I)gridDim.x * (I)blockDim.x;
    I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    for (; t + (I)(G - 1) * step < whole; t += (I)G * step) {
        unsigned int r[G][4 * W];
#pragma unroll
        for (int g = 0; g < G; ++g) philox_group<W>(r[g], group0, (I)(t + g * step), x);
#pragma unroll
        for (int g = 0; g < G; ++g) {
            T v[4];
            dist(r[g], v, group0 + (unsigned long long)(t + g * step), x);
            rand_store4(out + 4 * (long long)(t + g * step), v);
        }
    }
    for (; t < groups; t += step) {
        unsigned int r[4 * W];
        philox_group<W>(r, group0, t, x);
        T v[4];
        dist(r, v, group0 + (unsigned long long)t, x);
        if (t < whole) {
            rand_store4(out + 4 * (long long)t, v);
        } else {
            const long long j0 = 4 * (long long)t - head;
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const long long j = j0 + e;
                if (j >= 0 && j < n) out[j] = v[e];
            }
        }
    }
}
