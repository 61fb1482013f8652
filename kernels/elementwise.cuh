// cuarray elementwise.cuh: the N-ary elementwise loop skeletons.
// Conventions: see kernels/README.md. Each generated wrapper passes lambdas that load the
// inputs, run the op body and store the outputs.
//   ew_contiguous: every operand contiguous over n elements; the lambda gets index i.
//   ew_vectorized: every operand contiguous and 16-byte aligned; `fv(a, b)` handles the
//                  VEC consecutive elements at `a` and those at `b` (the same vector when
//                  a == b) with one vector load/store per operand each, `f1` the tail.
//   ew_strided_vec: any outer layout, innermost stride 1 or 0 for every operand (rows of
//                  contiguous or broadcast data): each thread takes VEC consecutive
//                  elements of a row, loading the stride-1 operands as one vector.
//   ew_strided:    any layouts. Each warp takes 32 * CHUNK consecutive elements of one
//                  row of the innermost dimension: offsets are computed once per unit and
//                  then advanced by the inner strides. The lambda gets i and the element
//                  offsets of every operand (outputs first, then inputs).
// Launch: 1-D grid of 1-D blocks, any size (grid-stride loops).

template <typename I, typename F>
__device__ __forceinline__ void ew_contiguous(I n, F f) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < n; i += step) f(i);
}

template <int VEC, typename I, typename FV, typename F1>
__device__ __forceinline__ void ew_vectorized(I n, FV fv, F1 f1) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    const I tid = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    const I nvec = n / VEC;
    I k = tid;
    // Two vectors per trip: their loads are issued before either store.
    for (; k + step < nvec; k += 2 * step) fv(k * VEC, (k + step) * VEC);
    if (k < nvec) fv(k * VEC, k * VEC);
    for (I i = nvec * VEC + tid; i < n; i += step) f1(i);
}

// The offsets of every operand at position `j` of row `row` (the rows being the
// positions of all dimensions but the innermost).
template <int NARG, int NDIM, typename I>
__device__ __forceinline__ void ew_row_offsets(const Indexer<NARG, NDIM, I>& ix, I row, I j, I (&off)[NARG]) {
#pragma unroll
    for (int k = 0; k < NARG; ++k) off[k] = j * ix.strides[k][NDIM - 1];
#pragma unroll
    for (int d = NDIM - 2; d >= 1; --d) {
        const I q = row / ix.shape[d];
        const I r = row - q * ix.shape[d];
        row = q;
#pragma unroll
        for (int k = 0; k < NARG; ++k) off[k] += r * ix.strides[k][d];
    }
    if (NDIM > 1) {
#pragma unroll
        for (int k = 0; k < NARG; ++k) off[k] += row * ix.strides[k][0];
    }
}

