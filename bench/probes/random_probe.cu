// Stand-alone sweeps behind docs/design/random.md (random fills): the library's fill
// loop (kernels/philox.cuh, included as is) against variants of it, each writing 2^28 values
// into one preallocated array. nvcc -O3 -arch=sm_90 -I kernels -I bench/probes.
#include "probe.h"
#include <cstring>
#include "random_lib.cuh"

// Philox with the 32 x 32 -> 64-bit product (one IMAD.WIDE for both halves).
__device__ __forceinline__ void philox_wide(unsigned int (&c)[4], unsigned int k0, unsigned int k1) {
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    const unsigned long long p0 = (unsigned long long)0xD2511F53u * c[0];
    const unsigned long long p1 = (unsigned long long)0xCD9E8D57u * c[2];
    const unsigned int n0 = (unsigned int)(p1 >> 32) ^ c[1] ^ k0;
    const unsigned int n2 = (unsigned int)(p0 >> 32) ^ c[3] ^ k1;
    c[0] = n0; c[1] = (unsigned int)p1; c[2] = n2; c[3] = (unsigned int)p0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
}

// Variant fill: whole groups in a 32-bit grid-stride loop when they fit (the common case),
// the ragged head and tail handled by one thread group after; WIDE picks the product form.
template <int W, int G, bool WIDE, typename T, typename D>
__device__ __forceinline__ void fill2(T* out, long long n, unsigned long long group0, long long head,
                                      unsigned long long key, unsigned long long stream, const D& dist) {
  const unsigned int k0 = (unsigned int)key, k1 = (unsigned int)(key >> 32);
  const unsigned int s0 = (unsigned int)stream, s1 = (unsigned int)(stream >> 32);
  const long long groups = (n + head + 3) >> 2;
  const long long whole = head == 0 ? (n >> 2) : 0;  // aligned whole groups
  const unsigned int step = gridDim.x * blockDim.x;
  unsigned int t0 = blockIdx.x * blockDim.x + threadIdx.x;
  // whole trips of G groups
  for (; (long long)t0 + (long long)(G - 1) * step < whole; t0 += step * G) {
    unsigned int r[G][4 * W];
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const unsigned long long b0 = (group0 + (unsigned long long)(t0 + g * step)) * (unsigned long long)W;
#pragma unroll
      for (int q = 0; q < W; ++q) {
        const unsigned long long bq = b0 + (unsigned long long)q;
        unsigned int c[4] = {(unsigned int)bq, (unsigned int)(bq >> 32), s0, s1};
        if (WIDE) philox_wide(c, k0, k1); else philox4x32_10(c, k0, k1);
#pragma unroll
        for (int k = 0; k < 4; ++k) r[g][4 * q + k] = c[k];
      }
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      T v[4];
      dist(r[g], v, 0ull, rand_ctx{});
      cuarray_vec<T, 4> pack;
#pragma unroll
      for (int e = 0; e < 4; ++e) pack.v[e] = v[e];
      *reinterpret_cast<cuarray_vec<T, 4>*>(out + 4ll * (t0 + g * step)) = pack;
    }
  }
  // the rest, one group at a time, scalar stores
  for (long long t = t0; t < groups; t += step) {
    unsigned int r[4 * W];
    const unsigned long long b0 = (group0 + (unsigned long long)t) * (unsigned long long)W;
#pragma unroll
    for (int q = 0; q < W; ++q) {
      const unsigned long long bq = b0 + (unsigned long long)q;
      unsigned int c[4] = {(unsigned int)bq, (unsigned int)(bq >> 32), s0, s1};
      philox4x32_10(c, k0, k1);
#pragma unroll
      for (int k = 0; k < 4; ++k) r[4 * q + k] = c[k];
    }
    T v[4];
    dist(r, v, 0ull, rand_ctx{});
    const long long j0 = 4 * t - head;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const long long j = j0 + e;
      if (j >= 0 && j < n) out[j] = v[e];
    }
  }
}
template <int W, int G, bool WIDE, typename T, typename D>
__global__ void __launch_bounds__(256) v2(T* out, long long n, unsigned long long group0, long long head,
                                          unsigned long long key, unsigned long long stream, unsigned long long a,
                                          unsigned long long b) {
  fill2<W, G, WIDE>(out, n, group0, head, key, stream, D(a, b));
}

