// cuarray sort.cuh: radix sorting in NumPy's order (sort, argsort, topk, unique,
// searchsorted), and the helpers the select and gather families share.
// Conventions: see kernels/README.md.
//
// Keys. Every element type maps to an unsigned key of its width (`cuarray_sort_key<T>`)
// whose unsigned order is NumPy's order: integers by value (signed: the sign bit flipped),
// bool as 0/1, floats by value with -inf first and every NaN last (NaN maps to the all-ones
// key; a NaN comes back as the canonical quiet NaN). -0.0 and +0.0 are equal in the order,
// as NumPy compares them: the sorts carry each value's own key (so a -0.0 comes back as
// -0.0) but rank it by its order key (`order`: -0.0's key read as +0.0's), so the two keep
// their input order, as NumPy's stable sort. With CZ ("canonical zero") the key itself is
// the order key (searches and selections, which only compare). DESC complements the key:
// descending order, NaN first (topk, largest).
//
// Ranking. Digits are 8 bits. A warp ranks its items (item k of every lane, k = 0, 1, ...)
// by finding the lanes of equal digit through a shared mask a digit and counting in its
// own 256-bin histogram; the group then turns the per-warp histograms into each (digit, warp)'s first
// position: digit-major, warp-minor, so equal digits keep their input order (stable).
//
//   sort_rows:  a group of THREADS threads (a warp or the block) sorts one row of up to
//               THREADS x IPT elements in shared memory, 8 bits per pass, and writes the
//               first `kout` elements of the sorted row (values and/or i64 indices).
//   radix_hist: the 256-bin histograms of every pass (key digits, then the row-number
//               digits of a segmented sort), for radix_pass; it also zeroes the later
//               passes' look-back words.
//   radix_pass: one pass of a one-sweep LSD radix sort (Adinets & Merrill 2022): each block
//               takes the next tile (atomic counter), ranks it, publishes its digit counts
//               and looks back over the earlier tiles' counts (decoupled look-back) for its
//               digits' global offsets, then scatters the ranked tile from shared memory.
//               Each block also asks L2 for the input of the tile `ahead` tiles on (a
//               quarter of the resident blocks), so that later blocks wait on L2, not DRAM.
//               Positions are flat indices of the logical (rows, len) array; the values are
//               those flat indices (argsort, segmented sorts). The first pass reads the
//               input through its layout; the last one writes the outputs through theirs.
//   search:     NumPy's searchsorted (left or right) of each value in a sorted 1-D array,
//               in key order (NaN last, -0.0 == +0.0).

// ---- keys ------------------------------------------------------------------------------

template <typename T> struct cuarray_sort_key;

#define CUARRAY_INT_KEY(T, KT, FLIP)                                                       \
    template <> struct cuarray_sort_key<T> {                                               \
        typedef KT K;                                                                      \
        template <bool CZ>                                                                 \
        static __device__ __forceinline__ K to(T v) { return (K)((K)v ^ (K)(FLIP)); }      \
        static __device__ __forceinline__ T from(K k) { return (T)(K)(k ^ (K)(FLIP)); }    \
        template <bool DESC>                                                               \
        static __device__ __forceinline__ K order(K k) { return k; }                       \
    };
CUARRAY_INT_KEY(signed char, unsigned char, 0x80u)
CUARRAY_INT_KEY(short, unsigned short, 0x8000u)
CUARRAY_INT_KEY(int, unsigned int, 0x80000000u)
CUARRAY_INT_KEY(long long, unsigned long long, 0x8000000000000000ull)
CUARRAY_INT_KEY(unsigned char, unsigned char, 0u)
CUARRAY_INT_KEY(unsigned short, unsigned short, 0u)
CUARRAY_INT_KEY(unsigned int, unsigned int, 0u)
CUARRAY_INT_KEY(unsigned long long, unsigned long long, 0ull)

template <> struct cuarray_sort_key<bool> {
    typedef unsigned char K;
    template <bool CZ>
    static __device__ __forceinline__ K to(bool v) { return v ? 1 : 0; }
    static __device__ __forceinline__ bool from(K k) { return k != 0; }
    template <bool DESC>
    static __device__ __forceinline__ K order(K k) { return k; }
};

// Float keys from the bit pattern `u` (SIGN: the sign bit, INF: +inf's bits, QNAN: the
// canonical quiet NaN).
#define CUARRAY_FLOAT_KEY(T, KT, SIGN, INF, QNAN, TO_BITS, FROM_BITS)                     \
    template <> struct cuarray_sort_key<T> {                                               \
        typedef KT K;                                                                      \
        template <bool CZ>                                                                 \
        static __device__ __forceinline__ K to(T v) {                                      \
            K u = TO_BITS(v);                                                              \
            const K mag = (K)(u & (K)~(K)(SIGN));                                          \
            if (mag > (K)(INF)) return (K)~(K)0;                                           \
            if (CZ && mag == 0) u = 0;                                                     \
            return (u & (K)(SIGN)) ? (K)~u : (K)(u | (K)(SIGN));                           \
        }                                                                                  \
        static __device__ __forceinline__ T from(K k) {                                   \
            if (k == (K)~(K)0) return FROM_BITS((K)(QNAN));                                \
            return FROM_BITS((k & (K)(SIGN)) ? (K)(k ^ (K)(SIGN)) : (K)~k);                \
        }                                                                                  \
        /* The order key: -0.0's key (~SIGN, or SIGN with DESC) read as +0.0's (its    */  \
        /* complement).                                                               */  \
        template <bool DESC>                                                               \
        static __device__ __forceinline__ K order(K k) {                                   \
            const K nz = DESC ? (K)(SIGN) : (K)~(K)(SIGN);                                 \
            return k == nz ? (K)~nz : k;                                                   \
        }                                                                                  \
    };

__device__ __forceinline__ unsigned int cuarray_f32_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ float cuarray_f32_from(unsigned int u) { return __uint_as_float(u); }
__device__ __forceinline__ unsigned long long cuarray_f64_bits(double v) { return (unsigned long long)__double_as_longlong(v); }
__device__ __forceinline__ double cuarray_f64_from(unsigned long long u) { return __longlong_as_double((long long)u); }
__device__ __forceinline__ unsigned short cuarray_f16_bits(cuarray_f16 v) { return v.bits; }
__device__ __forceinline__ cuarray_f16 cuarray_f16_from(unsigned short u) { cuarray_f16 h; h.bits = u; return h; }
__device__ __forceinline__ unsigned short cuarray_bf16_bits(cuarray_bf16 v) { return v.bits; }
__device__ __forceinline__ cuarray_bf16 cuarray_bf16_from(unsigned short u) { cuarray_bf16 h; h.bits = u; return h; }

CUARRAY_FLOAT_KEY(float, unsigned int, 0x80000000u, 0x7f800000u, 0x7fc00000u, cuarray_f32_bits, cuarray_f32_from)
CUARRAY_FLOAT_KEY(double, unsigned long long, 0x8000000000000000ull, 0x7ff0000000000000ull,
                  0x7ff8000000000000ull, cuarray_f64_bits, cuarray_f64_from)
CUARRAY_FLOAT_KEY(cuarray_f16, unsigned short, 0x8000u, 0x7c00u, 0x7e00u, cuarray_f16_bits, cuarray_f16_from)
CUARRAY_FLOAT_KEY(cuarray_bf16, unsigned short, 0x8000u, 0x7f80u, 0x7fc0u, cuarray_bf16_bits, cuarray_bf16_from)

