# How fast can any gather of 2^26 random 4-byte elements from a 256 MB array be on this GPU?
# Kernels of the plainest form, timed with CUDA events (median of 20 after warm-up):
#   take_i64    out[i] = src[idx[i]]           (idx: 2^26 random i64, the benchmark's case)
#   take_i32    the same with i32 indices      (half the index bytes)
#   hash_gather out[i] = src[h(i) % n]         (no index read at all: the random reads alone)
#   hash_sum    sum of src[h(i) % n] per thread (no index read, no output write)
#   sorted      out[i] = src[idx_sorted[i]]    (the same indices in order: the streaming case)
# The "random reads alone" rows bound what a take of random indices can reach here.
import cupy as cp, numpy as np
from events import median_ms
n = 1 << 26
src = cp.random.standard_normal(n, dtype=cp.float32)
idx = cp.random.randint(0, n, n, dtype=cp.int64)
idx32 = idx.astype(cp.int32)
idxs = cp.sort(idx)
out = cp.empty(n, cp.float32)
acc = cp.zeros(1, cp.float32)
code = r'''
__device__ __forceinline__ unsigned h(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16; return x; }
template<typename I> __device__ void take_t(const float* __restrict__ s, const I* __restrict__ ix,
                                            float* __restrict__ o, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    o[i] = s[ix[i]];
}
extern "C" __global__ void take_i64(const float* s, const long long* ix, float* o, long long n) { take_t(s, ix, o, n); }
extern "C" __global__ void take_i32(const float* s, const int* ix, float* o, long long n) { take_t(s, ix, o, n); }
extern "C" __global__ void hash_gather(const float* __restrict__ s, float* __restrict__ o, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    o[i] = s[h((unsigned)i) & (unsigned)(n - 1)];
}
extern "C" __global__ void hash_sum(const float* __restrict__ s, float* acc, long long n) {
  float t = 0.f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    t += s[h((unsigned)i) & (unsigned)(n - 1)];
  if (t == 12345.f) acc[0] = t;
}
'''
m = cp.RawModule(code=code, options=("-std=c++17",))
k = {name: m.get_function(name) for name in ("take_i64", "take_i32", "hash_gather", "hash_sum")}
def ev(f):
    return median_ms(f) * 1e3
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
for blocks in (n // 256, sms * 8, sms * 16, sms * 32):
    g, b = (blocks,), (256,)
    N = np.int64(n)
    rows = [
        ("take_i64", lambda: k["take_i64"](g, b, (src, idx, out, N))),
        ("take_i32", lambda: k["take_i32"](g, b, (src, idx32, out, N))),
        ("hash_gather", lambda: k["hash_gather"](g, b, (src, out, N))),
        ("hash_sum", lambda: k["hash_sum"](g, b, (src, acc, N))),
        ("sorted", lambda: k["take_i64"](g, b, (src, idxs, out, N))),
    ]
    print(f"grid {blocks} x 256: " + ", ".join(f"{name} {ev(f):.0f} us" for name, f in rows), flush=True)
copy = cp.empty_like(src)
print(f"copy of 256 MB: {ev(lambda: copy.__setitem__(Ellipsis, src)):.0f} us")
print(f"cupy.take: {ev(lambda: cp.take(src, idx)):.0f} us")
# The L2's fetch granularity (cudaLimitMaxL2FetchGranularity, 0x05; a hint, 0-128 bytes):
# a random 4-byte read needs one 32-byte sector, so a smaller fetch may lower the floor.
g, b, N = (n // 256,), (256,), np.int64(n)
for gran in (32, 64, 128, 0):
    try:
        cp.cuda.runtime.deviceSetLimit(0x05, gran)
        got = cp.cuda.runtime.deviceGetLimit(0x05)
    except Exception as e:  # noqa: BLE001
        print(f"granularity {gran}: not settable ({e})"); continue
    print(f"granularity {gran} (reads back {got}): take_i64 {ev(lambda: k['take_i64'](g, b, (src, idx, out, N))):.0f} us, "
          f"hash_gather {ev(lambda: k['hash_gather'](g, b, (src, out, N))):.0f} us, "
          f"copy {ev(lambda: copy.__setitem__(Ellipsis, src)):.0f} us, cupy.take {ev(lambda: cp.take(src, idx)):.0f} us", flush=True)
