// cuarray signal.cuh: direct convolutions and linear recurrences of cuarray::signal.
// Conventions: see kernels/README.md. T is float or double; sums run in T.
//   conv_tile:   out[y][x] = sum_{r<kh, c<kw} x[y + sy - r][x + sx - c] * v[r][c] over a
//                2-D x at any strides (a 1-D signal or a batch of rows is kh = 1), x
//                outside its extent taken by the boundary rule of conv_nd. A block of
//                ty x tx threads owns a tile of ty rows of tx * CONV_TILE_P outputs: it
//                stages the tile's inputs (halo included, the boundary applied there) and
//                the taps (reversed, contiguous v) in dynamic shared memory; each thread
//                sums CONV_TILE_P neighbouring outputs of one row with a sliding window
//                in registers (one shared load of x per tap for CONV_TILE_P products), and
//                the outputs leave through shared memory in coalesced rows. CONV_TILE_P
//                is odd, so a warp's strided shared accesses hit distinct banks. Dynamic
//                shared memory: (kh kw + (ty + kh - 1)(tx CONV_TILE_P + kw)) * sizeof(T).
//   conv_nd:     the same sum over every axis of rank <= 8 arrays at any strides, x
//                outside its extent taken as `fill` (boundary 0), wrapped (1) or
//                mirrored with the edge repeated (2, "symm"); one thread per output,
//                the rank compile-time up to 3.
// Launch: 256 threads per block; both loop grid-stride (over tiles, over outputs).

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

#define CONV_TILE_P 7

// Sizes and strides (elements) of conv_tile, passed by value.
struct ConvTileShape {
    long long h, w;      // x extents
    long long xs0, xs1;  // x strides
    long long kh, kw;    // v extents (v contiguous)
    long long ho, wo;    // output extents (the output is contiguous)
    long long sy, sx;    // offset of output (0, 0) in the full convolution
    long long boundary;  // 0 fill, 1 wrap, 2 symm
    long long ty, tx;    // the block's threads along y and x (ty * tx == blockDim.x)
};

template <typename T>
__device__ __forceinline__ void conv_tile(const T* x, const T* v, T* out,
                                          const ConvTileShape& s, T fill) {
    constexpr int P = CONV_TILE_P;
    extern __shared__ __align__(16) unsigned char conv_smem[];
    const int kh = (int)s.kh, kw = (int)s.kw, ntaps = kh * kw;
    const int tx = (int)s.tx, ty = (int)s.ty;
    const int row_out = tx * P;          // outputs of one tile row
    const int tw = row_out + kw;         // staged row (one spare column for the window)
    const int th = ty + kh - 1;
    T* taps = reinterpret_cast<T*>(conv_smem);
    T* tile = taps + ntaps;
    for (int i = threadIdx.x; i < ntaps; i += blockDim.x) taps[i] = v[ntaps - 1 - i];
    const long long tiles_x = (s.wo + row_out - 1) / row_out;
    const long long tiles = tiles_x * ((s.ho + ty - 1) / ty);
    const int lx = threadIdx.x % tx, ly = threadIdx.x / tx;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long oy0 = (t / tiles_x) * ty, ox0 = (t % tiles_x) * row_out;
        const long long gy0 = oy0 + s.sy - (kh - 1), gx0 = ox0 + s.sx - (kw - 1);
        __syncthreads();  // the previous tile's outputs are written
        for (int i = threadIdx.x; i < th * tw; i += blockDim.x) {
            const int r = i / tw, c = i - r * tw;
            long long gy = gy0 + r, gx = gx0 + c;
            T val;
            if (gy >= 0 && gy < s.h && gx >= 0 && gx < s.w) {
                val = x[gy * s.xs0 + gx * s.xs1];
            } else if (s.boundary == 0) {
                val = fill;
            } else {
                gy = conv_fold(gy, s.h, s.boundary);
                gx = conv_fold(gx, s.w, s.boundary);
                val = x[gy * s.xs0 + gx * s.xs1];
            }
            tile[i] = val;
        }
        __syncthreads();
        T acc[P];
#pragma unroll
        for (int p = 0; p < P; ++p) acc[p] = T(0);
        for (int r = 0; r < kh; ++r) {
            const T* row = tile + (ly + r) * tw + lx * P;
            const T* wr = taps + r * kw;
            T win[P];
#pragma unroll
            for (int p = 0; p < P; ++p) win[p] = row[p];
            for (int c = 0; c < kw; ++c) {
                const T tap = wr[c];
#pragma unroll
                for (int p = 0; p < P; ++p) acc[p] += win[p] * tap;
#pragma unroll
                for (int p = 0; p < P - 1; ++p) win[p] = win[p + 1];
                win[P - 1] = row[c + P];
            }
        }
        __syncthreads();  // the tile is consumed: it stages the outputs
#pragma unroll
        for (int p = 0; p < P; ++p) tile[ly * row_out + lx * P + p] = acc[p];
        __syncthreads();
        for (int i = threadIdx.x; i < ty * row_out; i += blockDim.x) {
            const int r = i / row_out, c = i - r * row_out;
            const long long oy = oy0 + r, ox = ox0 + c;
            if (oy < s.ho && ox < s.wo) out[oy * s.wo + ox] = tile[i];
        }
    }
}