// The key of `v` in the order (CZ, DESC), and back.
template <typename T, bool CZ, bool DESC>
__device__ __forceinline__ typename cuarray_sort_key<T>::K cuarray_key_of(T v) {
    typedef typename cuarray_sort_key<T>::K K;
    const K k = cuarray_sort_key<T>::template to<CZ>(v);
    return DESC ? (K)~k : k;
}
template <typename T, bool DESC>
__device__ __forceinline__ T cuarray_value_of(typename cuarray_sort_key<T>::K k) {
    typedef typename cuarray_sort_key<T>::K K;
    return cuarray_sort_key<T>::from(DESC ? (K)~k : k);
}

// Digit `shift / 8` (8 bits) of a key. Keys of up to 4 bytes take one byte permute (PRMT,
// its selector from `shift` once a kernel) where a shift and a mask take two. The all-ones
// key of a tile's padding has digit 255 in every pass.
template <typename K>
__device__ __forceinline__ unsigned int cuarray_digit(K key, int shift) {
    if (sizeof(K) <= 4) return __byte_perm((unsigned int)key, 0u, 0x4440u | ((unsigned int)shift >> 3));
    return (unsigned int)(key >> shift) & 0xffu;
}
// Digit `shift / 8` of a (DESC) key's order key: what the sorts rank by.
template <typename T, bool DESC>
__device__ __forceinline__ unsigned int cuarray_order_digit(typename cuarray_sort_key<T>::K key, int shift) {
    return cuarray_digit<typename cuarray_sort_key<T>::K>(cuarray_sort_key<T>::template order<DESC>(key), shift);
}

// ---- offsets -----------------------------------------------------------------------------

// Offset of flat (C-order) index `j` over the dimensions of `ix` for operand `op`.
template <int NARG, int ND, typename I>
__device__ __forceinline__ I cuarray_flat_offset(const Indexer<NARG, ND, I>& ix, int op, I j) {
    if (ND == 1) return j * ix.strides[op][0];
    I off = 0;
#pragma unroll
    for (int d = ND - 1; d >= 1; --d) {
        const I q = j / ix.shape[d];
        off += (j - q * ix.shape[d]) * ix.strides[op][d];
        j = q;
    }
    return off + j * ix.strides[op][0];
}

// Offsets of flat index `j` for every operand of `ix`, one decomposition.
template <int NARG, int ND, typename I>
__device__ __forceinline__ void cuarray_flat_offsets(const Indexer<NARG, ND, I>& ix, I j, I (&off)[NARG]) {
#pragma unroll
    for (int a = 0; a < NARG; ++a) off[a] = 0;
#pragma unroll
    for (int d = ND - 1; d >= 1; --d) {
        const I q = j / ix.shape[d];
        const I r = j - q * ix.shape[d];
#pragma unroll
        for (int a = 0; a < NARG; ++a) off[a] += r * ix.strides[a][d];
        j = q;
    }
#pragma unroll
    for (int a = 0; a < NARG; ++a) off[a] += j * ix.strides[a][0];
}

// ---- group primitives ----------------------------------------------------------------------

// A barrier over a group of THREADS threads: the warp, or the whole block.
template <int THREADS>
__device__ __forceinline__ void cuarray_group_sync() {
    if (THREADS == 32) __syncwarp();
    else __syncthreads();
}

// Exclusive sum of `v` over the THREADS threads of a group (thread order); `total` gets
// the group's sum. `wsum` holds THREADS / 32 words of shared memory (unused for a warp).
template <int THREADS, typename U>
__device__ __forceinline__ U cuarray_group_excl_sum(U v, U* wsum, U& total) {
    const int t = threadIdx.x % THREADS, lane = t & 31, warp = t >> 5;
    U x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const U y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (THREADS == 32) {
        total = __shfl_sync(0xffffffffu, x, 31);
        return x - v;
    }
    if (lane == 31) wsum[warp] = x;
    __syncthreads();
    U before = 0, all = 0;
#pragma unroll
    for (int w = 0; w < THREADS / 32; ++w) {
        const U s = wsum[w];
        if (w < warp) before += s;
        all += s;
    }
    total = all;
    __syncthreads();
    return before + x - v;
}

// The ranking room of a group: for each warp, RANK_WS(G) words, its 256 digit counters
// followed by G x 256 lane-mask words. An item is named by the byte offset of its
// (warp, digit) counter in the room (cuarray_rank_at), so that every shared access of the
// ranking is that offset plus a constant: its digit's mask word for slot g is 1024 * (1 + g)
// bytes on.
#define CUARRAY_RANK_WS(G) (256 * (1 + (G)))
template <int G>
__device__ __forceinline__ unsigned int cuarray_rank_at(int warp, unsigned int digit) {
    return (unsigned int)warp * (CUARRAY_RANK_WS(G) * 4u) + (digit << 2);
}

// Whether every item of the warp has one digit (items as cuarray_rank_at offsets).
template <int IPT>
__device__ __forceinline__ bool cuarray_warp_all_same(const unsigned int (&a)[IPT]) {
    const unsigned int a0 = __shfl_sync(0xffffffffu, a[0], 0);
    unsigned int diff = 0;
#pragma unroll
    for (int k = 0; k < IPT; ++k) diff |= a[k] ^ a0;
    return __all_sync(0xffffffffu, diff == 0);
}

// Ranks the warp's items (item k of every lane, in (k, lane) order) by digit: r[k] is the
// item's position among the warp's items of its digit, and the warp's counters (zero
// before) end holding its count of each digit. Item k is a[k], the byte offset of its
// (warp, digit) counter in `room` (cuarray_rank_at); the warp's G x 256 lane-mask words are
// zero before and after.
//
// The lanes with an item's digit (its peers) come from a shared mask a digit: each lane
// sets its bit in its digit's word and reads the word back (when every lane has the same
// digit, the mask is the whole warp without the shared round trip, which would make all
// 32 lanes contend for one word). The highest lane of the peers adds their count to the
// digit's counter and clears the word. This takes about 20 instructions an item where 8
// ballots (one a digit bit) take about 60.
// ONCE: one vote for all the warp's items, `all_same` (every item of every lane of one
// digit), from the caller, instead of one vote an item. G: items ranked together, each
// with its own G-th of the masks: their shared round trips overlap instead of following
// one another. The leaders' counter updates stay in item order (a warp barrier between
// them), so equal digits keep their order.
template <int IPT, bool ONCE = false, int G = 1>
__device__ __forceinline__ void cuarray_warp_rank(const unsigned int (&a)[IPT], unsigned int (&r)[IPT],
                                                  unsigned char* room, bool all_same = false) {
    const unsigned int lane = threadIdx.x & 31;
    const unsigned int le_mask = 0xffffffffu >> (31 - lane);
    auto word = [&](unsigned int at) { return reinterpret_cast<unsigned int*>(room + at); };
#pragma unroll
    for (int k0 = 0; k0 < IPT; k0 += G) {
        // Item k0 + g for g < n (the last group may be short when G does not divide IPT).
        const int n = IPT - k0 < G ? IPT - k0 : G;
        bool same[G];
        unsigned int ag[G], peers[G], base[G];
#pragma unroll
        for (int g = 0; g < G; ++g) {
            ag[g] = a[k0 + g < IPT ? k0 + g : IPT - 1];
            same[g] = ONCE ? all_same : __all_sync(0xffffffffu, ag[g] == __shfl_sync(0xffffffffu, ag[g], 0));
            if (g < n && !same[g]) atomicOr(word(ag[g] + 1024u * (1 + g)), 1u << lane);
        }
        __syncwarp();
#pragma unroll
        for (int g = 0; g < G; ++g) peers[g] = (g >= n || same[g]) ? 0xffffffffu : *word(ag[g] + 1024u * (1 + g));
#pragma unroll
        for (int g = 0; g < G; ++g) {
            base[g] = 0;
            if (g < n && (int)lane == 31 - __clz(peers[g])) base[g] = atomicAdd(word(ag[g]), __popc(peers[g]));
            if (G > 1) __syncwarp();
        }
#pragma unroll
        for (int g = 0; g < G; ++g) {
            if (g >= n) continue;
            const int leader = 31 - __clz(peers[g]);
            base[g] = __shfl_sync(0xffffffffu, base[g], leader);
            if ((int)lane == leader && !same[g]) *word(ag[g] + 1024u * (1 + g)) = 0;
            r[k0 + g] = base[g] + __popc(peers[g] & le_mask) - 1;
        }
        __syncwarp();
    }
}

