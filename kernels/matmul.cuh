// cuarray matmul.cuh: small matrix products, where a cuBLAS call costs more host time than
// the arithmetic takes on the GPU. Conventions: see kernels/README.md.
//   gemm_small: C[b][i][j] = sum_p A[b][i][p] * B[b][p][j] for `batch` products, every
//               operand at any strides (elements; a stride may be 0 or negative). One
//               thread per element of C, consecutive threads on consecutive columns j
//               (coalesced loads of B and stores of C, one broadcast load of A per step),
//               accumulating in Acc in the order p = 0, 1, ..., k - 1.
// Launch: 256 threads per block, grid-stride over batch * m * n.

// The sizes and strides, passed by value as one kernel argument.
struct GemmShape {
    long long batch, m, n, k;
    long long sab, sam, sak;  // A: between products, rows, columns
    long long sbb, sbk, sbn;  // B
    long long scb, scm, scn;  // C
};

template <typename I, typename Acc, typename T, typename TC>
__device__ __forceinline__ void gemm_small(const T* a, const T* b, TC* c, I batch, I m, I n, I k,
                                           I sab, I sam, I sak, I sbb, I sbk, I sbn, I scb, I scm,
                                           I scn) {
    const I total = batch * m * n;
    const I step = (I)gridDim.x * (I)blockDim.x;
    for (I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; t < total; t += step) {
        const I j = t % n;
        const I r = t / n;
        const I i = r % m;
        const I q = r / m;
        const T* pa = a + q * sab + i * sam;
        const T* pb = b + q * sbb + j * sbn;
        Acc acc = Acc(0);
        for (I p = 0; p < k; ++p) {
            acc += (Acc)cuarray_up(pa[p * sak]) * (Acc)cuarray_up(pb[p * sbk]);
        }
        c[q * scb + i * scm + j * scn] = TC(acc);
    }
}
