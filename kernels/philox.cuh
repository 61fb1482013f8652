// cuarray philox.cuh: the counter-based generator Philox4x32-10 and the distributions of
// cuarray::random. Conventions: see kernels/README.md; the counter layout and the word
// assignment are documented in src/random/mod.rs.
//
// Every function here has a twin in src/random/host.rs that gives the same bits. To make
// that possible, floating-point arithmetic is written with the `_rn` intrinsics (which the
// compiler never contracts into an FMA; FMAs are explicit), and ln, cos and sin are our own
// polynomials over basic operations, so nothing depends on the device math library.

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
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
    static __device__ __forceinline__ float neg(float a) { return -a; }
    // [0, 1) is unit_int(w) * unit_step(): the top 24 bits of the word (exact as a
    // float), times 2^-24.
    static __device__ __forceinline__ float unit_int(const unsigned int* w) { return __uint2float_rn(w[0] >> 8); }
    static __device__ __forceinline__ float unit_step() { return 0x1p-24f; }
    // (0, 1]: (word + 1) * 2^-32, rounded to float (never 0).
    static __device__ __forceinline__ float unit_pos(const unsigned int* w) {
        return __fmul_rn(__ull2float_rn((unsigned long long)w[0] + 1ull), 0x1p-32f);
    }
    // ln(v) for a normal float v in (0, 1]: v = 2^e m with m in [sqrt(1/2), sqrt(2)),
    // ln m = 2 atanh(s) with s = (m - 1) / (m + 1), a series in s^2.
    static __device__ __forceinline__ float ln(float v) {
        const unsigned int b = __float_as_uint(v);
        int e = (int)(b >> 23) - 127;
        unsigned int mb = (b & 0x007fffffu) | 0x3f800000u;
        if (mb > 0x3fb504f3u) {
            mb -= 0x00800000u;
            e += 1;
        }
        const float m = __uint_as_float(mb);
        const float s = __fdiv_rn(__fsub_rn(m, 1.0f), __fadd_rn(m, 1.0f));
        const float z = __fmul_rn(s, s);
        float p = 0x1.c71c72p-4f;
        p = __fmaf_rn(p, z, 0x1.24924ap-3f);
        p = __fmaf_rn(p, z, 0x1.99999ap-3f);
        p = __fmaf_rn(p, z, 0x1.555556p-2f);
        p = __fmaf_rn(p, z, 1.0f);
        const float lnm = __fmul_rn(__fadd_rn(s, s), p);
        const float ef = __int2float_rn(e);
        return __fmaf_rn(ef, 0x1.62e400p-1f, __fmaf_rn(ef, 0x1.7f7d1cp-20f, lnm));
    }
    // exp(x) for x in [-80, 0]: 2^k e^r, k the nearest integer to x / ln 2 (ties to even),
    // r = x - k ln 2 in two steps, e^r by its Taylor polynomial to r^7.
    static __device__ __forceinline__ float exp_neg(float x) {
        const int k = __float2int_rn(__fmul_rn(x, 0x1.715476p0f));
        const float kf = __int2float_rn(k);
        float r = __fmaf_rn(-kf, 0x1.62e400p-1f, x);
        r = __fmaf_rn(-kf, 0x1.7f7d1cp-20f, r);
        float p = 0x1.a01a02p-13f;
        p = __fmaf_rn(p, r, 0x1.6c16c2p-10f);
        p = __fmaf_rn(p, r, 0x1.111112p-7f);
        p = __fmaf_rn(p, r, 0x1.555556p-5f);
        p = __fmaf_rn(p, r, 0x1.555556p-3f);
        p = __fmaf_rn(p, r, 0x1.000000p-1f);
        p = __fmaf_rn(p, r, 1.0f);
        p = __fmaf_rn(p, r, 1.0f);
        return __fmul_rn(p, __uint_as_float((unsigned int)(k + 127) << 23));
    }
    // The ziggurat: a value's random bits (its word), magnitude bits, tables, R and 1 / R.
    typedef unsigned int K;
    static constexpr K RABS_MASK = 0x7fffffu;
    static __device__ __forceinline__ K zig_bits(const unsigned int* w) { return w[0]; }
    static __device__ __forceinline__ float from_k(K k) { return __uint2float_rn(k); }
    static __device__ __forceinline__ float from_bits(K k) { return __uint_as_float(k); }
    static __device__ __forceinline__ float zig_r() { return 0x1.d3bb48p1f; }
    static __device__ __forceinline__ float zig_inv_r() { return 0x1.183aa6p-2f; }
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
    static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ double neg(double a) { return -a; }
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
    // exp(x) for x in [-80, 0], as for f32 with the Taylor polynomial to r^13.
    static __device__ __forceinline__ double exp_neg(double x) {
        const int k = __double2int_rn(__dmul_rn(x, 0x1.71547652b82fep0));
        const double kf = (double)k;
        double r = __fma_rn(-kf, 0x1.62e42fee00000p-1, x);
        r = __fma_rn(-kf, 0x1.a39ef35793c76p-33, r);
        double p = 0x1.6124613a86d09p-33;
        p = __fma_rn(p, r, 0x1.1eed8eff8d898p-29);
        p = __fma_rn(p, r, 0x1.ae64567f544e4p-26);
        p = __fma_rn(p, r, 0x1.27e4fb7789f5cp-22);
        p = __fma_rn(p, r, 0x1.71de3a556c734p-19);
        p = __fma_rn(p, r, 0x1.a01a01a01a01ap-16);
        p = __fma_rn(p, r, 0x1.a01a01a01a01ap-13);
        p = __fma_rn(p, r, 0x1.6c16c16c16c17p-10);
        p = __fma_rn(p, r, 0x1.1111111111111p-7);
        p = __fma_rn(p, r, 0x1.5555555555555p-5);
        p = __fma_rn(p, r, 0x1.5555555555555p-3);
        p = __fma_rn(p, r, 0x1.0000000000000p-1);
        p = __fma_rn(p, r, 1.0);
        p = __fma_rn(p, r, 1.0);
        return __dmul_rn(p, __longlong_as_double((long long)(k + 1023) << 52));
    }
    typedef unsigned long long K;
    static constexpr K RABS_MASK = 0x000fffffffffffffull;
    static __device__ __forceinline__ K zig_bits(const unsigned int* w) { return u64(w); }
    static __device__ __forceinline__ double from_k(K k) { return __ull2double_rn(k); }
    static __device__ __forceinline__ double from_bits(K k) { return __longlong_as_double((long long)k); }
    static __device__ __forceinline__ double zig_r() { return 0x1.d3bb48209ad33p1; }
    static __device__ __forceinline__ double zig_inv_r() { return 0x1.183aa6c20e8c1p-2; }
};