// Zeroes `words` words (a multiple of 4) at the 16-byte aligned `p`, by the THREADS threads
// of a group, 16 bytes a store.
template <int THREADS>
__device__ __forceinline__ void cuarray_group_zero(unsigned int* p, int words) {
    uint4* q = reinterpret_cast<uint4*>(p);
    for (int i = threadIdx.x % THREADS; i < words / 4; i += THREADS) q[i] = make_uint4(0u, 0u, 0u, 0u);
}

// After cuarray_warp_rank by every warp of a group of THREADS threads: turns the warps'
// histograms `hist[w * WS + d]` (the ranking room, WS = CUARRAY_RANK_WS(G)) into the first
// position of (digit d, warp w) in the group's ranked order, and writes each digit's count
// and first position to `count` and `start` (256 each, may be null). `wsum`: THREADS / 32
// words. Returns the first position of this thread's first digit (digit t when THREADS >=
// 256), from registers: a read of `hist` instead would race with warps that have already
// moved on to rank.
template <int THREADS, int WS>
__device__ __forceinline__ unsigned int cuarray_rank_offsets(unsigned int* hist, unsigned int* count,
                                                             unsigned int* start, unsigned int* wsum) {
    constexpr int WARPS = THREADS / 32;
    constexpr int DPT = (256 + THREADS - 1) / THREADS;  // digits per thread
    // HOLD: the counts stay in registers between the read and the one write of each
    // counter (a few of them a thread); otherwise the warps' running sums are written
    // first and the digit's start added after the scan.
    constexpr bool HOLD = WARPS * DPT <= 8;
    const int t = threadIdx.x % THREADS;
    unsigned int tot[DPT];
    unsigned int held[DPT][WARPS];  // used only when HOLD (else never touched)
    unsigned int sum = 0;
#pragma unroll
    for (int i = 0; i < DPT; ++i) {
        const int d = t * DPT + i;
        unsigned int run = 0;
        if (d < 256) {
#pragma unroll
            for (int w = 0; w < WARPS; ++w) {
                const unsigned int c = hist[w * WS + d];
                if (HOLD) held[i][w] = c;
                else hist[w * WS + d] = run;
                run += c;
            }
        }
        tot[i] = run;
        sum += run;
    }
    unsigned int all;
    unsigned int first = cuarray_group_excl_sum<THREADS>(sum, wsum, all);
    unsigned int mine = 0;
#pragma unroll
    for (int i = 0; i < DPT; ++i) {
        const int d = t * DPT + i;
        if (d < 256) {
            unsigned int run = first;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) {
                if (HOLD) {
                    hist[w * WS + d] = run;
                    run += held[i][w];
                } else {
                    hist[w * WS + d] += first;
                }
            }
            if (count) count[d] = tot[i];
            if (start) start[d] = first;
        }
        if (i == 0) mine = first;
        first += tot[i];
    }
    return mine;
}

// ---- a row in shared memory ------------------------------------------------------------------

// Shared bytes one group of sort_rows needs.
template <typename K, int THREADS, int IPT, bool IDX>
struct cuarray_rows_smem {
    static constexpr int TILE = THREADS * IPT;
    static constexpr int KEYS = TILE * (int)sizeof(K);
    static constexpr int HIST = (THREADS / 32) * 256 * 4 * 2;  // counters and lane masks
    static constexpr int A = ((KEYS > HIST ? KEYS : HIST) + 15) / 16 * 16;
    static constexpr int B = IDX ? (TILE * 2 + 15) / 16 * 16 : 0;
    static constexpr int BYTES = A + B + 16 * 4;
};

// One group (THREADS threads: a warp or the block; blockDim.x / THREADS groups a block)
// per row. Row r's elements are in[in_off(r) + j * sin] for j < len (len <= THREADS * IPT);
// writes the first kout of the sorted row to out_keys[ok_off(r) + j * sok] (OUT_KEYS) and
// their indices to out_idx[oi_off(r) + j * soi] (OUT_IDX). `rows` holds the three offsets.
template <typename T, int THREADS, int IPT, int NK, typename I, bool DESC, bool OUT_KEYS, bool OUT_IDX>
__device__ __forceinline__ void sort_rows(const T* __restrict__ in, T* __restrict__ out_keys,
                                          long long* __restrict__ out_idx, const Indexer<3, NK, I>& rows, I n_rows,
                                          I len, I sin, I sok, I soi, I kout) {
    typedef typename cuarray_sort_key<T>::K K;
    typedef cuarray_rows_smem<K, THREADS, IPT, OUT_IDX> S;
    constexpr int GROUPS_MAX = 1024 / THREADS;
    constexpr int BITS = 8 * (int)sizeof(K);
    __shared__ __align__(16) unsigned char smem_all[S::BYTES * (THREADS == 32 ? 8 : 1)];
    (void)GROUPS_MAX;
    const int groups = blockDim.x / THREADS;
    const int g = threadIdx.x / THREADS;
    const int t = threadIdx.x % THREADS, lane = t & 31, warp = t >> 5;
    unsigned char* smem = smem_all + g * S::BYTES;
    K* skeys = reinterpret_cast<K*>(smem);
    unsigned int* hist = reinterpret_cast<unsigned int*>(smem);
    unsigned short* sidx = reinterpret_cast<unsigned short*>(smem + S::A);
    unsigned int* wsum = reinterpret_cast<unsigned int*>(smem + S::A + S::B);
    for (I row = (I)blockIdx.x * groups + g; row < n_rows; row += (I)gridDim.x * groups) {
        I off[3];
        cuarray_flat_offsets<3, NK, I>(rows, row, off);
        K key[IPT];
        unsigned int idx[IPT];
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const I j = (I)(warp * 32 * IPT + k * 32 + lane);
            idx[k] = (unsigned int)j;
            key[k] = j < len ? cuarray_key_of<T, false, DESC>(in[off[0] + j * sin]) : (K)~(K)0;
        }
        for (int shift = 0; shift < BITS; shift += 8) {
            cuarray_group_zero<THREADS>(hist, (THREADS / 32) * CUARRAY_RANK_WS(1));  // counters and masks
            cuarray_group_sync<THREADS>();
            unsigned int a[IPT], r[IPT];
#pragma unroll
            for (int k = 0; k < IPT; ++k) a[k] = cuarray_rank_at<1>(warp, cuarray_order_digit<T, DESC>(key[k], shift));
            cuarray_warp_rank<IPT>(a, r, smem);
            cuarray_group_sync<THREADS>();
            cuarray_rank_offsets<THREADS, CUARRAY_RANK_WS(1)>(hist, nullptr, nullptr, wsum);
            cuarray_group_sync<THREADS>();
#pragma unroll
            for (int k = 0; k < IPT; ++k) r[k] += *reinterpret_cast<unsigned int*>(smem + a[k]);
            cuarray_group_sync<THREADS>();
#pragma unroll
            for (int k = 0; k < IPT; ++k) {
                skeys[r[k]] = key[k];
                if (OUT_IDX) sidx[r[k]] = (unsigned short)idx[k];
            }
            cuarray_group_sync<THREADS>();
            if (shift + 8 < BITS) {
#pragma unroll
                for (int k = 0; k < IPT; ++k) {
                    const int j = warp * 32 * IPT + k * 32 + lane;
                    key[k] = skeys[j];
                    if (OUT_IDX) idx[k] = sidx[j];
                }
                cuarray_group_sync<THREADS>();
            }
        }
        for (I j = t; j < kout; j += THREADS) {
            if (OUT_KEYS) out_keys[off[1] + j * sok] = cuarray_value_of<T, DESC>(skeys[j]);
            if (OUT_IDX) out_idx[off[2] + j * soi] = (long long)sidx[j];
        }
        cuarray_group_sync<THREADS>();
    }
}

