// Stand-alone probe behind docs/perf-notes.md (normals, issue 15): the library's Box-Muller
// (kernels/philox.cuh, included as is) against cheaper exact-twin forms of its three parts,
// each writing 2^28 f32 values into one preallocated array, and each form's worst error
// against the same pair computed in f64 on the host from the same words.
// nvcc -O3 -arch=sm_90 -I kernels -o normal_probe bench/probes/normal_probe.cu
#include "probe.h"
#include <cmath>
#include <cstring>
#include "common.cuh"
#include "philox.cuh"

// ln by a 16-entry table (ARM's optimized-routines logf layout): u = 2^k z, z in
// [0x3f330000, 0x3fb30000) as bits, interval i of z by the top 4 bits of (bits - OFF);
// ln z = ln(1 + r) - ln(invc), r = z invc - 1 (one FMA), |r| < 0.027.
__device__ float2 g_ln_tab[16];
static float2 h_ln_tab[16];
static const unsigned int LN_OFF = 0x3f330000u;

static float bits_f(unsigned int b) { float f; memcpy(&f, &b, 4); return f; }
static void make_table() {
  for (int i = 0; i < 16; ++i) {
    const double lo = bits_f(LN_OFF + (unsigned)i * 0x80000u), hi = bits_f(LN_OFF + (unsigned)(i + 1) * 0x80000u);
    float invc = (float)(2.0 / (lo + hi));
    if (lo <= 1.0 && 1.0 < hi) invc = 1.0f;
    const float logc2 = (float)(2.0 * std::log((double)invc));  // -2 ln c = 2 ln invc
    h_ln_tab[i] = make_float2(invc, logc2);
    printf("table %2d invc %a  -2lnc %a\n", i, invc, logc2);
  }
  CK(cudaMemcpyToSymbol(g_ln_tab, h_ln_tab, sizeof h_ln_tab));
}

// -2 ln u for u in (0, 1] (normal floats), the table form.
__device__ __forceinline__ float m2ln_tab(float u) {
  const unsigned int ix = __float_as_uint(u);
  const unsigned int tmp = ix - LN_OFF;
  const unsigned int i = (tmp >> 19) & 15u;
  const int k = (int)tmp >> 23;
  const float z = __uint_as_float(ix - (tmp & 0xff800000u));
  const float2 t = __ldg(&g_ln_tab[i]);
  const float r = __fmaf_rn(z, t.x, -1.0f);
  const float kf = __fsub_rn(__uint_as_float(0x4B400000u + (unsigned int)k), 12582912.0f);
  float q = __fmaf_rn(kf, -0x1.62e430p+0f, t.y);
  q = __fmaf_rn(r, -2.0f, q);
  float p = __fmaf_rn(r, 0.5f, -0x1.555556p-1f);
  p = __fmaf_rn(p, r, 1.0f);
  return __fmaf_rn(p, __fmul_rn(r, r), q);
}
// u in (0, 1]: float(w) 2^-32 + 2^-33, rounded once.
__device__ __forceinline__ float unit_pos_cheap(unsigned int w) { return __fmaf_rn(__uint2float_rn(w), 0x1p-32f, 0x1p-33f); }

// sqrt without the IEEE path's branch: rsqrt by two Newton steps from the bit-trick seed.
__device__ __forceinline__ float sqrt_newton(float v) {
  const float vc = fmaxf(v, 0x1p-100f);
  float y = __uint_as_float(0x5f375a86u - (__float_as_uint(vc) >> 1));
  const float h = __fmul_rn(vc, 0.5f);
  y = __fmul_rn(y, __fmaf_rn(-h, __fmul_rn(y, y), 1.5f));
  y = __fmul_rn(y, __fmaf_rn(-h, __fmul_rn(y, y), 1.5f));
  return __fmul_rn(v, y);
}

