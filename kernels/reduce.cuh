// cuarray reduce.cuh: reductions over a set of axes, for every op of the family.
// Conventions: see kernels/README.md. An op is three pieces of generated code around
// these templates: `load(off, j, row)` reads the input element at offset `off` (the j-th
// element along the reduced axes of output `row`) and applies the pre-map, giving an Acc;
// `loadv(off, j, row)` does the same for VEC consecutive elements (one vector load) and
// combines them; `comb(a, b)` is the associative reduce operator (identity `identity`); `fin(row, split,
// a)` writes either a partial result or the post-mapped output.
//   reduce_rows: a warp (WARP) or a whole block per (row, split); threads stride along the
//                reduced elements, so a reduced axis of stride 1 is read coalesced.
//   reduce_cols: a thread per (output, split), looping over the reduced elements; threads
//                with consecutive outputs read consecutive addresses when the kept axis
//                has stride 1 (a reduction over a leading axis).
// `splits` > 1 cuts each reduction into pieces written as partials; a second launch
// reduces them. reduce_rows with FINISH does it in one launch instead: each piece stores
// its partial in `part`, then counts itself in the row's semaphore `sem[row]` (zero
// before the launch, zero again after it); the piece that counts last combines the row's
// partials and writes the output. Launch: 1-D grid of 1-D blocks of 256 threads, any grid
// size.

// A value and the index where it was found. The index is 32-bit in kernels whose indices
// fit and whose accumulators stay inside the launch (half the registers of a 64-bit index:
// argmax of 2^28 f32 runs at 32 registers a thread instead of 64, docs/design/reduce.md).
template <typename V, typename X = long long> struct cuarray_argacc {
    V v;
    X i;
};
template <typename A> struct cuarray_is_argacc {
    static constexpr bool value = false;
};
template <typename V, typename X> struct cuarray_is_argacc<cuarray_argacc<V, X>> {
    static constexpr bool value = true;
};
// The identity of an arg accumulator: `v` with the largest index, so that any element
// found wins ties against it.
template <typename A, typename V> __device__ __forceinline__ A cuarray_arg_identity(V v) {
    A a;
    a.v = v;
    a.i = (decltype(a.i))(~0ULL >> (65 - 8 * sizeof(a.i)));
    return a;
}