// ---- one-sweep radix sort -------------------------------------------------------------------

// Calls f(key) for the key of every element p < n of the grid's share of in[offset of p]
// (a grid-stride loop): U elements a step apart an iteration, their loads issued
// together, then the rest one at a time. REV: element n - 1 - p instead of p (the grid
// walks the input from its end, so that its first elements are the ones left in L2).
template <typename T, bool CZ, bool DESC, int ND, typename I, typename F, int U = 4, bool REV = false>
__device__ __forceinline__ void cuarray_grid_keys(const T* __restrict__ in, const Indexer<1, ND, I>& ix, I n, F f) {
    typedef typename cuarray_sort_key<T>::K K;
    auto at = [&](I p) { return cuarray_key_of<T, CZ, DESC>(in[cuarray_flat_offset<1, ND, I>(ix, 0, REV ? n - 1 - p : p)]); };
    const I step = (I)gridDim.x * (I)blockDim.x;
    I p = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    // p stays below n + step, as in a plain grid-stride loop.
    const I lim = n > (I)(U - 1) * step ? n - (I)(U - 1) * step : (I)0;
    for (; p < lim; p += (I)U * step) {
        K key[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
            key[u] = at(p + (I)u * step);
#pragma unroll
        for (int u = 0; u < U; ++u) f(key[u]);
    }
    for (; p < n; p += step) f(at(p));
}

// Histograms of every pass, added to `hist[p * 256 + digit]` (zero before): passes
// 0 .. key_passes - 1 count the key's digits (8 bits each, least significant first);
// passes key_passes .. key_passes + row_passes - 1 count the digits of the row number
// (flat index / len) of each element. The input is in[offset of flat index p] for p < n.
// C: counters a key bin keeps, one for each lane % C, side by side (bin-major), so that
// a warp's 32 increments of one digit fall in distinct banks (C = 32) whatever the digits:
// with one counter a bin, lanes of different digits share banks and each atomic takes
// several shared-memory cycles. Dynamic shared memory: (KP * 256 * C + 4 * 256) words
// (cuarray_hist_words).
template <typename K, int C> struct cuarray_hist_words {
    static constexpr int KEYS = (int)sizeof(K) * 256 * C;
    static constexpr int WORDS = KEYS + 4 * 256;
};
// `clear`: clear_n 16-byte words the kernel zeroes first (the later passes' look-back
// words: the kernel waits on its shared atomics, not on memory, so the stores cost it less
// than a memset before it costs the sort).
template <typename T, int ND, typename I, bool DESC, int C = 1>
__device__ __forceinline__ void radix_hist(const T* __restrict__ in, const Indexer<1, ND, I>& ix, I n, I len,
                                           int row_passes, unsigned long long* __restrict__ hist,
                                           uint4* __restrict__ clear, long long clear_n) {
    typedef typename cuarray_sort_key<T>::K K;
    typedef cuarray_hist_words<K, C> S;
    constexpr int KP = (int)sizeof(K);
    extern __shared__ unsigned int sh[];
    // Releases the first pass at once: its blocks run beside this kernel's where they fit
    // (radix_pass's variant bit 128 says where that pass waits for this kernel).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
#pragma unroll 1
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)clear_n;
         i += (size_t)gridDim.x * blockDim.x)
        clear[i] = make_uint4(0u, 0u, 0u, 0u);
    for (int i = threadIdx.x; i < S::WORDS; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    const unsigned int slot = threadIdx.x % C;
    // One block of 1024 threads a multiprocessor when C > 1: 16 loads each in flight.
    auto count = [&](K key) {
#pragma unroll
        for (int q = 0; q < KP; ++q) atomicAdd(&sh[(q * 256 + (unsigned int)((key >> (8 * q)) & 0xffu)) * C + slot], 1u);
    };
    // Order keys (CZ): the digits the passes rank by.
    cuarray_grid_keys<T, true, DESC, ND, I, decltype(count), C == 1 ? 4 : 16, true>(in, ix, n, count);
    const I step = (I)gridDim.x * (I)blockDim.x;
    // Row digits: row r holds len elements.
    if (row_passes > 0) {
        const I n_rows = n / len;
        for (I r = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; r < n_rows; r += step) {
            for (int q = 0; q < row_passes; ++q) {
                atomicAdd(&sh[S::KEYS + q * 256 + (unsigned int)(((unsigned long long)r >> (8 * q)) & 0xffu)], (unsigned int)len);
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < (KP + row_passes) * 256; i += blockDim.x) {
        unsigned int c = 0;
        if (i < KP * 256) {
            // Each lane starts at its own counter: the warp's reads fall in distinct banks.
#pragma unroll
            for (int j = 0; j < C; ++j) c += sh[i * C + (j + threadIdx.x) % C];
        } else {
            c = sh[S::KEYS + i - KP * 256];
        }
        if (c) atomicAdd(&hist[i], (unsigned long long)c);
    }
}

// Asks L2 for the whole 16-byte words of [p, p + bytes) (a hint: one bulk prefetch, no
// registers, nothing waits for it).
__device__ __forceinline__ void cuarray_prefetch_l2(const void* p, size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const size_t a = ((size_t)p + 15) & ~(size_t)15;
    const size_t e = ((size_t)p + bytes) & ~(size_t)15;
    if (e > a) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"((unsigned int)(e - a)) : "memory");
#endif
}

// Look-back words: a flag in the top two bits (1: the tile's own count, 2: the inclusive
// prefix through the tile), the count below.
template <typename W> struct cuarray_lookback;
template <> struct cuarray_lookback<unsigned int> {
    static constexpr unsigned int AGG = 1u << 30, INC = 2u << 30, MASK = (1u << 30) - 1;
};
template <> struct cuarray_lookback<unsigned long long> {
    static constexpr unsigned long long AGG = 1ull << 62, INC = 2ull << 62, MASK = (1ull << 62) - 1;
};

// The ranking of radix_pass: G items taken together (variant bits 4 and 8: 1, 2, 4 or 8),
// and the lane-mask words a warp keeps (cuarray_warp_rank).
// Bit 16: the warps' digit counts come first (the early counts, a counter a warp and
// digit) and are turned into tile positions before the ranking, whose counters then hand
// out each item's final position in the tile: no second lookup of the warp's digit start,
// and the counters keep their own room so that each warp scatters its keys as soon as it
// has ranked them (cuarray_pass_smem's OWN).
// Bits 32 and 64: the look-back's window, 8 >> ((VAR >> 5) & 3) earlier tiles a round.
template <int VAR> struct cuarray_pass_group {
    static constexpr int G = 1 << ((VAR >> 2) & 3);
    static constexpr int LOOK = 8 >> ((VAR >> 5) & 3);
    static constexpr int MASKS = G * 256;
    static constexpr bool OWN = (VAR & 16) != 0;
};

// Shared bytes of radix_pass: the tile's keys (A; with !OWN the warps' counters and lane
// masks share it), values (B), each digit's global offset minus its tile start (D), the
// counters and masks in their own room (H, OWN), the tile's digit counts and a word a warp.
template <typename K, typename V, typename W, int THREADS, int IPT, bool HAS_V, int MASKS = 256, bool OWN = false>
struct cuarray_pass_smem {
    static constexpr int TILE = THREADS * IPT;
    static constexpr int KEYS = TILE * (int)sizeof(K);
    static constexpr int HIST = (THREADS / 32) * (256 + MASKS) * 4;  // counters and lane masks
    static constexpr int A = (((OWN || KEYS > HIST) ? KEYS : HIST) + 15) / 16 * 16;
    static constexpr int B = HAS_V ? (TILE * (int)sizeof(V) + 15) / 16 * 16 : 0;
    static constexpr int D = 256 * (int)sizeof(W);
    static constexpr int H = OWN ? (HIST + 15) / 16 * 16 : 0;
    static constexpr int BYTES = A + B + D + H + 256 * 4 + 32 * 4;
};

// One pass over digit `shift / 8` of the keys (row_pass: of the row numbers). FIRST reads
// the input `in` through `in_ix` (flat index p -> offset) and makes the keys (and values:
// p); otherwise keys_in / vals_in hold them. LAST writes the outputs: for the element that
// lands at flat position q = row * len + j, with j < kout, out[offset of row * kout + j]
// (OUT_KEYS) and out_idx[...] = its index j0 in its row (OUT_IDX), through `out_ix`
// (operand 0: out, operand 1: out_idx); otherwise keys_out / vals_out at q.
// `hist`: this pass's 256 bins; `look`: tiles x 256 words, zero before; `counter`: zero
// before. One tile per block; launch exactly ceil(n / (THREADS * IPT)) blocks, with at least
// cuarray_pass_smem<...>::BYTES bytes of dynamic shared memory. VAR: variant bits
// (bit 1: one vote a warp's tile for the ranking's all-equal shortcut; bit 2: full tiles
// without bound checks; bits 4 and 8: the ranking's items taken together; bit 16: the
// warps' counts before the ranking; bits 32 and 64: the look-back's window; see
// cuarray_pass_group. The library picks them by pass_variant_default).
template <typename T, typename V, typename W, int THREADS, int IPT, int ND, typename I, bool DESC,
          bool FIRST, bool LAST, bool HAS_V, bool OUT_KEYS, bool OUT_IDX, int VAR = 0>
__device__ __forceinline__ void radix_pass(
    const T* __restrict__ in, const Indexer<1, ND, I>& in_ix,
    const typename cuarray_sort_key<T>::K* __restrict__ keys_in, const V* __restrict__ vals_in,
    typename cuarray_sort_key<T>::K* __restrict__ keys_out, V* __restrict__ vals_out,
    T* __restrict__ out, long long* __restrict__ out_idx, const Indexer<2, ND, I>& out_ix,
    I n, I len, I kout, int shift, bool row_pass, I ahead, const unsigned long long* __restrict__ hist,
    W* __restrict__ look, unsigned int* __restrict__ counter) {
    typedef typename cuarray_sort_key<T>::K K;
    typedef cuarray_pass_group<VAR> RK;
    typedef cuarray_pass_smem<K, V, W, THREADS, IPT, HAS_V, RK::MASKS, RK::OWN> S;
    typedef cuarray_lookback<W> LB;
    constexpr int TILE = THREADS * IPT;
    static_assert(THREADS >= 256, "radix_pass: one thread per digit");
    // Dynamic: a tile of 6144 4-byte keys with their values takes more than the 48 KB a
    // static array may.
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr bool OWN = RK::OWN;
    K* skeys = reinterpret_cast<K*>(smem);
    // The ranking room (cuarray_warp_rank): the warps' counters and lane masks.
    unsigned char* room = OWN ? smem + S::A + S::B + S::D : smem;
    unsigned int* whist = reinterpret_cast<unsigned int*>(room);
    constexpr int WS = CUARRAY_RANK_WS(RK::G);
    V* svals = reinterpret_cast<V*>(smem + S::A);
    W* sshift = reinterpret_cast<W*>(smem + S::A + S::B);
    unsigned int* scount = reinterpret_cast<unsigned int*>(smem + S::A + S::B + S::D + S::H);
    unsigned int* wsum = scount + 256;
    __shared__ unsigned int s_tile;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;

    if (t == 0) s_tile = atomicAdd(counter, 1u);
    cuarray_group_zero<THREADS>(whist, (THREADS / 32) * WS);  // counters and masks
    for (int i = t; i < 256; i += THREADS) scount[i] = 0;
    __syncthreads();
    const I tile = (I)s_tile;
    const I base = tile * TILE;
    if (ahead > 0 && t == 0) {
        // The input of the tile `ahead` tiles on, asked of L2 now, so that its block's
        // loads find it there (tiles are taken in order, a wave of resident blocks apart).
        if (ahead <= (n - 1 - base) / (I)TILE) {
            const I at = base + ahead * (I)TILE;  // below n
            const I m = (n - at) < (I)TILE ? (n - at) : (I)TILE;
            if (!FIRST) {
                cuarray_prefetch_l2(keys_in + at, (size_t)m * sizeof(K));
                if (HAS_V) cuarray_prefetch_l2(vals_in + at, (size_t)m * sizeof(V));
            } else if (ND == 1 && in_ix.strides[0][0] == 1) {
                cuarray_prefetch_l2(in + at, (size_t)m * sizeof(T));
            }
        }
    }
    // Variant bit 2: a full tile (all but the last) counts and scatters without a
    // bound check an element.
    constexpr bool FULL = (VAR & 2) != 0;
    const bool full = base + (I)TILE <= n;

    K key[IPT];
    V val[IPT];
    unsigned int a[IPT], r[IPT];
    // Element k of this thread is p0 + 32 k, inside the array while 32 k < rem.
    const I p0 = base + (I)(warp * 32 * IPT + lane);
    const I rem = n - p0;
    if (FIRST) {
        // A full tile (all but the last) loads without a bound check per element: with
        // 24 bound predicates beside the conversions' own, the compiler makes each load
        // wait for its predecessor's conversion.
        if (base + (I)TILE <= n) {
#pragma unroll
            for (int k = 0; k < IPT; ++k) {
                const I p = base + (I)(warp * 32 * IPT + k * 32 + lane);
                key[k] = cuarray_key_of<T, false, DESC>(in[cuarray_flat_offset<1, ND, I>(in_ix, 0, p)]);
                val[k] = (V)p;
            }
        } else {
#pragma unroll
            for (int k = 0; k < IPT; ++k) {
                const I p = p0 + (I)(k * 32);
                key[k] = (I)(k * 32) < rem ? cuarray_key_of<T, false, DESC>(in[cuarray_flat_offset<1, ND, I>(in_ix, 0, p)])
                                           : (K)~(K)0;
                val[k] = (V)p;
            }
        }
    } else if (FULL && full) {
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const I p = base + (I)(warp * 32 * IPT + k * 32 + lane);
            key[k] = keys_in[p];
            if (HAS_V) val[k] = vals_in[p];
        }
    } else {
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const I p = p0 + (I)(k * 32);
            const bool valid = (I)(k * 32) < rem;
            key[k] = valid ? keys_in[p] : (K)~(K)0;
            if (HAS_V) val[k] = valid ? vals_in[p] : (V)0;
        }
    }
    // Early counts: the tile's digit counts, published before the ranking so that later
    // tiles' look-back finds them sooner. OWN: a count a warp and digit (in the ranking
    // room, at the item's own offset a[k]), the elements past n included (digit 255, the
    // tile's last positions: their all-ones keys have it), turned into the tile positions
    // of each (digit, warp) and the tile's counts, less those elements. Otherwise a count a
    // digit for the tile, of the elements below n.
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
        const bool valid = (FULL && full) || (I)(k * 32) < rem;
        unsigned int dk;
        // Row passes come after the key passes and carry values (the flat indices).
        if (HAS_V && row_pass) dk = valid ? (unsigned int)(((unsigned long long)(val[k] / (V)len) >> shift) & 0xffu) : 255u;
        else dk = cuarray_order_digit<T, DESC>(key[k], shift);
        a[k] = cuarray_rank_at<RK::G>(warp, dk);
        if (OWN) atomicAdd(reinterpret_cast<unsigned int*>(room + a[k]), 1u);
        else if (valid) atomicAdd(&scount[dk], 1u);
    }
    __syncthreads();
    W my_start = 0;
    // Variant bit 1: one vote for the warp's items. With OWN the warp's count of an item's
    // digit is all its items exactly when they all have that digit (read before the
    // offsets below overwrite the counts).
    constexpr bool ONCE = (VAR & 1) != 0;
    bool all_same = false;
    if (ONCE) {
        all_same = OWN ? *reinterpret_cast<const unsigned int*>(room + a[0]) == 32u * IPT
                       : cuarray_warp_all_same<IPT>(a);
    }
    if (OWN) {
        // The digit's first position in the tile (that of (digit, warp 0)), kept in a
        // register: once past the barrier, warps rank and move the counters on.
        const unsigned int first = cuarray_rank_offsets<THREADS, WS>(whist, scount, nullptr, wsum);
        __syncthreads();
        if (t < 256) my_start = (W)first;
        if (t == 255 && !full) scount[255] -= (unsigned int)((I)TILE - (n - base));
    }
    const W my_count = t < 256 ? (W)scount[t] : (W)0;
    // The digits' global start: tile 0 from the histogram, later tiles by look-back.
    W excl = 0;
    if (tile == 0) {
        // Variant bit 128 (the first pass, released by the histogram kernel at its
        // start): only here does the pass wait for that kernel. The other tiles read the
        // input (complete before the histogram kernel began) and write the sort's own
        // state and buffers (zeroed or unused before it), and reach the histograms only
        // through this tile's look-back words. The histogram kernel's own writes, the
        // histograms and the later passes' look-back words, are read by none of them.
        if (FIRST && (VAR & 128)) cuarray_dependent_entry();
        W h = t < 256 ? (W)hist[t] : (W)0;
        W all;
        // Exclusive sum of the histogram over the 256 digits (threads past 256 add 0).
        excl = cuarray_group_excl_sum<THREADS, W>(h, reinterpret_cast<W*>(sshift), all);
        if (t < 256) {
            volatile W* slot = look + (size_t)t;
            *slot = LB::INC | (excl + my_count);
        }
    } else if (t < 256) {
        volatile W* mine = look + (size_t)tile * 256 + t;
        *mine = LB::AGG | my_count;
    }
    cuarray_warp_rank<IPT, ONCE, RK::G>(a, r, room, all_same);
    // Each item (and value) into shared memory at its position r[k] in the ranked tile.
    auto stage = [&]() {
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            skeys[r[k]] = key[k];
            if (HAS_V) svals[r[k]] = val[k];
        }
    };
    if (OWN) {
        // r[k] is the item's position in the tile already.
        stage();
    } else {
        __syncthreads();
        // The digit's first position in the ranked tile: that of (digit, warp 0).
        const unsigned int first = cuarray_rank_offsets<THREADS, WS>(whist, nullptr, nullptr, wsum);
        __syncthreads();
        if (t < 256) my_start = (W)first;
    }
    if (tile != 0 && t < 256) {
        // Walks back over the earlier tiles' words of this digit, LOOK of them per round
        // (independent loads, in flight together), newest first: adds each until an
        // inclusive prefix (done); an unpublished word (0) ends the round there.
        constexpr int LOOK = RK::LOOK;
        volatile W* mine = look + (size_t)tile * 256 + t;
        I q = tile - 1;
        W sum = 0;
        for (;;) {
            W w[LOOK];
#pragma unroll
            for (int j = 0; j < LOOK; ++j) {
                const volatile W* prev = look + (size_t)(q - j) * 256 + t;
                w[j] = q - j >= 0 ? *prev : (W)0;
            }
            int used = 0;
            bool done = false;
#pragma unroll
            for (int j = 0; j < LOOK; ++j) {
                if (done || w[j] == 0 || used < j) continue;
                sum += w[j] & LB::MASK;
                used = j + 1;
                done = (w[j] & LB::INC) != 0;
            }
            if (done) break;
            q -= used;
        }
        excl = sum;
        *mine = LB::INC | (excl + my_count);
    }
    if (OWN) {
        if (t < 256) sshift[t] = excl - my_start;
    } else {
        __syncthreads();
        if (t < 256) sshift[t] = excl - my_start;
#pragma unroll
        for (int k = 0; k < IPT; ++k) r[k] += *reinterpret_cast<const unsigned int*>(room + a[k]);
        __syncthreads();
        stage();
    }
    __syncthreads();
    const I valid = (n - base) < (I)TILE ? (n - base) : (I)TILE;