// Maps for the variants.
// Uniform [0, 1) only: the unit value, no affine map or clamp.
struct unit_only {
  static constexpr int W = 1;
  static constexpr bool LN_TABLE = false;
  __device__ unit_only(unsigned long long, unsigned long long) {}
  __device__ __forceinline__ void operator()(const unsigned int (&r)[4], float (&v)[4], unsigned long long, const rand_ctx&) const {
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = __fmul_rn(__uint2float_rn(r[e] >> 8), 0x1p-24f);
  }
};
// Uniform [a, b) by fma(float(w >> 8), (b - a) 2^-24, a): exact equal to the library's map
// while (b - a) 2^-24 is normal; the clamp once, in f32.
struct uniform_fold {
  static constexpr int W = 1;
  static constexpr bool LN_TABLE = false;
  float lo, hi, ds, top;
  __device__ uniform_fold(unsigned long long a, unsigned long long b) {
    lo = rand_f32::param(a); hi = rand_f32::param(b);
    ds = __fmul_rn(__fsub_rn(hi, lo), 0x1p-24f); top = rand_next_down(hi);
  }
  __device__ __forceinline__ void operator()(const unsigned int (&r)[4], float (&v)[4], unsigned long long, const rand_ctx&) const {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float x = __fmaf_rn(__uint2float_rn(r[e] >> 8), ds, lo);
      v[e] = x >= hi ? top : x;
    }
  }
};
// Integers in [0, range) from one word, Lemire's multiply (the rare rejection not taken here).
struct int1_lemire {
  static constexpr int W = 1;
  static constexpr bool LN_TABLE = false;
  unsigned int range;
  __device__ int1_lemire(unsigned long long, unsigned long long b) : range((unsigned int)b) {}
  __device__ __forceinline__ void operator()(const unsigned int (&r)[4], int (&v)[4], unsigned long long, const rand_ctx&) const {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const unsigned long long m = (unsigned long long)r[e] * range;
      v[e] = (int)(m >> 32);
    }
  }
};

__global__ void fill4(float4* out, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x)
    out[i] = make_float4(1.f, 2.f, 3.f, 4.f);
}