__device__ __forceinline__ float cuarray_shfl_down(float v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
__device__ __forceinline__ double cuarray_shfl_down(double v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
__device__ __forceinline__ int cuarray_shfl_down(int v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
__device__ __forceinline__ unsigned int cuarray_shfl_down(unsigned int v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
__device__ __forceinline__ long long cuarray_shfl_down(long long v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
__device__ __forceinline__ unsigned long long cuarray_shfl_down(unsigned long long v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
#define CUARRAY_SHFL(name, intrinsic)                                                       \
    __device__ __forceinline__ float name(float v, int d) { return intrinsic(0xffffffffu, v, d); }   \
    __device__ __forceinline__ double name(double v, int d) { return intrinsic(0xffffffffu, v, d); } \
    __device__ __forceinline__ int name(int v, int d) { return intrinsic(0xffffffffu, v, d); }       \
    __device__ __forceinline__ long long name(long long v, int d) { return intrinsic(0xffffffffu, v, d); } \
    __device__ __forceinline__ unsigned long long name(unsigned long long v, int d) {              \
        return intrinsic(0xffffffffu, v, d);                                                       \
    }
CUARRAY_SHFL(cuarray_shfl_up, __shfl_up_sync)
CUARRAY_SHFL(cuarray_shfl_idx, __shfl_sync)

// A complex accumulator moves as its two parts.
template <typename R>
__device__ __forceinline__ cuarray_complex<R> cuarray_shfl_down(cuarray_complex<R> a, int d) {
    return cuarray_complex<R>(cuarray_shfl_down(a.re, d), cuarray_shfl_down(a.im, d));
}
template <typename R>
__device__ __forceinline__ cuarray_complex<R> cuarray_shfl_up(cuarray_complex<R> a, int d) {
    return cuarray_complex<R>(cuarray_shfl_up(a.re, d), cuarray_shfl_up(a.im, d));
}
template <typename R>
__device__ __forceinline__ cuarray_complex<R> cuarray_shfl_idx(cuarray_complex<R> a, int d) {
    return cuarray_complex<R>(cuarray_shfl_idx(a.re, d), cuarray_shfl_idx(a.im, d));
}

template <typename V, typename X>
__device__ __forceinline__ cuarray_argacc<V, X> cuarray_shfl_down(cuarray_argacc<V, X> a, int d) {
    a.v = cuarray_shfl_down(a.v, d);
    a.i = cuarray_shfl_down(a.i, d);
    return a;
}

// argmax / argmin: NaN wins (the first NaN, as NumPy); ties go to the smaller index, so
// the result does not depend on the order of combination.
template <typename V, typename X>
__device__ __forceinline__ cuarray_argacc<V, X> cuarray_argmax_comb(cuarray_argacc<V, X> a, cuarray_argacc<V, X> b) {
    const bool an = a.v != a.v, bn = b.v != b.v;
    bool take_b;
    if (an || bn) take_b = bn && (!an || b.i < a.i);
    else take_b = b.v > a.v || (b.v == a.v && b.i < a.i);
    return take_b ? b : a;
}
template <typename V, typename X>
__device__ __forceinline__ cuarray_argacc<V, X> cuarray_argmin_comb(cuarray_argacc<V, X> a, cuarray_argacc<V, X> b) {
    const bool an = a.v != a.v, bn = b.v != b.v;
    bool take_b;
    if (an || bn) take_b = bn && (!an || b.i < a.i);
    else take_b = b.v < a.v || (b.v == a.v && b.i < a.i);
    return take_b ? b : a;
}

// The same where b's index is above a's and a is an element (not the identity: its index
// is the largest): ties keep a, a NaN in a stays, a NaN in b wins. Inside one vector load
// (docs/design/reduce.md: argmax of 2^28 f32 4091 -> 4200 GB/s).
template <typename V, typename X>
__device__ __forceinline__ cuarray_argacc<V, X> cuarray_argmax_fwd(cuarray_argacc<V, X> a, cuarray_argacc<V, X> b) {
    return (a.v == a.v && (b.v != b.v || b.v > a.v)) ? b : a;
}
template <typename V, typename X>
__device__ __forceinline__ cuarray_argacc<V, X> cuarray_argmin_fwd(cuarray_argacc<V, X> a, cuarray_argacc<V, X> b) {
    return (a.v == a.v && (b.v != b.v || b.v < a.v)) ? b : a;
}

// Offset of flat index `j` over the dimensions of `ix` (operand 0).
template <int ND, typename I>
__device__ __forceinline__ I cuarray_offset_of(const Indexer<1, ND, I>& ix, I j) {
    if (ND == 1) return j * ix.strides[0][0];
    I off = 0;
#pragma unroll
    for (int d = ND - 1; d >= 1; --d) {
        const I q = j / ix.shape[d];
        off += (j - q * ix.shape[d]) * ix.strides[0][d];
        j = q;
    }
    return off + j * ix.strides[0][0];
}

template <typename Acc, typename Comb>
__device__ __forceinline__ Acc cuarray_warp_reduce(Acc a, Comb comb) {
#pragma unroll
    for (int d = 16; d >= 1; d >>= 1) a = comb(a, cuarray_shfl_down(a, d));
    return a;
}

// Combines `a` across the group (a warp, or the whole block through `shared`); the result
// is valid in lane 0. Every thread of the group calls it.
template <bool WARP, typename Acc, typename Comb>
__device__ __forceinline__ Acc cuarray_group_reduce(Acc a, Acc identity, Comb comb, Acc* shared) {
    a = cuarray_warp_reduce(a, comb);
    if (!WARP) {
        const int warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
        if ((threadIdx.x & 31) == 0) shared[warp] = a;
        __syncthreads();
        if (warp == 0) {
            a = ((int)threadIdx.x < nwarps) ? shared[threadIdx.x] : identity;
            a = cuarray_warp_reduce(a, comb);
        }
        __syncthreads();
    }
    return a;
}

// A load through L2 only (no L1), for values other blocks of the same launch wrote; any
// trivially copyable type, in the widest words its size and alignment allow.
template <typename T> __device__ __forceinline__ T cuarray_ldcg(const T* p) {
    T v;
    if (sizeof(T) % 8 == 0 && alignof(T) >= 8) {
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) / 8); ++i)
            reinterpret_cast<long long*>(&v)[i] = __ldcg(reinterpret_cast<const long long*>(p) + i);
    } else if (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) / 4); ++i)
            reinterpret_cast<int*>(&v)[i] = __ldcg(reinterpret_cast<const int*>(p) + i);
    } else if (sizeof(T) % 2 == 0 && alignof(T) >= 2) {
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) / 2); ++i)
            reinterpret_cast<short*>(&v)[i] = __ldcg(reinterpret_cast<const short*>(p) + i);
    } else {
#pragma unroll
        for (int i = 0; i < (int)sizeof(T); ++i)
            reinterpret_cast<signed char*>(&v)[i] = __ldcg(reinterpret_cast<const signed char*>(p) + i);
    }
    return v;
}