#pragma unroll 4
    for (int i = t; i < TILE; i += THREADS) {
        if (!(FULL && full) && (I)i >= valid) break;
        const K kk = skeys[i];
        // The digit again from the key (or value): cheaper than keeping the tile's digits
        // in shared memory (measured 6-8% a sort of 2^26 f32), and the room goes to keys.
        const unsigned int dg = (HAS_V && row_pass)
            ? (unsigned int)(((unsigned long long)(svals[i] / (V)len) >> shift) & 0xffu)
            : cuarray_order_digit<T, DESC>(kk, shift);
        const W q = sshift[dg] + (W)i;
        if (LAST) {
            I row = 0, j = (I)q;
            if (len != n) {
                row = (I)q / len;
                j = (I)q - row * len;
            }
            if (j < kout) {
                const I flat = row * kout + j;
                if (OUT_KEYS) out[cuarray_flat_offset<2, ND, I>(out_ix, 0, flat)] = cuarray_value_of<T, DESC>(kk);
                if (OUT_IDX) {
                    const V v = svals[i];
                    const I j0 = (len != n) ? (I)(v % (V)len) : (I)v;
                    out_idx[cuarray_flat_offset<2, ND, I>(out_ix, 1, flat)] = (long long)j0;
                }
            }
        } else {
            keys_out[q] = kk;
            if (HAS_V) vals_out[q] = svals[i];
        }
    }
}