int main() {
  const long long n = 1ll << 28;
  const double bytes = 4.0 * n;
  float* out; CK(cudaMalloc(&out, n * 4));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned long long key = 0x123456789abcdefull, stream = 7;
  const unsigned long long a = dbits(0.0), b = dbits(1.0);
  auto grid = [&](int g, int per_sm) { long long th = (n / 4 + g - 1) / g; long long bl = (th + 255) / 256; return (unsigned)std::min<long long>(bl, (long long)sms * per_sm); };
  report("fill float4 (ceiling)", bytes, time_us([&] { fill4<<<sms * 16, 256>>>((float4*)out, n / 4); }));
  for (int cap : {4, 8, 16}) {
    char name[96];
    snprintf(name, sizeof name, "lib uniform G4 cap%d", cap);
    report(name, bytes, time_us([&] { lib<1, 4, float, rand_uniform<float>><<<grid(4, cap), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  }
  report("lib uniform G1 cap16", bytes, time_us([&] { lib<1, 1, float, rand_uniform<float>><<<grid(1, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib uniform G2 cap16", bytes, time_us([&] { lib<1, 2, float, rand_uniform<float>><<<grid(2, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib uniform G4 lb6", bytes, time_us([&] { lib_lb<1, 4, float, rand_uniform<float>, 6><<<grid(4, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib uniform G2 lb8", bytes, time_us([&] { lib_lb<1, 2, float, rand_uniform<float>, 8><<<grid(2, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib unit_only G4", bytes, time_us([&] { lib<1, 4, float, unit_only><<<grid(4, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib uniform_fold G4", bytes, time_us([&] { lib<1, 4, float, uniform_fold><<<grid(4, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  for (int g : {1, 2, 4}) {
    char name[96];
    snprintf(name, sizeof name, "v2 uniform G%d", g);
    auto k = g == 1 ? v2<1, 1, false, float, rand_uniform<float>> : g == 2 ? v2<1, 2, false, float, rand_uniform<float>> : v2<1, 4, false, float, rand_uniform<float>>;
    report(name, bytes, time_us([&] { k<<<grid(g, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
    snprintf(name, sizeof name, "v2 uniform G%d wide", g);
    auto kw = g == 1 ? v2<1, 1, true, float, rand_uniform<float>> : g == 2 ? v2<1, 2, true, float, rand_uniform<float>> : v2<1, 4, true, float, rand_uniform<float>>;
    report(name, bytes, time_us([&] { kw<<<grid(g, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
    snprintf(name, sizeof name, "v2 uniform_fold G%d wide", g);
    auto kf = g == 1 ? v2<1, 1, true, float, uniform_fold> : g == 2 ? v2<1, 2, true, float, uniform_fold> : v2<1, 4, true, float, uniform_fold>;
    report(name, bytes, time_us([&] { kf<<<grid(g, 16), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  }
  // normal
  const unsigned long long sd = dbits(1.0);
  report("lib normal G4", bytes, time_us([&] { lib<1, 4, float, rand_normal<float, false>><<<grid(4, 16), 256>>>(out, n, 0, 0, key, stream, a, sd); }));
  report("lib normal G2", bytes, time_us([&] { lib<1, 2, float, rand_normal<float, false>><<<grid(2, 16), 256>>>(out, n, 0, 0, key, stream, a, sd); }));
  report("lib normal G1", bytes, time_us([&] { lib<1, 1, float, rand_normal<float, false>><<<grid(1, 16), 256>>>(out, n, 0, 0, key, stream, a, sd); }));
  report("v2 normal G2 wide", bytes, time_us([&] { v2<1, 2, true, float, rand_normal<float, false>><<<grid(2, 16), 256>>>(out, n, 0, 0, key, stream, a, sd); }));
  report("v2 normal G1 wide", bytes, time_us([&] { v2<1, 1, true, float, rand_normal<float, false>><<<grid(1, 16), 256>>>(out, n, 0, 0, key, stream, a, sd); }));
  report("lib exponential G4", bytes, time_us([&] { lib<1, 4, float, rand_exponential<float>><<<grid(4, 16), 256>>>(out, n, 0, 0, key, stream, a, sd); }));
  // integers in [0, 1000)
  int* iout = (int*)out;
  report("lib int2 G2 [0,1000)", bytes, time_us([&] { lib<2, 2, int, rand_int<int, 2>><<<grid(2, 16), 256>>>(iout, n, 0, 0, key, stream, 0, 1000); }));
  report("lib int2 G1 [0,1000)", bytes, time_us([&] { lib<2, 1, int, rand_int<int, 2>><<<grid(1, 16), 256>>>(iout, n, 0, 0, key, stream, 0, 1000); }));
  report("v2 int2 G2 wide [0,1000)", bytes, time_us([&] { v2<2, 2, true, int, rand_int<int, 2>><<<grid(2, 16), 256>>>(iout, n, 0, 0, key, stream, 0, 1000); }));
  report("lib int1 G4 [0,1000) (Lemire)", bytes, time_us([&] { lib<1, 4, int, rand_int<int, 1>><<<grid(4, 16), 256>>>(iout, n, 0, 0, key, stream, 0, 1000); }));
  report("lib int1 G4 [0,2^23+1) (1/512 rejected)", bytes, time_us([&] { lib<1, 4, int, rand_int<int, 1>><<<grid(4, 16), 256>>>(iout, n, 0, 0, key, stream, 0, (1 << 23) + 1); }));
  report("lib int1 G4 [0,1024)", bytes, time_us([&] { lib<1, 4, int, rand_int<int, 1>><<<grid(4, 16), 256>>>(iout, n, 0, 0, key, stream, 0, 1024); }));
  report("v2 int1_lemire G2 wide [0,1000)", bytes, time_us([&] { v2<1, 2, true, int, int1_lemire><<<grid(2, 16), 256>>>(iout, n, 0, 0, key, stream, 0, 1000); }));
  report("v2 int1_lemire G4 wide [0,1000)", bytes, time_us([&] { v2<1, 4, true, int, int1_lemire><<<grid(4, 16), 256>>>(iout, n, 0, 0, key, stream, 0, 1000); }));
  CK(cudaDeviceSynchronize());
  return 0;
}
