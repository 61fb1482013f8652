// cuarray ops.cuh: the device functions that op bodies call, one per operation.
// Conventions: see kernels/README.md. Every function first widens cuarray_f16/bf16 to
// float (cuarray_up) and computes in that type; the generated body's assignment converts
// the result to the output type, so integer results wrap as in NumPy. No CUDA headers:
// only NVRTC's built-in math functions are used.

template <class T> struct cuarray_is_fp { static constexpr bool value = false; };
template <> struct cuarray_is_fp<float> { static constexpr bool value = true; };
template <> struct cuarray_is_fp<double> { static constexpr bool value = true; };

template <class T> __device__ __forceinline__ T cuarray_up(T x) { return x; }
__device__ __forceinline__ float cuarray_up(cuarray_f16 x) { return float(x); }
__device__ __forceinline__ float cuarray_up(cuarray_bf16 x) { return float(x); }

template <class T> struct cuarray_is_int { static constexpr bool value = false; };
template <> struct cuarray_is_int<signed char> { static constexpr bool value = true; };
template <> struct cuarray_is_int<short> { static constexpr bool value = true; };
template <> struct cuarray_is_int<int> { static constexpr bool value = true; };
template <> struct cuarray_is_int<long long> { static constexpr bool value = true; };
template <> struct cuarray_is_int<unsigned char> { static constexpr bool value = true; };
template <> struct cuarray_is_int<unsigned short> { static constexpr bool value = true; };
template <> struct cuarray_is_int<unsigned int> { static constexpr bool value = true; };
template <> struct cuarray_is_int<unsigned long long> { static constexpr bool value = true; };

// `astype`: a C++ conversion (float to integer truncates toward zero and saturates at
// the 32-bit limits, then keeps the low bits for narrower types; 64-bit types saturate at
// their own), except that NaN becomes 0 in every integer type (the hardware gives the
// lowest value for 64-bit results).
// From a complex type: to another complex type, both parts; to bool, "either part
// non-zero"; to any other type, the real part converted as above (NumPy's ComplexWarning
// cast).
template <class To, class From> __device__ __forceinline__ To cuarray_cast(From in) {
    if constexpr (cuarray_is_complex<From>::value && !cuarray_is_complex<To>::value) {
        if constexpr (cuarray_is_same<To, bool>::value) return static_cast<bool>(in);
        else return cuarray_cast<To>(in.re);
    } else {
        if constexpr (cuarray_is_int<To>::value && cuarray_is_fp<decltype(cuarray_up(in))>::value) {
            const auto x = cuarray_up(in);
            if (x != x) return To(0);
        }
        return static_cast<To>(in);
    }
}

// Single- and double-precision math under one name.
#define CUARRAY_MATH1(name, f32, f64)                                        \
    __device__ __forceinline__ float name(float x) { return f32(x); }      \
    __device__ __forceinline__ double name(double x) { return f64(x); }
