# The radix sort's key histograms (every 8-bit digit of 2^26 f32 keys, standard normal, as
# the comparison's sort case): how close to a plain read of the keys can they get?
# Kernels of the plainest form, timed with CUDA events (median of 20 after warm-up):
#   read     the keys loaded and folded into one word (no counting): the floor
#   u32      a 32-bit counter a (pass, digit, lane): 128 KB, one block of 1024 a multiprocessor
#   u16      two passes' counters in the halves of one word a (digit, lane): 64 KB, two blocks
#   u32_q2   the u32 kernel counting two passes only (how much the atomics cost)
# Every counting kernel's histograms are checked against NumPy's.
import cupy as cp, numpy as np
from events import median_ms
n = 1 << 26
x = cp.random.standard_normal(n, dtype=cp.float32)
hist = cp.zeros(4 * 256, cp.uint64)
acc = cp.zeros(1, cp.uint32)
code = r'''
__device__ __forceinline__ unsigned key_of(unsigned b) { return b ^ ((b >> 31) ? 0xffffffffu : 0x80000000u); }
// MODE 0: u32 counters [q][bin][lane]; 1: u16 halves [q / 2][bin][lane], q % 2 the half;
// 2: read only; 3: u32 counting q < 2 only.
template <int U, int MODE>
__device__ void hist_t(const unsigned* __restrict__ in, long long n, unsigned long long* hist, unsigned* acc) {
  extern __shared__ unsigned sh[];
  constexpr int WORDS = MODE == 1 ? 2 * 256 * 32 : 4 * 256 * 32;
  if (MODE != 2) { for (int i = threadIdx.x; i < WORDS; i += blockDim.x) sh[i] = 0; __syncthreads(); }
  const unsigned lane = threadIdx.x & 31;
  const long long step = (long long)gridDim.x * blockDim.x;
  long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  unsigned fold = 0;
  auto count = [&](unsigned k) {
    if (MODE == 2) { fold ^= k; return; }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      if (MODE == 3 && q >= 2) break;
      const unsigned d = (k >> (8 * q)) & 0xffu;
      if (MODE == 1) atomicAdd(&sh[((q >> 1) * 256 + d) * 32 + lane], (q & 1) ? 65536u : 1u);
      else atomicAdd(&sh[(q * 256 + d) * 32 + lane], 1u);
    }
  };
  const long long lim = n > (long long)(U - 1) * step ? n - (long long)(U - 1) * step : 0;
  for (; p < lim; p += U * step) {
    unsigned k[U];
#pragma unroll
    for (int u = 0; u < U; ++u) k[u] = key_of(in[p + u * step]);
#pragma unroll
    for (int u = 0; u < U; ++u) count(k[u]);
  }
  for (; p < n; p += step) count(key_of(in[p]));
  if (MODE == 2) { if (fold == 0x12345678u) acc[0] = fold; return; }
  __syncthreads();
  for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) {
    const int q = i / 256, d = i % 256;
    if (MODE == 3 && q >= 2) break;
    unsigned c = 0;
#pragma unroll 8
    for (int j = 0; j < 32; ++j) {
      const int l = (j + threadIdx.x) & 31;
      if (MODE == 1) c += (sh[((q >> 1) * 256 + d) * 32 + l] >> (16 * (q & 1))) & 0xffffu;
      else c += sh[(q * 256 + d) * 32 + l];
    }
    if (c) atomicAdd(&hist[i], (unsigned long long)c);
  }
}
#define K(U, M) extern "C" __global__ void __launch_bounds__(1024) h_##U##_##M(const unsigned* in, long long n, unsigned long long* hist, unsigned* acc) { hist_t<U, M>(in, n, hist, acc); }
K(8, 0) K(16, 0) K(8, 1) K(16, 1) K(8, 2) K(16, 2) K(8, 3) K(4, 1)
'''
m = cp.RawModule(code=code, options=("-std=c++17",))
bits = x.view(cp.uint32)
kh = cp.asnumpy(bits)
kh = kh ^ np.where(kh >> 31 != 0, np.uint32(0xFFFFFFFF), np.uint32(0x80000000))
ref = np.concatenate([np.bincount((kh >> (8 * q)) & 0xFF, minlength=256) for q in range(4)]).astype(np.uint64)
def ev(f):
    return median_ms(f) * 1e3
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
N = np.int64(n)
def row(name, U, M, blocks, threads):
    f = m.get_function(f"h_{U}_{M}")
    smem = 0 if M == 2 else (2 if M == 1 else 4) * 256 * 32 * 4
    f.max_dynamic_shared_size_bytes = max(smem, 1)
    def go():
        hist.fill(0)
        f((blocks,), (threads,), (bits, N, hist, acc), shared_mem=smem)
    go(); cp.cuda.Device().synchronize()
    h = cp.asnumpy(hist)
    ok = "-" if M == 2 else ("ok" if (h[:512] == ref[:512]).all() and (M == 3 or (h == ref).all()) else "WRONG")
    # The timed call includes the 8 KB fill of the histogram, as the library's does.
    print(f"{name:8s} U={U:2d} grid {blocks:4d} x {threads:4d}: {ev(go):7.1f} us  {ok}", flush=True)
for rnd in range(2):
    print(f"round {rnd}")
    row("read", 8, 2, sms * 2, 1024)
    row("read", 16, 2, sms * 2, 1024)
    row("u32", 8, 0, sms, 1024)
    row("u32", 16, 0, sms, 1024)
    row("u32_q2", 8, 3, sms, 1024)
    row("u16", 8, 1, sms * 2, 1024)
    row("u16", 16, 1, sms * 2, 1024)
    row("u16", 4, 1, sms * 2, 1024)
    row("u16", 8, 1, sms * 3, 512)
    row("u16", 16, 1, sms * 3, 512)
copy = cp.empty_like(x)
print(f"copy of 256 MB: {ev(lambda: copy.__setitem__(Ellipsis, x)):.0f} us")