template <bool WARP, bool FINISH, int VEC, int NK, int NR, typename I, typename Acc, typename Load,
          typename LoadV, typename Comb, typename Fin>
__device__ __forceinline__ void reduce_rows(const Indexer<1, NK, I>& kept, const Indexer<1, NR, I>& red,
                                            I n_out, I n_red, I splits, Acc identity, Load load, LoadV loadv,
                                            Comb comb, Fin fin, Acc* part, unsigned int* sem) {
    __shared__ Acc partial[32];
    __shared__ bool last_piece;
    const int lanes = WARP ? 32 : (int)blockDim.x;
    const int lane = WARP ? (int)(threadIdx.x & 31) : (int)threadIdx.x;
    const I group = WARP ? ((I)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)) : (I)blockIdx.x;
    const I groups = WARP ? ((I)gridDim.x * (blockDim.x >> 5)) : (I)gridDim.x;
    const I tasks = n_out * splits;
    // A row is read in tiles of 4 * lanes * VEC elements; the `splits` pieces of a row
    // take tiles split, split + splits, ... so that at any moment the GPU sweeps one
    // region of memory. `loadv` reads VEC consecutive elements (one vector when VEC > 1:
    // a reduced dimension of stride 1 and 16-byte aligned rows).
    const I vstep = (I)lanes * VEC;
    const I tile = 4 * vstep;
    const I nfull = n_red / tile;
    for (I t = group; t < tasks; t += groups) {
        const I row = t / splits;
        const I split = t - row * splits;
        const I base = cuarray_offset_of<NK, I>(kept, row);
        Acc a0 = identity, a1 = identity, a2 = identity, a3 = identity;
        for (I tt = split; tt < nfull; tt += splits) {
            const I j = tt * tile + (I)lane * VEC;
            const Acc x0 = loadv(base + cuarray_offset_of<NR, I>(red, j), j, row);
            const Acc x1 = loadv(base + cuarray_offset_of<NR, I>(red, j + vstep), j + vstep, row);
            const Acc x2 = loadv(base + cuarray_offset_of<NR, I>(red, j + 2 * vstep), j + 2 * vstep, row);
            const Acc x3 = loadv(base + cuarray_offset_of<NR, I>(red, j + 3 * vstep), j + 3 * vstep, row);
            a0 = comb(a0, x0);
            a1 = comb(a1, x1);
            a2 = comb(a2, x2);
            a3 = comb(a3, x3);
        }
        // The partial last tile goes to one piece.
        if (split == nfull % splits) {
            for (I j = nfull * tile + lane; j < n_red; j += lanes) {
                a0 = comb(a0, load(base + cuarray_offset_of<NR, I>(red, j), j, row));
            }
        }
        Acc a = cuarray_group_reduce<WARP>(comb(comb(a0, a1), comb(a2, a3)), identity, comb, partial);
        if (!FINISH || splits == 1) {
            if (lane == 0) fin(row, split, a);
            continue;
        }
        // Publish this piece's partial, then count it; the row's last piece finishes it.
        unsigned int ticket = 0;
        if (lane == 0) {
            part[row * splits + split] = a;
            __threadfence();
            ticket = atomicAdd(sem + row, 1u);
        }
        bool last;
        if (WARP) {
            last = __shfl_sync(0xffffffffu, ticket, 0) == (unsigned int)(splits - 1);
        } else {
            if (threadIdx.x == 0) last_piece = ticket == (unsigned int)(splits - 1);
            __syncthreads();
            last = last_piece;
            __syncthreads();
        }
        if (!last) continue;
        __threadfence();
        const Acc* p = part + row * splits;
        Acc b = identity;
        I s = lane;
        if constexpr (!cuarray_is_argacc<Acc>::value) {
            // Four independent reads in flight a thread: the partials come from L2, and a
            // chain of dependent reads waits for each in turn (sum of 2^24 f32 0.5 us
            // sooner). Arg accumulators keep the chain: the unrolled form costs argmax of
            // 2^28 f32 5% through the registers of the whole kernel (docs/design/reduce.md).
            Acc b1 = identity, b2 = identity, b3 = identity;
            for (; s + 3 * lanes < splits; s += 4 * lanes) {
                b = comb(b, cuarray_ldcg(p + s));
                b1 = comb(b1, cuarray_ldcg(p + s + lanes));
                b2 = comb(b2, cuarray_ldcg(p + s + 2 * lanes));
                b3 = comb(b3, cuarray_ldcg(p + s + 3 * lanes));
            }
            b = comb(comb(b, b1), comb(b2, b3));
        }
        for (; s < splits; s += lanes) b = comb(b, cuarray_ldcg(p + s));
        b = cuarray_group_reduce<WARP>(b, identity, comb, partial);
        if (lane == 0) {
            fin(row, 0, b);
            sem[row] = 0u;  // ready for the next launch on this stream
        }
    }
}