CUARRAY_MATH1(cuarray_m_exp, expf, exp)
CUARRAY_MATH1(cuarray_m_log, logf, log)
CUARRAY_MATH1(cuarray_m_log1p, log1pf, log1p)
CUARRAY_MATH1(cuarray_m_expm1, expm1f, expm1)
CUARRAY_MATH1(cuarray_m_sqrt, sqrtf, sqrt)
CUARRAY_MATH1(cuarray_m_sin, sinf, sin)
CUARRAY_MATH1(cuarray_m_cos, cosf, cos)
CUARRAY_MATH1(cuarray_m_tan, tanf, tan)
CUARRAY_MATH1(cuarray_m_tanh, tanhf, tanh)
CUARRAY_MATH1(cuarray_m_floor, floorf, floor)
CUARRAY_MATH1(cuarray_m_ceil, ceilf, ceil)
CUARRAY_MATH1(cuarray_m_rint, rintf, rint)
CUARRAY_MATH1(cuarray_m_fabs, fabsf, fabs)
CUARRAY_MATH1(cuarray_m_asin, asinf, asin)
CUARRAY_MATH1(cuarray_m_acos, acosf, acos)
CUARRAY_MATH1(cuarray_m_atan, atanf, atan)
CUARRAY_MATH1(cuarray_m_sinh, sinhf, sinh)
CUARRAY_MATH1(cuarray_m_cosh, coshf, cosh)
CUARRAY_MATH1(cuarray_m_asinh, asinhf, asinh)
CUARRAY_MATH1(cuarray_m_acosh, acoshf, acosh)
CUARRAY_MATH1(cuarray_m_atanh, atanhf, atanh)
CUARRAY_MATH1(cuarray_m_log2, log2f, log2)
CUARRAY_MATH1(cuarray_m_log10, log10f, log10)
CUARRAY_MATH1(cuarray_m_exp2, exp2f, exp2)
CUARRAY_MATH1(cuarray_m_cbrt, cbrtf, cbrt)
CUARRAY_MATH1(cuarray_m_rsqrt, rsqrtf, rsqrt)
CUARRAY_MATH1(cuarray_m_trunc, truncf, trunc)
CUARRAY_MATH1(cuarray_m_erfc, erfcf, erfc)
CUARRAY_MATH1(cuarray_m_sinpi, sinpif, sinpi)
__device__ __forceinline__ float cuarray_m_nextafter(float a, float b) { return nextafterf(a, b); }
__device__ __forceinline__ double cuarray_m_nextafter(double a, double b) { return nextafter(a, b); }
__device__ __forceinline__ float cuarray_m_fmax(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double cuarray_m_fmax(double a, double b) { return fmax(a, b); }
__device__ __forceinline__ float cuarray_m_fmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double cuarray_m_fmin(double a, double b) { return fmin(a, b); }
__device__ __forceinline__ float cuarray_m_ldexp(float a, int e) { return ldexpf(a, e); }
__device__ __forceinline__ double cuarray_m_ldexp(double a, int e) { return ldexp(a, e); }
__device__ __forceinline__ bool cuarray_m_signbit(float a) { return __float_as_int(a) < 0; }
__device__ __forceinline__ bool cuarray_m_signbit(double a) { return __double_as_longlong(a) < 0; }
__device__ __forceinline__ float cuarray_m_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double cuarray_m_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float cuarray_m_copysign(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double cuarray_m_copysign(double a, double b) { return copysign(a, b); }
__device__ __forceinline__ float cuarray_m_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double cuarray_m_pow(double a, double b) { return pow(a, b); }

__device__ __forceinline__ float cuarray_m_mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double cuarray_m_mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float cuarray_m_add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double cuarray_m_add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float cuarray_m_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double cuarray_m_fma(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float cuarray_m_hypot(float a, float b) { return hypotf(a, b); }
__device__ __forceinline__ double cuarray_m_hypot(double a, double b) { return hypot(a, b); }
__device__ __forceinline__ float cuarray_m_atan2(float a, float b) { return atan2f(a, b); }
__device__ __forceinline__ double cuarray_m_atan2(double a, double b) { return atan2(a, b); }
__device__ __forceinline__ void cuarray_m_sincos(float x, float* s, float* c) { sincosf(x, s, c); }
__device__ __forceinline__ void cuarray_m_sincos(double x, double* s, double* c) { sincos(x, s, c); }
template <class R> __device__ __forceinline__ bool cuarray_m_isinf(R x) { return x == x && (x - x) != (x - x); }
template <class R> __device__ __forceinline__ bool cuarray_m_isfinite(R x) { return (x - x) == (x - x); }

// ---- complex math (types in common.cuh); the special values follow NumPy (C99 Annex G)
// |z| without overflow or underflow of the squares (hypot), as NumPy.
template <class R> __device__ __forceinline__ R cuarray_m_cabs(cuarray_complex<R> z) {
    return cuarray_m_hypot(z.re, z.im);
}

// Division by Smith's method, exactly NumPy's loop: no overflow for large parts of the
// divisor; a zero divisor gives the parts divided by zero (inf or NaN).
template <class R> __device__ __forceinline__ cuarray_complex<R> operator/(cuarray_complex<R> a, cuarray_complex<R> b) {
    const R br = cuarray_m_fabs(b.re), bi = cuarray_m_fabs(b.im);
    if (br >= bi) {
        if (br == R(0) && bi == R(0)) return cuarray_complex<R>(a.re / br, a.im / br);
        const R rat = b.im / b.re;
        const R scl = R(1) / (b.re + b.im * rat);
        return cuarray_complex<R>((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    const R rat = b.re / b.im;
    const R scl = R(1) / (b.im + b.re * rat);
    return cuarray_complex<R>((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}

// e^z = e^re (cos im + i sin im); an imaginary part 0 stays exact (e^x + 0i, as cexp);
// -inf with a non-finite imaginary part gives 0, +inf gives (inf, NaN).
template <class R> __device__ __forceinline__ cuarray_complex<R> cuarray_m_exp(cuarray_complex<R> z) {
    if (z.im == R(0)) return cuarray_complex<R>(cuarray_m_exp(z.re), z.im);
    if (!cuarray_m_isfinite(z.im) && cuarray_m_isinf(z.re)) {
        if (z.re < R(0)) return cuarray_complex<R>(R(0), R(0));
        return cuarray_complex<R>(z.re, z.im - z.im);
    }
    R s, c;
    cuarray_m_sincos(z.im, &s, &c);
    const R e = cuarray_m_exp(z.re);
    return cuarray_complex<R>(e * c, e * s);
}

// log z = ln|z| + i arg z; |z| from hypot, scaled when it overflows. Near |z| = 1, where
// ln|z| is small and hypot's rounding would dominate it, ln|z| = log1p(hi² + lo² - 1) / 2
// with hi² + lo² - 1 summed exactly enough: each square split into two parts by an FMA
// (exact), hi² - 1 exact (Sterbenz), the rest added by TwoSum. log 0 = -inf + i arg.
template <class R> __device__ __forceinline__ cuarray_complex<R> cuarray_m_log(cuarray_complex<R> z) {
    const R ax = cuarray_m_fabs(z.re), ay = cuarray_m_fabs(z.im);
    const R hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax;
    const R arg = cuarray_m_atan2(z.im, z.re);
    R lnabs;
    if (hi >= R(0.70710678118654752) && hi <= R(1.25) && lo < R(0.75)) {
        // Rounded operations the compiler may not fuse into FMAs (that would break the
        // exact splits).
        const R ph = cuarray_m_mul_rn(hi, hi), pl = cuarray_m_fma(hi, hi, -ph);
        const R qh = cuarray_m_mul_rn(lo, lo), ql = cuarray_m_fma(lo, lo, -qh);
        const R a = cuarray_m_add_rn(ph, R(-1));  // exact: ph in [0.5, 1.5625]
        const R s = cuarray_m_add_rn(a, qh);      // TwoSum(a, qh)
        const R bb = cuarray_m_add_rn(s, -a);
        const R err = cuarray_m_add_rn(cuarray_m_add_rn(a, -cuarray_m_add_rn(s, -bb)), cuarray_m_add_rn(qh, -bb));
        lnabs = R(0.5) * cuarray_m_log1p(s + (err + pl + ql));
    } else {
        const R h = cuarray_m_hypot(z.re, z.im);
        if (cuarray_m_isinf(h) && cuarray_m_isfinite(hi)) {
            lnabs = cuarray_m_log(cuarray_m_hypot(z.re * R(0.5), z.im * R(0.5))) + R(0.69314718055994530942);
        } else {
            lnabs = cuarray_m_log(h);
        }
    }
    return cuarray_complex<R>(lnabs, arg);
}

// Principal square root, the branch cut on the negative real axis (the sign of a zero
// imaginary part picks the side), scaled near the largest values; C99's special values.
template <class R> __device__ __forceinline__ cuarray_complex<R> cuarray_m_sqrt(cuarray_complex<R> z) {
    R a = z.re, b = z.im;
    if (a == R(0) && b == R(0)) return cuarray_complex<R>(R(0), b);
    if (cuarray_m_isinf(b)) return cuarray_complex<R>(cuarray_m_fabs(b), b);
    if (a != a) return cuarray_complex<R>(a, (b - b) / (b - b));
    if (cuarray_m_isinf(a)) {
        if (a < R(0)) return cuarray_complex<R>(cuarray_m_fabs(b - b), cuarray_m_copysign(a, b));
        return cuarray_complex<R>(a, cuarray_m_copysign(b - b, b));
    }
    // Past THRESH, a + hypot(a, b) could overflow: work on z / 4, multiply by 2.
    const R thresh = sizeof(R) == 4 ? R(7.4e37f) : R(7.446288774449766e307);
    const bool scale = cuarray_m_fabs(a) >= thresh || cuarray_m_fabs(b) >= thresh;
    if (scale) { a *= R(0.25); b *= R(0.25); }
    R re, im;
    if (a >= R(0)) {
        const R t = cuarray_m_sqrt((a + cuarray_m_hypot(a, b)) * R(0.5));
        re = t;
        im = b / (R(2) * t);
    } else {
        const R t = cuarray_m_sqrt((-a + cuarray_m_hypot(a, b)) * R(0.5));
        re = cuarray_m_fabs(b) / (R(2) * t);
        im = cuarray_m_copysign(t, b);
    }
    if (scale) { re *= R(2); im *= R(2); }
    return cuarray_complex<R>(re, im);
}

// Parts, conjugate and angle, for complex and (as NumPy) real inputs.
template <class In> __device__ __forceinline__ auto cuarray_real(In in) {
    auto a = cuarray_up(in);
    if constexpr (cuarray_is_complex<decltype(a)>::value) return a.re;
    else return a;
}
template <class In> __device__ __forceinline__ auto cuarray_imag(In in) {
    auto a = cuarray_up(in);
    typedef decltype(a) T;
    if constexpr (cuarray_is_complex<T>::value) return a.im;
    else return T(0);
}
template <class In> __device__ __forceinline__ auto cuarray_conj(In in) {
    auto a = cuarray_up(in);
    typedef decltype(a) T;
    if constexpr (cuarray_is_complex<T>::value) return T(a.re, -a.im);
    else return a;
}
template <class In> __device__ __forceinline__ auto cuarray_angle(In in) {
    auto a = cuarray_up(in);
    typedef decltype(a) T;
    if constexpr (cuarray_is_complex<T>::value) return cuarray_m_atan2(a.im, a.re);
    else return cuarray_m_atan2(T(0), a);
}

// Unary ops: `a` is the widened input.
#define CUARRAY_UNARY(name, expr)                                              \
    template <class In> __device__ __forceinline__ auto name(In in) {          \
        auto a = cuarray_up(in);                                               \
        typedef decltype(a) T;                                                 \
        (void)sizeof(T);                                                       \
        return expr;                                                           \
    }
CUARRAY_UNARY(cuarray_neg, T(-a))
CUARRAY_UNARY(cuarray_square, T(a * a))
CUARRAY_UNARY(cuarray_exp, cuarray_m_exp(a))
CUARRAY_UNARY(cuarray_log, cuarray_m_log(a))
CUARRAY_UNARY(cuarray_log1p, cuarray_m_log1p(a))
CUARRAY_UNARY(cuarray_expm1, cuarray_m_expm1(a))
CUARRAY_UNARY(cuarray_sqrt, cuarray_m_sqrt(a))
CUARRAY_UNARY(cuarray_sin, cuarray_m_sin(a))
CUARRAY_UNARY(cuarray_cos, cuarray_m_cos(a))
CUARRAY_UNARY(cuarray_tan, cuarray_m_tan(a))
CUARRAY_UNARY(cuarray_tanh, cuarray_m_tanh(a))
CUARRAY_UNARY(cuarray_floor, cuarray_m_floor(a))
CUARRAY_UNARY(cuarray_ceil, cuarray_m_ceil(a))
CUARRAY_UNARY(cuarray_round, cuarray_m_rint(a))  // half to even, as NumPy
CUARRAY_UNARY(cuarray_sigmoid, T(1) / (T(1) + cuarray_m_exp(-a)))
CUARRAY_UNARY(cuarray_isnan, a != a)  // complex: either part NaN

// Complex: either part infinite; both parts finite.
template <class In> __device__ __forceinline__ bool cuarray_isinf(In in) {
    auto a = cuarray_up(in);
    if constexpr (cuarray_is_complex<decltype(a)>::value) return cuarray_m_isinf(a.re) || cuarray_m_isinf(a.im);
    else return cuarray_m_isinf(a);
}
template <class In> __device__ __forceinline__ bool cuarray_isfinite(In in) {
    auto a = cuarray_up(in);
    if constexpr (cuarray_is_complex<decltype(a)>::value) return cuarray_m_isfinite(a.re) && cuarray_m_isfinite(a.im);
    else return cuarray_m_isfinite(a);
}
CUARRAY_UNARY(cuarray_logical_not, !a)

template <class In> __device__ __forceinline__ auto cuarray_abs(In in) {
    auto a = cuarray_up(in);
    typedef decltype(a) T;
    if constexpr (cuarray_is_fp<T>::value) return cuarray_m_fabs(a);
    else if constexpr (cuarray_is_complex<T>::value) return cuarray_m_cabs(a);  // real result
    else return T(a < T(0) ? T(-a) : a);  // T(0) - a wraps for the minimum, as NumPy
}

template <class In> __device__ __forceinline__ auto cuarray_sign(In in) {
    auto a = cuarray_up(in);
    typedef decltype(a) T;
    if constexpr (cuarray_is_fp<T>::value) return (a != a) ? a : T((a > T(0)) - (a < T(0)));
    else return T((a > T(0)) - (a < T(0)));
}

template <class In> __device__ __forceinline__ auto cuarray_relu(In in) {
    auto a = cuarray_up(in);
    typedef decltype(a) T;
    return (a != a) ? a : (a > T(0) ? a : T(0));  // NaN propagates
}

// Binary ops: `a`, `b` are the widened operands, `R` their common type.
#define CUARRAY_BINARY(name, expr)                                             \
    template <class A, class B> __device__ __forceinline__ auto name(A ia, B ib) { \
        auto a = cuarray_up(ia);                                               \
        auto b = cuarray_up(ib);                                               \
        typedef decltype(a + b) R;                                             \
        (void)sizeof(R);                                                       \
        return expr;                                                           \
    }
CUARRAY_BINARY(cuarray_add, a + b)
CUARRAY_BINARY(cuarray_sub, a - b)
CUARRAY_BINARY(cuarray_mul, a * b)
CUARRAY_BINARY(cuarray_eq, a == b)
CUARRAY_BINARY(cuarray_ne, a != b)
CUARRAY_BINARY(cuarray_lt, a < b)
CUARRAY_BINARY(cuarray_le, a <= b)
CUARRAY_BINARY(cuarray_gt, a > b)
CUARRAY_BINARY(cuarray_ge, a >= b)
CUARRAY_BINARY(cuarray_logical_and, bool(a) && bool(b))
CUARRAY_BINARY(cuarray_logical_or, bool(a) || bool(b))
CUARRAY_BINARY(cuarray_logical_xor, bool(a) != bool(b))
// NaN propagates through maximum and minimum, as in NumPy.
CUARRAY_BINARY(cuarray_maximum, (a != a) ? R(a) : (b != b) ? R(b) : (a > b ? R(a) : R(b)))
CUARRAY_BINARY(cuarray_minimum, (a != a) ? R(a) : (b != b) ? R(b) : (a < b ? R(a) : R(b)))

// Floats: IEEE division. Complex: Smith's method (above). Integers: floor division
// (toward minus infinity), 0 when dividing by zero (NumPy's `//`).
template <class A, class B> __device__ __forceinline__ auto cuarray_div(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a / b) R;
    if constexpr (cuarray_is_fp<R>::value || cuarray_is_complex<R>::value) {
        return R(a) / R(b);
    } else {
        if (R(b) == R(0)) return R(0);
        R q = R(a) / R(b);
        if ((R(a) % R(b) != R(0)) && ((R(a) < R(0)) != (R(b) < R(0)))) q -= R(1);
        return q;
    }
}

// Remainder with the sign of the divisor (NumPy's `%`, Python's `%`), a zero remainder
// included (`-0.0 % 1.0` is `0.0`, `1.0 % -1.0` is `-0.0`); integers give 0 for a zero
// divisor, floats NaN.
template <class A, class B> __device__ __forceinline__ auto cuarray_rem(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a + b) R;
    if constexpr (cuarray_is_fp<R>::value) {
        R r = cuarray_m_fmod(R(a), R(b));
        if (r == R(0)) return cuarray_m_copysign(R(0), R(b));
        if ((r < R(0)) != (R(b) < R(0))) r += R(b);
        return r;
    } else {
        if (R(b) == R(0)) return R(0);
        R r = R(a) % R(b);
        if (r != R(0) && ((r < R(0)) != (R(b) < R(0)))) r += R(b);
        return r;
    }
}

// Floats: pow. Integers: exact by squaring (wrapping); a negative exponent gives 0 except
// for bases 1 and -1.
template <class A, class B> __device__ __forceinline__ auto cuarray_pow(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a + b) R;
    if constexpr (cuarray_is_fp<R>::value) {
        return cuarray_m_pow(R(a), R(b));
    } else {
        // Unsigned 64-bit arithmetic wraps without undefined behaviour; the low bits are
        // the same as the narrower type's wrapped result.
        R e = R(b);
        if (e < R(0)) {
            return (R(a) == R(1)) ? R(1) : (R(a) == R(-1)) ? ((e & R(1)) ? R(-1) : R(1)) : R(0);
        }
        unsigned long long base = (unsigned long long)(long long)R(a), r = 1ull;
        unsigned long long k = (unsigned long long)e;
        while (k != 0ull) {
            if (k & 1ull) r *= base;
            base *= base;
            k >>= 1;
        }
        return R(r);
    }
}

// clip(x, lo, hi) = minimum(maximum(x, lo), hi).
template <class A, class L, class H> __device__ __forceinline__ auto cuarray_clip(A x, L lo, H hi) {
    return cuarray_minimum(cuarray_maximum(x, lo), hi);
}

// ---- the third round's catalogue (see `unary_family!` and `binary_family!` in
// src/ops/catalogue.rs): one device function per op, real types through the CUDA math
// functions, complex types where NumPy defines the op.

// Complex sinh and cosh from the real parts; a zero imaginary part stays exact (as C99:
// sinh(inf + 0i) = inf + 0i).
template <class R> __device__ __forceinline__ cuarray_complex<R> cuarray_m_sinh(cuarray_complex<R> z) {
    const R ch = cuarray_m_isinf(z.re) ? R(1) : cuarray_m_cosh(z.re);
    if (z.im == R(0)) return cuarray_complex<R>(cuarray_m_sinh(z.re), ch * z.im);
    R s, c;
    cuarray_m_sincos(z.im, &s, &c);
    return cuarray_complex<R>(cuarray_m_sinh(z.re) * c, cuarray_m_cosh(z.re) * s);
}
template <class R> __device__ __forceinline__ cuarray_complex<R> cuarray_m_cosh(cuarray_complex<R> z) {
    const R sh = cuarray_m_isinf(z.re) ? cuarray_m_copysign(R(1), z.re) : cuarray_m_sinh(z.re);
    if (z.im == R(0)) return cuarray_complex<R>(cuarray_m_cosh(z.re), sh * z.im);
    R s, c;
    cuarray_m_sincos(z.im, &s, &c);
    return cuarray_complex<R>(cuarray_m_cosh(z.re) * c, cuarray_m_sinh(z.re) * s);
}
template <class R> __device__ __forceinline__ cuarray_complex<R> cuarray_m_log2(cuarray_complex<R> z) {
    const cuarray_complex<R> l = cuarray_m_log(z);
    return cuarray_complex<R>(l.re * R(1.4426950408889634074), l.im * R(1.4426950408889634074));
}
template <class R> __device__ __forceinline__ cuarray_complex<R> cuarray_m_log10(cuarray_complex<R> z) {
    const cuarray_complex<R> l = cuarray_m_log(z);
    return cuarray_complex<R>(l.re * R(0.43429448190325182765), l.im * R(0.43429448190325182765));
}

CUARRAY_UNARY(cuarray_arcsin, cuarray_m_asin(a))
CUARRAY_UNARY(cuarray_arccos, cuarray_m_acos(a))
CUARRAY_UNARY(cuarray_arctan, cuarray_m_atan(a))
CUARRAY_UNARY(cuarray_sinh, cuarray_m_sinh(a))
CUARRAY_UNARY(cuarray_cosh, cuarray_m_cosh(a))
CUARRAY_UNARY(cuarray_arcsinh, cuarray_m_asinh(a))
CUARRAY_UNARY(cuarray_arccosh, cuarray_m_acosh(a))
CUARRAY_UNARY(cuarray_arctanh, cuarray_m_atanh(a))
CUARRAY_UNARY(cuarray_log2, cuarray_m_log2(a))
CUARRAY_UNARY(cuarray_log10, cuarray_m_log10(a))
CUARRAY_UNARY(cuarray_exp2, cuarray_m_exp2(a))
CUARRAY_UNARY(cuarray_cbrt, cuarray_m_cbrt(a))
CUARRAY_UNARY(cuarray_reciprocal, T(1) / a)  // complex: Smith's division
CUARRAY_UNARY(cuarray_rsqrt, cuarray_m_rsqrt(a))
CUARRAY_UNARY(cuarray_trunc, cuarray_m_trunc(a))
CUARRAY_UNARY(cuarray_rint, cuarray_m_rint(a))
CUARRAY_UNARY(cuarray_deg2rad, a * T(0.017453292519943295769))
CUARRAY_UNARY(cuarray_rad2deg, a * T(57.295779513082320877))
// sin(πx) / (πx) with sinpi (exact reduction), 1 at 0 (NumPy's sinc).
CUARRAY_UNARY(cuarray_sinc, a == T(0) ? T(1) : cuarray_m_sinpi(a) / (T(3.14159265358979323846) * a))
// x Φ(x) = x/2 erfc(-x/√2): erfc keeps the relative accuracy for negative x, where
// 1 + erf(x/√2) cancels; the limit 0 (as -0) at -inf.
CUARRAY_UNARY(cuarray_gelu, (cuarray_m_isinf(a) && a < T(0)) ? T(-0.0) : T(0.5) * a * cuarray_m_erfc(a * T(-0.70710678118654752440)))
CUARRAY_UNARY(cuarray_silu, (cuarray_m_isinf(a) && a < T(0)) ? T(-0.0) : a / (T(1) + cuarray_m_exp(-a)))
CUARRAY_UNARY(cuarray_softplus, (a > T(0) ? a : T(0)) + cuarray_m_log1p(cuarray_m_exp(-cuarray_m_fabs(a))))
// The sign bit of the stored value (f16 / bf16 read from their bits: a NaN's sign does
// not survive the widening to float).
__device__ __forceinline__ bool cuarray_m_signbit(cuarray_f16 a) { return (a.bits & 0x8000u) != 0; }
__device__ __forceinline__ bool cuarray_m_signbit(cuarray_bf16 a) { return (a.bits & 0x8000u) != 0; }
template <class In> __device__ __forceinline__ bool cuarray_signbit(In in) { return cuarray_m_signbit(in); }

// Integers: the magnitude as the unsigned type of the same width (the minimum of a signed
// type has no positive counterpart: its magnitude is 2^(n-1), as NumPy's wrapped abs).
template <class T> __device__ __forceinline__ unsigned long long cuarray_uabs(T a) {
    const unsigned long long u = (unsigned long long)(long long)a;
    if constexpr (T(-1) < T(0)) return a < T(0) ? 0ull - u : u;
    else return (unsigned long long)a;
}
CUARRAY_UNARY(cuarray_invert, T(~a))
template <class In> __device__ __forceinline__ unsigned char cuarray_bitwise_count(In a) {
    return (unsigned char)__popcll(cuarray_uabs(a));
}

// NumPy's fmax/fmin ignore NaN (NaN only when both are); integers as maximum/minimum.
template <class A, class B> __device__ __forceinline__ auto cuarray_fmax(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a + b) R;
    if constexpr (cuarray_is_fp<R>::value) return cuarray_m_fmax(R(a), R(b));
    else return R(a > b ? a : b);
}
template <class A, class B> __device__ __forceinline__ auto cuarray_fmin(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a + b) R;
    if constexpr (cuarray_is_fp<R>::value) return cuarray_m_fmin(R(a), R(b));
    else return R(a < b ? a : b);
}
// C's fmod (the sign of the dividend); integers: truncated remainder, 0 for a zero
// divisor (and for -1, where the minimum's quotient overflows).
template <class A, class B> __device__ __forceinline__ auto cuarray_fmod(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a + b) R;
    if constexpr (cuarray_is_fp<R>::value) {
        return cuarray_m_fmod(R(a), R(b));
    } else {
        if (R(b) == R(0) || R(b) == R(-1)) return R(0);
        return R(R(a) % R(b));
    }
}
CUARRAY_BINARY(cuarray_arctan2, cuarray_m_atan2(R(a), R(b)))
CUARRAY_BINARY(cuarray_hypot, cuarray_m_hypot(R(a), R(b)))
CUARRAY_BINARY(cuarray_copysign, cuarray_m_copysign(R(a), R(b)))
// NumPy's heaviside: NaN stays NaN, `b` at 0, else 0 or 1.
CUARRAY_BINARY(cuarray_heaviside, (a != a) ? R(a) : (a == R(0)) ? R(b) : (a < R(0) ? R(0) : R(1)))
// NumPy's logaddexp: equal arguments (infinities of one sign included) give x + ln 2;
// otherwise max + log1p(exp(-|a - b|)); NaN propagates.
template <class A, class B> __device__ __forceinline__ auto cuarray_logaddexp(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a + b) R;
    if (R(a) == R(b)) return R(a) + R(0.69314718055994530942);
    const R t = R(a) - R(b);
    if (t > R(0)) return R(a) + cuarray_m_log1p(cuarray_m_exp(-t));
    if (t <= R(0)) return R(b) + cuarray_m_log1p(cuarray_m_exp(t));
    return t;
}
template <class A, class B> __device__ __forceinline__ auto cuarray_logaddexp2(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a + b) R;
    if (R(a) == R(b)) return R(a) + R(1);
    const R t = R(a) - R(b);
    if (t > R(0)) return R(a) + cuarray_m_log1p(cuarray_m_exp2(-t)) * R(1.4426950408889634074);
    if (t <= R(0)) return R(b) + cuarray_m_log1p(cuarray_m_exp2(t)) * R(1.4426950408889634074);
    return t;
}
// nextafter in the operands' own type: f16 and bf16 step their 16-bit patterns (a step in
// f32 would round back to the same half value).
template <class H> __device__ __forceinline__ H cuarray_nextafter16(H ha, H hb) {
    const float a = float(ha), b = float(hb);
    if (a != a || b != b) return H(a + b);
    if (a == b) return hb;
    H r;
    if (a == 0.0f) {
        r.bits = (unsigned short)(b < 0.0f ? 0x8001u : 0x0001u);
    } else {
        r.bits = (unsigned short)(((a < b) == (a > 0.0f)) ? ha.bits + 1u : ha.bits - 1u);
    }
    return r;
}
template <class A, class B> __device__ __forceinline__ auto cuarray_nextafter(A ia, B ib) {
    if constexpr (cuarray_is_same<A, cuarray_f16>::value && cuarray_is_same<B, cuarray_f16>::value) {
        return cuarray_nextafter16(ia, ib);
    } else if constexpr (cuarray_is_same<A, cuarray_bf16>::value && cuarray_is_same<B, cuarray_bf16>::value) {
        return cuarray_nextafter16(ia, ib);
    } else {
        auto a = cuarray_up(ia);
        auto b = cuarray_up(ib);
        typedef decltype(a + b) R;
        return cuarray_m_nextafter(R(a), R(b));
    }
}
// a * 2^e, `e` an integer.
template <class A, class E> __device__ __forceinline__ auto cuarray_ldexp(A ia, E e) {
    auto a = cuarray_up(ia);
    return cuarray_m_ldexp(a, int(e));
}

