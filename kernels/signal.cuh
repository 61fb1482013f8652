// cuarray signal.cuh: direct convolutions and linear recurrences of cuarray::signal.
// Conventions: see kernels/README.md. T is float or double; sums run in T.
//   conv1d_tile: out[r][k] = sum_{j<m} x[r][k + start - j] * v[j] over contiguous rows,
//                x zero outside [0, n). One tile of blockDim.x * CONV_PER outputs of one
//                row per block iteration: the tile's inputs (tile + m - 1) and the taps
//                (reversed) are staged in dynamic shared memory, so the signal is read
//                from global memory once per tile. Dynamic shared memory:
//                (2 m - 1 + blockDim.x * CONV_PER) * sizeof(T) bytes.
//   conv_nd:     the same sum over every axis of rank <= 8 arrays at any strides, x
//                outside its extent taken as `fill` (boundary 0), wrapped (1) or
//                mirrored with the edge repeated (2, "symm"); one thread per output.
// Launch: 256 threads per block; both loop grid-stride (over tiles, over outputs).

#define CONV_PER 4

template <typename T>
__device__ __forceinline__ void conv1d_tile(const T* x, const T* v, T* out, long long rows,
                                            long long n, long long m, long long nout,
                                            long long start) {
    extern __shared__ __align__(16) unsigned char conv_smem[];
    T* taps = reinterpret_cast<T*>(conv_smem);
    T* buf = taps + m;
    const long long tile = (long long)blockDim.x * CONV_PER;
    const long long tiles = (nout + tile - 1) / tile;
    for (long long i = threadIdx.x; i < m; i += blockDim.x) taps[i] = v[m - 1 - i];
    for (long long t = blockIdx.x; t < rows * tiles; t += gridDim.x) {
        const long long r = t / tiles;
        const long long k0 = (t % tiles) * tile;
        const long long base = k0 + start - (m - 1);
        const T* xr = x + r * n;
        __syncthreads();  // the previous tile is consumed
        for (long long i = threadIdx.x; i < tile + m - 1; i += blockDim.x) {
            const long long g = base + i;
            buf[i] = (g >= 0 && g < n) ? xr[g] : T(0);
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < CONV_PER; ++p) {
            const long long kk = threadIdx.x + (long long)p * blockDim.x;
            if (k0 + kk < nout) {
                T acc = T(0);
                const T* b = buf + kk;
                for (long long i = 0; i < m; ++i) acc += b[i] * taps[i];
                out[r * nout + k0 + kk] = acc;
            }
        }
    }
}

// Sizes and strides (elements) of conv_nd, passed by value.
struct ConvNdShape {
    long long rank, total, boundary;
    long long out[8];   // output extents (the output is contiguous)
    long long xs[8];    // x extents
    long long xst[8];   // x strides
    long long vs[8];    // v extents
    long long vst[8];   // v strides
    long long start[8]; // offset of output 0 in the full convolution
};

__device__ __forceinline__ long long conv_fold(long long g, long long n, long long boundary) {
    if (boundary == 1) {
        g %= n;
        return g < 0 ? g + n : g;
    }
    const long long p = 2 * n;
    g %= p;
    if (g < 0) g += p;
    return g >= n ? p - 1 - g : g;
}

template <typename T>
__device__ __forceinline__ void conv_nd(const T* x, const T* v, T* out, const ConvNdShape& s,
                                        T fill) {
    const long long step = (long long)gridDim.x * blockDim.x;
    long long vtotal = 1;
    for (int d = 0; d < s.rank; ++d) vtotal *= s.vs[d];
    for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < s.total; o += step) {
        long long idx[8];
        long long rem = o;
        for (int d = (int)s.rank - 1; d >= 0; --d) {
            idx[d] = rem % s.out[d] + s.start[d];
            rem /= s.out[d];
        }
        long long j[8];
        for (int d = 0; d < s.rank; ++d) j[d] = 0;
        T acc = T(0);
        for (long long q = 0; q < vtotal; ++q) {
            long long xo = 0, vo = 0;
            bool outside = false;
            for (int d = 0; d < s.rank; ++d) {
                long long g = idx[d] - j[d];
                if (g < 0 || g >= s.xs[d]) {
                    if (s.boundary == 0) {
                        outside = true;
                    } else {
                        g = conv_fold(g, s.xs[d], s.boundary);
                    }
                }
                xo += g * s.xst[d];
                vo += j[d] * s.vst[d];
            }
            const T xv = outside ? fill : x[xo];
            acc += xv * v[vo];
            // Odometer over the taps, last axis fastest.
            for (int d = (int)s.rank - 1; d >= 0; --d) {
                if (++j[d] < s.vs[d]) break;
                j[d] = 0;
            }
        }
        out[o] = acc;
    }
}
