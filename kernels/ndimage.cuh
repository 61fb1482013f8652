// cuarray ndimage.cuh: the image-processing filters of cuarray::ndimage (scipy.ndimage).
//
// Boundary modes (nd_index), shared by every filter: an index outside 0..n maps to
//   0 reflect   d c b a | a b c d | d c b a   (period 2n)
//   1 constant  the value cval (nd_index returns -1)
//   2 nearest   a a a a | a b c d | d d d d
//   3 mirror    d c b | a b c d | c b a       (period 2n - 2; one element: itself)
//   4 wrap      a b c d | a b c d | a b c d   (period n)
// as scipy.ndimage extends its lines, also for halos longer than the line.
//
// Values are read into the accumulator type acc_t (float for 16- and 32-bit floats, double
// otherwise, as SciPy's double line buffers) and written back as SciPy does: a float is
// rounded to out_t, a value for an integer type is truncated towards zero and wrapped.

__device__ __forceinline__ long long nd_index(long long i, long long n, int mode) {
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case 0: {
        const long long p = 2 * n;
        long long k = i % p;
        if (k < 0) k += p;
        return k < n ? k : p - 1 - k;
    }
    case 2: return i < 0 ? 0 : n - 1;
    case 3: {
        if (n == 1) return 0;
        const long long p = 2 * n - 2;
        long long k = i % p;
        if (k < 0) k += p;
        return k < n ? k : p - k;
    }
    case 4: {
        long long k = i % n;
        return k < 0 ? k + n : k;
    }
    default: return -1;
    }
}

template <typename T, typename A>
__device__ __forceinline__ T nd_out(A v) {
    if constexpr (cuarray_is_same<T, bool>::value) {
        return v != A(0);
    } else if constexpr (cuarray_is_int<T>::value) {
        return T((long long)v);
    } else {
        return T(v);
    }
}

template <typename A, typename T>
__device__ __forceinline__ A nd_in(T v) {
    if constexpr (cuarray_is_same<T, bool>::value) {
        return v ? A(1) : A(0);
    } else {
        return static_cast<A>(v);
    }
}

// The operation of a window: 0 a weighted sum (correlation), 1 the mean (a box sum
// divided by its size, as SciPy's uniform filter), 2 the minimum, 3 the maximum.
#define ND_SUM 0
#define ND_MEAN 1
#define ND_MIN 2
#define ND_MAX 3
#define ND_RANK 4

// Taps passed by value (up to ND_TAPS; longer filters pass a device array).
#define ND_TAPS 128
struct nd_taps {
    double w[ND_TAPS];
};

template <typename acc_t, int OP>
__device__ __forceinline__ acc_t nd_init() {
    if constexpr (OP == ND_MIN) return acc_t(1.0 / 0.0);
    if constexpr (OP == ND_MAX) return acc_t(-1.0 / 0.0);
    return acc_t(0);
}

template <typename acc_t, int OP>
__device__ __forceinline__ acc_t nd_step(acc_t acc, acc_t v, acc_t w) {
    if constexpr (OP == ND_SUM) return acc + v * w;
    if constexpr (OP == ND_MEAN) return acc + v;
    if constexpr (OP == ND_MIN) return v < acc ? v : acc;
    return v > acc ? v : acc;
}

