// Where the time of a mid-size whole-array sum goes (2^22 to 2^26 f32, the 2^24 row of docs/design/reduce.md):
// event-timed, as benches/compare.rs, each form in the same process.
//   empty       the launch alone: the same grid, no loads (the floor of an event-timed call)
//   read        each block sums its part and stores a partial; no combine (the loads alone)
//   sum1        read, then the last block to finish combines the partials (the library's form)
//   bulk        the same one-launch sum, but each block's part is moved into shared memory by
//               the copy engine of the multiprocessor (cp.async.bulk, STAGES chunks in flight)
//   CUB         cub::DeviceReduce::Sum (two launches)
// With an argument ("floor"): loads alone at 2^24 in more forms (U8, no L1 allocation,
// contiguous parts, 1024-thread blocks) and an empty one-block kernel.
// Two timings of each: `sync`, a wait for the GPU after each repetition (probe.h's time_us;
// the host's launch latency falls inside the events), and `queued`, the repetitions queued
// back to back with one wait at the end (Device::time, so the comparison's figures).
// nvcc -O3 -arch=sm_90 -o sum_mid_probe sum_mid_probe.cu
#include "probe.h"
#include <cub/cub.cuh>
#include <cstdint>

static float time_queued_us(std::function<void()> f, int reps = 30) {
  for (int i = 0; i < 5; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) cudaEventCreate(&e);
  for (int i = 0; i < reps; ++i) { cudaEventRecord(ev[2 * i]); f(); cudaEventRecord(ev[2 * i + 1]); }
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) { float ms; cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]); t.push_back(ms * 1000); }
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(t.begin(), t.end()); CK(cudaGetLastError()); return t[t.size() / 2];
}
// Both timings on one line.
static void report2(const char* name, double bytes, std::function<void()> f) {
  const float a = time_us(f), b = time_queued_us(f);
  printf("%-40s sync %8.2f us %7.1f GB/s   queued %8.2f us %7.1f GB/s\n", name, a, bytes / a / 1e3, b, bytes / b / 1e3);
}

__device__ __forceinline__ float warp_sum(float a) { for (int d = 16; d; d >>= 1) a += __shfl_down_sync(~0u, a, d); return a; }
template <int T> __device__ __forceinline__ float block_sum(float a) {
  __shared__ float s[32]; a = warp_sum(a);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = a; __syncthreads();
  if (threadIdx.x < 32) { a = threadIdx.x < T / 32 ? s[threadIdx.x] : 0.f; a = warp_sum(a); } __syncthreads(); return a;
}
// The last block to arrive combines the G partials.
template <int T> __device__ __forceinline__ void finish(float a, float* part, unsigned* sem, float* out) {
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

__global__ void empty(const float* x, float* part) { if (x == nullptr) part[blockIdx.x] = 0.f; }

// Grid-stride float4 loads, U in flight a thread; TAIL: combine in the launch.
template <int T, int U, bool TAIL>
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
  if (TAIL) finish<T>(a, part, sem, out);
  else if (threadIdx.x == 0) part[blockIdx.x] = a;
}

// ---- bulk copies into shared memory (sm_90)
__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(b)), "r"(count));
}
__device__ __forceinline__ void mbar_expect(uint64_t* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, unsigned phase) {
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(smem_addr(b)), "r"(phase) : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(b)) : "memory");
}

// Each block sums a contiguous part of CHUNK-byte chunks (n a multiple of CHUNK / 4 here),
// STAGES chunks in flight, moved by the bulk copy engine; thread 0 issues.
template <int T, int CHUNK, int STAGES>
__global__ void __launch_bounds__(T) bulk_sum(const float* __restrict__ x, float* part, unsigned* sem, float* out, long n) {
  extern __shared__ __align__(128) unsigned char sm[];
  __shared__ uint64_t bar[STAGES];
  const long chunks = n * 4 / CHUNK;
  const long per = (chunks + gridDim.x - 1) / gridDim.x;
  const long c0 = blockIdx.x * per, c1 = min(chunks, c0 + per);
  const long mine = c1 > c0 ? c1 - c0 : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) mbar_init(&bar[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < STAGES && s < mine; ++s) {
      mbar_expect(&bar[s], CHUNK);
      bulk_load(sm + s * CHUNK, reinterpret_cast<const char*>(x) + (c0 + s) * (long)CHUNK, CHUNK, &bar[s]);
    }
  float acc = 0.f, acc2 = 0.f;
  for (long i = 0; i < mine; ++i) {
    const int s = (int)(i % STAGES);
    mbar_wait(&bar[s], (unsigned)((i / STAGES) & 1));
    const float4* v = reinterpret_cast<const float4*>(sm + s * CHUNK);
#pragma unroll
    for (int k = threadIdx.x; k < CHUNK / 16; k += 2 * T) {
      float4 a = v[k], b = v[k + T];
      acc += (a.x + a.y) + (a.z + a.w);
      acc2 += (b.x + b.y) + (b.z + b.w);
    }
    __syncthreads();  // every thread is done with stage s
    if (threadIdx.x == 0 && i + STAGES < mine) {
      mbar_expect(&bar[s], CHUNK);
      bulk_load(sm + s * CHUNK, reinterpret_cast<const char*>(x) + (c0 + i + STAGES) * (long)CHUNK, CHUNK, &bar[s]);
    }
  }
  float a = block_sum<T>(acc + acc2);
  finish<T>(a, part, sem, out);
}