// ---- searchsorted ----------------------------------------------------------------------------

// For each of the n values (flat index p through `ix`, operand 0; output operand 1), the
// first position i of the sorted array a[0 .. m) (stride sa) with key(a[i]) >= key(v)
// (left) or > key(v) (RIGHT), in key order (NaN last, -0.0 == +0.0), handed with the
// offsets and the value to `emit(off, v, i)`. Each block first loads up to S splitters
// a[j * step] (step the least power of two with m <= S step) into shared memory; every
// search narrows there to one gap between splitters and ends with log2(step) probes of
// global memory. Both levels are branch-free searches whose probe count depends on m
// only, so each thread runs U searches in lockstep with their loads in flight together.
template <typename T, int ND, typename I, bool RIGHT, class Emit>
__device__ __forceinline__ void cuarray_search_each(const T* __restrict__ a, I m, I sa, const T* __restrict__ v,
                                                    const Indexer<2, ND, I>& ix, I n, Emit emit) {
    typedef typename cuarray_sort_key<T>::K K;
    constexpr int S = sizeof(K) <= 4 ? 8192 : 4096;  // 32 KB
    constexpr int U = 4;
    __shared__ K sp[S];
    I step = 1;
    while ((long long)step * S < (long long)m) step <<= 1;
    const int ns = (int)((m + step - 1) / step);  // splitters used (<= S)
    for (int j = threadIdx.x; j < ns; j += blockDim.x) sp[j] = cuarray_key_of<T, true, false>(a[(I)j * step * sa]);
    __syncthreads();
    auto below = [](K km, K key) { return RIGHT ? (km <= key) : (km < key); };
    const I stride = (I)gridDim.x * (I)blockDim.x;
    for (I p0 = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; p0 < n; p0 += U * stride) {
        I off[U][2];
        T val[U];
        K key[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const I p = p0 + (I)u * stride;
            off[u][0] = off[u][1] = 0;
            val[u] = T();
            if (p < n) {
                cuarray_flat_offsets<2, ND, I>(ix, p, off[u]);
                val[u] = v[off[u][0]];
            }
            key[u] = cuarray_key_of<T, true, false>(val[u]);
        }
        // J: the splitters below the value (the answer lies in ((J - 1) step, J step]).
        int j[U];
#pragma unroll
        for (int u = 0; u < U; ++u) j[u] = 0;
        if (ns > 0) {
            for (int len = ns; len > 1;) {
                const int half = len >> 1;
#pragma unroll
                for (int u = 0; u < U; ++u) j[u] += below(sp[j[u] + half], key[u]) ? half : 0;
                len -= half;
            }
#pragma unroll
            for (int u = 0; u < U; ++u) j[u] += below(sp[j[u]], key[u]) ? 1 : 0;
        }
        // The gap after splitter J - 1: step - 1 elements, clipped at m (J = 0: the answer is 0).
        I lo[U];
#pragma unroll
        for (int u = 0; u < U; ++u) lo[u] = j[u] > 0 ? (I)(j[u] - 1) * step + 1 : (I)0;
        auto probe = [&](int u, I q) {
            return j[u] > 0 && q < m && below(cuarray_key_of<T, true, false>(a[q * sa]), key[u]);
        };
        if (step > 1) {
            for (I len = step - 1; len > 1;) {
                const I half = len >> 1;
#pragma unroll
                for (int u = 0; u < U; ++u) lo[u] += probe(u, lo[u] + half) ? half : (I)0;
                len -= half;
            }
#pragma unroll
            for (int u = 0; u < U; ++u) lo[u] += probe(u, lo[u]) ? (I)1 : (I)0;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (p0 + (I)u * stride < n) emit(off[u], val[u], lo[u]);
        }
    }
}

