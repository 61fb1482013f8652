// cuarray gather.cuh: gathers and scatters by i64 indices (take, take_along_axis,
// put_along_axis, index_add), bincount and histogram.
// Conventions: see kernels/README.md; uses sort.cuh (offsets).
//
// Indices. An index v along an axis of extent E is used as v + E when negative (NumPy's
// wrap, once; not when the kernel is passed -E, see cuarray_wrap_index); one still outside
// [0, E) is never dereferenced: a gather writes 0 for it and a scatter skips it, and the
// first such index is recorded in the op's error record `rec` (claimed, index, extent: see
// src/device/errors.rs) for the host to report.
//
//   gather:    out[o] = a[off0(o) + v * sa] with v = idx[off1(o)], o < n (out C-contiguous);
//              `ix` has the a-offset (0 along the gathered dimensions) and the index offset
//              of each output position.
//   scatter:   a[off0(o) + v * sa] = vals[off2(o)] (OP 0) or += (OP 1, atomic: duplicate
//              indices all add), v = idx[off1(o)], o < n.
//   bincount:  out[x] += 1 for each element x of the input (0 <= x < bins, checked on the
//              host), in shared memory when `bins` fits (SHARED), else global atomics.
//   histogram: NumPy's uniform-bins rule: bin floor((x - lo) / (hi - lo) * bins) in the
//              compute type C, corrected against the edges (x == hi falls in the last bin;
//              NaN and x outside [lo, hi] are not counted).
//   histogram_edges: NumPy's rule for any increasing edges (a binary search per value),
//              counting or summing f64 weights, counters and edges in shared memory.
//   hist_edges: edges[i] = i * ((hi - lo) / bins) + lo in double (no fused multiply-add,
//              as NumPy's linspace), edges[bins] = hi.

__device__ __forceinline__ void cuarray_record_bad_index(unsigned long long* rec, long long index, long long extent) {
    if (*(volatile unsigned long long*)rec != 0ull) return;
    if (atomicCAS(rec, 0ull, 1ull) == 0ull) {
        rec[1] = (unsigned long long)index;
        rec[2] = (unsigned long long)extent;
    }
}

// Wraps a negative index once; false (and recorded) when it is still out of range. A
// negative `extent` (-E) asks for an index in [0, E) without the wrap (NumPy's raise mode
// of choose, unravel_index and ravel_multi_index; one_hot's labels).
__device__ __forceinline__ bool cuarray_wrap_index(long long& v, long long extent, unsigned long long* rec) {
    const long long raw = v;
    if (extent < 0) extent = -extent;
    else if (v < 0) v += extent;
    if ((unsigned long long)v >= (unsigned long long)extent) {
        cuarray_record_bad_index(rec, raw, extent);
        return false;
    }
    return true;
}

template <typename T, int ND, typename I>
__device__ __forceinline__ void gather(T* __restrict__ out, const T* __restrict__ a, const long long* __restrict__ idx,
                                       const Indexer<2, ND, I>& ix, I n, I extent, I sa,
                                       unsigned long long* rec) {
    constexpr int U = 8;
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I o0 = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; o0 < n; o0 += U * step) {
        I aoff[U];
        long long v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const I o = o0 + (I)u * step;
            I off[2] = {0, 0};
            v[u] = 0;
            if (o < n) {
                cuarray_flat_offsets<2, ND, I>(ix, o, off);
                v[u] = idx[off[1]];
            }
            aoff[u] = off[0];
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const I o = o0 + (I)u * step;
            if (o < n) {
                T x = T();
                if (cuarray_wrap_index(v[u], (long long)extent, rec)) x = a[aoff[u] + (I)v[u] * sa];
                out[o] = x;
            }
        }
    }
}

// ---- atomic add for every element type ---------------------------------------------------

template <typename T>
__device__ __forceinline__ T cuarray_narrow_sum(T a, T b) { return (T)(a + b); }
template <>
__device__ __forceinline__ bool cuarray_narrow_sum<bool>(bool a, bool b) { return a || b; }
template <>
__device__ __forceinline__ cuarray_f16 cuarray_narrow_sum<cuarray_f16>(cuarray_f16 a, cuarray_f16 b) {
    return cuarray_f16((float)a + (float)b);
}
template <>
__device__ __forceinline__ cuarray_bf16 cuarray_narrow_sum<cuarray_bf16>(cuarray_bf16 a, cuarray_bf16 b) {
    return cuarray_bf16((float)a + (float)b);
}

