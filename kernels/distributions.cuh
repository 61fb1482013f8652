// cuarray distributions.cuh: NumPy's Generator distributions on the Philox4x32-10 stream
// (after philox.cuh). Twin: src/random/host_distributions.rs, which runs the same IEEE
// operations in the same order. Every floating-point step below is a correctly rounded
// intrinsic (`__dadd_rn` and friends, never contracted) or an explicit FMA, and exp, ln,
// cos, sin and atan are our own over those, so nothing depends on the device math library.
//
// Each output element (or row) j draws from its own counter-addressed substream: block k
// of it is Philox4x32-10 of the counter [j low, j high, stream low, stream high] under the
// key seed + (k + 1) 0xD1B54A32D192ED03 (mod 2^64). A sampler that needs two independent
// parts (beta's two gammas, ...) starts the second at block 2^32. Rejection loops take as
// many blocks as they need; no value depends on another or on the launch.

__device__ __forceinline__ double ra_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double ra_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ double ra_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double ra_div(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ double ra_fma(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ __forceinline__ double ra_sqrt(double a) { return __dsqrt_rn(a); }

#define RA_INF __longlong_as_double(0x7ff0000000000000ll)
#define RA_PI 3.141592653589793

// 2^k for k in [-1022, 1023].
__device__ __forceinline__ double ra_pow2(int k) { return __longlong_as_double((long long)(k + 1023) << 52); }

// ln x: -inf at 0, NaN below, inf at inf; subnormals scaled by 2^54 first.
__device__ __forceinline__ double ra_ln(double x) {
    if (!(x > 0.0)) return x == 0.0 ? -RA_INF : __longlong_as_double(0x7ff8000000000000ll);
    if (x == RA_INF) return x;
    if (x < 2.2250738585072014e-308) return ra_fma(-54.0, 0.6931471805599453, rand_f64::ln(ra_mul(x, 18014398509481984.0)));
    return rand_f64::ln(x);
}

// e^x: n = rint(x / ln 2), r = x - n ln 2 (two FMAs), a degree-13 Taylor polynomial,
// then 2^n in two halves (so that subnormal results come out, rounded twice).
__device__ __forceinline__ double ra_exp(double x) {
    if (x != x) return x;
    if (x > 709.782712893384) return RA_INF;
    if (x < -745.2) return 0.0;
    const double n = rint(ra_mul(x, 1.4426950408889634));
    double r = ra_fma(n, -0.6931471803691238, x);
    r = ra_fma(n, -1.9082149292705877e-10, r);
    double p = 1.0 / 6227020800.0;
    p = ra_fma(p, r, 1.0 / 479001600.0);
    p = ra_fma(p, r, 1.0 / 39916800.0);
    p = ra_fma(p, r, 1.0 / 3628800.0);
    p = ra_fma(p, r, 1.0 / 362880.0);
    p = ra_fma(p, r, 1.0 / 40320.0);
    p = ra_fma(p, r, 1.0 / 5040.0);
    p = ra_fma(p, r, 1.0 / 720.0);
    p = ra_fma(p, r, 1.0 / 120.0);
    p = ra_fma(p, r, 1.0 / 24.0);
    p = ra_fma(p, r, 1.0 / 6.0);
    p = ra_fma(p, r, 0.5);
    p = ra_fma(p, r, 1.0);
    p = ra_fma(p, r, 1.0);
    const int k = (int)n;
    const int k1 = k / 2;
    return ra_mul(ra_mul(p, ra_pow2(k1)), ra_pow2(k - k1));
}

// log1p and expm1 by Kahan's corrections.
__device__ __forceinline__ double ra_log1p(double x) {
    const double u = ra_add(1.0, x);
    if (u == 1.0) return x;
    return ra_mul(ra_ln(u), ra_div(x, ra_sub(u, 1.0)));
}
__device__ __forceinline__ double ra_expm1(double x) {
    const double u = ra_exp(x);
    if (u == 1.0) return x;
    const double um1 = ra_sub(u, 1.0);
    if (um1 == -1.0 || u == RA_INF) return um1;
    return ra_div(ra_mul(um1, x), ra_ln(u));
}

// x^y for x >= 0 (0 at x = 0 for y > 0).
__device__ __forceinline__ double ra_pow(double x, double y) {
    if (x == 0.0) return y > 0.0 ? 0.0 : RA_INF;
    return ra_exp(ra_mul(y, ra_ln(x)));
}

// cos(pi t) for t in [0, 1]: t - q / 2 (exact) in [-1/4, 1/4] times pi, then philox.cuh's
// f64 polynomials.
__device__ __forceinline__ double ra_cospi(double t) {
    const double q = rint(ra_add(t, t));
    const double a = ra_mul(ra_fma(q, -0.5, t), RA_PI);
    const double a2 = ra_mul(a, a);
    double ps = 0x1.952c77030ad4ap-49;
    ps = ra_fma(ps, a2, -0x1.ae7f3e733b81fp-41);
    ps = ra_fma(ps, a2, 0x1.6124613a86d09p-33);
    ps = ra_fma(ps, a2, -0x1.ae64567f544e4p-26);
    ps = ra_fma(ps, a2, 0x1.71de3a556c734p-19);
    ps = ra_fma(ps, a2, -0x1.a01a01a01a01ap-13);
    ps = ra_fma(ps, a2, 0x1.1111111111111p-7);
    ps = ra_fma(ps, a2, -0x1.5555555555555p-3);
    const double sa = ra_fma(ra_mul(a, a2), ps, a);
    double pc = -0x1.6827863b97d97p-53;
    pc = ra_fma(pc, a2, 0x1.ae7f3e733b81fp-45);
    pc = ra_fma(pc, a2, -0x1.93974a8c07c9dp-37);
    pc = ra_fma(pc, a2, 0x1.1eed8eff8d898p-29);
    pc = ra_fma(pc, a2, -0x1.27e4fb7789f5cp-22);
    pc = ra_fma(pc, a2, 0x1.a01a01a01a01ap-16);
    pc = ra_fma(pc, a2, -0x1.6c16c16c16c17p-10);
    pc = ra_fma(pc, a2, 0x1.5555555555555p-5);
    pc = ra_fma(pc, a2, -0x1.0000000000000p-1);
    const double ca = ra_fma(a2, pc, 1.0);
    return q == 0.0 ? ca : q == 1.0 ? -sa : -ca;
}

// atan of z in [0, inf]: 1 / z above 1, then (z - 1) / (z + 1) above tan(pi / 8), then the
// odd Taylor series to degree 45 (|y| <= 0.4143).
__device__ __forceinline__ double ra_atan(double z) {
    double base = 0.0, sign = 1.0;
    if (z > 1.0) {
        z = ra_div(1.0, z);
        base = 1.5707963267948966;
        sign = -1.0;
    }
    double b2 = 0.0;
    if (z > 0.41421356237309503) {
        z = ra_div(ra_sub(z, 1.0), ra_add(z, 1.0));
        b2 = 0.7853981633974483;
    }
    const double y2 = ra_mul(z, z);
    double p = 1.0 / 45.0;
    for (int k = 43; k >= 1; k -= 2) p = ra_fma(-p, y2, ra_div(1.0, (double)k));
    const double at = ra_add(b2, ra_mul(z, p));
    return ra_fma(sign, at, base);
}

// acos w for w in [-1, 1]: 2 atan(sqrt((1 - w) / (1 + w))).
__device__ __forceinline__ double ra_acos(double w) {
    if (w <= -1.0) return RA_PI;
    if (w >= 1.0) return 0.0;
    return ra_mul(2.0, ra_atan(ra_sqrt(ra_div(ra_sub(1.0, w), ra_add(1.0, w)))));
}

// NumPy's random_loggam (Zhang and Jin's series), on ra_ln.
__device__ __forceinline__ double ra_loggam(double x) {
    if (x == 1.0 || x == 2.0) return 0.0;
    long long n = 0;
    if (x < 7.0) n = (long long)ra_sub(7.0, x);
    double x0 = ra_add(x, (double)n);
    const double ix = ra_div(1.0, x0);
    const double x2 = ra_mul(ix, ix);
    double gl0 = -1.39243221690590e+00;
    gl0 = ra_fma(gl0, x2, 1.796443723688307e-01);
    gl0 = ra_fma(gl0, x2, -2.955065359477124e-02);
    gl0 = ra_fma(gl0, x2, 6.410256410256410e-03);
    gl0 = ra_fma(gl0, x2, -1.917526917526918e-03);
    gl0 = ra_fma(gl0, x2, 8.417508417508418e-04);
    gl0 = ra_fma(gl0, x2, -5.952380952380952e-04);
    gl0 = ra_fma(gl0, x2, 7.936507936507937e-04);
    gl0 = ra_fma(gl0, x2, -2.777777777777778e-03);
    gl0 = ra_fma(gl0, x2, 8.333333333333333e-02);
    double gl = ra_add(ra_div(gl0, x0), 0.9189385332046727);
    gl = ra_sub(ra_fma(ra_sub(x0, 0.5), ra_ln(x0), gl), x0);
    for (long long k = 1; k <= n; ++k) {
        gl = ra_sub(gl, ra_ln(ra_sub(x0, 1.0)));
        x0 = ra_sub(x0, 1.0);
    }
    return gl;
}

// ---- the substream of one element ---------------------------------------------------
struct rand_sub {
    unsigned long long j, key, k;
    unsigned int s0, s1;
    unsigned int buf[4];
    int used;
    bool has_normal;
    double normal_cache;
    __device__ __forceinline__ void init(unsigned long long j_, unsigned long long key_, unsigned long long stream,
                                         unsigned long long part) {
        j = j_;
        key = key_;
        s0 = (unsigned int)stream;
        s1 = (unsigned int)(stream >> 32);
        k = part;
        used = 4;
        has_normal = false;
        normal_cache = 0.0;
    }
    __device__ __forceinline__ unsigned int next() {
        if (used == 4) {
            const unsigned long long kk = key + (k + 1ull) * 0xD1B54A32D192ED03ull;
            buf[0] = (unsigned int)j;
            buf[1] = (unsigned int)(j >> 32);
            buf[2] = s0;
            buf[3] = s1;
            philox4x32_10(buf, (unsigned int)kk, (unsigned int)(kk >> 32));
            k += 1;
            used = 0;
        }
        return buf[used++];
    }
    __device__ __forceinline__ unsigned long long next64() {
        const unsigned int lo = next();
        const unsigned int hi = next();
        return ((unsigned long long)hi << 32) | lo;
    }
    // [0, 1) in steps of 2^-53.
    __device__ __forceinline__ double uniform() { return ra_mul(__ull2double_rn(next64() >> 11), 0x1p-53); }
    // (0, 1] in steps of 2^-53.
    __device__ __forceinline__ double uniform_pos() {
        return ra_mul(__ull2double_rn((next64() >> 11) + 1ull), 0x1p-53);
    }
    // -ln u for u in (0, 1]: +0 at most.
    __device__ __forceinline__ double exponential() { return ra_sub(0.0, ra_ln(uniform_pos())); }
    // Box-Muller on four words (philox.cuh's f64 radius and angle); the sine is kept for
    // the next call.
    __device__ __forceinline__ double normal() {
        if (has_normal) {
            has_normal = false;
            return normal_cache;
        }
        unsigned int w[4];
        for (int e = 0; e < 4; ++e) w[e] = next();
        const rand_ctx none = {0u, 0u, 0u, 0u, nullptr};
        const double rad = ra_sqrt(rand_f64::neg2_ln(w, none));
        double c, s;
        rand_f64::cos_sin(w + 2, c, s);
        has_normal = true;
        normal_cache = ra_mul(rad, s);
        return ra_mul(rad, c);
    }
};

// ---- samplers: double results ----------------------------------------------------------
// Marsaglia and Tsang (2000) for shape k >= 1; for k < 1, gamma(k + 1) U^(1 / k), returned
// as a log when `log_out` (Dirichlet normalises in logs so that small shapes do not
// underflow). k == 1 is an exponential.
__device__ __forceinline__ double rs_gamma_ge1(rand_sub& u, double k) {
    const double d = ra_sub(k, 1.0 / 3.0);
    const double c = ra_div(1.0, ra_sqrt(ra_mul(9.0, d)));
    for (;;) {
        double x, v;
        do {
            x = u.normal();
            v = ra_fma(c, x, 1.0);
        } while (v <= 0.0);
        v = ra_mul(ra_mul(v, v), v);
        const double un = u.uniform();
        const double x2 = ra_mul(x, x);
        if (un < ra_sub(1.0, ra_mul(ra_mul(0.0331, x2), x2))) return ra_mul(d, v);
        if (ra_ln(un) < ra_fma(0.5, x2, ra_mul(d, ra_add(ra_sub(1.0, v), ra_ln(v))))) return ra_mul(d, v);
    }
}
__device__ __forceinline__ double rs_log_gamma(rand_sub& u, double k) {
    if (k >= 1.0) return ra_ln(rs_gamma_ge1(u, k));
    const double g = rs_gamma_ge1(u, ra_add(k, 1.0));
    return ra_add(ra_ln(g), ra_div(ra_ln(u.uniform_pos()), k));
}
__device__ __forceinline__ double rs_gamma(rand_sub& u, double k) {
    if (k == 1.0) return u.exponential();
    if (k > 1.0) return rs_gamma_ge1(u, k);
    const double g = rs_gamma_ge1(u, ra_add(k, 1.0));
    return ra_mul(g, ra_exp(ra_div(ra_ln(u.uniform_pos()), k)));
}

// Poisson as NumPy: multiplication for lam < 10, PTRS (Hormann 1993) above.
__device__ __forceinline__ long long rs_poisson(rand_sub& u, double lam) {
    if (lam == 0.0) return 0;
    if (lam < 10.0) {
        const double enlam = ra_exp(-lam);
        long long x = 0;
        double prod = 1.0;
        for (;;) {
            prod = ra_mul(prod, u.uniform());
            if (prod > enlam) {
                x += 1;
            } else {
                return x;
            }
        }
    }
    const double slam = ra_sqrt(lam);
    const double loglam = ra_ln(lam);
    const double b = ra_fma(2.53, slam, 0.931);
    const double a = ra_fma(0.02483, b, -0.059);
    const double invalpha = ra_add(1.1239, ra_div(1.1328, ra_sub(b, 3.4)));
    const double vr = ra_sub(0.9277, ra_div(3.6224, ra_sub(b, 2.0)));
    const double linv = ra_ln(invalpha);
    for (;;) {
        const double un = ra_sub(u.uniform(), 0.5);
        const double v = u.uniform();
        const double us = ra_sub(0.5, fabs(un));
        const long long k = (long long)floor(ra_add(ra_add(ra_mul(ra_add(ra_div(ra_mul(2.0, a), us), b), un), lam), 0.43));
        if (us >= 0.07 && v <= vr) return k;
        if (k < 0 || (us < 0.013 && v > us)) continue;
        const double lhs = ra_sub(ra_add(ra_ln(v), linv), ra_ln(ra_add(ra_div(a, ra_mul(us, us)), b)));
        const double rhs = ra_sub(ra_fma((double)k, loglam, -lam), ra_loggam(ra_add((double)k, 1.0)));
        if (lhs <= rhs) return k;
    }
}

// Binomial of n trials with p <= 1/2: NumPy's inversion for n p <= 30, BTPE (Kachitvichyanukul
// and Schmeiser 1988) above.
__device__ __forceinline__ long long rs_binomial_inversion(rand_sub& u, double n, double p) {
    const double q = ra_sub(1.0, p);
    const double qn = ra_exp(ra_mul(n, ra_ln(q)));
    const double np = ra_mul(n, p);
    const double bd = ra_fma(10.0, ra_sqrt(ra_fma(np, q, 1.0)), np);
    const long long bound = (long long)(bd < n ? bd : n);
    long long x = 0;
    double px = qn;
    double un = u.uniform();
    while (un > px) {
        x += 1;
        if (x > bound) {
            x = 0;
            px = qn;
            un = u.uniform();
        } else {
            un = ra_sub(un, px);
            px = ra_div(ra_mul(ra_mul(ra_add(ra_sub(n, (double)x), 1.0), p), px), ra_mul((double)x, q));
        }
    }
    return x;
}
__device__ __forceinline__ double rs_stirling(double f) {
    const double f2 = ra_mul(f, f);
    double t = ra_sub(99.0, ra_div(140.0, f2));
    t = ra_sub(132.0, ra_div(t, f2));
    t = ra_sub(462.0, ra_div(t, f2));
    t = ra_sub(13680.0, ra_div(t, f2));
    return ra_div(ra_div(t, f), 166320.0);
}
__device__ __forceinline__ long long rs_binomial_btpe(rand_sub& u, double n, double p) {
    const double r = p;
    const double q = ra_sub(1.0, r);
    const double fm = ra_fma(n, r, r);
    const double m = floor(fm);
    const double nrq = ra_mul(ra_mul(n, r), q);
    const double p1 = ra_add(floor(ra_fma(2.195, ra_sqrt(nrq), ra_mul(-4.6, q))), 0.5);
    const double xm = ra_add(m, 0.5);
    const double xl = ra_sub(xm, p1);
    const double xr = ra_add(xm, p1);
    const double c = ra_add(0.134, ra_div(20.5, ra_add(15.3, m)));
    double a = ra_div(ra_sub(fm, xl), ra_sub(fm, ra_mul(xl, r)));
    const double laml = ra_mul(a, ra_fma(a, 0.5, 1.0));
    a = ra_div(ra_sub(xr, fm), ra_mul(xr, q));
    const double lamr = ra_mul(a, ra_fma(a, 0.5, 1.0));
    const double p2 = ra_mul(p1, ra_fma(2.0, c, 1.0));
    const double p3 = ra_add(p2, ra_div(c, laml));
    const double p4 = ra_add(p3, ra_div(c, lamr));
    for (;;) {
        const double un = ra_mul(u.uniform(), p4);
        double v = u.uniform();
        double y;
        if (un <= p1) {
            return (long long)floor(ra_add(ra_fma(-p1, v, xm), un));
        } else if (un <= p2) {
            const double x = ra_add(xl, ra_div(ra_sub(un, p1), c));
            v = ra_sub(ra_fma(v, c, 1.0), ra_div(fabs(ra_add(ra_sub(m, x), 0.5)), p1));
            if (v > 1.0) continue;
            y = floor(x);
        } else if (un <= p3) {
            y = floor(ra_add(xl, ra_div(ra_ln(v), laml)));
            if (y < 0.0 || v == 0.0) continue;
            v = ra_mul(ra_mul(v, ra_sub(un, p2)), laml);
        } else {
            y = floor(ra_sub(xr, ra_div(ra_ln(v), lamr)));
            if (y > n || v == 0.0) continue;
            v = ra_mul(ra_mul(v, ra_sub(un, p3)), lamr);
        }
        const double k = fabs(ra_sub(y, m));
        if (!(k > 20.0 && k < ra_sub(ra_div(nrq, 2.0), 1.0))) {
            const double s = ra_div(r, q);
            const double aa = ra_mul(s, ra_add(n, 1.0));
            double f = 1.0;
            if (m < y) {
                for (double i = ra_add(m, 1.0); i <= y; i = ra_add(i, 1.0)) f = ra_mul(f, ra_sub(ra_div(aa, i), s));
            } else if (m > y) {
                for (double i = ra_add(y, 1.0); i <= m; i = ra_add(i, 1.0)) f = ra_div(f, ra_sub(ra_div(aa, i), s));
            }
            if (v > f) continue;
            return (long long)y;
        }
        const double rho = ra_mul(ra_div(k, nrq),
                                  ra_add(ra_div(ra_fma(k, ra_add(ra_div(k, 3.0), 0.625), 0.16666666666666666), nrq), 0.5));
        const double t = ra_div(ra_mul(-k, k), ra_mul(2.0, nrq));
        const double aln = ra_ln(v);
        if (aln < ra_sub(t, rho)) return (long long)y;
        if (aln > ra_add(t, rho)) continue;
        const double x1 = ra_add(y, 1.0);
        const double f1 = ra_add(m, 1.0);
        const double z = ra_sub(ra_add(n, 1.0), m);
        const double w = ra_add(ra_sub(n, y), 1.0);
        double bound = ra_mul(xm, ra_ln(ra_div(f1, x1)));
        bound = ra_fma(ra_add(ra_sub(n, m), 0.5), ra_ln(ra_div(z, w)), bound);
        bound = ra_fma(ra_sub(y, m), ra_ln(ra_div(ra_mul(w, r), ra_mul(x1, q))), bound);
        bound = ra_add(bound, rs_stirling(f1));
        bound = ra_add(bound, rs_stirling(z));
        bound = ra_add(bound, rs_stirling(x1));
        bound = ra_add(bound, rs_stirling(w));
        if (aln > bound) continue;
        return (long long)y;
    }
}
__device__ __forceinline__ long long rs_binomial(rand_sub& u, double n, double p) {
    if (n == 0.0 || p == 0.0) return 0;
    if (p == 1.0) return (long long)n;
    const bool flip = p > 0.5;
    const double r = flip ? ra_sub(1.0, p) : p;
    const long long y = ra_mul(r, n) <= 30.0 ? rs_binomial_inversion(u, n, r) : rs_binomial_btpe(u, n, r);
    return flip ? (long long)n - y : y;
}

// Hypergeometric (good, bad, s draws): inversion searching outwards from the mode, with the
// mode's probability from loggam and the neighbours' by the pmf's ratio.
__device__ __forceinline__ long long rs_hypergeometric(rand_sub& u, double g, double b, double s) {
    const double tot = ra_add(g, b);
    const double kmin = fmax(0.0, ra_sub(s, b));
    const double kmax = fmin(s, g);
    if (kmin == kmax) return (long long)kmin;
    double m = floor(ra_div(ra_mul(ra_add(s, 1.0), ra_add(g, 1.0)), ra_add(tot, 2.0)));
    m = fmin(fmax(m, kmin), kmax);
    double lp = ra_sub(ra_sub(ra_loggam(ra_add(g, 1.0)), ra_loggam(ra_add(m, 1.0))), ra_loggam(ra_add(ra_sub(g, m), 1.0)));
    lp = ra_add(lp, ra_sub(ra_sub(ra_loggam(ra_add(b, 1.0)), ra_loggam(ra_add(ra_sub(s, m), 1.0))),
                           ra_loggam(ra_add(ra_add(ra_sub(b, s), m), 1.0))));
    lp = ra_sub(lp, ra_sub(ra_sub(ra_loggam(ra_add(tot, 1.0)), ra_loggam(ra_add(s, 1.0))),
                           ra_loggam(ra_add(ra_sub(tot, s), 1.0))));
    const double pm = ra_exp(lp);
    for (;;) {
        double un = ra_sub(u.uniform(), pm);
        if (un < 0.0) return (long long)m;
        double lo = m, hi = m, plo = pm, phi = pm;
        while (lo > kmin || hi < kmax) {
            if (hi < kmax) {
                // p(hi + 1) = p(hi) (g - hi) (s - hi) / ((hi + 1) (b - s + hi + 1))
                phi = ra_div(ra_mul(phi, ra_mul(ra_sub(g, hi), ra_sub(s, hi))),
                             ra_mul(ra_add(hi, 1.0), ra_add(ra_add(ra_sub(b, s), hi), 1.0)));
                hi = ra_add(hi, 1.0);
                un = ra_sub(un, phi);
                if (un < 0.0) return (long long)hi;
            }
            if (lo > kmin) {
                // p(lo - 1) = p(lo) lo (b - s + lo) / ((g - lo + 1) (s - lo + 1))
                plo = ra_div(ra_mul(plo, ra_mul(lo, ra_add(ra_sub(b, s), lo))),
                             ra_mul(ra_add(ra_sub(g, lo), 1.0), ra_add(ra_sub(s, lo), 1.0)));
                lo = ra_sub(lo, 1.0);
                un = ra_sub(un, plo);
                if (un < 0.0) return (long long)lo;
            }
        }
        // Rounding left some mass unassigned: draw again.
    }
}

// A standard normal truncated to [alpha, beta] (Robert 1995): plain rejection when the
// interval holds 0 and is at least 2 wide; otherwise, on the side of 0 where it lies, an
// exponential proposal (rate (a + sqrt(a^2 + 4)) / 2 from the near end a) when the interval
// is wider than 1 or than 1 / a, else a uniform one.
__device__ __forceinline__ double rs_truncnorm(rand_sub& u, double alpha, double beta) {
    if (alpha <= 0.0 && beta >= 0.0 && ra_sub(beta, alpha) >= 2.0) {
        for (;;) {
            const double z = u.normal();
            if (z >= alpha && z <= beta) return z;
        }
    }
    const bool flip = beta <= 0.0;
    const double lo = flip ? -beta : alpha;
    const double hi = flip ? -alpha : beta;
    const double w = ra_sub(hi, lo);
    double z;
    if (lo >= 0.0 && (w > 1.0 || ra_mul(w, lo) > 1.0)) {
        const double lam = ra_mul(0.5, ra_add(lo, ra_sqrt(ra_fma(lo, lo, 4.0))));
        for (;;) {
            z = ra_sub(lo, ra_div(ra_ln(u.uniform_pos()), lam));
            const double d = ra_sub(z, lam);
            if (z <= hi && u.uniform() <= ra_exp(ra_mul(-0.5, ra_mul(d, d)))) break;
        }
    } else {
        const double l2 = lo > 0.0 ? ra_mul(lo, lo) : 0.0;
        for (;;) {
            z = ra_fma(w, u.uniform(), lo);
            if (u.uniform() <= ra_exp(ra_mul(0.5, ra_sub(l2, ra_mul(z, z))))) break;
        }
    }
    return flip ? -z : z;
}

// A double result as T: directly for double, through float (rounded once) for the others.
template <typename T> __device__ __forceinline__ T rs_to(double x) { return T(__double2float_rn(x)); }
template <> __device__ __forceinline__ double rs_to<double>(double x) { return x; }

// Samplers by number (src/kernels/family/random.rs `Sampler`): continuous ones return a
// double, discrete ones a long long; p0..p3 are the call's parameters.
struct rs_par {
    double p0, p1, p2, p3;
    const double* aux;
    long long kdim;
};

template <int S>
__device__ __forceinline__ double rs_real(const rs_par& P, unsigned long long j, unsigned long long key,
                                          unsigned long long stream) {
    rand_sub u;
    u.init(j, key, stream, 0ull);
    if (S == 0) {  // gamma(k = p0, scale = p1)
        return ra_mul(P.p1, rs_gamma(u, P.p0));
    } else if (S == 1) {  // beta(a = p0, b = p1): gammas in logs, then x / (x + y)
        rand_sub v;
        v.init(j, key, stream, 1ull << 32);
        const double lx = rs_log_gamma(u, P.p0);
        const double ly = rs_log_gamma(v, P.p1);
        const double mx = fmax(lx, ly);
        const double x = ra_exp(ra_sub(lx, mx));
        const double y = ra_exp(ra_sub(ly, mx));
        return ra_div(x, ra_add(x, y));
    } else if (S == 2) {  // chisquare(df = p0)
        return ra_mul(2.0, rs_gamma(u, ra_mul(0.5, P.p0)));
    } else if (S == 3) {  // standard_t(df = p0)
        rand_sub v;
        v.init(j, key, stream, 1ull << 32);
        const double num = u.normal();
        const double den = rs_gamma(v, ra_mul(0.5, P.p0));
        return ra_div(ra_mul(ra_sqrt(ra_mul(0.5, P.p0)), num), ra_sqrt(den));
    } else if (S == 4) {  // f(dfnum = p0, dfden = p1)
        rand_sub v;
        v.init(j, key, stream, 1ull << 32);
        const double a = ra_mul(ra_mul(2.0, rs_gamma(u, ra_mul(0.5, P.p0))), P.p1);
        const double b = ra_mul(ra_mul(2.0, rs_gamma(v, ra_mul(0.5, P.p1))), P.p0);
        return ra_div(a, b);
    } else if (S == 5) {  // lognormal(mean = p0, sigma = p1)
        return ra_exp(ra_fma(P.p1, u.normal(), P.p0));
    } else if (S == 6) {  // laplace(loc = p0, scale = p1)
        for (;;) {
            const double un = u.uniform();
            if (un >= 0.5) return ra_fma(-P.p1, ra_ln(ra_sub(2.0, ra_add(un, un))), P.p0);
            if (un > 0.0) return ra_fma(P.p1, ra_ln(ra_add(un, un)), P.p0);
        }
    } else if (S == 7) {  // logistic(loc = p0, scale = p1)
        for (;;) {
            const double un = u.uniform();
            if (un > 0.0) return ra_fma(P.p1, ra_ln(ra_div(un, ra_sub(1.0, un))), P.p0);
        }
    } else if (S == 8) {  // gumbel(loc = p0, scale = p1)
        for (;;) {
            const double un = ra_sub(1.0, u.uniform());
            if (un < 1.0) return ra_fma(-P.p1, ra_ln(-ra_ln(un)), P.p0);
        }
    } else if (S == 9) {  // weibull(a = p0)
        if (P.p0 == 0.0) return 0.0;
        return ra_pow(u.exponential(), ra_div(1.0, P.p0));
    } else if (S == 10) {  // rayleigh(scale = p0)
        return ra_mul(P.p0, ra_sqrt(ra_mul(-2.0, ra_ln(u.uniform_pos()))));
    } else if (S == 11) {  // pareto(a = p0)
        return ra_expm1(ra_div(u.exponential(), P.p0));
    } else if (S == 12) {  // power(a = p0)
        return ra_pow(-ra_expm1(-u.exponential()), ra_div(1.0, P.p0));
    } else if (S == 13) {  // standard_cauchy: a ratio of normals
        const double a = u.normal();
        const double b = u.normal();
        return ra_div(a, b);
    } else if (S == 14) {  // wald(mean = p0, scale = p1)
        const double mu_2l = ra_div(P.p0, ra_mul(2.0, P.p1));
        double y = u.normal();
        y = ra_mul(ra_mul(P.p0, y), y);
        const double x = ra_fma(mu_2l, ra_sub(y, ra_sqrt(ra_fma(ra_mul(4.0, P.p1), y, ra_mul(y, y)))), P.p0);
        const double un = u.uniform();
        if (un <= ra_div(P.p0, ra_add(P.p0, x))) return x;
        return ra_div(ra_mul(P.p0, P.p0), x);
    } else if (S == 15) {  // triangular(left = p0, mode = p1, right = p2)
        const double base = ra_sub(P.p2, P.p0);
        const double leftbase = ra_sub(P.p1, P.p0);
        const double ratio = ra_div(leftbase, base);
        const double un = u.uniform();
        if (un <= ratio) return ra_add(P.p0, ra_sqrt(ra_mul(un, ra_mul(leftbase, base))));
        return ra_sub(P.p2, ra_sqrt(ra_mul(ra_sub(1.0, un), ra_mul(ra_sub(P.p2, P.p1), base))));
    } else if (S == 16) {  // vonmises(mu = p0, kappa = p1)
        const double kappa = P.p1;
        if (kappa < 1e-8) return ra_mul(RA_PI, ra_fma(2.0, u.uniform(), -1.0));
        double s;
        if (kappa < 1e-5) {
            s = ra_add(ra_div(1.0, kappa), kappa);
        } else {
            const double r = ra_add(1.0, ra_sqrt(ra_fma(ra_mul(4.0, kappa), kappa, 1.0)));
            const double rho = ra_div(ra_sub(r, ra_sqrt(ra_mul(2.0, r))), ra_mul(2.0, kappa));
            s = ra_div(ra_fma(rho, rho, 1.0), ra_mul(2.0, rho));
        }
        double w;
        for (;;) {
            const double z = ra_cospi(u.uniform());
            w = ra_div(ra_fma(s, z, 1.0), ra_add(s, z));
            const double y = ra_mul(kappa, ra_sub(s, w));
            const double v = u.uniform();
            if (ra_sub(ra_mul(y, ra_sub(2.0, y)), v) >= 0.0) break;
            if (ra_sub(ra_add(ra_ln(ra_div(y, v)), 1.0), y) >= 0.0) break;
        }
        double result = ra_acos(w);
        if (u.uniform() < 0.5) result = -result;
        result = ra_add(result, P.p0);
        const bool neg = result < 0.0;
        double md = ra_add(fabs(result), RA_PI);
        md = ra_fma(-floor(ra_div(md, 2.0 * RA_PI)), 2.0 * RA_PI, md);
        md = ra_sub(md, RA_PI);
        return neg ? -md : md;
    } else {  // 17: truncated_normal(mean = p0, std = p1, alpha = p2, beta = p3), standardised
        return ra_fma(P.p1, rs_truncnorm(u, P.p2, P.p3), P.p0);
    }
}

template <int S>
__device__ __forceinline__ long long rs_int(const rs_par& P, unsigned long long j, unsigned long long key,
                                            unsigned long long stream) {
    rand_sub u;
    u.init(j, key, stream, 0ull);
    if (S == 20) {  // poisson(lam = p0)
        return rs_poisson(u, P.p0);
    } else if (S == 21) {  // binomial(n = p0, p = p1)
        return rs_binomial(u, P.p0, P.p1);
    } else if (S == 22) {  // negative_binomial(n = p0, p = p1): poisson(gamma(n) (1 - p) / p)
        if (P.p1 == 1.0) return 0;
        rand_sub v;
        v.init(j, key, stream, 1ull << 32);
        const double y = ra_mul(rs_gamma(u, P.p0), ra_div(ra_sub(1.0, P.p1), P.p1));
        return rs_poisson(v, y);
    } else if (S == 23) {  // geometric(p = p0): ceil(ln u / log1p(-p)), at least 1
        if (P.p0 == 1.0) return 1;
        const double x = ceil(ra_div(ra_ln(u.uniform_pos()), ra_log1p(-P.p0)));
        return x < 1.0 ? 1 : (long long)x;
    } else if (S == 24) {  // hypergeometric(ngood = p0, nbad = p1, nsample = p2)
        return rs_hypergeometric(u, P.p0, P.p1, P.p2);
    } else {  // 25: choice by the CDF aux[0..kdim): the first index whose CDF passes u
        const double un = u.uniform();
        long long lo = 0, hi = P.kdim - 1;
        while (lo < hi) {
            const long long mid = (lo + hi) >> 1;
            if (P.aux[mid] > un) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }
}

// Rows of kdim values from the parameter vector aux (row i's element k draws from
// substream j0 + i kdim + k): 30 Dirichlet (gammas in logs, normalised by their maximum),
// 31 multinomial (n = p0 trials; conditional binomials).
template <int S, typename T>
__device__ __forceinline__ void rs_row(const rs_par& P, T* out, unsigned long long j, unsigned long long key,
                                       unsigned long long stream) {
    const long long K = P.kdim;
    if (S == 30) {
        // First pass: the running maximum of the log-gammas and the sum of exp(lg - max),
        // rescaled when the maximum grows; second pass: the same draws again, normalised.
        double mx = -RA_INF, sum = 0.0;
        for (long long k = 0; k < K; ++k) {
            rand_sub u;
            u.init(j + (unsigned long long)k, key, stream, 0ull);
            const double lg = rs_log_gamma(u, P.aux[k]);
            if (lg > mx) {
                sum = ra_fma(sum, ra_exp(ra_sub(mx, lg)), 1.0);
                mx = lg;
            } else {
                sum = ra_add(sum, ra_exp(ra_sub(lg, mx)));
            }
        }
        for (long long k = 0; k < K; ++k) {
            rand_sub u;
            u.init(j + (unsigned long long)k, key, stream, 0ull);
            const double lg = rs_log_gamma(u, P.aux[k]);
            out[k] = rs_to<T>(ra_div(ra_exp(ra_sub(lg, mx)), sum));
        }
    } else {
        double left = P.p0;
        double rest = 1.0;
        for (long long k = 0; k < K; ++k) {
            long long x;
            if (k == K - 1) {
                x = (long long)left;
            } else {
                rand_sub u;
                u.init(j + (unsigned long long)k, key, stream, 0ull);
                const double pk = P.aux[k];
                const double q = rest > 0.0 ? fmin(1.0, fmax(0.0, ra_div(pk, rest))) : 0.0;
                x = left > 0.0 ? rs_binomial(u, left, q) : 0;
                rest = ra_sub(rest, pk);
                left = ra_sub(left, (double)x);
            }
            out[k] = (T)x;
        }
    }
}

// The fill loops: element i (or row i) of n, one thread each, grid-stride.
template <int S, typename T>
__device__ __forceinline__ void rand_sample_fill(T* out, long long n, unsigned long long j0, unsigned long long key,
                                                 unsigned long long stream, const rs_par& P) {
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const unsigned long long j = j0 + (unsigned long long)i;
        if (S < 20) {
            out[i] = rs_to<T>(rs_real<S>(P, j, key, stream));
        } else if (S < 30) {
            out[i] = (T)rs_int<S>(P, j, key, stream);
        } else {
            rs_row<S, T>(P, out + i * P.kdim, j0 + (unsigned long long)i * (unsigned long long)P.kdim, key, stream);
        }
    }
}