// RANK > 0: the rank is RANK (compile-time, so that the per-axis indices live in
// registers); 0: `s.rank`. Outputs whose every tap lies inside x step through x and v by
// strides, without the boundary test; the sum runs in the same order either way.
template <typename T, int RANK>
__device__ __forceinline__ void conv_nd(const T* x, const T* v, T* out, const ConvNdShape& s,
                                        T fill) {
    constexpr int RM = RANK > 0 ? RANK : 8;
    const int rank = RANK > 0 ? RANK : (int)s.rank;
    const long long step = (long long)gridDim.x * blockDim.x;
    long long vtotal = 1;
#pragma unroll
    for (int d = 0; d < rank; ++d) vtotal *= s.vs[d];
    for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < s.total; o += step) {
        long long idx[RM];
        long long rem = o;
#pragma unroll
        for (int d = rank - 1; d >= 0; --d) {
            idx[d] = rem % s.out[d] + s.start[d];
            rem /= s.out[d];
        }
        long long j[RM];
        bool inside = true;
        long long xi = 0, vi = 0;  // the offsets of the current tap's x and v
#pragma unroll
        for (int d = 0; d < rank; ++d) {
            j[d] = 0;
            inside &= idx[d] - (s.vs[d] - 1) >= 0 && idx[d] < s.xs[d];
            xi += idx[d] * s.xst[d];
        }
        T acc = T(0);
        if (inside) {
            for (long long q = 0; q < vtotal; ++q) {
                acc += x[xi] * v[vi];
#pragma unroll
                for (int d = rank - 1; d >= 0; --d) {
                    if (++j[d] < s.vs[d]) {
                        xi -= s.xst[d];
                        vi += s.vst[d];
                        break;
                    }
                    j[d] = 0;
                    xi += (s.vs[d] - 1) * s.xst[d];
                    vi -= (s.vs[d] - 1) * s.vst[d];
                }
            }
            out[o] = acc;
            continue;
        }
        for (long long q = 0; q < vtotal; ++q) {
            long long xo = 0, vo = 0;
            bool outside = false;
#pragma unroll
            for (int d = 0; d < rank; ++d) {
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
#pragma unroll
            for (int d = rank - 1; d >= 0; --d) {
                if (++j[d] < s.vs[d]) break;
                j[d] = 0;
            }
        }
        out[o] = acc;
    }
}

// ---- linear recurrences: lfilter and sosfilt as a chunked scan -------------------------
// A cascade of K direct-form-II-transposed sections of order N (lfilter: K = 1; sosfilt:
// N = 2) has a state of S = K * N values that evolves linearly: s[t] = A s[t-1] + B x[t].
// Rows of n samples (contiguous) are cut into chunks of C samples:
//   iir_chunk_end: per (row, chunk) but the last, the state at the chunk's end from a zero
//                  state (one thread each, sequential over its chunk);
//   iir_carry:     per row (one block of 256 threads), the state at each chunk's start:
//                  an inclusive scan of s_k = P s_{k-1} + e_k over the chunks, with
//                  P = A^C computed by the block and the scan over 256 chunks at a time
//                  (Hillis-Steele with P, P^2, P^4, ... in shared memory), the row's zi
//                  (or zero) folded into the first chunk;
//   iir_apply:     per (row, chunk), the outputs from the chunk's true start state, and the
//                  final state of the row (zf) from the last chunk.
// Coefficients: K rows of [b0..bN, a0..aN] (normalised by a0 here). States are [k][i].

template <typename T, int N, int K>
struct IirCoef {
    T b[K][N + 1];
    T a[K][N + 1];
    __device__ __forceinline__ void load(const T* c) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const T a0 = c[k * (2 * N + 2) + N + 1];
#pragma unroll
            for (int i = 0; i <= N; ++i) {
                b[k][i] = c[k * (2 * N + 2) + i] / a0;
                a[k][i] = c[k * (2 * N + 2) + N + 1 + i] / a0;
            }
        }
    }
    // One sample through the cascade; returns the output.
    __device__ __forceinline__ T step(T (&z)[K * N], T u) const {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const T y = b[k][0] * u + z[k * N];
#pragma unroll
            for (int i = 0; i < N; ++i) {
                const T next = (i + 1 < N) ? z[k * N + i + 1] : T(0);
                z[k * N + i] = b[k][i + 1] * u + next - a[k][i + 1] * y;
            }
            u = y;
        }
        return u;
    }
};

