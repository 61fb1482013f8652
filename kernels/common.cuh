// cuarray common.cuh: types and index helpers shared by every kernel family.
// Conventions: see kernels/README.md. Embedded by build.rs; concatenated first by codegen.

// ---- programmatic dependent launch (sm_90+) ---------------------------------------------
// Every library kernel's first statement (the wrappers emit it). Launched with
// programmatic stream serialisation, a kernel may be started while the grid before it in
// the stream is still finishing; this waits until that grid has completed and its writes
// are visible. Nothing reads or writes global memory before it, so the stream's order
// holds. A kernel triggers nothing itself: the next one is released as its blocks exit
// (an explicit early trigger measured slower for reductions). One pair departs from this
// (sort.cuh): the sort's histogram kernel releases the first one-sweep pass at its start,
// and that pass calls this only in tile 0, before it reads the histograms. Launched
// without the attribute, or on a GPU before sm_90, it does nothing.
__device__ __forceinline__ void cuarray_dependent_entry() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// ---- 16-bit floats without cuda_fp16.h ------------------------------------------------
// f16 converts with PTX cvt (sm_53+); bf16 converts with integer arithmetic (exact for
// bf16 -> f32, round-to-nearest-even for f32 -> bf16), so both compile with NVRTC alone.
struct cuarray_f16 {
    unsigned short bits;
    cuarray_f16() = default;
    __device__ __forceinline__ cuarray_f16(float f) {
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f));
    }
    __device__ __forceinline__ cuarray_f16(double d) {
        asm("cvt.rn.f16.f64 %0, %1;" : "=h"(bits) : "d"(d));
    }
    template <typename T>
    __device__ __forceinline__ cuarray_f16(T v) : cuarray_f16(static_cast<float>(v)) {}
    __device__ __forceinline__ operator float() const {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
        return f;
    }
};