// searchsorted: the position of each value into the i64 `out` (operand 1).
template <typename T, int ND, typename I, bool RIGHT>
__device__ __forceinline__ void search_sorted(const T* __restrict__ a, I m, I sa, const T* __restrict__ v,
                                              long long* __restrict__ out, const Indexer<2, ND, I>& ix, I n) {
    cuarray_search_each<T, ND, I, RIGHT>(a, m, sa, v, ix, n,
                                         [&](const I* off, T, I pos) { out[off[1]] = (long long)pos; });
}

// NumPy's interp: the value at each x (operand 0) of the piecewise-linear function through
// (xp[i * sxp], fp[i * sfp]), i < m (xp increasing), into `out` (operand 1), in double:
// NaN for NaN, `left` (has_left, else fp[0]) below xp[0], `right` (has_right, else
// fp[m - 1]) above xp[m - 1] (fp[m - 1] at it), NumPy's slope rules in between. One pass:
// the position of x among xp (searchsorted right) and the two neighbouring points.
template <typename T, int ND, typename I>
__device__ __forceinline__ void interp_sorted(const T* __restrict__ xp, I m, I sxp, const T* __restrict__ fp, I sfp,
                                              const T* __restrict__ v, T* __restrict__ out,
                                              const Indexer<2, ND, I>& ix, I n, int has_left, int has_right,
                                              double left, double right) {
    cuarray_search_each<T, ND, I, true>(xp, m, sxp, v, ix, n, [&](const I* off, T val, I pos) {
        const double x = double(val);
        const I lo = pos > 0 ? pos - 1 : (I)0, hi = pos < m ? pos : m - 1;
        const double x0 = double(xp[lo * sxp]), f0 = double(fp[lo * sfp]);
        double r;
        if (x != x) {
            r = x;
        } else if (pos == 0) {
            r = has_left ? left : f0;
        } else if (pos == m) {
            r = (x == x0) ? f0 : (has_right ? right : f0);
        } else {
            const double x1 = double(xp[hi * sxp]), f1 = double(fp[hi * sfp]);
            const double slope = (f1 - f0) / (x1 - x0);
            r = slope * (x - x0) + f0;
            if (r != r) {
                r = slope * (x - x1) + f1;
                if (r != r && f0 == f1) r = f0;
            }
        }
        out[off[1]] = T(r);
    });
}

