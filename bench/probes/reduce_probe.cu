// Stand-alone sweeps behind docs/design/reduce.md and elementwise.md: row sums, whole-array sums,
// argmax, gemv, add with a transposed operand. nvcc -O3 -arch=sm_90 -lcublas.
#include "probe.h"
#include <cublas_v2.h>
#include <cub/cub.cuh>

__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) b[i] = a[i];
}

__device__ __forceinline__ float warp_sum(float a) { for (int d = 16; d; d >>= 1) a += __shfl_down_sync(~0u, a, d); return a; }
template <int T> __device__ __forceinline__ float block_sum(float a) {
  __shared__ float s[32]; a = warp_sum(a);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = a; __syncthreads();
  if (threadIdx.x < 32) { a = threadIdx.x < T / 32 ? s[threadIdx.x] : 0.f; a = warp_sum(a); } __syncthreads(); return a;
}

// Row sums: a block of T threads per row (grid-stride over rows), U float4 loads in flight.
template <int T, int U>
__global__ void __launch_bounds__(T) rowsum(const float* __restrict__ x, float* __restrict__ y, long rows, long cols) {
  for (long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float4* p = reinterpret_cast<const float4*>(x + r * cols);
    const long nv = cols / 4; float acc[U];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] = 0.f;
    long j = threadIdx.x;
    for (; j + (U - 1) * T < nv; j += U * T) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = p[j + u * T];
#pragma unroll
      for (int u = 0; u < U; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; j < nv; j += T) { float4 v = p[j]; acc[0] += (v.x + v.y) + (v.z + v.w); }
    float a = 0.f;
#pragma unroll
    for (int u = 0; u < U; ++u) a += acc[u];
    a = block_sum<T>(a);
    if (threadIdx.x == 0) y[r] = a;
  }
}
// gemv A@v as a row reduction (v read through the cache).
template <int T, int U>
__global__ void __launch_bounds__(T) rowdot(const float* __restrict__ x, const float* __restrict__ v0, float* __restrict__ y, long rows, long cols) {
  const float4* v4 = reinterpret_cast<const float4*>(v0);
  for (long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float4* p = reinterpret_cast<const float4*>(x + r * cols);
    const long nv = cols / 4; float acc[U];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] = 0.f;
    long j = threadIdx.x;
    for (; j + (U - 1) * T < nv; j += U * T) {
      float4 v[U], w[U];
#pragma unroll
      for (int u = 0; u < U; ++u) { v[u] = p[j + u * T]; w[u] = __ldg(v4 + j + u * T); }
#pragma unroll
      for (int u = 0; u < U; ++u) acc[u] += (v[u].x * w[u].x + v[u].y * w[u].y) + (v[u].z * w[u].z + v[u].w * w[u].w);
    }
    for (; j < nv; j += T) { float4 v = p[j], w = v4[j]; acc[0] += (v.x * w.x + v.y * w.y) + (v.z * w.z + v.w * w.w); }
    float a = 0.f;
#pragma unroll
    for (int u = 0; u < U; ++u) a += acc[u];
    a = block_sum<T>(a);
    if (threadIdx.x == 0) y[r] = a;
  }
}
// v@A: columns; each thread owns 4 adjacent outputs over a chunk of rows (split S), atomics to finish.
template <int S>
__global__ void coldot(const float* __restrict__ x, const float* __restrict__ v, float* __restrict__ y, long rows, long cols) {
  const long groups = cols / 4; const long chunk = (rows + S - 1) / S;
  for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < groups * S; t += (long)gridDim.x * blockDim.x) {
    const long s = t / groups, g = t - s * groups; const long r0 = s * chunk, r1 = min(rows, r0 + chunk);
    float4 a = make_float4(0, 0, 0, 0), b = a;
    long r = r0;
    for (; r + 1 < r1; r += 2) {
      float4 p = reinterpret_cast<const float4*>(x + r * cols)[g], q = reinterpret_cast<const float4*>(x + (r + 1) * cols)[g];
      float w = __ldg(v + r), w2 = __ldg(v + r + 1);
      a.x += p.x * w; a.y += p.y * w; a.z += p.z * w; a.w += p.w * w;
      b.x += q.x * w2; b.y += q.y * w2; b.z += q.z * w2; b.w += q.w * w2;
    }
    if (r < r1) { float4 p = reinterpret_cast<const float4*>(x + r * cols)[g]; float w = v[r]; a.x += p.x * w; a.y += p.y * w; a.z += p.z * w; a.w += p.w * w; }
    atomicAdd(y + 4 * g, a.x + b.x); atomicAdd(y + 4 * g + 1, a.y + b.y); atomicAdd(y + 4 * g + 2, a.z + b.z); atomicAdd(y + 4 * g + 3, a.w + b.w);
  }
}