template <int NARG, int NDIM, typename I, int CHUNK, typename F>
__device__ __forceinline__ void ew_strided(const Indexer<NARG, NDIM, I>& ix, F f) {
    // Work unit: one warp takes W = 32 * CHUNK consecutive elements of one row of the
    // innermost dimension; lane l handles elements l, l + 32, ... of it, so every load
    // and store instruction of the warp touches consecutive elements.
    constexpr int W = 32 * CHUNK;
    const int lane = threadIdx.x & 31;
    const I warps = ((I)gridDim.x * (I)blockDim.x) >> 5;
    const I inner = ix.shape[NDIM - 1];
    const I per_row = (inner + W - 1) / W;
    const I units = (ix.size / inner) * per_row;
    for (I u = ((I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x) >> 5; u < units; u += warps) {
        const I row = u / per_row;
        const I j0 = (u - row * per_row) * W + lane;
        I off[NARG];
        ew_row_offsets(ix, row, j0, off);
        const I i0 = row * inner + j0;
#pragma unroll
        for (int e = 0; e < CHUNK; ++e) {
            if (j0 + 32 * e < inner) f(i0 + 32 * e, off);
#pragma unroll
            for (int k = 0; k < NARG; ++k) off[k] += 32 * ix.strides[k][NDIM - 1];
        }
    }
}

// Two dimensions where some operands run fastest along rows and others along columns (a
// transposed operand): TILE x TILE tiles, staged through shared memory for the column-major
// operands so that every global load and store is coalesced. TILE is 32 or 64.
// Block: 256 threads (the launch's) seen as 8 rows of 32 lanes; a thread takes the tile's
// elements (y0 + 8 i, x0 + 32 j), slot s = i * (TILE / 32) + j, so that every loop unrolls.
//   stage_in(x, y, r, c):  load element (r, c) of each column-major input into its tile
//                          at [y][x] (lanes walk down a column);
//   fetch(s, r, c):        load element (r, c) of row-major inputs into the registers of
//                          slot s, before the barrier, so that these loads are in flight
//                          together with the staged ones (lanes walk along a row);
//   body(s, x, y, r, c):   compute element (r, c) (lanes walk along a row), reading staged
//                          inputs at [x][y], fetched ones from slot s, and the others
//                          directly; writing staged outputs at [x][y];
//   stage_out(x, y, r, c): store element (r, c) of each column-major output from [y][x].
// Grid: any size (grid-stride over tiles).
template <bool STAGED_OUT, int TILE, typename I, typename FIn, typename FFetch, typename FBody, typename FOut>
__device__ __forceinline__ void ew_tiled(I rows, I cols, FIn stage_in, FFetch fetch, FBody body, FOut stage_out) {
    constexpr int NY = TILE / 8, NX = TILE / 32;
    const int x0 = threadIdx.x & 31;
    const int y0 = threadIdx.x >> 5;
    const I tiles_c = (cols + TILE - 1) / TILE;
    const I tiles = ((rows + TILE - 1) / TILE) * tiles_c;
    for (I t = blockIdx.x; t < tiles; t += gridDim.x) {
        const I tr = t / tiles_c;
        const I r0 = tr * TILE, c0 = (t - tr * tiles_c) * TILE;
#pragma unroll
        for (int i = 0; i < NY; ++i) {
#pragma unroll
            for (int j = 0; j < NX; ++j) {
                const int y = y0 + 8 * i, x = x0 + 32 * j;
                const I r = r0 + x, c = c0 + y;
                if (r < rows && c < cols) stage_in(x, y, r, c);
            }
        }
#pragma unroll
        for (int i = 0; i < NY; ++i) {
#pragma unroll
            for (int j = 0; j < NX; ++j) {
                const I r = r0 + y0 + 8 * i, c = c0 + x0 + 32 * j;
                if (r < rows && c < cols) fetch(i * NX + j, r, c);
            }
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < NY; ++i) {
#pragma unroll
            for (int j = 0; j < NX; ++j) {
                const int y = y0 + 8 * i, x = x0 + 32 * j;
                const I r = r0 + y, c = c0 + x;
                if (r < rows && c < cols) body(i * NX + j, x, y, r, c);
            }
        }
        if (STAGED_OUT) {
            __syncthreads();
#pragma unroll
            for (int i = 0; i < NY; ++i) {
#pragma unroll
                for (int j = 0; j < NX; ++j) {
                    const int y = y0 + 8 * i, x = x0 + 32 * j;
                    const I r = r0 + x, c = c0 + y;
                    if (r < rows && c < cols) stage_out(x, y, r, c);
                }
            }
        }
        __syncthreads();
    }
}

template <int NARG, int NDIM, typename I, int VEC, typename F>
__device__ __forceinline__ void ew_strided_vec(const Indexer<NARG, NDIM, I>& ix, F f) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    const I inner = ix.shape[NDIM - 1];
    const I per_row = inner / VEC;
    const I nv = ix.size / VEC;
    for (I v = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; v < nv; v += step) {
        const I row = v / per_row;
        const I j0 = (v - row * per_row) * VEC;
        I off[NARG];
        ew_row_offsets(ix, row, j0, off);
        f(row * inner + j0, off);
    }
}