// ---- top-k by radix selection -------------------------------------------------------------
// For one long row of n elements (flat index p through `ix`), with keys in the order of the
// result (DESC: largest first) so that smaller keys are better: the key T of the k-th best
// element is found digit by digit, most significant first (topk_hist, one launch per digit:
// each block derives the digits chosen so far from the earlier histograms, then counts the
// next digit of the elements that match them); then topk_count counts, per tile, the
// elements better than T and those equal to T, and topk_write writes, from the inclusive
// sums of those counts, the better elements in index order followed by the first `kk` ties
// in index order: k candidates whose stable sort by key is the answer. The write pass runs
// only the tiles that hold candidates, each summing the counts of the tiles before it.

// The selection after `done` digits: the key prefix (and mask) of the k-th best element and
// how many of the elements with that prefix are still wanted (kk). Every thread of the block
// calls it; the result is valid in all threads.
template <typename K, int THREADS>
__device__ __forceinline__ void cuarray_topk_state(const unsigned long long* __restrict__ hist, int done, long long k,
                                                   K& prefix, K& mask, long long& kk) {
    __shared__ unsigned long long wsum[THREADS / 32];
    __shared__ unsigned long long s_take;
    __shared__ unsigned int s_digit;
    constexpr int KB = (int)sizeof(K);
    const int t = threadIdx.x;
    prefix = 0;
    mask = 0;
    kk = k;
    for (int q = 0; q < done; ++q) {
        const unsigned long long c = t < 256 ? hist[q * 256 + t] : 0ull;
        unsigned long long all;
        const unsigned long long before = cuarray_group_excl_sum<THREADS, unsigned long long>(c, wsum, all);
        if (t < 256 && before < (unsigned long long)kk && before + c >= (unsigned long long)kk) {
            s_digit = (unsigned int)t;
            s_take = before;
        }
        __syncthreads();
        const int shift = 8 * (KB - 1 - q);
        prefix |= (K)((K)s_digit << shift);
        mask |= (K)((K)0xff << shift);
        kk -= (long long)s_take;
        __syncthreads();
    }
}

template <typename T, int ND, typename I, bool DESC>
__device__ __forceinline__ void topk_hist(const T* __restrict__ in, const Indexer<1, ND, I>& ix, I n, long long k,
                                          int pass, unsigned long long* __restrict__ hist) {
    typedef typename cuarray_sort_key<T>::K K;
    constexpr int KB = (int)sizeof(K);
    __shared__ unsigned int sh[256];
    K prefix, mask;
    long long kk;
    cuarray_topk_state<K, 256>(hist, pass, k, prefix, mask, kk);
    for (int i = threadIdx.x; i < 256; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    const int shift = 8 * (KB - 1 - pass);
    cuarray_grid_keys<T, true, DESC>(in, ix, n, [&](K key) {
        if ((K)(key & mask) == prefix) atomicAdd(&sh[(unsigned int)(key >> shift) & 0xffu], 1u);
    });
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        if (sh[i]) atomicAdd(&hist[pass * 256 + i], (unsigned long long)sh[i]);
    }
}

// Tiles of 256 x IPT elements, warp-striped; counts[tile] (better), counts[tiles + tile] (ties).
template <typename T, int IPT, int ND, typename I, bool DESC, bool WRITE>
__device__ __forceinline__ void topk_select(const T* __restrict__ in, const Indexer<1, ND, I>& ix, I n, long long k,
                                            const unsigned long long* __restrict__ hist,
                                            unsigned int* __restrict__ counts, I tiles,
                                            T* __restrict__ cand, long long* __restrict__ cand_idx) {
    typedef typename cuarray_sort_key<T>::K K;
    constexpr int THREADS = 256, TILE = THREADS * IPT, KB = (int)sizeof(K);
    __shared__ unsigned int wb[THREADS / 32], wt[THREADS / 32];
    const I tile = (I)blockIdx.x;
    // The write pass reads only the tiles that hold candidates (at most k of them): the
    // count pass left how many each has. The test is the same in every thread of the
    // block, so the whole block leaves before its first barrier.
    if (WRITE && counts[tile] == 0u && counts[tiles + tile] == 0u) return;
    K thr, mask;
    long long kk;
    cuarray_topk_state<K, THREADS>(hist, KB, k, thr, mask, kk);
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const I base = tile * TILE;
    unsigned int better = 0, ties = 0;
    T v[IPT];
#pragma unroll
    for (int k2 = 0; k2 < IPT; ++k2) {
        const I p = base + (I)(warp * 32 * IPT + k2 * 32 + lane);
        if (p < n) {
            v[k2] = in[cuarray_flat_offset<1, ND, I>(ix, 0, p)];
            const K key = cuarray_key_of<T, true, DESC>(v[k2]);
            if (key < thr) better |= 1u << k2;
            else if (key == thr) ties |= 1u << k2;
        }
    }
    unsigned int cb = 0, ct = 0;
#pragma unroll
    for (int k2 = 0; k2 < IPT; ++k2) {
        cb += __popc(__ballot_sync(0xffffffffu, (better >> k2) & 1u));
        ct += __popc(__ballot_sync(0xffffffffu, (ties >> k2) & 1u));
    }
    if (lane == 0) {
        wb[warp] = cb;
        wt[warp] = ct;
    }
    __syncthreads();
    unsigned int bb = 0, bt = 0, tb = 0, tt = 0;
#pragma unroll
    for (int w = 0; w < THREADS / 32; ++w) {
        if (w < warp) {
            bb += wb[w];
            bt += wt[w];
        }
        tb += wb[w];
        tt += wt[w];
    }
    if (!WRITE) {
        if (t == 0) {
            counts[tile] = tb;
            counts[tiles + tile] = tt;
        }
        return;
    }
    const long long nb = k - kk;  // better elements in all
    // The tile's first positions: the counts of the tiles before it, summed by the block
    // (only the tiles that hold candidates get here, at most k of them).
    __shared__ unsigned long long wsum[THREADS / 32];
    unsigned long long sb = 0, st = 0;
    for (I q = (I)t; q < tile; q += (I)THREADS) {
        sb += counts[q];
        st += counts[tiles + q];
    }
    unsigned long long before_b, before_t;
    cuarray_group_excl_sum<THREADS, unsigned long long>(sb, wsum, before_b);
    cuarray_group_excl_sum<THREADS, unsigned long long>(st, wsum, before_t);
    long long rb = (long long)before_b + bb;
    long long rt = (long long)before_t + bt;
    const unsigned int below = (1u << lane) - 1u;
#pragma unroll
    for (int k2 = 0; k2 < IPT; ++k2) {
        const I p = base + (I)(warp * 32 * IPT + k2 * 32 + lane);
        const unsigned int mb = __ballot_sync(0xffffffffu, (better >> k2) & 1u);
        const unsigned int mt = __ballot_sync(0xffffffffu, (ties >> k2) & 1u);
        if ((better >> k2) & 1u) {
            const long long at = rb + __popc(mb & below);
            cand[at] = v[k2];
            cand_idx[at] = (long long)p;
        } else if ((ties >> k2) & 1u) {
            const long long r = rt + __popc(mt & below);
            if (r < kk) {
                cand[nb + r] = v[k2];
                cand_idx[nb + r] = (long long)p;
            }
        }
        rb += __popc(mb);
        rt += __popc(mt);
    }
}
