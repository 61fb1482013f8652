// cuarray common.cuh: types and index helpers shared by every kernel family.
// Conventions: see kernels/README.md. Embedded by build.rs; concatenated first by codegen.

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

// ---- vectors ----------------------------------------------------------------------
// N elements loaded or stored as one aligned access (16 bytes at most).
template <typename T, int N>
struct alignas(sizeof(T) * N) cuarray_vec {
    T v[N];
};

// ---- strided indexing ---------------------------------------------------------------
// Shape and per-operand strides of NARG operands over NDIM collapsed dimensions.
// Mirrored by src/kernels/abi.rs: { I size; I shape[NDIM]; I strides[NARG][NDIM]; }.
template <int NARG, int NDIM, typename I>
struct Indexer {
    I size;
    I shape[NDIM];
    I strides[NARG][NDIM];
};