template <typename T> struct rand_real { typedef rand_f32 R; };
template <> struct rand_real<double> { typedef rand_f64 R; };

// The fallback words of one value, slot e of group grp (src/random/host.rs, `Fallback`):
// word j is word j % 4 of the Philox block of counter [grp, stream] under the key
// key + (4 (j / 4) + e + 1) * 0x9E3779B97F4A7C15. Values that reject their own words read
// these, in order.
struct rand_fallback {
    unsigned long long grp;
    const rand_ctx& x;
    unsigned int e, j;
    unsigned int c[4];
    __device__ __forceinline__ rand_fallback(unsigned long long g, int slot, const rand_ctx& ctx)
        : grp(g), x(ctx), e((unsigned int)slot), j(0) {}
    __device__ __forceinline__ unsigned int next() {
        if ((j & 3u) == 0) {
            const unsigned long long key = (((unsigned long long)x.k1 << 32) | x.k0) +
                                           (unsigned long long)(4u * (j >> 2) + e + 1u) * 0x9E3779B97F4A7C15ull;
            philox_block(c, grp, (unsigned int)key, (unsigned int)(key >> 32), x);
        }
        return c[j++ & 3u];
    }
    // The next W words (the first low), as a distribution reads its own.
    template <int W>
    __device__ __forceinline__ void words(unsigned int (&w)[2]) {
        w[0] = next();
        w[1] = W == 2 ? next() : 0u;
    }
};