// One pass of a 1-d filter of K taps along the axis of a C-contiguous array viewed as
// (outer, n, inner): out[o, a, i] = op over j < K of in[o, a + start + j, i] (start is
// -origin - K / 2, the index mapped by the boundary mode). Blocks of 256 threads, WX
// threads across `inner` (32 when the axis is not the last, 1 when it is) and 256 / WX
// along the axis; each block stages a tile of TA = (256 / WX) * PER outputs plus the K - 1
// halo values, of WX lines, in shared memory, then every thread computes PER outputs from
// it. WX = 0: no tile, each thread reads its K values from global memory (long filters
// across lines, whose tile would not fit). A grid-stride loop over the tiles.
template <typename in_t, typename out_t, typename acc_t, int OP, int WX>
__device__ __forceinline__ void nd_line(const in_t* __restrict__ in, out_t* __restrict__ out,
                                        long long outer, long long n, long long inner, int K,
                                        long long start, int mode, double cval,
                                        const nd_taps& taps, const double* __restrict__ wp) {
    extern __shared__ __align__(16) unsigned char nd_smem[];
    acc_t* w = reinterpret_cast<acc_t*>(nd_smem);
    if constexpr (OP == ND_SUM) {
        for (int j = threadIdx.x; j < K; j += blockDim.x) w[j] = acc_t(K <= ND_TAPS ? taps.w[j] : wp[j]);
    }
    const acc_t fill = acc_t(cval);
    if constexpr (WX == 0) {
        __syncthreads();
        const long long total = outer * n * inner;
        for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
             t += (long long)gridDim.x * blockDim.x) {
            const long long i = t % inner;
            const long long a = (t / inner) % n;
            const long long o = t / (inner * n);
            const in_t* line = in + o * n * inner + i;
            acc_t acc = nd_init<acc_t, OP>();
            for (int j = 0; j < K; ++j) {
                const long long m = nd_index(a + start + j, n, mode);
                const acc_t v = m < 0 ? fill : nd_in<acc_t>(line[m * inner]);
                acc = nd_step<acc_t, OP>(acc, v, OP == ND_SUM ? w[j] : acc_t(0));
            }
            if constexpr (OP == ND_MEAN) acc = acc / acc_t(K);
            out[t] = nd_out<out_t>(acc);
        }
        return;
    } else {
        constexpr int TY = 256 / WX;
        constexpr int PER = WX == 1 ? 4 : 8;
        constexpr int TA = TY * PER;
        acc_t* tile = w + (OP == ND_SUM ? ((K + 1) & ~1) : 0);
        const int tx = threadIdx.x % WX;
        const int ty = threadIdx.x / WX;
        const long long tiles_a = (n + TA - 1) / TA;
        const long long tiles_i = (inner + WX - 1) / WX;
        const long long blocks = outer * tiles_a * tiles_i;
        const int rows = TA + K - 1;
        for (long long b = blockIdx.x; b < blocks; b += gridDim.x) {
            const long long ti = b % tiles_i;
            const long long ta = (b / tiles_i) % tiles_a;
            const long long o = b / (tiles_i * tiles_a);
            const long long i = ti * WX + tx;
            const long long a0 = ta * TA;
            const in_t* line = in + o * n * inner + i;
            __syncthreads();
            for (int r = ty; r < rows; r += TY) {
                const long long m = nd_index(a0 + start + r, n, mode);
                tile[r * WX + tx] = (m < 0 || i >= inner) ? fill : nd_in<acc_t>(line[m * inner]);
            }
            __syncthreads();
            if (i < inner) {
#pragma unroll
                for (int q = 0; q < PER; ++q) {
                    const int r0 = ty + q * TY;
                    const long long a = a0 + r0;
                    if (a < n) {
                        acc_t acc = nd_init<acc_t, OP>();
                        for (int j = 0; j < K; ++j) {
                            acc = nd_step<acc_t, OP>(acc, tile[(r0 + j) * WX + tx], OP == ND_SUM ? w[j] : acc_t(0));
                        }
                        if constexpr (OP == ND_MEAN) acc = acc / acc_t(K);
                        out[(o * n + a) * inner + i] = nd_out<out_t>(acc);
                    }
                }
            }
        }
    }
}

// The geometry of an n-d window filter: the input's (C-contiguous) shape, the window's
// shape and the offset of its first element from the output's index on each axis
// (-origin - wshape / 2), then the selection's rank for ND_RANK and the element counts.
#define ND_MAX_RANK 8
struct nd_geom {
    long long rank;
    long long size;
    long long wsize;
    long long kth;
    long long shape[ND_MAX_RANK];
    long long wshape[ND_MAX_RANK];
    long long start[ND_MAX_RANK];
};

// Most window elements a rank filter selects among (a local array of each thread).
#define ND_RANK_MAX 256

// The k-th smallest of v[0..n) (quickselect; v is reordered).
template <typename acc_t>
__device__ acc_t nd_select(acc_t* v, int n, int k) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const acc_t pivot = v[(lo + hi) >> 1];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) ++i;
            while (pivot < v[j]) --j;
            if (i <= j) {
                const acc_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                ++i;
                --j;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return v[k];
}