// Integer bit operations in the operands' type (both of one type); shifts as NumPy: by the
// bit width or more, or by a negative amount, left gives 0 and right gives 0 (or -1 for a
// negative signed value), never C's undefined behaviour.
template <class A, class B> __device__ __forceinline__ A cuarray_bitwise_and(A a, B b) { return A(a & A(b)); }
template <class A, class B> __device__ __forceinline__ A cuarray_bitwise_or(A a, B b) { return A(a | A(b)); }
template <class A, class B> __device__ __forceinline__ A cuarray_bitwise_xor(A a, B b) { return A(a ^ A(b)); }
template <class A, class B> __device__ __forceinline__ A cuarray_left_shift(A a, B b) {
    const unsigned long long n = (unsigned long long)(long long)b;
    if (n >= sizeof(A) * 8ull) return A(0);
    return A((unsigned long long)(long long)a << n);
}
template <class A, class B> __device__ __forceinline__ A cuarray_right_shift(A a, B b) {
    const unsigned long long n = (unsigned long long)(long long)b;
    if (n >= sizeof(A) * 8ull) return (a < A(0)) ? A(~A(0)) : A(0);
    if constexpr (A(-1) < A(0)) return A((long long)a >> n);  // arithmetic
    else return A((unsigned long long)a >> n);
}
// gcd of the magnitudes by Euclid's algorithm (32-bit division for types up to 32 bits).
template <class A, class B> __device__ __forceinline__ A cuarray_gcd(A a, B b) {
    if constexpr (sizeof(A) <= 4) {
        unsigned int x = (unsigned int)cuarray_uabs(a), y = (unsigned int)cuarray_uabs(A(b));
        while (y != 0u) { const unsigned int t = x % y; x = y; y = t; }
        return A(x);
    } else {
        unsigned long long x = cuarray_uabs(a), y = cuarray_uabs(A(b));
        while (y != 0ull) { const unsigned long long t = x % y; x = y; y = t; }
        return A(x);
    }
}
// |a| / gcd * |b| (wrapping), 0 when either is 0.
template <class A, class B> __device__ __forceinline__ A cuarray_lcm(A a, B b) {
    const A g = cuarray_gcd(a, b);
    if (g == A(0)) return A(0);
    return A(cuarray_uabs(a) / cuarray_uabs(g) * cuarray_uabs(A(b)));
}

// nan_to_num(x, nan, posinf, neginf).
template <class In, class S> __device__ __forceinline__ auto cuarray_nan_to_num(In in, S nan, S pinf, S ninf) {
    auto a = cuarray_up(in);
    typedef decltype(a) T;
    if (a != a) return T(cuarray_up(nan));
    if (cuarray_m_isinf(a)) return a > T(0) ? T(cuarray_up(pinf)) : T(cuarray_up(ninf));
    return a;
}
// NumPy's isclose: |a - b| <= atol + rtol |b| with b finite, or a == b (equal
// infinities); with equal_nan, two NaNs too.
template <class A, class B> __device__ __forceinline__ bool cuarray_isclose(A ia, B ib, double rtol, double atol, bool equal_nan) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a + b) R;
    const bool close = (cuarray_m_fabs(R(a) - R(b)) <= R(atol) + R(rtol) * cuarray_m_fabs(R(b)) && cuarray_m_isfinite(R(b))) || R(a) == R(b);
    return close || (equal_nan && a != a && b != b);
}