// The bits of a 1- or 2-byte value, and back.
template <typename T>
__device__ __forceinline__ unsigned int cuarray_narrow_bits(T v) {
    if constexpr (sizeof(T) == 1) return *reinterpret_cast<const unsigned char*>(&v);
    else return *reinterpret_cast<const unsigned short*>(&v);
}
template <typename T>
__device__ __forceinline__ T cuarray_narrow_from(unsigned int b) {
    T v;
    if constexpr (sizeof(T) == 1) *reinterpret_cast<unsigned char*>(&v) = (unsigned char)b;
    else *reinterpret_cast<unsigned short*>(&v) = (unsigned short)b;
    return v;
}

// 1- and 2-byte types: a compare-and-swap loop on the aligned 32-bit word holding the
// element (device allocations are rounded up to 512 bytes, so the word is allocated).
template <typename T>
__device__ __forceinline__ void cuarray_atomic_add_narrow(T* p, T v) {
    static_assert(sizeof(T) <= 2, "narrow types only");
    unsigned int* w = (unsigned int*)((unsigned long long)p & ~3ull);
    const unsigned int sh = (unsigned int)((unsigned long long)p & 3ull) * 8u;
    const unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << sh;
    unsigned int old = *(volatile unsigned int*)w, assumed;
    do {
        assumed = old;
        const T cur = cuarray_narrow_from<T>((assumed & mask) >> sh);
        const unsigned int nb = cuarray_narrow_bits<T>(cuarray_narrow_sum<T>(cur, v));
        old = atomicCAS(w, assumed, (assumed & ~mask) | ((nb << sh) & mask));
    } while (assumed != old);
}

template <typename T>
__device__ __forceinline__ void cuarray_atomic_add(T* p, T v) { cuarray_atomic_add_narrow<T>(p, v); }
template <>
__device__ __forceinline__ void cuarray_atomic_add<float>(float* p, float v) { atomicAdd(p, v); }
template <>
__device__ __forceinline__ void cuarray_atomic_add<double>(double* p, double v) { atomicAdd(p, v); }
template <>
__device__ __forceinline__ void cuarray_atomic_add<int>(int* p, int v) { atomicAdd(p, v); }
template <>
__device__ __forceinline__ void cuarray_atomic_add<unsigned int>(unsigned int* p, unsigned int v) { atomicAdd(p, v); }
template <>
__device__ __forceinline__ void cuarray_atomic_add<unsigned long long>(unsigned long long* p, unsigned long long v) {
    atomicAdd(p, v);
}
template <>
__device__ __forceinline__ void cuarray_atomic_add<long long>(long long* p, long long v) {
    atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
// Complex: one atomic add per part (each part's sum is exact as the real type's; the
// pair is not updated as one, which a sum does not need).
template <>
__device__ __forceinline__ void cuarray_atomic_add<cuarray_c64>(cuarray_c64* p, cuarray_c64 v) {
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
}
template <>
__device__ __forceinline__ void cuarray_atomic_add<cuarray_c128>(cuarray_c128* p, cuarray_c128 v) {
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
}

template <typename T, int ND, typename I, int OP>
__device__ __forceinline__ void scatter(T* __restrict__ a, const long long* __restrict__ idx,
                                        const T* __restrict__ vals, const Indexer<3, ND, I>& ix, I n,
                                        I extent, I sa, unsigned long long* rec) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I o = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; o < n; o += step) {
        I off[3];
        cuarray_flat_offsets<3, ND, I>(ix, o, off);
        long long v = idx[off[1]];
        if (!cuarray_wrap_index(v, (long long)extent, rec)) continue;
        T* dst = a + off[0] + (I)v * sa;
        if constexpr (OP == 0) *dst = vals[off[2]];
        else cuarray_atomic_add<T>(dst, vals[off[2]]);
    }
}

// ---- bincount, histogram -------------------------------------------------------------------

template <typename T, int ND, typename I, bool SHARED>
__device__ __forceinline__ void bincount(const T* __restrict__ x, const Indexer<1, ND, I>& ix, I n,
                                         unsigned long long* __restrict__ out, I bins) {
    extern __shared__ unsigned int cuarray_bins[];
    if (SHARED) {
        for (I i = threadIdx.x; i < bins; i += blockDim.x) cuarray_bins[i] = 0;
        __syncthreads();
    }
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I p = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; p < n; p += step) {
        const long long v = (long long)x[cuarray_flat_offset<1, ND, I>(ix, 0, p)];
        if (v < 0 || v >= (long long)bins) continue;
        if (SHARED) atomicAdd(&cuarray_bins[v], 1u);
        else atomicAdd(&out[v], 1ull);
    }
    if (SHARED) {
        __syncthreads();
        for (I i = threadIdx.x; i < bins; i += blockDim.x) {
            if (cuarray_bins[i]) atomicAdd(&out[i], (unsigned long long)cuarray_bins[i]);
        }
    }
}