// An n-d window filter, a thread an output element: the window's elements where the
// footprint `fp` is true (every element when it is null; for ND_SUM, the weights whose
// magnitude passes DBL_EPSILON, as SciPy's footprint of the weights) combined by OP.
// RANK > 0: the rank known at compile time, element indices in 32 bits (the host keeps
// such arrays below 2^31 elements); RANK = 0: read from `g`, 64-bit indices.
template <bool NARROW> struct nd_window_index { typedef long long type; };
template <> struct nd_window_index<true> { typedef unsigned int type; };

template <typename in_t, typename out_t, typename acc_t, int OP, int RANK>
__device__ __forceinline__ void nd_window(const in_t* __restrict__ in, out_t* __restrict__ out,
                                          const nd_geom& g, const double* __restrict__ wts,
                                          const bool* __restrict__ fp, int mode, double cval) {
    typedef typename nd_window_index<(RANK > 0)>::type I;
    constexpr int RM = RANK > 0 ? RANK : ND_MAX_RANK;
    const acc_t fill = acc_t(cval);
    const int rank = RANK > 0 ? RANK : (int)g.rank;
    const I size = (I)g.size;
    for (I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; t < size; t += (I)gridDim.x * (I)blockDim.x) {
        long long idx[RM];
        I rem = t;
#pragma unroll
        for (int d = rank - 1; d >= 0; --d) {
            idx[d] = (long long)(rem % (I)g.shape[d]) + g.start[d];
            rem /= (I)g.shape[d];
        }
        long long wi[RM];
#pragma unroll
        for (int d = 0; d < rank; ++d) wi[d] = 0;
        acc_t acc = nd_init<acc_t, OP>();
        acc_t vals[OP == ND_RANK ? ND_RANK_MAX : 1];
        int count = 0;
        for (long long e = 0; e < g.wsize; ++e) {
            bool take;
            acc_t wt = acc_t(0);
            if constexpr (OP == ND_SUM) {
                const double w = wts[e];
                take = fabs(w) > 2.220446049250313e-16;
                wt = acc_t(w);
            } else {
                take = fp == nullptr || fp[e];
            }
            if (take) {
                I off = 0;
                bool outside = false;
#pragma unroll
                for (int d = 0; d < rank; ++d) {
                    const long long m = nd_index(idx[d] + wi[d], g.shape[d], mode);
                    outside |= m < 0;
                    off = off * (I)g.shape[d] + (I)(m < 0 ? 0 : m);
                }
                const acc_t v = outside ? fill : nd_in<acc_t>(in[off]);
                if constexpr (OP == ND_RANK) {
                    if (count < ND_RANK_MAX) vals[count++] = v;
                } else {
                    acc = nd_step<acc_t, OP>(acc, v, wt);
                }
            }
#pragma unroll
            for (int d = rank - 1; d >= 0; --d) {
                if (++wi[d] < g.wshape[d]) break;
                wi[d] = 0;
            }
        }
        if constexpr (OP == ND_RANK) acc = nd_select<acc_t>(vals, count, (int)g.kth);
        out[t] = nd_out<out_t>(acc);
    }
}

// The N elements of the box window around output t (a rank of RANK, every element of the
// window, last axis fastest) into v, values past the edge mapped by the mode or `fill`.
// RANK and N are compile-time, so that v lives in registers; the selection network that
// follows is rendered with the kernel (NdShape::Select), its comparator indices constant.
template <typename in_t, typename acc_t, int RANK, int N>
__device__ __forceinline__ void nd_gather_box(const in_t* __restrict__ in, const nd_geom& g, long long t,
                                              int mode, acc_t fill, acc_t (&v)[N]) {
    long long idx[RANK];
    long long rem = t;
#pragma unroll
    for (int d = RANK - 1; d >= 0; --d) {
        idx[d] = rem % g.shape[d] + g.start[d];
        rem /= g.shape[d];
    }
    int wi[RANK];
#pragma unroll
    for (int d = 0; d < RANK; ++d) wi[d] = 0;
#pragma unroll
    for (int e = 0; e < N; ++e) {
        long long off = 0;
        bool outside = false;
#pragma unroll
        for (int d = 0; d < RANK; ++d) {
            const long long m = nd_index(idx[d] + wi[d], g.shape[d], mode);
            outside |= m < 0;
            off = off * g.shape[d] + (m < 0 ? 0 : m);
        }
        v[e] = outside ? fill : nd_in<acc_t>(in[off]);
#pragma unroll
        for (int d = RANK - 1; d >= 0; --d) {
            if (++wi[d] < g.wshape[d]) break;
            wi[d] = 0;
        }
    }
}

