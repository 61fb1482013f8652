// Stand-alone probe behind docs/design/random.md (normals): the
// library's Box-Muller (kernels/philox.cuh, included as is) against what it does not take,
// each writing 2^28 f32 values into one preallocated array, with each form's worst error
// against the same pair computed in f64 on the host from the same words; and the check of
// rand_f32::sqrt_pos against the IEEE square root on every float of its range. The forms
// the notes measured before the library took them are in git history.
// nvcc -O3 -arch=sm_90 -I kernels -I bench/probes -o normal_probe bench/probes/normal_probe.cu
#include "probe.h"
#include <cmath>
#include <cstring>
#include "random_lib.cuh"

// The library's normal with CUDA's IEEE square root (its range check and slow path)
// instead of rand_f32::sqrt_pos.
struct normal_ieee_sqrt {
  static constexpr int W = 1;
  static constexpr bool LN_TABLE = true;
  float mean, sd;
  __device__ normal_ieee_sqrt(unsigned long long a, unsigned long long b) : mean(rand_f32::param(a)), sd(rand_f32::param(b)) {}
  __device__ __forceinline__ void operator()(const unsigned int (&r)[4], float (&v)[4], unsigned long long, const rand_ctx& x) const {
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const unsigned int* w = r + 2 * p;
      const float rs = __fmul_rn(__fsqrt_rn(rand_f32::neg2_ln(w, x)), sd);
      float c, s;
      rand_f32::cos_sin(w + 1, c, s);
      v[2 * p] = __fmaf_rn(rs, c, mean);
      v[2 * p + 1] = __fmaf_rn(rs, s, mean);
    }
  }
};

// rand_f32::sqrt_pos against the IEEE square root on every float in [2^-26, 64) and 0:
// counts the differences.
__global__ void sqrt_pos_exhaustive(unsigned int lo, unsigned int hi, unsigned long long* bad, unsigned int* first) {
  for (unsigned int b = lo + blockIdx.x * blockDim.x + threadIdx.x; b < hi; b += gridDim.x * blockDim.x) {
    const float x = b == lo ? 0.0f : __uint_as_float(b);
    if (__float_as_uint(rand_f32::sqrt_pos(x)) != __float_as_uint(__fsqrt_rn(x))) {
      atomicAdd(bad, 1ull);
      atomicMin(first, b);
    }
  }
}

// Normal with the device's fast intrinsics (no exact host twin): the ceiling of Box-Muller.
struct normal_fast {
  static constexpr int W = 1;
  static constexpr bool LN_TABLE = false;
  __device__ normal_fast(unsigned long long, unsigned long long) {}
  __device__ __forceinline__ void operator()(const unsigned int (&r)[4], float (&v)[4], unsigned long long, const rand_ctx&) const {
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const float u = __fmaf_rn(__uint2float_rn(r[2 * p]), 0x1p-32f, 0x1p-33f);
      const float rad = sqrtf(-2.0f * __logf(u));
      float s, c;
      __sincosf(__uint2float_rn(r[2 * p + 1]) * 0x1.921fb6p-30f, &s, &c);
      v[2 * p] = rad * c;
      v[2 * p + 1] = rad * s;
    }
  }
};

