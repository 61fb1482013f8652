// out = a + b^T, 8192^2 f32 (the comparison's `add_transposed_8192x8192`): the library's
// square 64 x 64 tiles against other tile shapes and tile orders. Each block takes tiles
// t = blockIdx.x, + gridDim.x, ... (grid from the occupancy), 256 threads as 8 x 32.
//   TR x TC      output tiles of TR rows and TC columns; b^T's tile is staged in shared
//                memory (b read along its rows, TR elements contiguous a row)
//   group G      tiles numbered down G tile-rows at a time (a G-tall band, column by column)
//                instead of along whole tile-rows, so that the tiles in flight together read
//                nearby addresses of b as well as of a and out
// nvcc -O3 -arch=sm_90 -o transpose_probe transpose_probe.cu
#include "probe.h"
#include <cuda_runtime.h>

template <int TR, int TC, int G>
__global__ void __launch_bounds__(256) tadd(const float* __restrict__ a, const float* __restrict__ b,
                                             float* __restrict__ o, int n) {
  __shared__ float s[TC][TR + 1];
  const int x0 = threadIdx.x & 31, y0 = threadIdx.x >> 5;
  const int tiles_r = n / TR, tiles_c = n / TC, tiles = tiles_r * tiles_c;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int tr, tc;
    if (G == 1) {
      tr = t / tiles_c; tc = t % tiles_c;
    } else {
      const int band = t / (G * tiles_c), in = t % (G * tiles_c);
      tr = band * G + in % G; tc = in / G;
    }
    const int r0 = tr * TR, c0 = tc * TC;
#pragma unroll
    for (int y = y0; y < TC; y += 8)
#pragma unroll
      for (int x = x0; x < TR; x += 32) s[y][x] = b[(long)(c0 + y) * n + r0 + x];
    __syncthreads();
#pragma unroll
    for (int y = y0; y < TR; y += 8)
#pragma unroll
      for (int x = x0; x < TC; x += 32) {
        const long at = (long)(r0 + y) * n + c0 + x;
        o[at] = a[at] + s[x][y];
      }
    __syncthreads();
  }
}

__global__ void copy4(const float4* __restrict__ x, float4* __restrict__ y, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) y[i] = x[i];
}

static int occ(const void* k, int threads) {
  int sms, per; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, threads, 0);
  return sms * per;
}

template <int TR, int TC, int G>
static void run(const float* a, const float* b, float* o, int n, const float* ref) {
  auto k = tadd<TR, TC, G>;
  const int grid = occ((const void*)k, 256);
  CK(cudaMemset(o, 0, (size_t)n * n * 4));
  const float us = time_us([&] { k<<<grid, 256>>>(a, b, o, n); });
  // check against the reference kernel's output
  std::vector<float> h1(4096), h2(4096);
  for (long at : {0L, (long)n * n / 2 + 77, (long)n * n - 4096}) {
    CK(cudaMemcpy(h1.data(), o + at, 4096 * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h2.data(), ref + at, 4096 * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4096; ++i) if (h1[i] != h2[i]) { printf("MISMATCH %d x %d group %d at %ld\n", TR, TC, G, at + i); exit(1); }
  }
  char name[96]; snprintf(name, sizeof name, "tadd %3d x %3d group %2d (grid %d)", TR, TC, G, grid);
  report(name, 12.0 * n * n, us);
}

int main() {
  const int n = 8192; const long nn = (long)n * n;
  float *a, *b, *o, *ref, *big, *big2;
  CK(cudaMalloc(&a, nn * 4)); CK(cudaMalloc(&b, nn * 4)); CK(cudaMalloc(&o, nn * 4)); CK(cudaMalloc(&ref, nn * 4));
  CK(cudaMalloc(&big, 4L << 28)); CK(cudaMalloc(&big2, 4L << 28));
  { std::vector<float> h(nn); for (long i = 0; i < nn; ++i) h[i] = (float)((i * 2654435761u) % 1000003) * 1e-3f;
    CK(cudaMemcpy(a, h.data(), nn * 4, cudaMemcpyHostToDevice));
    for (long i = 0; i < nn; ++i) h[i] = (float)((i * 40503u) % 999983) * 1e-3f;
    CK(cudaMemcpy(b, h.data(), nn * 4, cudaMemcpyHostToDevice)); }
  tadd<64, 64, 1><<<occ((const void*)tadd<64, 64, 1>, 256), 256>>>(a, b, ref, n);
  CK(cudaDeviceSynchronize());
  for (int round = 0; round < 2; ++round) {
    report("copy f32 2^28 (the ceiling)", 8.0 * (1L << 28), time_us([&] { copy4<<<occ((const void*)copy4, 256), 256>>>((const float4*)big, (float4*)big2, (1L << 28) / 4); }));
    run<64, 64, 1>(a, b, o, n, ref);
    run<64, 64, 4>(a, b, o, n, ref);
    run<64, 64, 8>(a, b, o, n, ref);
    run<64, 64, 16>(a, b, o, n, ref);
    run<32, 128, 1>(a, b, o, n, ref);
    run<32, 128, 8>(a, b, o, n, ref);
    run<64, 128, 1>(a, b, o, n, ref);
    run<64, 128, 8>(a, b, o, n, ref);
    run<128, 64, 1>(a, b, o, n, ref);
    run<128, 32, 1>(a, b, o, n, ref);
    run<32, 32, 1>(a, b, o, n, ref);
    run<32, 32, 16>(a, b, o, n, ref);
  }
  printf("done\n");
}