// A compare-exchange of the selection network: the smaller value to v[a], the larger to
// v[b] (a < b), ordered by `<` as the quickselect of nd_select.
#define ND_CS(a, b)                                      \
    {                                                    \
        const acc_t lo_ = v[b] < v[a] ? v[b] : v[a];     \
        v[b] = v[b] < v[a] ? v[a] : v[b];                \
        v[a] = lo_;                                      \
    }

// Binary erosion (OP ND_MIN: an AND) or dilation (ND_MAX: an OR) of a C-contiguous 2-D
// bool image (h, w) by a structure of at most 3 x 3 given as nine bits: bit 3 (dy + 1) +
// (dx + 1) set when the output at (y, x) reads the input at (y + dy, x + dx), dy and dx in
// -1..1; outside the image the input is `border` (0 or 1). w is a multiple of 16 and the
// image 16-byte aligned: a thread owns 16 bytes of one row. Each row the structure
// touches is one 16-byte load, plus the byte on each side for the horizontal neighbours;
// a one-byte shift of the four words is a funnel shift, and the bytes (0 or 1) combine
// four at a time. A grid-stride loop over the 16-byte chunks.
template <int OP>
__device__ __forceinline__ void nd_binary3(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                                           long long h, long long w, unsigned int bits, int border) {
    const long long cw = w >> 4;
    const long long total = h * cw;
    const unsigned int fill = border ? 0x01010101u : 0u;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
         t += (long long)gridDim.x * blockDim.x) {
        const long long y = t / cw, x0 = (t - y * cw) << 4;
        unsigned int acc[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[i] = OP == ND_MIN ? 0x01010101u : 0u;
#pragma unroll
        for (int dy = -1; dy <= 1; ++dy) {
            const unsigned int row_bits = (bits >> (3 * (dy + 1))) & 7u;
            if (row_bits == 0) continue;
            const long long yy = y + dy;
            // c[0] is the byte before the chunk (in its top byte), c[1..4] the chunk, c[5] the
            // byte after it (in its low byte).
            unsigned int c[6];
            if (yy < 0 || yy >= h) {
#pragma unroll
                for (int i = 0; i < 6; ++i) c[i] = fill;
            } else {
                const unsigned char* row = in + yy * w;
                const uint4 q = *reinterpret_cast<const uint4*>(row + x0);
                c[1] = q.x;
                c[2] = q.y;
                c[3] = q.z;
                c[4] = q.w;
                c[0] = (unsigned int)(x0 > 0 ? row[x0 - 1] : (unsigned char)border) << 24;
                c[5] = x0 + 16 < w ? row[x0 + 16] : (unsigned int)border;
            }
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                unsigned int v = OP == ND_MIN ? 0x01010101u : 0u;
                const unsigned int left = __funnelshift_l(c[i], c[i + 1], 8);    // the input at x - 1
                const unsigned int right = __funnelshift_r(c[i + 1], c[i + 2], 8);  // at x + 1
                if (OP == ND_MIN) {
                    if (row_bits & 1u) v &= left;
                    if (row_bits & 2u) v &= c[i + 1];
                    if (row_bits & 4u) v &= right;
                    acc[i] &= v;
                } else {
                    if (row_bits & 1u) v |= left;
                    if (row_bits & 2u) v |= c[i + 1];
                    if (row_bits & 4u) v |= right;
                    acc[i] |= v;
                }
            }
        }
        *reinterpret_cast<uint4*>(out + y * w + x0) = make_uint4(acc[0], acc[1], acc[2], acc[3]);
    }
}
