// cuarray scan.cuh: inclusive scans (cumsum, cumprod) along one axis.
// Conventions: see kernels/README.md. `load(in_off, j, row)` reads and pre-maps one
// element into an Acc; `comb` is the associative operator with `identity`; `store(out_off,
// a)` writes one result. Rows are the positions of the other axes; `kept` holds the input
// (operand 0) and output (operand 1) offsets of each row, `sin`/`sout` the strides along
// the scanned axis.
//   scan_tiles:  rows cut into tiles of WARPS x 32 lanes x R rounds x VEC elements; one
//                pass with decoupled look-back across the tiles of a row: each tile
//                publishes its aggregate, then its inclusive prefix, in `flags`/`aggs`/
//                `incls` (zeroed before launch); tiles are numbered in launch order by an
//                atomic counter (`counter`), so a tile only waits on tiles already running.
//   scan_serial: a thread per row, scanning it in order (for a strided scan axis, where
//                threads with neighbouring rows read neighbouring addresses).
// Launch: scan_serial with 256 threads per block; scan_tiles with WARPS x 32 threads, one
// tile at a time per block.

// A volatile read of a value another block published (the look-back); a complex value
// part by part (a struct has no volatile copy).
template <typename T> __device__ __forceinline__ T cuarray_volatile_load(const T* p) {
    return *(const volatile T*)p;
}
template <typename R>
__device__ __forceinline__ cuarray_complex<R> cuarray_volatile_load(const cuarray_complex<R>* p) {
    const volatile R* q = (const volatile R*)p;
    return cuarray_complex<R>(q[0], q[1]);
}

template <int NK, typename I>
__device__ __forceinline__ void cuarray_offsets2(const Indexer<2, NK, I>& ix, I row, I& in_off, I& out_off) {
    in_off = 0;
    out_off = 0;
#pragma unroll
    for (int d = NK - 1; d >= 1; --d) {
        const I q = row / ix.shape[d];
        const I r = row - q * ix.shape[d];
        in_off += r * ix.strides[0][d];
        out_off += r * ix.strides[1][d];
        row = q;
    }
    in_off += row * ix.strides[0][0];
    out_off += row * ix.strides[1][0];
}

template <int NK, typename I, typename Acc, typename Load, typename Comb, typename Store>
__device__ __forceinline__ void scan_serial(const Indexer<2, NK, I>& kept, I n_rows, I len, I sin, I sout,
                                            Acc identity, Load load, Comb comb, Store store) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I row = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; row < n_rows; row += step) {
        I in_off, out_off;
        cuarray_offsets2<NK, I>(kept, row, in_off, out_off);
        Acc a = identity;
        for (I j = 0; j < len; ++j) {
            a = comb(a, load(in_off + j * sin, j, row));
            store(out_off + j * sout, a);
        }
    }
}

template <int WARPS, int R, int VEC, int NK, typename I, typename Acc, typename LoadV, typename Comb, typename StoreV>
__device__ __forceinline__ void scan_tiles(const Indexer<2, NK, I>& kept, I n_rows, I len, I sin, I sout,
                                           Acc identity, LoadV loadv, Comb comb, StoreV storev,
                                           int* flags, Acc* aggs, Acc* incls, unsigned int* counter) {
    constexpr int SEG = 32 * R * VEC;   // elements per warp
    constexpr int TILE = WARPS * SEG;   // elements per tile
    __shared__ Acc warp_tot[WARPS];
    __shared__ Acc tile_prefix;
    __shared__ unsigned int tile_id;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const I per_row = (len + TILE - 1) / TILE;
    const I tiles = n_rows * per_row;
    for (;;) {
        if (threadIdx.x == 0) tile_id = atomicAdd(counter, 1u);
        __syncthreads();
        const I t = (I)tile_id;
        __syncthreads();
        if (t >= tiles) return;
        const I row = t / per_row;
        const I k = t - row * per_row;
        I in_off, out_off;
        cuarray_offsets2<NK, I>(kept, row, in_off, out_off);
        const I j_warp = k * TILE + (I)warp * SEG;
        // Load R rounds of VEC elements per lane (consecutive lanes, consecutive vectors),
        // all of them before any shuffle so that every load is in flight at once, then
        // scan each round across the warp, carrying between rounds.
        Acc v[R][VEC];
#pragma unroll
        for (int r = 0; r < R; ++r) loadv(v[r], in_off, j_warp + (I)(r * 32 + lane) * VEC, row);
        Acc carry = identity;
#pragma unroll
        for (int r = 0; r < R; ++r) {
#pragma unroll
            for (int e = 1; e < VEC; ++e) v[r][e] = comb(v[r][e - 1], v[r][e]);
            // Warp inclusive scan of the lane totals.
            Acc s = v[r][VEC - 1];
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const Acc o = cuarray_shfl_up(s, d);
                if (lane >= d) s = comb(o, s);
            }
            Acc excl = cuarray_shfl_up(s, 1);
            if (lane == 0) excl = identity;
            excl = comb(carry, excl);
#pragma unroll
            for (int e = 0; e < VEC; ++e) v[r][e] = comb(excl, v[r][e]);
            carry = comb(carry, cuarray_shfl_idx(s, 31));
        }
        if (lane == 0) warp_tot[warp] = carry;
        __syncthreads();
        // Warp 0 publishes the tile's aggregate and looks back over the row's earlier
        // tiles, 32 at a time: lane l inspects tile p - l; the window ends at the nearest
        // tile whose inclusive prefix is known (or at the row's start).
        if (warp == 0) {
            Acc agg = identity;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) agg = comb(agg, warp_tot[w]);
            Acc prefix = identity;
            if (k == 0) {
                if (lane == 0) {
                    incls[t] = agg;
                    __threadfence();
                    atomicExch(flags + t, 2);
                }
            } else {
                if (lane == 0) {
                    aggs[t] = agg;
                    __threadfence();
                    atomicExch(flags + t, 1);
                }
                const I first = t - k;  // the row's first tile
                I p = t - 1;
                for (;;) {
                    const I q = p - lane;
                    int f = 2;
                    Acc val = identity;
                    if (q >= first) {
                        do {
                            f = *(volatile int*)(flags + q);
                        } while (f == 0);
                        __threadfence();
                        val = cuarray_volatile_load((f == 2) ? incls + q : aggs + q);
                    }
                    const unsigned done = __ballot_sync(0xffffffffu, f == 2);
                    const int stop = done ? __ffs(done) - 1 : 31;
                    if (lane > stop) val = identity;
                    val = cuarray_warp_reduce(val, comb);
                    prefix = comb(cuarray_shfl_idx(val, 0), prefix);
                    if (done) break;
                    p -= 32;
                }
                if (lane == 0) {
                    incls[t] = comb(prefix, agg);
                    __threadfence();
                    atomicExch(flags + t, 2);
                }
            }
            if (lane == 0) tile_prefix = prefix;
        }
        __syncthreads();
        Acc before = tile_prefix;
        for (int w = 0; w < warp; ++w) before = comb(before, warp_tot[w]);
#pragma unroll
        for (int r = 0; r < R; ++r) {
#pragma unroll
            for (int e = 0; e < VEC; ++e) v[r][e] = comb(before, v[r][e]);
            storev(v[r], out_off, j_warp + (I)(r * 32 + lane) * VEC);
        }
        __syncthreads();
    }
}