// Philox4x32-10 on the host, for the error check.
static void philox_host(unsigned int (&c)[4], unsigned int k0, unsigned int k1) {
  for (int round = 0; round < 10; ++round) {
    const unsigned long long p0 = (unsigned long long)0xD2511F53u * c[0], p1 = (unsigned long long)0xCD9E8D57u * c[2];
    const unsigned int n0 = (unsigned int)(p1 >> 32) ^ c[1] ^ k0, n2 = (unsigned int)(p0 >> 32) ^ c[3] ^ k1;
    c[0] = n0; c[1] = (unsigned int)p1; c[2] = n2; c[3] = (unsigned int)p0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
}

int main() {
  const long long n = 1ll << 28;
  const double bytes = 4.0 * n;
  float* out; CK(cudaMalloc(&out, n * 4));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned long long key = 0x123456789abcdefull, stream = 7;
  const unsigned long long a = dbits(0.0), b = dbits(1.0);
  auto grid = [&](int g) { long long th = (n / 4 + g - 1) / g; long long bl = (th + 255) / 256; return (unsigned)std::min<long long>(bl, (long long)sms * 16); };
  std::vector<float> host(1 << 22);
  // Worst error of the first 2^22 values against f64 Box-Muller of the same u (the
  // library's, as a float) and the same angle (rounded to 2^-25 turns, as the library).
  auto check = [&](const char* name) {
    CK(cudaMemcpy(host.data(), out, host.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0, worst_abs = 0;
    for (size_t g = 0; g < host.size() / 4; ++g) {
      unsigned int c[4] = {(unsigned int)g, 0u, (unsigned int)stream, (unsigned int)(stream >> 32)};
      philox_host(c, (unsigned int)key, (unsigned int)(key >> 32));
      for (int p = 0; p < 2; ++p) {
        const unsigned int w0 = c[2 * p], w1 = c[2 * p + 1];
        const double u = (double)fmaf((float)w0, 0x1p-32f, 0x1p-33f);
        const double rad = std::sqrt(-2.0 * std::log(u));
        // The angle as rand_f32::cos_sin maps the word (a fraction of a turn).
        double a = ((double)(((w1 + 64u) >> 7) & 0x7fffffu) * 0x1p-22 - 1.0) / 8.0;
        if (w1 & 0x40000000u) a = 0.5 - a;
        if (w1 & 0x80000000u) a = 0.25 - a;
        const double ang = a * 2.0 * M_PI;
        const double ref[2] = {rad * std::cos(ang), rad * std::sin(ang)};
        for (int e = 0; e < 2; ++e) {
          const double err = std::fabs((double)host[4 * g + 2 * p + e] - ref[e]);
          worst_abs = std::max(worst_abs, err);
          worst = std::max(worst, err / std::max(std::fabs(ref[e]), 1e-2));
        }
      }
    }
    printf("  %-48s max abs err %.3g, max rel err (|x| >= 0.01) %.3g\n", name, worst_abs, worst);
  };
  report("lib normal G4", bytes, time_us([&] { lib<1, 4, float, rand_normal<float, false>><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  check("lib normal");
  report("lib normal G2", bytes, time_us([&] { lib<1, 2, float, rand_normal<float, false>><<<grid(2), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib normal G1", bytes, time_us([&] { lib<1, 1, float, rand_normal<float, false>><<<grid(1), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib normal G4 minblocks 5", bytes, time_us([&] { lib_lb<1, 4, float, rand_normal<float, false>, 5><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib normal G2 minblocks 6", bytes, time_us([&] { lib_lb<1, 2, float, rand_normal<float, false>, 6><<<grid(2), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("normal, IEEE sqrt G4", bytes, time_us([&] { lib<1, 4, float, normal_ieee_sqrt><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  check("normal, IEEE sqrt");
  report("lib standard normal G4", bytes, time_us([&] { lib<1, 4, float, rand_normal<float, true>><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  check("lib standard normal");
  report("lib standard normal G2", bytes, time_us([&] { lib<1, 2, float, rand_normal<float, true>><<<grid(2), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib standard normal G4 minblocks 5", bytes, time_us([&] { lib_lb<1, 4, float, rand_normal<float, true>, 5><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib standard normal G2 minblocks 6", bytes, time_us([&] { lib_lb<1, 2, float, rand_normal<float, true>, 6><<<grid(2), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib standard normal G2 minblocks 8", bytes, time_us([&] { lib_lb<1, 2, float, rand_normal<float, true>, 8><<<grid(2), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("normal, fast intrinsics G2 (not exact)", bytes, time_us([&] { lib<1, 2, float, normal_fast><<<grid(2), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib exponential G4", bytes, time_us([&] { lib<1, 4, float, rand_exponential<float>><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  report("lib uniform G4", bytes, time_us([&] { lib<1, 4, float, rand_uniform<float>><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  unsigned long long* bad; unsigned int* first;
  CK(cudaMalloc(&bad, 8)); CK(cudaMalloc(&first, 4));
  CK(cudaMemset(bad, 0, 8)); CK(cudaMemset(first, 0xff, 4));
  const unsigned int lo = 0x32800000u, hi = 0x42800000u; // 2^-26, 64
  sqrt_pos_exhaustive<<<sms * 8, 256>>>(lo, hi, bad, first);
  unsigned long long nbad; unsigned int nfirst;
  CK(cudaMemcpy(&nbad, bad, 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&nfirst, first, 4, cudaMemcpyDeviceToHost));
  printf("sqrt_pos against __fsqrt_rn on %u floats in [2^-26, 64) and 0: %llu differ (first %#x)\n", hi - lo, nbad, nfirst);
  return 0;
}