// cos and sin of 2 pi w / 2^32 with the angle's offset in its quadrant as x in [-1, 1)
// (23 bits, by the exponent trick), polynomials in x for sin(pi x / 4), cos(pi x / 4); the
// quadrant swaps and signs by bits. Returns the sign masks for (cos, sin) to apply.
__device__ __forceinline__ void cos_sin_cheap(unsigned int w, float& c, float& s, unsigned int& sc, unsigned int& ss) {
  const unsigned int y = w + 0x20000000u;
  const float x = __fsub_rn(__uint_as_float(((y >> 7) & 0x007fffffu) | 0x40000000u), 3.0f);
  const float x2 = __fmul_rn(x, x);
  float ps = -0x1.2d936ap-15f;
  ps = __fmaf_rn(ps, x2, 0x1.465e94p-9f);
  ps = __fmaf_rn(ps, x2, -0x1.4abbbap-4f);
  ps = __fmaf_rn(ps, x2, 0x1.921fb6p-1f);
  const float sa = __fmul_rn(ps, x);
  float pc = -0x1.4ea9ecp-12f;
  pc = __fmaf_rn(pc, x2, 0x1.03b162p-6f);
  pc = __fmaf_rn(pc, x2, -0x1.3bd3a2p-2f);
  const float ca = __fmaf_rn(pc, x2, 1.0f);
  const bool swap = (y & 0x40000000u) != 0;
  c = swap ? sa : ca;
  s = swap ? ca : sa;
  sc = (y + 0x40000000u) & 0x80000000u;
  ss = y & 0x80000000u;
}

// LN: 0 library ln (with its u), 1 table. SQ: 0 IEEE sqrt, 1 Newton. CS: 0 library, 1 cheap.
template <int LN, int SQ, int CS>
struct normal_v {
  static constexpr int W = 1;
  float mean, sd;
  __device__ normal_v(unsigned long long a, unsigned long long b) : mean(rand_f32::param(a)), sd(rand_f32::param(b)) {}
  __device__ __forceinline__ void operator()(const unsigned int (&r)[4], float (&v)[4], unsigned long long, const rand_ctx&) const {
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const unsigned int* w = r + 2 * p;
      const float q = LN ? m2ln_tab(unit_pos_cheap(w[0])) : __fmul_rn(-2.0f, rand_f32::ln(rand_f32::unit_pos(w)));
      const float rad = SQ ? sqrt_newton(q) : __fsqrt_rn(q);
      float c, s;
      unsigned int sc = 0, ss = 0;
      if (CS) cos_sin_cheap(w[1], c, s, sc, ss); else rand_f32::cos_sin(w + 1, c, s);
      const float rs = __fmul_rn(rad, sd);
      v[2 * p] = __fmaf_rn(__uint_as_float(__float_as_uint(rs) ^ sc), c, mean);
      v[2 * p + 1] = __fmaf_rn(__uint_as_float(__float_as_uint(rs) ^ ss), s, mean);
    }
  }
};

template <int W, int G, typename T, typename D>
__global__ void __launch_bounds__(256) lib(T* out, long long n, unsigned long long group0, long long head,
                                           unsigned long long key, unsigned long long stream, unsigned long long a,
                                           unsigned long long b) {
  philox_fill<W, G, int>(out, n, group0, head, key, stream, D(a, b));
}

template <int W, int G, typename T, typename D, int MINB>
__global__ void __launch_bounds__(256, MINB) lib_lb(T* out, long long n, unsigned long long group0, long long head,
                                                    unsigned long long key, unsigned long long stream,
                                                    unsigned long long a, unsigned long long b) {
  philox_fill<W, G, int>(out, n, group0, head, key, stream, D(a, b));
}