template <typename T, typename C, int ND, typename I, bool SHARED>
__device__ __forceinline__ void histogram(const T* __restrict__ x, const Indexer<1, ND, I>& ix, I n,
                                          const T* __restrict__ edges, I bins, double lo, double hi,
                                          unsigned long long* __restrict__ out) {
    extern __shared__ unsigned int cuarray_bins[];
    if (SHARED) {
        for (I i = threadIdx.x; i < bins; i += blockDim.x) cuarray_bins[i] = 0;
        __syncthreads();
    }
    const C clo = (C)lo, chi = (C)hi, denom = (C)(hi - lo), nb = (C)bins;
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I p = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; p < n; p += step) {
        const C v = (C)x[cuarray_flat_offset<1, ND, I>(ix, 0, p)];
        if (!(v >= clo && v <= chi)) continue;
        long long k = (long long)((v - clo) / denom * nb);
        if (k >= (long long)bins) k = (long long)bins - 1;
        if (k < 0) k = 0;
        if (v < (C)edges[k]) k -= 1;
        if (k != (long long)bins - 1 && v >= (C)edges[k + 1]) k += 1;
        if (k < 0 || k >= (long long)bins) continue;
        if (SHARED) atomicAdd(&cuarray_bins[k], 1u);
        else atomicAdd(&out[k], 1ull);
    }
    if (SHARED) {
        __syncthreads();
        for (I i = threadIdx.x; i < bins; i += blockDim.x) {
            if (cuarray_bins[i]) atomicAdd(&out[i], (unsigned long long)cuarray_bins[i]);
        }
    }
}

// Counts (or sums of the f64 `w`, contiguous in the input's C order, when WEIGHTED) per
// bin of the increasing `edges` (bins + 1 of them): bin k holds edges[k] <= x <
// edges[k + 1], the last bin also its right edge; NaN and x outside are not counted. A
// binary search per element over the edges, in shared memory with the block's counters
// when SHARED (dynamic shared memory: the counters, A = u32 or f64, then the edges), else
// in global memory with global atomics. A (the output) and S (the shared counters) are
// `unsigned long long` and `unsigned int` for counts, both `double` for sums of weights.
template <typename T, typename A, typename S, int ND, typename I, bool SHARED, bool WEIGHTED>
__device__ __forceinline__ void histogram_edges(const T* __restrict__ x, const double* __restrict__ w,
                                                const Indexer<1, ND, I>& ix, I n,
                                                const T* __restrict__ edges_g, I bins, A* __restrict__ out) {
    extern __shared__ __align__(16) unsigned char cuarray_hist_smem[];
    S* cnt = reinterpret_cast<S*>(cuarray_hist_smem);
    const T* e = edges_g;
    if (SHARED) {
        // The counters first (8-byte aligned), then the edges from the next 16-byte boundary.
        T* se = reinterpret_cast<T*>(cuarray_hist_smem + (((unsigned long long)bins * sizeof(S) + 15ull) & ~15ull));
        for (I i = threadIdx.x; i < bins; i += blockDim.x) cnt[i] = S(0);
        for (I i = threadIdx.x; i <= bins; i += blockDim.x) se[i] = edges_g[i];
        __syncthreads();
        e = se;
    }
    const T first = e[0], last = e[bins];
    const I step = (I)gridDim.x * (I)blockDim.x;
    // U elements per thread, loaded together, then searched in lockstep: the branch-free
    // search's probe count depends on `bins` only. c: the edges e[0 .. bins) at or below
    // the value (at least 1 inside), so the bin is c - 1 (the right edge falls in the last).
    constexpr int U = 4;
    for (I p0 = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; p0 < n; p0 += U * step) {
        T val[U];
        bool in[U];
        I c[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const I p = p0 + (I)u * step;
            val[u] = p < n ? x[cuarray_flat_offset<1, ND, I>(ix, 0, p)] : first;
            in[u] = p < n && val[u] >= first && val[u] <= last;
            c[u] = 0;
        }
        for (I len = bins; len > 1;) {
            const I half = len >> 1;
#pragma unroll
            for (int u = 0; u < U; ++u) c[u] += e[c[u] + half] <= val[u] ? half : (I)0;
            len -= half;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (!in[u]) continue;
            const I bin = c[u] + (e[c[u]] <= val[u] ? (I)1 : (I)0) - 1;
            S add = S(1);
            if constexpr (WEIGHTED) add = S(w[p0 + (I)u * step]);
            if (SHARED) atomicAdd(&cnt[bin], add);
            else atomicAdd(&out[bin], (A)add);
        }
    }
    if (SHARED) {
        __syncthreads();
        for (I i = threadIdx.x; i < bins; i += blockDim.x) {
            if (cnt[i] != S(0)) atomicAdd(&out[i], (A)cnt[i]);
        }
    }
}