template <typename T, int N, int K>
__device__ __forceinline__ void iir_chunk_end(T* e, const T* x, const T* coef, long long rows,
                                              long long n, long long c, long long nch) {
    IirCoef<T, N, K> f;
    f.load(coef);
    const long long work = rows * (nch - 1);
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < work; t += step) {
        const long long r = t / (nch - 1);
        const long long k = t % (nch - 1);
        T z[K * N];
#pragma unroll
        for (int i = 0; i < K * N; ++i) z[i] = T(0);
        const T* xr = x + r * n + k * c;
        for (long long i = 0; i < c; ++i) f.step(z, xr[i]);
        T* er = e + (r * nch + k) * (K * N);
#pragma unroll
        for (int i = 0; i < K * N; ++i) er[i] = z[i];
    }
}

#define IIR_LEVELS 8  // 256 = 2^8 chunks per scan tile

template <typename T, int N, int K>
__device__ __forceinline__ void iir_carry(T* start, const T* e, const T* coef, const T* zi,
                                          long long rows, long long c, long long nch) {
    constexpr int S = K * N;
    __shared__ T pw[IIR_LEVELS + 1][S][S];  // P^(2^d); pw[IIR_LEVELS] = P^256
    __shared__ T buf[256][S];
    __shared__ T carry[S];
    IirCoef<T, N, K> f;
    f.load(coef);
    const int tid = threadIdx.x;
    // P = A^C: column j is unit state j after C zero-input steps.
    if (tid < S) {
        T z[S];
#pragma unroll
        for (int i = 0; i < S; ++i) z[i] = (i == tid) ? T(1) : T(0);
        for (long long i = 0; i < c; ++i) f.step(z, T(0));
#pragma unroll
        for (int i = 0; i < S; ++i) pw[0][i][tid] = z[i];
    }
    __syncthreads();
    for (int d = 1; d <= IIR_LEVELS; ++d) {
        for (int q = tid; q < S * S; q += blockDim.x) {
            const int i = q / S, j = q % S;
            T acc = T(0);
            for (int l = 0; l < S; ++l) acc += pw[d - 1][i][l] * pw[d - 1][l][j];
            pw[d][i][j] = acc;
        }
        __syncthreads();
    }
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        if (tid < S) carry[tid] = zi ? zi[r * S + tid] : T(0);
        T* sr = start + r * nch * S;
        __syncthreads();
        if (tid < S) sr[tid] = carry[tid];  // chunk 0 starts from zi
        for (long long k0 = 0; k0 < nch - 1; k0 += 256) {
            const long long k = k0 + tid;
            T v[S];
            if (k < nch - 1) {
#pragma unroll
                for (int i = 0; i < S; ++i) v[i] = e[(r * nch + k) * S + i];
            } else {
#pragma unroll
                for (int i = 0; i < S; ++i) v[i] = T(0);
            }
            if (tid == 0) {  // fold the carry in: + P carry
#pragma unroll
                for (int i = 0; i < S; ++i) {
                    T acc = T(0);
                    for (int l = 0; l < S; ++l) acc += pw[0][i][l] * carry[l];
                    v[i] += acc;
                }
            }
#pragma unroll
            for (int i = 0; i < S; ++i) buf[tid][i] = v[i];
            __syncthreads();
            for (int d = 0; d < IIR_LEVELS; ++d) {
                const int off = 1 << d;
                T add[S];
                if (tid >= off) {
#pragma unroll
                    for (int i = 0; i < S; ++i) {
                        T acc = T(0);
                        for (int l = 0; l < S; ++l) acc += pw[d][i][l] * buf[tid - off][l];
                        add[i] = acc;
                    }
                }
                __syncthreads();
                if (tid >= off) {
#pragma unroll
                    for (int i = 0; i < S; ++i) buf[tid][i] += add[i];
                }
                __syncthreads();
            }
            // buf[t]: the state at the end of chunk k0 + t, so the start of the next one.
            if (k < nch - 1) {
#pragma unroll
                for (int i = 0; i < S; ++i) sr[(k + 1) * S + i] = buf[tid][i];
            }
            const long long last = (nch - 1 - k0 < 256 ? nch - 1 - k0 : 256) - 1;
            __syncthreads();
            if (tid < S && last >= 0) carry[tid] = buf[last][tid];
            __syncthreads();
        }
    }
}

template <typename T, int N, int K>
__device__ __forceinline__ void iir_apply(T* y, const T* x, const T* coef, const T* start,
                                          T* zf, long long rows, long long n, long long c,
                                          long long nch) {
    IirCoef<T, N, K> f;
    f.load(coef);
    const long long work = rows * nch;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < work; t += step) {
        const long long r = t / nch;
        const long long k = t % nch;
        T z[K * N];
        const T* sr = start + (r * nch + k) * (K * N);
#pragma unroll
        for (int i = 0; i < K * N; ++i) z[i] = sr[i];
        const long long lo = k * c;
        const long long hi = (lo + c < n) ? lo + c : n;
        const T* xr = x + r * n;
        T* yr = y + r * n;
        for (long long i = lo; i < hi; ++i) yr[i] = f.step(z, xr[i]);
        if (zf && k == nch - 1) {
#pragma unroll
            for (int i = 0; i < K * N; ++i) zf[r * (K * N) + i] = z[i];
        }
    }
}