// Host twins for the error check (f64 reference of the same pair).
static void philox_host(unsigned int (&c)[4], unsigned int k0, unsigned int k1) {
  for (int round = 0; round < 10; ++round) {
    const unsigned long long p0 = (unsigned long long)0xD2511F53u * c[0], p1 = (unsigned long long)0xCD9E8D57u * c[2];
    const unsigned int n0 = (unsigned int)(p1 >> 32) ^ c[1] ^ k0, n2 = (unsigned int)(p0 >> 32) ^ c[3] ^ k1;
    c[0] = n0; c[1] = (unsigned int)p1; c[2] = n2; c[3] = (unsigned int)p0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
}
static unsigned long long dbits(double d) { unsigned long long u; memcpy(&u, &d, 8); return u; }

int main() {
  const long long n = 1ll << 28;
  const double bytes = 4.0 * n;
  float* out; CK(cudaMalloc(&out, n * 4));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  make_table();
  const unsigned long long key = 0x123456789abcdefull, stream = 7;
  const unsigned long long a = dbits(0.0), b = dbits(1.0);
  auto grid = [&](int g) { long long th = (n / 4 + g - 1) / g; long long bl = (th + 255) / 256; return (unsigned)std::min<long long>(bl, (long long)sms * 16); };
  std::vector<float> host(1 << 22);
  auto check = [&](const char* name, int ln, int cs) {
    CK(cudaMemcpy(host.data(), out, host.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0, worst_abs = 0;
    for (size_t g = 0; g < host.size() / 4; ++g) {
      unsigned int c[4] = {(unsigned int)g, 0u, (unsigned int)stream, (unsigned int)(stream >> 32)};
      philox_host(c, (unsigned int)key, (unsigned int)(key >> 32));
      for (int p = 0; p < 2; ++p) {
        const unsigned int w0 = c[2 * p], w1 = c[2 * p + 1];
        const double u = ln ? (double)fmaf((float)w0, 0x1p-32f, 0x1p-33f) : (double)((float)((unsigned long long)w0 + 1) * 0x1p-32f);
        const double rad = std::sqrt(-2.0 * std::log(u));
        double ang;
        if (cs) { const unsigned int y = w1 + 0x20000000u; ang = (y >> 30) * (M_PI / 2) + ((double)((y >> 7) & 0x7fffffu) * 0x1p-22 - 1.0) * (M_PI / 4); }
        else ang = 2 * M_PI * (double)w1 * 0x1p-32;
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
  report("lib normal G4", bytes, time_us([&] { lib<1, 4, float, rand_normal<float>><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  check("lib normal", 0, 0);
#define V(LN, SQ, CS, G)                                                                                          \
  report("v ln" #LN " sq" #SQ " cs" #CS " G" #G, bytes,                                                          \
         time_us([&] { lib<1, G, float, normal_v<LN, SQ, CS>><<<grid(G), 256>>>(out, n, 0, 0, key, stream, a, b); })); \
  check("", LN, CS);
  V(0, 0, 0, 4) V(1, 0, 0, 4) V(0, 1, 0, 4) V(0, 0, 1, 4) V(1, 1, 0, 4) V(1, 0, 1, 4) V(1, 1, 1, 4)
  V(1, 1, 1, 2) V(1, 0, 1, 2) V(1, 1, 1, 1)
#define VB(LN, SQ, CS, G, MINB)                                                                                   \
  report("v ln" #LN " sq" #SQ " cs" #CS " G" #G " minblocks " #MINB, bytes,                                     \
         time_us([&] { lib_lb<1, G, float, normal_v<LN, SQ, CS>, MINB><<<grid(G), 256>>>(out, n, 0, 0, key, stream, a, b); })); \
  check("", LN, CS);
  VB(1, 0, 1, 2, 5) VB(1, 0, 1, 2, 6) VB(1, 0, 1, 4, 5) VB(1, 0, 1, 4, 6) VB(1, 1, 1, 2, 6) VB(1, 0, 1, 1, 6) VB(1, 0, 1, 1, 8)
  report("lib uniform G4", bytes, time_us([&] { lib<1, 4, float, rand_uniform<float>><<<grid(4), 256>>>(out, n, 0, 0, key, stream, a, b); }));
  CK(cudaDeviceSynchronize());
  return 0;
}