template <typename T>
__device__ __forceinline__ void hist_edges(T* __restrict__ edges, long long bins, double lo, double hi) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > bins) return;
    // NumPy's linspace: i * step + lo, each rounded (no fused multiply-add).
    const double step = (hi - lo) / (double)bins;
    edges[i] = (T)(i == bins ? hi : __dadd_rn(__dmul_rn((double)i, step), lo));
}

// ---- gathers and scatters by up to 4 index arrays (advanced indexing) ---------------------
//
//   gather_n:  out[o] = a[off0(o) + sum_k v_k * sa[k]], v_k = idx[k][off(k+1)(o)] wrapped
//              against ext[k]; o < n (out C-contiguous). A position with a bad index gets 0.
//   scatter_n: a[off0(o) + sum_k v_k * sa[k]] = vals[off(K+1)(o)] (OP 0), or += (OP 1,
//              atomic: duplicates all add). A position with a bad index is skipped.
// For gathers and assignments (OP 0) T is a word of the element's size, or of several
// elements when the host found whole contiguous rows (the row path: strides, offsets and
// sa[k] are then in words); for OP 1 it is the element type.

template <typename T, int K, int ND, typename I>
__device__ __forceinline__ void gather_n(T* __restrict__ out, const T* __restrict__ a,
                                         const long long* const (&idx)[K], const long long (&ext)[K],
                                         const long long (&sa)[K], const Indexer<K + 1, ND, I>& ix, I n,
                                         unsigned long long* rec) {
    // Every index of the U positions is loaded before any is checked (a check may store
    // to `rec`, which the loads after it could not pass), so that U * K loads are in flight.
    constexpr int U = K <= 2 ? 8 : 4;
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I o0 = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; o0 < n; o0 += U * step) {
        I aoff[U];
        long long v[U][K];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const I o = o0 + (I)u * step;
            aoff[u] = 0;
#pragma unroll
            for (int k = 0; k < K; ++k) v[u][k] = 0;
            if (o < n) {
                I off[K + 1];
                cuarray_flat_offsets<K + 1, ND, I>(ix, o, off);
                aoff[u] = off[0];
#pragma unroll
                for (int k = 0; k < K; ++k) v[u][k] = idx[k][off[k + 1]];
            }
        }
        bool ok[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            ok[u] = o0 + (I)u * step < n;
#pragma unroll
            for (int k = 0; k < K; ++k) {
                if (!ok[u]) break;
                if (cuarray_wrap_index(v[u][k], ext[k], rec)) aoff[u] += (I)v[u][k] * (I)sa[k];
                else ok[u] = false;
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const I o = o0 + (I)u * step;
            if (o < n) {
                T x{};
                if (ok[u]) x = a[aoff[u]];
                out[o] = x;
            }
        }
    }
}

template <typename T, int K, int ND, typename I, int OP>
__device__ __forceinline__ void scatter_n(T* __restrict__ a, const long long* const (&idx)[K],
                                          const T* __restrict__ vals, const long long (&ext)[K],
                                          const long long (&sa)[K], const Indexer<K + 2, ND, I>& ix, I n,
                                          unsigned long long* rec) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I o = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; o < n; o += step) {
        I off[K + 2];
        cuarray_flat_offsets<K + 2, ND, I>(ix, o, off);
        I base = off[0];
        bool good = true;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            long long v = idx[k][off[k + 1]];
            if (cuarray_wrap_index(v, ext[k], rec)) base += (I)v * (I)sa[k];
            else good = false;
        }
        if (!good) continue;
        if constexpr (OP == 0) a[base] = vals[off[K + 1]];
        else cuarray_atomic_add<T>(a + base, vals[off[K + 1]]);
    }
}
