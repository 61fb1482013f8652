// cuarray select.cuh: stream compaction (masked_select, nonzero, argwhere, unique), in two
// launches around one small read of the count.
// Conventions: see kernels/README.md; uses sort.cuh (keys, offsets).
//
// The flat index range [0, n) is cut into tiles of THREADS x IPT elements, item k of lane
// l of warp w at w * 32 * IPT + k * 32 + l (warp-striped, so loads are coalesced and the
// (w, k, l) order is the index order). An element is selected by its flag:
//   MODE 0: the flag operand (operand 0 of `ix`) is non-zero (NaN counts as non-zero);
//   MODE 1: `unique` over a sorted 1-D array f (stride ix.strides[0][0]): the first
//           element, or one whose key (-0.0 == +0.0, NaNs equal) differs from the one
//           before it.
//   select_count: writes each tile's count of selected elements.
//   select_write: with `incl` the inclusive sum of those counts, writes the tile's selected
//                 elements in order from position incl[tile - 1]: OUT 0, the element of the
//                 value operand (operand 1 of `ix`); OUT 1, the coordinates of its flat
//                 index over the shape `coords` (C order), coordinate d of result r at
//                 out[r * sk + coords.strides[0][d]].
// Launch: THREADS threads a block, exactly one tile a block.

template <typename T>
__device__ __forceinline__ bool cuarray_is_nonzero(T v) { return v != (T)0; }
template <>
__device__ __forceinline__ bool cuarray_is_nonzero<bool>(bool v) { return v; }
template <>
__device__ __forceinline__ bool cuarray_is_nonzero<cuarray_f16>(cuarray_f16 v) { return (float)v != 0.0f; }
template <>
__device__ __forceinline__ bool cuarray_is_nonzero<cuarray_bf16>(cuarray_bf16 v) { return (float)v != 0.0f; }

template <typename T0, int MODE, int ND, typename I>
__device__ __forceinline__ bool cuarray_select_flag(const T0* __restrict__ f, const Indexer<2, ND, I>& ix, I p) {
    if (MODE == 0) return cuarray_is_nonzero<T0>(f[cuarray_flat_offset<2, ND, I>(ix, 0, p)]);
    if (p == 0) return true;
    const I s = ix.strides[0][ND - 1];
    return cuarray_key_of<T0, true, false>(f[p * s]) != cuarray_key_of<T0, true, false>(f[(p - 1) * s]);
}

// The flags of this thread's items (bit k: item k) and the block's selected count before
// each warp (wbase) and in all (total); `wsum` holds THREADS / 32 words.
template <typename T0, int MODE, int THREADS, int IPT, int ND, typename I>
__device__ __forceinline__ unsigned int cuarray_select_flags(const T0* __restrict__ f, const Indexer<2, ND, I>& ix,
                                                             I n, I base, unsigned int* wsum,
                                                             unsigned int& wbase, unsigned int& total) {
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    unsigned int bits = 0;
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
        const I p = base + (I)(warp * 32 * IPT + k * 32 + lane);
        if (p < n && cuarray_select_flag<T0, MODE, ND, I>(f, ix, p)) bits |= 1u << k;
    }
    unsigned int c = 0;
#pragma unroll
    for (int k = 0; k < IPT; ++k) c += __popc(__ballot_sync(0xffffffffu, (bits >> k) & 1u));
    if (lane == 0) wsum[warp] = c;
    __syncthreads();
    unsigned int before = 0, all = 0;
#pragma unroll
    for (int w = 0; w < THREADS / 32; ++w) {
        const unsigned int s = wsum[w];
        if (w < warp) before += s;
        all += s;
    }
    wbase = before;
    total = all;
    return bits;
}

template <typename T0, int MODE, int THREADS, int IPT, int ND, typename I>
__device__ __forceinline__ void select_count(const T0* __restrict__ f, const Indexer<2, ND, I>& ix, I n,
                                             unsigned int* __restrict__ counts) {
    __shared__ unsigned int wsum[THREADS / 32];
    const I tile = (I)blockIdx.x;
    unsigned int wbase, total;
    cuarray_select_flags<T0, MODE, THREADS, IPT, ND, I>(f, ix, n, tile * (I)(THREADS * IPT), wsum, wbase, total);
    if (threadIdx.x == 0) counts[tile] = total;
}

template <typename T0, typename T1, typename O, int MODE, int OUT, int THREADS, int IPT, int ND, int NDL, typename I>
__device__ __forceinline__ void select_write(const T0* __restrict__ f, const T1* __restrict__ v,
                                             const Indexer<2, ND, I>& ix, I n,
                                             const unsigned long long* __restrict__ incl, O* __restrict__ out,
                                             const Indexer<1, NDL, I>& coords, I sk) {
    constexpr int TILE = THREADS * IPT;
    __shared__ unsigned int wsum[THREADS / 32];
    __shared__ unsigned short sp[TILE];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const I tile = (I)blockIdx.x;
    const I base = tile * (I)TILE;
    unsigned int wbase, total;
    const unsigned int bits =
        cuarray_select_flags<T0, MODE, THREADS, IPT, ND, I>(f, ix, n, base, wsum, wbase, total);
    const unsigned int below = (1u << lane) - 1u;
    unsigned int run = wbase;
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
        const unsigned int b = __ballot_sync(0xffffffffu, (bits >> k) & 1u);
        if ((bits >> k) & 1u) sp[run + __popc(b & below)] = (unsigned short)(warp * 32 * IPT + k * 32 + lane);
        run += __popc(b);
    }
    __syncthreads();
    const I first = tile == 0 ? (I)0 : (I)incl[tile - 1];
    for (int i = t; i < (int)total; i += THREADS) {
        const I p = base + (I)sp[i];
        const I r = first + (I)i;
        if (OUT == 0) {
            out[r] = (O)v[cuarray_flat_offset<2, ND, I>(ix, 1, p)];
        } else {
            I j = p;
#pragma unroll
            for (int d = NDL - 1; d >= 1; --d) {
                const I q = j / coords.shape[d];
                out[r * sk + coords.strides[0][d]] = (O)(j - q * coords.shape[d]);
                j = q;
            }
            out[r * sk + coords.strides[0][0]] = (O)j;
        }
    }
}
