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
template <class To, class From> __device__ __forceinline__ To cuarray_cast(From in) {
    if constexpr (cuarray_is_int<To>::value && cuarray_is_fp<decltype(cuarray_up(in))>::value) {
        const auto x = cuarray_up(in);
        if (x != x) return To(0);
    }
    return static_cast<To>(in);
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
__device__ __forceinline__ float cuarray_m_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double cuarray_m_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float cuarray_m_copysign(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double cuarray_m_copysign(double a, double b) { return copysign(a, b); }
__device__ __forceinline__ float cuarray_m_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double cuarray_m_pow(double a, double b) { return pow(a, b); }

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
CUARRAY_UNARY(cuarray_isnan, a != a)
CUARRAY_UNARY(cuarray_isinf, a == a && (a - a) != (a - a))
CUARRAY_UNARY(cuarray_isfinite, (a - a) == (a - a))
CUARRAY_UNARY(cuarray_logical_not, !a)

template <class In> __device__ __forceinline__ auto cuarray_abs(In in) {
    auto a = cuarray_up(in);
    typedef decltype(a) T;
    if constexpr (cuarray_is_fp<T>::value) return cuarray_m_fabs(a);
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

// Floats: IEEE division. Integers: floor division (toward minus infinity), 0 when
// dividing by zero (NumPy's `//`).
template <class A, class B> __device__ __forceinline__ auto cuarray_div(A ia, B ib) {
    auto a = cuarray_up(ia);
    auto b = cuarray_up(ib);
    typedef decltype(a / b) R;
    if constexpr (cuarray_is_fp<R>::value) {
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