// The ziggurat tables of a precision (src/random/zig.rs): `kw` holds k[i] and the bits of
// w[i] interleaved (512 entries), `f` the bits of f[i]. Defined by the generated source of
// each normal kernel.
template <typename R> struct rand_zig;

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

// One standard normal value by the ziggurat (src/random/zig.rs, `normal`), after its own
// bits failed the rectangle test of their layer: the tail or the wedge, with uniforms
// from the value's fallback words, and new bits from them when rejected. Out of line: about
// one value in a hundred comes here.
template <typename R>
__device__ __noinline__ typename R::C rand_zig_slow(typename R::K bits, const typename R::K* kw, unsigned long long grp,
                                                   int slot, const rand_ctx& x) {
    typedef typename R::C C;
    typedef typename R::K K;
    rand_fallback fb(grp, slot, x);
    unsigned int w[2];
    const K* f = rand_zig<R>::f();
    for (;;) {
        const int idx = (int)(bits & 0xff);
        const bool sign = (bits >> 8) & 1;
        const K rabs = (bits >> 9) & R::RABS_MASK;
        if (idx == 0) {
            for (;;) {
                fb.template words<R::W>(w);
                const C l1 = R::ln(R::sub(C(1), R::mul(R::unit_int(w), R::unit_step())));
                fb.template words<R::W>(w);
                const C l2 = R::ln(R::sub(C(1), R::mul(R::unit_int(w), R::unit_step())));
                const C xx = R::mul(R::neg(R::zig_inv_r()), l1);
                const C yy = R::sub(C(0), l2);
                if (R::add(yy, yy) > R::mul(xx, xx)) {
                    const C v = R::add(R::zig_r(), xx);
                    return ((rabs >> 8) & 1) ? R::neg(v) : v;
                }
            }
        }
        const C xv = R::mul(R::from_k(rabs), R::from_bits(kw[2 * idx + 1]));
        fb.template words<R::W>(w);
        const C f0 = R::from_bits(f[idx - 1]), f1 = R::from_bits(f[idx]);
        const C y = R::fma(R::sub(f0, f1), R::mul(R::unit_int(w), R::unit_step()), f1);
        if (y < R::exp_neg(R::mul(C(-0.5), R::mul(xv, xv)))) return sign ? R::neg(xv) : xv;
        fb.template words<R::W>(w);
        bits = R::zig_bits(w);
        const int idx2 = (int)(bits & 0xff);
        const K rabs2 = (bits >> 9) & R::RABS_MASK;
        if (rabs2 < kw[2 * idx2]) {
            const C v = R::mul(R::from_k(rabs2), R::from_bits(kw[2 * idx2 + 1]));
            return ((bits >> 8) & 1) ? R::neg(v) : v;
        }
    }
}

// Normal (mean a, standard deviation b) by the ziggurat, one value per W words: layer
// from the low 8 bits, sign from bit 8, magnitude from the bits above (23 or 52); accepted
// when the magnitude is below the layer's bound (the value is then magnitude * w[layer]),
// else rand_zig_slow. The layer table is copied to shared memory by each block.
template <typename T>
struct rand_normal {
    typedef typename rand_real<T>::R R;
    typedef typename R::C C;
    typedef typename R::K K;
    static constexpr int W = R::W;
    C mean, sd;
    const K* kw;
    __device__ __forceinline__ rand_normal(unsigned long long a, unsigned long long b)
        : mean(R::param(a)), sd(R::param(b)) {
        __shared__ K table[512];
        const K* g = rand_zig<R>::kw();
        for (int i = threadIdx.x; i < 512; i += blockDim.x) table[i] = g[i];
        __syncthreads();
        kw = table;
    }
    __device__ __forceinline__ void operator()(const unsigned int (&r)[4 * W], T (&v)[4], unsigned long long grp,
                                               const rand_ctx& x) const {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const K bits = R::zig_bits(r + W * e);
            const int idx = (int)(bits & 0xff);
            const K rabs = (bits >> 9) & R::RABS_MASK;
            C z = R::mul(R::from_k(rabs), R::from_bits(kw[2 * idx + 1]));
            if ((bits >> 8) & 1) z = R::neg(z);
            if (rabs >= kw[2 * idx]) z = rand_zig_slow<R>(bits, kw, grp, e, x);
            v[e] = T(R::fma(z, sd, mean));
        }
    }
};