// Whole-array sum in one launch: G blocks, U float4 loads in flight per thread, last block finishes.
template <int T, int U>
__global__ void __launch_bounds__(T) sum1(const float* __restrict__ x, float* part, unsigned* sem, float* out, long n) {
  const float4* p = reinterpret_cast<const float4*>(x);
  const long nv = n / 4; float acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = 0.f;
  const long stride = (long)gridDim.x * T;
  long j = blockIdx.x * (long)T + threadIdx.x;
  for (; j + (U - 1) * stride < nv; j += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = p[j + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  for (; j < nv; j += stride) { float4 v = p[j]; acc[0] += (v.x + v.y) + (v.z + v.w); }
  float a = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) a += acc[u];
  a = block_sum<T>(a);
  __shared__ bool last;
  if (threadIdx.x == 0) { part[blockIdx.x] = a; __threadfence(); last = atomicAdd(sem, 1u) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  __threadfence();
  float b = 0.f;
  for (int i = threadIdx.x; i < gridDim.x; i += T) b += __ldcg(part + i);
  b = block_sum<T>(b);
  if (threadIdx.x == 0) { *out = b; *sem = 0; }
}
// Same, contiguous chunks per block (the library's layout: tiles split, split+splits...).
template <int T, int U>
__global__ void __launch_bounds__(T) sum1c(const float* __restrict__ x, float* part, unsigned* sem, float* out, long n) {
  const float4* p = reinterpret_cast<const float4*>(x);
  const long nv = n / 4; const long tile = (long)U * T; const long ntiles = nv / tile;
  float acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = 0.f;
  for (long t = blockIdx.x; t < ntiles; t += gridDim.x) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = p[t * tile + u * T + threadIdx.x];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  float a = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) a += acc[u];
  a = block_sum<T>(a);
  __shared__ bool last;
  if (threadIdx.x == 0) { part[blockIdx.x] = a; __threadfence(); last = atomicAdd(sem, 1u) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  __threadfence();
  float b = 0.f;
  for (int i = threadIdx.x; i < gridDim.x; i += T) b += __ldcg(part + i);
  b = block_sum<T>(b);
  if (threadIdx.x == 0) { *out = b; *sem = 0; }
}

// argmax, grid-stride, U float4 in flight; NaN handling as the library (first NaN wins).
struct AM { float v; long long i; };
__device__ __forceinline__ AM amc(AM a, AM b) {
  const bool an = a.v != a.v, bn = b.v != b.v; bool tb;
  if (an || bn) tb = bn && (!an || b.i < a.i); else tb = b.v > a.v || (b.v == a.v && b.i < a.i);
  return tb ? b : a;
}
template <int T, int U>
__global__ void __launch_bounds__(T) argmax1(const float* __restrict__ x, AM* part, unsigned* sem, AM* out, long n) {
  const float4* p = reinterpret_cast<const float4*>(x);
  const long nv = n / 4; const long stride = (long)gridDim.x * T;
  AM a = {-INFINITY, 0x7fffffffffffffffLL};
  long j = blockIdx.x * (long)T + threadIdx.x;
  for (; j + (U - 1) * stride < nv; j += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = p[j + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long b = 4 * (j + u * stride);
      a = amc(a, {v[u].x, b}); a = amc(a, {v[u].y, b + 1}); a = amc(a, {v[u].z, b + 2}); a = amc(a, {v[u].w, b + 3});
    }
  }
  for (; j < nv; j += stride) { float4 v = p[j]; const long long b = 4 * j; a = amc(a, {v.x, b}); a = amc(a, {v.y, b + 1}); a = amc(a, {v.z, b + 2}); a = amc(a, {v.w, b + 3}); }
  for (int d = 16; d; d >>= 1) { AM o; o.v = __shfl_down_sync(~0u, a.v, d); o.i = __shfl_down_sync(~0u, a.i, d); a = amc(a, o); }
  __shared__ AM s[32]; __shared__ bool last;
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = a; __syncthreads();
  if (threadIdx.x == 0) { for (int w = 1; w < T / 32; ++w) a = amc(a, s[w]); part[blockIdx.x] = a; __threadfence(); last = atomicAdd(sem, 1u) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  if (threadIdx.x == 0) { __threadfence(); AM b = part[0]; for (int i = 1; i < gridDim.x; ++i) { AM c; c.v = __ldcg(&part[i].v); c.i = __ldcg(&part[i].i); b = amc(b, c); } *out = b; *sem = 0; }
}
// argmax with a cheaper inner loop: per-thread max value + index of the first max, compared only when greater.
template <int T, int U>
__global__ void __launch_bounds__(T) argmax2(const float* __restrict__ x, AM* part, unsigned* sem, AM* out, long n) {
  const float4* p = reinterpret_cast<const float4*>(x);
  const long nv = n / 4; const long stride = (long)gridDim.x * T;
  float best = -INFINITY; long long bi = 0x7fffffffffffffffLL; bool nan = false;
  long j = blockIdx.x * (long)T + threadIdx.x;
  for (; j < nv; j += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = (j + u * stride < nv) ? p[j + u * stride] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long b = 4 * (j + u * stride);
      float e[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (!nan && (e[k] > best || e[k] != e[k])) { nan = e[k] != e[k]; best = e[k]; bi = b + k; }
      }
    }
  }
  AM a = {best, bi};
  if (bi == 0x7fffffffffffffffLL) a.v = -INFINITY;
  for (int d = 16; d; d >>= 1) { AM o; o.v = __shfl_down_sync(~0u, a.v, d); o.i = __shfl_down_sync(~0u, a.i, d); a = amc(a, o); }
  __shared__ AM s[32]; __shared__ bool last;
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = a; __syncthreads();
  if (threadIdx.x == 0) { for (int w = 1; w < T / 32; ++w) a = amc(a, s[w]); part[blockIdx.x] = a; __threadfence(); last = atomicAdd(sem, 1u) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  if (threadIdx.x == 0) { __threadfence(); AM b = part[0]; for (int i = 1; i < gridDim.x; ++i) { AM c; c.v = __ldcg(&part[i].v); c.i = __ldcg(&part[i].i); b = amc(b, c); } *out = b; *sem = 0; }
}

// out = a + b^T (8192^2): TILE x TILE tiles through shared memory, 256 threads as 8 x 32.
// YC: row loop trip count known at compile time (unrolled); V: columns per lane in the body (1 or 2).
template <int TILE, bool YC, int V>
__global__ void __launch_bounds__(256) tadd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ o, int n) {
  __shared__ float s[TILE][TILE + 1];
  const int x0 = threadIdx.x & 31, y0 = threadIdx.x >> 5;
  const int ystep = YC ? 8 : (blockDim.x >> 5);
  const int tiles_c = n / TILE, tiles = tiles_c * tiles_c;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int r0 = (t / tiles_c) * TILE, c0 = (t % tiles_c) * TILE;
    if (YC) {
#pragma unroll
      for (int y = y0; y < TILE; y += 8)
#pragma unroll
        for (int x = x0; x < TILE; x += 32) s[y][x] = b[(long)(c0 + y) * n + r0 + x];
    } else {
      for (int y = y0; y < TILE; y += ystep)
#pragma unroll
        for (int x = x0; x < TILE; x += 32) s[y][x] = b[(long)(c0 + y) * n + r0 + x];
    }
    __syncthreads();
    if (V == 2) {
#pragma unroll
      for (int y = y0; y < TILE; y += 8) {
        const int x = 2 * x0; const long at = (long)(r0 + y) * n + c0 + x;
        float2 va = *reinterpret_cast<const float2*>(a + at);
        float2 r = make_float2(va.x + s[x][y], va.y + s[x + 1][y]);
        *reinterpret_cast<float2*>(o + at) = r;
      }
    } else if (YC) {
#pragma unroll
      for (int y = y0; y < TILE; y += 8)
#pragma unroll
        for (int x = x0; x < TILE; x += 32) { const long at = (long)(r0 + y) * n + c0 + x; o[at] = a[at] + s[x][y]; }
    } else {
      for (int y = y0; y < TILE; y += ystep)
#pragma unroll
        for (int x = x0; x < TILE; x += 32) { const long at = (long)(r0 + y) * n + c0 + x; o[at] = a[at] + s[x][y]; }
    }
    __syncthreads();
  }
}

int main() {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const long N28 = 1L << 28;
  float *x, *y, *part; unsigned* sem; AM* apart; AM* aout;
  CK(cudaMalloc(&x, N28 * 4)); CK(cudaMalloc(&y, N28 * 4)); CK(cudaMalloc(&part, 1 << 20)); CK(cudaMalloc(&sem, 64)); CK(cudaMemset(sem, 0, 64));
  CK(cudaMalloc(&apart, 1 << 22)); CK(cudaMalloc(&aout, 64));
  { std::vector<float> h(N28); srand(1); for (long i = 0; i < N28; ++i) h[i] = (float)rand() / RAND_MAX - 0.5f; CK(cudaMemcpy(x, h.data(), N28 * 4, cudaMemcpyHostToDevice)); }
  auto occ = [&](const void* k, int T) { int b; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, T, 0); return b * sms; };
  report("copy f32 2^28 (ceiling)", 8.0 * N28, time_us([&] { copy4<<<occ((void*)copy4, 256), 256>>>((float4*)x, (float4*)y, N28 / 4); }));
  // ---- row sums 16384^2
  const long R = 16384;
  auto rows = [&](const char* nm, auto k, int T) {
    for (int g : {132, 264, 528, 1056, 16384}) { char b[96]; snprintf(b, 96, "%s grid %d", nm, g); report(b, 4.0 * R * R, time_us([&] { k<<<g, T>>>(x, y, R, R); })); }
  };
  rows("rowsum T256 U4", rowsum<256, 4>, 256); rows("rowsum T256 U8", rowsum<256, 8>, 256);
  rows("rowsum T512 U4", rowsum<512, 4>, 512); rows("rowsum T512 U8", rowsum<512, 8>, 512); rows("rowsum T1024 U4", rowsum<1024, 4>, 1024);
  {
    // CUB segmented reduce as a reference
    std::vector<int> offs(R + 1); for (long i = 0; i <= R; ++i) offs[i] = (int)(i * R);
    int* doff; CK(cudaMalloc(&doff, (R + 1) * 4)); CK(cudaMemcpy(doff, offs.data(), (R + 1) * 4, cudaMemcpyHostToDevice));
    void* tmp = nullptr; size_t tb = 0; cub::DeviceSegmentedReduce::Sum(tmp, tb, x, y, (int)R, doff, doff + 1); CK(cudaMalloc(&tmp, tb + 1));
    report("rowsum CUB segmented", 4.0 * R * R, time_us([&] { cub::DeviceSegmentedReduce::Sum(tmp, tb, x, y, (int)R, doff, doff + 1); }));
  }
  // ---- gemv 8192^2
  const long M = 8192; float* v = y + (1 << 27); float* yo = y + (1 << 26);
  cublasHandle_t h; cublasCreate(&h); const float one = 1, zero = 0;
  report("gemv A@v cublas (rowmajor=T)", 4.0 * M * M, time_us([&] { cublasSgemv(h, CUBLAS_OP_T, M, M, &one, x, M, v, 1, &zero, yo, 1); }));
  report("gemv v@A cublas (rowmajor=N)", 4.0 * M * M, time_us([&] { cublasSgemv(h, CUBLAS_OP_N, M, M, &one, x, M, v, 1, &zero, yo, 1); }));
  for (int g : {132, 264, 528, 1056, 8192}) {
    char b[96];
    snprintf(b, 96, "gemv A@v rowdot T256 U4 grid %d", g); report(b, 4.0 * M * M, time_us([&] { rowdot<256, 4><<<g, 256>>>(x, v, yo, M, M); }));
    snprintf(b, 96, "gemv A@v rowdot T512 U4 grid %d", g); report(b, 4.0 * M * M, time_us([&] { rowdot<512, 4><<<g, 512>>>(x, v, yo, M, M); }));
  }
  for (int s : {8, 16, 32}) {
    char b[96]; snprintf(b, 96, "gemv v@A coldot split %d (+memset)", s);
    report(b, 4.0 * M * M, time_us([&] {
      cudaMemsetAsync(yo, 0, M * 4);
      if (s == 8) coldot<8><<<occ((void*)coldot<8>, 256), 256>>>(x, v, yo, M, M);
      if (s == 16) coldot<16><<<occ((void*)coldot<16>, 256), 256>>>(x, v, yo, M, M);
      if (s == 32) coldot<32><<<occ((void*)coldot<32>, 256), 256>>>(x, v, yo, M, M);
    }));
  }
  // ---- whole sums at 2^24 and 2^28
  for (long n : {1L << 24, 1L << 28}) {
    char b[96];
    for (int bps : {1, 2, 4, 8}) {
      snprintf(b, 96, "sum1 2^%d T256 U4 %d/SM", n == (1L << 24) ? 24 : 28, bps); report(b, 4.0 * n, time_us([&] { sum1<256, 4><<<sms * bps, 256>>>(x, part, sem, part + 100000, n); }));
      snprintf(b, 96, "sum1 2^%d T256 U8 %d/SM", n == (1L << 24) ? 24 : 28, bps); report(b, 4.0 * n, time_us([&] { sum1<256, 8><<<sms * bps, 256>>>(x, part, sem, part + 100000, n); }));
      snprintf(b, 96, "sum1 2^%d T512 U4 %d/SM", n == (1L << 24) ? 24 : 28, bps); report(b, 4.0 * n, time_us([&] { sum1<512, 4><<<sms * bps, 512>>>(x, part, sem, part + 100000, n); }));
      snprintf(b, 96, "sum1c 2^%d T256 U4 %d/SM", n == (1L << 24) ? 24 : 28, bps); report(b, 4.0 * n, time_us([&] { sum1c<256, 4><<<sms * bps, 256>>>(x, part, sem, part + 100000, n); }));
      snprintf(b, 96, "sum1c 2^%d T256 U8 %d/SM", n == (1L << 24) ? 24 : 28, bps); report(b, 4.0 * n, time_us([&] { sum1c<256, 8><<<sms * bps, 256>>>(x, part, sem, part + 100000, n); }));
    }
    void* tmp = nullptr; size_t tb = 0; cub::DeviceReduce::Sum(tmp, tb, x, part, (int)n); CK(cudaMalloc(&tmp, tb + 1));
    snprintf(b, 96, "sum CUB 2^%d", n == (1L << 24) ? 24 : 28); report(b, 4.0 * n, time_us([&] { cub::DeviceReduce::Sum(tmp, tb, x, part, (int)n); }));
  }
  // ---- argmax 2^28
  for (int bps : {2, 4, 8, 16}) {
    char b[96];
    snprintf(b, 96, "argmax1 T256 U4 %d/SM", bps); report(b, 4.0 * N28, time_us([&] { argmax1<256, 4><<<sms * bps, 256>>>(x, apart, sem + 4, aout, N28); }));
    snprintf(b, 96, "argmax1 T256 U8 %d/SM", bps); report(b, 4.0 * N28, time_us([&] { argmax1<256, 8><<<sms * bps, 256>>>(x, apart, sem + 4, aout, N28); }));
    snprintf(b, 96, "argmax2 T256 U4 %d/SM", bps); report(b, 4.0 * N28, time_us([&] { argmax2<256, 4><<<sms * bps, 256>>>(x, apart, sem + 4, aout, N28); }));
    snprintf(b, 96, "argmax2 T256 U8 %d/SM", bps); report(b, 4.0 * N28, time_us([&] { argmax2<256, 8><<<sms * bps, 256>>>(x, apart, sem + 4, aout, N28); }));
  }
  {
    cub::KeyValuePair<int, float>* kv; CK(cudaMalloc(&kv, 64)); void* tmp = nullptr; size_t tb = 0;
    cub::DeviceReduce::ArgMax(tmp, tb, x, kv, (int)N28); CK(cudaMalloc(&tmp, tb + 1));
    report("argmax CUB (int offsets)", 4.0 * N28, time_us([&] { cub::DeviceReduce::ArgMax(tmp, tb, x, kv, (int)N28); }));
  }
  // ---- a + b^T 8192^2
  const int n = 8192; float* o = y + (1 << 26) + (1 << 25);
  auto tg = [&](const void* k) { return occ(k, 256); };
  report("tadd 64 runtime-y V1 (library today)", 12.0 * n * n, time_us([&] { tadd<64, false, 1><<<tg((void*)tadd<64, false, 1>), 256>>>(x, x + (1 << 26), o, n); }));
  report("tadd 64 unrolled-y V1", 12.0 * n * n, time_us([&] { tadd<64, true, 1><<<tg((void*)tadd<64, true, 1>), 256>>>(x, x + (1 << 26), o, n); }));
  report("tadd 64 unrolled-y V2", 12.0 * n * n, time_us([&] { tadd<64, true, 2><<<tg((void*)tadd<64, true, 2>), 256>>>(x, x + (1 << 26), o, n); }));
  report("tadd 32 unrolled-y V1", 12.0 * n * n, time_us([&] { tadd<32, true, 1><<<tg((void*)tadd<32, true, 1>), 256>>>(x, x + (1 << 26), o, n); }));
  report("tadd 64 unrolled-y V1 one tile/block", 12.0 * n * n, time_us([&] { tadd<64, true, 1><<<(n / 64) * (n / 64), 256>>>(x, x + (1 << 26), o, n); }));
  report("tadd 64 unrolled-y V2 one tile/block", 12.0 * n * n, time_us([&] { tadd<64, true, 2><<<(n / 64) * (n / 64), 256>>>(x, x + (1 << 26), o, n); }));
  report("add contiguous 8192^2 (copy4 of 3 streams ref)", 8.0 * n * n, time_us([&] { copy4<<<occ((void*)copy4, 256), 256>>>((float4*)x, (float4*)o, (long)n * n / 4); }));
  CK(cudaDeviceSynchronize());
  printf("done\n");
}
