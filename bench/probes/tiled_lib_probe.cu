// The library's tiled elementwise kernel for a + b^T (8192^2 f32, the comparison's
// `add_transposed_8192x8192`), as the library generates it (the source that the NVRTC tier
// writes to CUARRAY_DUMP_KERNELS), against the form before it: the row-major input read in
// the body after the barrier, with and without __restrict__ (docs/design/elementwise.md).
// nvcc -O3 -arch=sm_90 -I ../../kernels -o tiled_lib_probe tiled_lib_probe.cu
#include "common.cuh"
#include "ops.cuh"
#include "elementwise.cuh"
typedef float in0_t;
typedef float in1_t;
typedef float out0_t;

// The form before: the body reads row-major inputs itself, after the barrier.
template <int TILE, typename I, typename FIn, typename FBody>
__device__ __forceinline__ void tiled_body_loads(I rows, I cols, FIn stage_in, FBody body) {
    const int x0 = threadIdx.x & 31, y0 = threadIdx.x >> 5;
    const I tiles_c = (cols + TILE - 1) / TILE;
    const I tiles = ((rows + TILE - 1) / TILE) * tiles_c;
    for (I t = blockIdx.x; t < tiles; t += gridDim.x) {
        const I tr = t / tiles_c;
        const I r0 = tr * TILE, c0 = (t - tr * tiles_c) * TILE;
#pragma unroll
        for (int y = y0; y < TILE; y += 8)
#pragma unroll
            for (int x = x0; x < TILE; x += 32) {
                const I r = r0 + x, c = c0 + y;
                if (r < rows && c < cols) stage_in(x, y, r, c);
            }
        __syncthreads();
#pragma unroll
        for (int y = y0; y < TILE; y += 8)
#pragma unroll
            for (int x = x0; x < TILE; x += 32) {
                const I r = r0 + y, c = c0 + x;
                if (r < rows && c < cols) body(x, y, r, c);
            }
        __syncthreads();
    }
}

#define BODY_LOADS_KERNEL(NAME, RESTRICT)                                                       \
    extern "C" __global__ void __launch_bounds__(256) NAME(out0_t* RESTRICT p_out0,             \
        const in0_t* RESTRICT p_in0, const in1_t* RESTRICT p_in1, const Indexer<3, 2, int> ix) { \
        typedef int I;                                                                          \
        __shared__ in0_t t_in0[64][65];                                                         \
        tiled_body_loads<64, I>(ix.shape[0], ix.shape[1],                                       \
            [&](int x, int y, I r, I c) { t_in0[y][x] = p_in0[r * ix.strides[1][0] + c * ix.strides[1][1]]; }, \
            [&](int x, int y, I r, I c) {                                                       \
                const in1_t in1 = p_in1[r * ix.strides[2][0] + c * ix.strides[2][1]];           \
                p_out0[r * ix.strides[0][0] + c * ix.strides[0][1]] = cuarray_add(t_in0[x][y], in1); \
            });                                                                                 \
    }
BODY_LOADS_KERNEL(lib_plain, )
BODY_LOADS_KERNEL(lib_restrict, __restrict__)

// As the library generates it now (cuarray_ew_add_f32f32_f32_t2_i32).
extern "C" __global__ void __launch_bounds__(256) lib_prefetch(
    out0_t* __restrict__ p_out0,
    const in0_t* __restrict__ p_in0,
    const in1_t* __restrict__ p_in1,
    const Indexer<3, 2, int> ix) {
    typedef int I;
    __shared__ in0_t t_in0[64][65];
    in1_t f_in1[16];
    ew_tiled<false, 64, I>(ix.shape[0], ix.shape[1],
        [&](int x, int y, I r, I c) {
            t_in0[y][x] = p_in0[r * ix.strides[1][0] + c * ix.strides[1][1]];
        },
        [&](int s, I r, I c) {
            f_in1[s] = p_in1[r * ix.strides[2][0] + c * ix.strides[2][1]];
        },
        [&](int s, int x, int y, I r, I c) {
            const in0_t in0 = t_in0[x][y];
            const in1_t in1 = f_in1[s];
            p_out0[r * ix.strides[0][0] + c * ix.strides[0][1]] = cuarray_add(in0, in1);
        },
        [&](int x, int y, I r, I c) {
        });
}

#include "probe.h"
static int occ(const void* k) { int sms, per; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, 256, 0); return sms * per; }
int main() {
  const int n = 8192; const long nn = (long)n * n;
  float *a, *b, *o, *ref;
  CK(cudaMalloc(&a, nn * 4)); CK(cudaMalloc(&b, nn * 4)); CK(cudaMalloc(&o, nn * 4)); CK(cudaMalloc(&ref, nn * 4));
  { std::vector<float> h(nn); for (long i = 0; i < nn; ++i) h[i] = (float)((i * 2654435761u) % 1000003) * 1e-3f;
    CK(cudaMemcpy(a, h.data(), nn * 4, cudaMemcpyHostToDevice));
    for (long i = 0; i < nn; ++i) h[i] = (float)((i * 40503u) % 999983) * 1e-3f;
    CK(cudaMemcpy(b, h.data(), nn * 4, cudaMemcpyHostToDevice)); }
  // out = b^T + a: in0 is the transposed operand (staged), in1 the row-major one.
  Indexer<3, 2, int> ix; ix.size = n * n; ix.shape[0] = n; ix.shape[1] = n;
  ix.strides[0][0] = n; ix.strides[0][1] = 1; ix.strides[1][0] = 1; ix.strides[1][1] = n; ix.strides[2][0] = n; ix.strides[2][1] = 1;
  lib_plain<<<occ((const void*)lib_plain), 256>>>(ref, b, a, ix); CK(cudaDeviceSynchronize());
  struct K { const char* name; void (*f)(float*, const float*, const float*, Indexer<3, 2, int>); };
  K ks[] = {{"library kernel as generated", lib_plain}, {"with __restrict__", lib_restrict}, {"restrict + inputs fetched before the barrier", lib_prefetch}};
  for (int round = 0; round < 2; ++round)
    for (auto& k : ks) {
      CK(cudaMemset(o, 0, nn * 4));
      const int g = occ((const void*)k.f);
      float us = time_us([&] { k.f<<<g, 256>>>(o, b, a, ix); });
      std::vector<float> h1(4096), h2(4096);
      for (long at : {0L, nn / 2 + 77, nn - 4096}) {
        CK(cudaMemcpy(h1.data(), o + at, 4096 * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(h2.data(), ref + at, 4096 * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 4096; ++i) if (h1[i] != h2[i]) { printf("MISMATCH %s\n", k.name); return 1; }
      }
      char nm[96]; snprintf(nm, sizeof nm, "%s (grid %d)", k.name, g); report(nm, 12.0 * nn, us);
    }
  printf("done\n");
}