// Exponential (scale a): (0 - ln u) * scale with u in (0, 1] (u = 1 - u' for a u' in
// [0, 1)), so never inf or NaN, and +0 rather than -0.
template <typename T>
struct rand_exponential {
    typedef typename rand_real<T>::R R;
    typedef typename R::C C;
    static constexpr int W = R::W;
    C scale;
    __device__ __forceinline__ rand_exponential(unsigned long long a, unsigned long long) : scale(R::param(a)) {}
    __device__ __forceinline__ void operator()(const unsigned int (&r)[4 * W], T (&v)[4], unsigned long long,
                                               const rand_ctx&) const {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            v[e] = T(R::mul(R::sub(C(0), R::ln(R::unit_pos(r + W * e))), scale));
        }
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
    unsigned long long lo, range;
    unsigned int t;
    __device__ __forceinline__ rand_int(unsigned long long a, unsigned long long b) : lo(a), range(b), t(0) {
        if (W == 1 && (range & (range - 1)) != 0) t = (unsigned int)((1ull << 32) % range);
    }
    __device__ __noinline__ unsigned long long fallback(unsigned long long grp, int e, const rand_ctx& x) const {
        rand_fallback fb(grp, e, x);
        const unsigned int lo32 = fb.next();
        const unsigned int hi32 = fb.next();
        return __umul64hi(((unsigned long long)hi32 << 32) | lo32, range);
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
// when every group index plus a trip of the grid fits). First, trips of G whole groups
// `step` apart (each coalesced across the warp; their Philox chains are independent, so
// the scheduler interleaves them), one vector store each: whole groups exist when the call
// starts on a group boundary (head == 0; the output is aligned to a group). Then the rest,
// one group per thread at a time: whole groups as vectors, the last one and every group of
// a call with head != 0 by element.
template <int W>
__device__ __forceinline__ void philox_group(unsigned int (&r)[4 * W], unsigned long long grp, const rand_ctx& x) {
#pragma unroll
    for (int q = 0; q < W; ++q) {
        unsigned int c[4];
        philox_block(c, grp * (unsigned long long)W + (unsigned long long)q, x.k0, x.k1, x);
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
    const rand_ctx x = {(unsigned int)key, (unsigned int)(key >> 32), (unsigned int)stream,
                        (unsigned int)(stream >> 32)};
    const I groups = (I)((n + head + 3) >> 2);
    const I whole = head == 0 ? (I)(n >> 2) : (I)0;
    const I step = (I)gridDim.x * (I)blockDim.x;
    I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    for (; t + (I)(G - 1) * step < whole; t += (I)G * step) {
        unsigned int r[G][4 * W];
#pragma unroll
        for (int g = 0; g < G; ++g) philox_group<W>(r[g], group0 + (unsigned long long)(t + g * step), x);
#pragma unroll
        for (int g = 0; g < G; ++g) {
            T v[4];
            dist(r[g], v, group0 + (unsigned long long)(t + g * step), x);
            rand_store4(out + 4 * (long long)(t + g * step), v);
        }
    }
    for (; t < groups; t += step) {
        unsigned int r[4 * W];
        philox_group<W>(r, group0 + (unsigned long long)t, x);
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
