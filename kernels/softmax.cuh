// cuarray softmax.cuh: softmax, log_softmax and logsumexp along contiguous rows, each row
// read once. Conventions: see kernels/README.md; ops.cuh and special.cuh come first.
//   softmax_rows<B, G, ITEMS, MODE, VEC>: a group of G threads (G = 32: a warp; G = B: the whole
//   block) holds one row of `len` elements, ITEMS a thread (len <= G * ITEMS), in registers
//   in the work type W: the row's maximum (NaN propagates), then the sum of exp(x - shift),
//   then the outputs. MODE 0: softmax, exp(x - m) / s; 1: log_softmax, (x - m') - ln s
//   with m' the maximum, 0 where it is not finite; 2: logsumexp, one value a row.
// Launch: 1-D grid of B-thread blocks, any size (grid-stride loop over rows).

template <typename W> __device__ __forceinline__ W cuarray_sm_max(W a, W b) {
    return (a != a) ? a : (b != b) ? b : (a > b ? a : b);
}

// The reduction of `v` over the thread's group (op: 0 max, 1 sum); `red` holds B / 32
// values in shared memory (only G = B uses it).
template <int B, int G, int OP, typename W> __device__ __forceinline__ W cuarray_sm_group(W v, W* red) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        const W o = __shfl_xor_sync(0xffffffffu, v, d);
        v = OP == 0 ? cuarray_sm_max(v, o) : v + o;
    }
    if (G == 32) return v;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();  // the previous reduction's readers are done with `red`
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = red[0];
#pragma unroll
    for (int w = 1; w < B / 32; ++w) v = OP == 0 ? cuarray_sm_max(v, red[w]) : v + red[w];
    return v;
}

template <int B, int G, int ITEMS, int MODE, int VEC, typename W, typename T, typename O>
__device__ __forceinline__ void softmax_rows(const T* __restrict__ x, O* __restrict__ out, long long rows, int len) {
    // VEC > 1: each thread's elements come in vectors of VEC consecutive ones (one 16-byte
    // access at most), thread t holding vectors t, t + G, ...; len is a multiple of VEC
    // and the rows are aligned to a vector. VEC = 1: elements t, t + G, ...
    constexpr int NV = ITEMS / VEC;
    __shared__ W red[B / 32];
    const int per_block = B / G;
    const int t = threadIdx.x % G;
    const long long stride = (long long)gridDim.x * per_block;
    const W ninf = -W(CUARRAY_SP_INF);
    for (long long row = (long long)blockIdx.x * per_block + threadIdx.x / G; row < rows; row += stride) {
        const T* xr = x + row * (long long)len;
        W v[ITEMS];
        W m = ninf;
#pragma unroll
        for (int i = 0; i < NV; ++i) {
            const int j = (t + i * G) * VEC;
            if constexpr (VEC > 1) {
                cuarray_vec<T, VEC> q;
                if (j < len) q = cuarray_ld_once<cuarray_vec<T, VEC>>(xr + j);
#pragma unroll
                for (int c = 0; c < VEC; ++c) v[i * VEC + c] = j < len ? W(cuarray_up(q.v[c])) : ninf;
            } else {
                v[i] = j < len ? W(cuarray_up(xr[j])) : ninf;
            }
        }
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) m = cuarray_sm_max(m, v[i]);
        m = cuarray_sm_group<B, G, 0>(m, red);
        const W shift = (MODE == 1 && !cuarray_m_isfinite(m)) ? W(0) : m;
        W s = W(0);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if ((t + (i / VEC) * G) * VEC + i % VEC < len) s += cuarray_m_exp(v[i] - shift);
        s = cuarray_sm_group<B, G, 1>(s, red);
        if (MODE == 2) {
            if (t == 0) out[row] = O(cuarray_special_lse_finish(cuarray_m_log(s), m));
        } else {
            O* orow = out + row * (long long)len;
            const W ls = MODE == 1 ? cuarray_m_log(s) : W(0);
#pragma unroll
            for (int i = 0; i < NV; ++i) {
                const int j = (t + i * G) * VEC;
                if (j < len) {
                    cuarray_vec<O, VEC> q;
#pragma unroll
                    for (int c = 0; c < VEC; ++c) {
                        const W a = v[i * VEC + c];
                        q.v[c] = MODE == 0 ? O(cuarray_m_exp(a - m) / s) : O((a - shift) - ls);
                    }
                    *reinterpret_cast<cuarray_vec<O, VEC>*>(orow + j) = q;
                }
            }
        }
    }
}