template <int VEC, int NK, int NR, typename I, typename Acc, typename Load, typename LoadC, typename Comb,
          typename Fin>
__device__ __forceinline__ void reduce_cols(const Indexer<1, NK, I>& kept, const Indexer<1, NR, I>& red,
                                            I n_out, I n_red, I splits, Acc identity, Load load, LoadC loadc,
                                            Comb comb, Fin fin) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    // With VEC > 1 a thread owns VEC consecutive outputs (adjacent in memory, 16-byte
    // aligned) and `loadc` reads one vector per reduced element.
    const I groups = n_out / VEC;
    const I tasks = groups * splits;
    const I chunk = (n_red + splits - 1) / splits;
    for (I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; t < tasks; t += step) {
        const I split = t / groups;
        const I row = (t - split * groups) * VEC;
        const I base = cuarray_offset_of<NK, I>(kept, row);
        const I j0 = split * chunk;
        const I j1 = (j0 + chunk < n_red) ? j0 + chunk : n_red;
        if (VEC > 1) {
            Acc a[VEC], b[VEC];
#pragma unroll
            for (int e = 0; e < VEC; ++e) a[e] = b[e] = identity;
            I j = j0;
            for (; j + 1 < j1; j += 2) {
                Acc x[VEC], y[VEC];
                loadc(x, base + cuarray_offset_of<NR, I>(red, j), j, row);
                loadc(y, base + cuarray_offset_of<NR, I>(red, j + 1), j + 1, row);
#pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    a[e] = comb(a[e], x[e]);
                    b[e] = comb(b[e], y[e]);
                }
            }
            if (j < j1) {
                Acc x[VEC];
                loadc(x, base + cuarray_offset_of<NR, I>(red, j), j, row);
#pragma unroll
                for (int e = 0; e < VEC; ++e) a[e] = comb(a[e], x[e]);
            }
#pragma unroll
            for (int e = 0; e < VEC; ++e) fin(row + e, split, comb(a[e], b[e]));
            continue;
        }
        Acc a0 = identity, a1 = identity, a2 = identity, a3 = identity;
        I j = j0;
        for (; j + 3 < j1; j += 4) {
            const Acc x0 = load(base + cuarray_offset_of<NR, I>(red, j), j, row);
            const Acc x1 = load(base + cuarray_offset_of<NR, I>(red, j + 1), j + 1, row);
            const Acc x2 = load(base + cuarray_offset_of<NR, I>(red, j + 2), j + 2, row);
            const Acc x3 = load(base + cuarray_offset_of<NR, I>(red, j + 3), j + 3, row);
            a0 = comb(a0, x0);
            a1 = comb(a1, x1);
            a2 = comb(a2, x2);
            a3 = comb(a3, x3);
        }
        for (; j < j1; ++j) a0 = comb(a0, load(base + cuarray_offset_of<NR, I>(red, j), j, row));
        fin(row, split, comb(comb(a0, a1), comb(a2, a3)));
    }
}