struct cuarray_bf16 {
    unsigned short bits;
    cuarray_bf16() = default;
    __device__ __forceinline__ cuarray_bf16(float f) {
        unsigned int u = __float_as_uint(f);
        if ((u & 0x7fffffffu) > 0x7f800000u) {
            bits = (unsigned short)((u >> 16) | 0x40u);  // quiet NaN
        } else {
            bits = (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
        }
    }
    template <typename T>
    __device__ __forceinline__ cuarray_bf16(T v) : cuarray_bf16(static_cast<float>(v)) {}
    __device__ __forceinline__ operator float() const {
        return __uint_as_float(((unsigned int)bits) << 16);
    }
};

// ---- complex numbers without cuComplex.h -----------------------------------------------
// cuarray_c64 / cuarray_c128: two floats or doubles, real part first, aligned to the pair
// (as num-complex's #[repr(C)] Complex<T> laid out in device memory, and cuComplex's
// float2/double2). Built from any real value (imaginary part 0), so `acc_t(0)`, `out0_t(x)`
// and `acc_t a = 1` work as for real types; converted to a real type only explicitly
// (`static_cast<float>(z)` is the real part, NumPy's ComplexWarning cast), and to bool as
// "either part non-zero". Arithmetic and comparisons here; the math (abs, division, exp,
// log, sqrt...) is in ops.cuh.
template <bool B, class T = void> struct cuarray_enable_if {};
template <class T> struct cuarray_enable_if<true, T> { typedef T type; };
template <class A, class B> struct cuarray_is_same { static constexpr bool value = false; };
template <class A> struct cuarray_is_same<A, A> { static constexpr bool value = true; };

template <class R> struct cuarray_complex;
template <class T> struct cuarray_is_complex { static constexpr bool value = false; };
template <class R> struct cuarray_is_complex<cuarray_complex<R>> { static constexpr bool value = true; };

// The built-in arithmetic types a complex number converts to explicitly.
template <class T> struct cuarray_is_builtin { static constexpr bool value = false; };
#define CUARRAY_BUILTIN(T) template <> struct cuarray_is_builtin<T> { static constexpr bool value = true; };
CUARRAY_BUILTIN(float) CUARRAY_BUILTIN(double) CUARRAY_BUILTIN(signed char) CUARRAY_BUILTIN(short)
CUARRAY_BUILTIN(int) CUARRAY_BUILTIN(long long) CUARRAY_BUILTIN(unsigned char)
CUARRAY_BUILTIN(unsigned short) CUARRAY_BUILTIN(unsigned int) CUARRAY_BUILTIN(unsigned long long)
#undef CUARRAY_BUILTIN

template <class R> struct alignas(2 * sizeof(R)) cuarray_complex {
    R re, im;
    cuarray_complex() = default;
    __device__ __forceinline__ cuarray_complex(R r, R i) : re(r), im(i) {}
    template <class T, class = typename cuarray_enable_if<!cuarray_is_complex<T>::value>::type>
    __device__ __forceinline__ cuarray_complex(T v) : re(static_cast<R>(v)), im(R(0)) {}
    template <class S>
    __device__ __forceinline__ cuarray_complex(cuarray_complex<S> z) : re(R(z.re)), im(R(z.im)) {}
    template <class T, class = typename cuarray_enable_if<cuarray_is_builtin<T>::value>::type>
    __device__ __forceinline__ explicit operator T() const { return static_cast<T>(re); }
    __device__ __forceinline__ explicit operator bool() const { return re != R(0) || im != R(0); }
    __device__ __forceinline__ cuarray_complex& operator+=(cuarray_complex b) { re += b.re; im += b.im; return *this; }
    __device__ __forceinline__ cuarray_complex& operator-=(cuarray_complex b) { re -= b.re; im -= b.im; return *this; }
    __device__ __forceinline__ cuarray_complex& operator*=(cuarray_complex b) { return *this = *this * b; }
};
typedef cuarray_complex<float> cuarray_c64;
typedef cuarray_complex<double> cuarray_c128;

template <class R> __device__ __forceinline__ cuarray_complex<R> operator+(cuarray_complex<R> a) { return a; }
template <class R> __device__ __forceinline__ cuarray_complex<R> operator-(cuarray_complex<R> a) {
    return cuarray_complex<R>(-a.re, -a.im);
}
template <class R> __device__ __forceinline__ cuarray_complex<R> operator+(cuarray_complex<R> a, cuarray_complex<R> b) {
    return cuarray_complex<R>(a.re + b.re, a.im + b.im);
}
template <class R> __device__ __forceinline__ cuarray_complex<R> operator-(cuarray_complex<R> a, cuarray_complex<R> b) {
    return cuarray_complex<R>(a.re - b.re, a.im - b.im);
}
// The textbook product, as NumPy (inf * finite can give NaN parts, as there).
template <class R> __device__ __forceinline__ cuarray_complex<R> operator*(cuarray_complex<R> a, cuarray_complex<R> b) {
    return cuarray_complex<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// A built-in real operand on either side is made complex first (x + 0i), as NumPy
// promotes it (user kernels write `a * z` with a float `a`).
#define CUARRAY_COMPLEX_MIXED(op)                                                                   \
    template <class R, class T, class = typename cuarray_enable_if<cuarray_is_builtin<T>::value>::type> \
    __device__ __forceinline__ auto operator op(cuarray_complex<R> a, T b) {                        \
        return a op cuarray_complex<R>(b);                                                          \
    }                                                                                               \
    template <class R, class T, class = typename cuarray_enable_if<cuarray_is_builtin<T>::value>::type> \
    __device__ __forceinline__ auto operator op(T a, cuarray_complex<R> b) {                        \
        return cuarray_complex<R>(a) op b;                                                          \
    }
CUARRAY_COMPLEX_MIXED(+)
CUARRAY_COMPLEX_MIXED(-)
CUARRAY_COMPLEX_MIXED(*)
CUARRAY_COMPLEX_MIXED(/)
CUARRAY_COMPLEX_MIXED(==)
CUARRAY_COMPLEX_MIXED(!=)
#undef CUARRAY_COMPLEX_MIXED

template <class R> __device__ __forceinline__ bool operator==(cuarray_complex<R> a, cuarray_complex<R> b) {
    return a.re == b.re && a.im == b.im;
}
template <class R> __device__ __forceinline__ bool operator!=(cuarray_complex<R> a, cuarray_complex<R> b) {
    return !(a == b);
}

// ---- vectors ----------------------------------------------------------------------
// N elements loaded or stored as one aligned access (16 bytes at most).
template <typename T, int N>
struct alignas(sizeof(T) * N) cuarray_vec {
    T v[N];
};

// A vector of 4, 8 or 16 bytes read once, through the non-coherent path without
// allocating in L1: what the kernel reads again (a vector that every block of a
// matrix-vector product reads) stays in L1, and a stream of such loads runs faster than
// cached ones (docs/design/reduce.md). Only for memory that no thread writes while the
// kernel runs (the non-coherent path may keep a stale copy).
template <typename V>
__device__ __forceinline__ V cuarray_ld_once(const void* p) {
    static_assert(sizeof(V) == 16 || sizeof(V) == 8 || sizeof(V) == 4, "4, 8 or 16 bytes");
    struct alignas(sizeof(V)) {
        unsigned int t[sizeof(V) / 4];
    } u;
    if constexpr (sizeof(V) == 16) {
        asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(u.t[0]), "=r"(u.t[1]), "=r"(u.t[2]), "=r"(u.t[3])
            : "l"(p));
    } else if constexpr (sizeof(V) == 8) {
        asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(u.t[0]), "=r"(u.t[1]) : "l"(p));
    } else {
        asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(u.t[0]) : "l"(p));
    }
    return *reinterpret_cast<const V*>(&u);
}

// ---- strided indexing ---------------------------------------------------------------
// Shape and per-operand strides of NARG operands over NDIM collapsed dimensions.
// Mirrored by src/kernels/abi.rs: { I size; I shape[NDIM]; I strides[NARG][NDIM]; }.
template <int NARG, int NDIM, typename I>
struct Indexer {
    I size;
    I shape[NDIM];
    I strides[NARG][NDIM];
};