// Loads alone, other forms (for the floor): float4 loads through the non-coherent path
// with no L1 allocation (NC), or each block a contiguous part (CHUNKED); U loads in flight.
template <int T, int U, bool NC, bool CHUNKED>
__global__ void __launch_bounds__(T) readv(const float* __restrict__ x, float* part, long n) {
  const float4* p = reinterpret_cast<const float4*>(x);
  const long nv = n / 4;
  long j, stride, end;
  if (CHUNKED) {
    const long per = (nv + gridDim.x - 1) / gridDim.x;
    j = blockIdx.x * per + threadIdx.x; stride = T; end = min(nv, (long)(blockIdx.x + 1) * per);
  } else {
    j = blockIdx.x * (long)T + threadIdx.x; stride = (long)gridDim.x * T; end = nv;
  }
  float acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = 0.f;
  for (; j + (U - 1) * stride < end; j += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (NC) {
        asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(v[u].x), "=f"(v[u].y), "=f"(v[u].z), "=f"(v[u].w) : "l"(p + j + u * stride));
      } else {
        v[u] = p[j + u * stride];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  for (; j < end; j += stride) { float4 v = p[j]; acc[0] += (v.x + v.y) + (v.z + v.w); }
  float a = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) a += acc[u];
  a = block_sum<T>(a);
  if (threadIdx.x == 0) part[blockIdx.x] = a;
}

int main(int argc, char** argv) {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const long N = 1L << 26;
  float *x, *part, *out; unsigned* sem;
  CK(cudaMalloc(&x, N * 4)); CK(cudaMalloc(&part, 1 << 20)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&sem, 64));
  CK(cudaMemset(sem, 0, 64));
  std::vector<float> h(N); srand(1); for (long i = 0; i < N; ++i) h[i] = (float)rand() / RAND_MAX - 0.5f;
  CK(cudaMemcpy(x, h.data(), N * 4, cudaMemcpyHostToDevice));
  auto check = [&](long n, const char* nm) {
    double ref = 0; for (long i = 0; i < n; ++i) ref += h[i];
    float g; CK(cudaMemcpy(&g, out, 4, cudaMemcpyDeviceToHost));
    if (fabs(g - ref) > 1e-3 * sqrt((double)n)) printf("  WRONG %s: %f against %f\n", nm, g, ref);
  };
  char b[96];
  if (argc > 1) {  // "floor": loads alone at 2^24 in every form, and the empty kernel
    const long n = 1L << 24;
    report2("2^24 empty grid 1", 4.0 * n, ([&] { empty<<<1, 32>>>(x, part); }));
    for (int bps : {1, 2, 4, 8}) {
      const int g = sms * bps;
      snprintf(b, 96, "2^24 read U4 grid %d", g); report2(b, 4.0 * n, ([&] { readv<256, 4, false, false><<<g, 256>>>(x, part, n); }));
      snprintf(b, 96, "2^24 read U8 grid %d", g); report2(b, 4.0 * n, ([&] { readv<256, 8, false, false><<<g, 256>>>(x, part, n); }));
      snprintf(b, 96, "2^24 read U4 NC grid %d", g); report2(b, 4.0 * n, ([&] { readv<256, 4, true, false><<<g, 256>>>(x, part, n); }));
      snprintf(b, 96, "2^24 read U4 chunked grid %d", g); report2(b, 4.0 * n, ([&] { readv<256, 4, false, true><<<g, 256>>>(x, part, n); }));
      snprintf(b, 96, "2^24 read T1024 U4 grid %d", sms * (bps > 2 ? 2 : bps)); report2(b, 4.0 * n, ([&] { readv<1024, 4, false, false><<<sms * (bps > 2 ? 2 : bps), 1024>>>(x, part, n); }));
    }
    return 0;
  }
  for (long n : {1L << 22, 1L << 24, 1L << 26}) {
    const int lg = n == (1L << 22) ? 22 : n == (1L << 24) ? 24 : 26;
    for (int bps : {2, 4, 8}) {
      const int g = sms * bps;
      snprintf(b, 96, "2^%d empty grid %d", lg, g); report2(b, 4.0 * n, ([&] { empty<<<g, 256>>>(x, part); }));
      snprintf(b, 96, "2^%d read U4 grid %d", lg, g); report2(b, 4.0 * n, ([&] { sum1<256, 4, false><<<g, 256>>>(x, part, sem, out, n); }));
      snprintf(b, 96, "2^%d sum1 U4 grid %d", lg, g); report2(b, 4.0 * n, ([&] { sum1<256, 4, true><<<g, 256>>>(x, part, sem, out, n); }));
      check(n, b);
    }
    auto bulk = [&](auto k, int chunk, int stages, int bps) {
      const int smem = chunk * stages;
      CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      snprintf(b, 96, "2^%d bulk %dK x %d, %d/SM", lg, chunk >> 10, stages, bps);
      report2(b, 4.0 * n, ([&] { k<<<sms * bps, 256, smem>>>(x, part, sem, out, n); }));
      check(n, b);
    };
    bulk(bulk_sum<256, 8192, 4>, 8192, 4, 4);
    bulk(bulk_sum<256, 8192, 8>, 8192, 8, 2);
    bulk(bulk_sum<256, 16384, 4>, 16384, 4, 2);
    bulk(bulk_sum<256, 16384, 6>, 16384, 6, 2);
    bulk(bulk_sum<256, 32768, 3>, 32768, 3, 2);
    bulk(bulk_sum<256, 32768, 6>, 32768, 6, 1);
    void* tmp = nullptr; size_t tb = 0; cub::DeviceReduce::Sum(tmp, tb, x, out, (int)n); CK(cudaMalloc(&tmp, tb + 1));
    snprintf(b, 96, "2^%d CUB", lg); report2(b, 4.0 * n, ([&] { cub::DeviceReduce::Sum(tmp, tb, x, out, (int)n); }));
    check(n, b);
    CK(cudaFree(tmp));
  }
}
