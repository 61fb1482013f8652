// cuarray elementwise.cuh: the N-ary elementwise loop skeletons.
// Conventions: see kernels/README.md. Each generated wrapper passes a lambda that loads
// its inputs, runs the op body and stores its outputs at the offsets given.
//   ew_contiguous: every operand contiguous over n elements; the lambda gets index i.
//   ew_strided:    any layouts; the lambda gets i and one element offset per operand
//                  (outputs first, then inputs).
// Launch: 1-D grid of 1-D blocks, any size (grid-stride loops).

template <typename I, typename F>
__device__ __forceinline__ void ew_contiguous(I n, F f) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    // Four independent elements per thread per trip keep more loads in flight.
    for (; i + 3 * step < n; i += 4 * step) {
        f(i);
        f(i + step);
        f(i + 2 * step);
        f(i + 3 * step);
    }
    for (; i < n; i += step) f(i);
}

template <int NARG, int NDIM, typename I, typename F>
__device__ __forceinline__ void ew_strided(const Indexer<NARG, NDIM, I>& ix, F f) {
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < ix.size; i += step) {
        I off[NARG];
        cuarray_offsets<NARG, NDIM, I>(ix, i, off);
        f(i, off);
    }
}
