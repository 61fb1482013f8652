# What CuPy and PyTorch run for an f16 matmul of 8192^3, and how fast each cuBLAS compute
# type is here (CUDA events, median of 20 after warm-up): the question behind the
# matmul_f16_8192 row of the peer comparison.
import sys
import cupy as cp, numpy as np, torch
from events import median_ms
from cupy.cuda import cublas
from cupy._core import _routines_linalg as rl
n = 8192
print("cupy compute type for float16:", rl.compute_type_to_str(rl.get_compute_type(np.float16)))
print("torch allow_fp16_reduced_precision_reduction:", torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction)
a = cp.random.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
b = cp.random.standard_normal((n, n), dtype=cp.float32).astype(cp.float16)
c = cp.empty((n, n), cp.float16)
def ev(f):
    ms = median_ms(f); return ms, 2 * n ** 3 / ms / 1e9
h = cp.cuda.device.get_cublas_handle()
one32, zero32 = np.array(1, np.float32), np.array(0, np.float32)
one16, zero16 = np.array(1, np.float16), np.array(0, np.float16)
R16F = 2
def gemm(ct, alpha, beta):
    cublas.gemmEx(h, 0, 0, n, n, n, alpha.ctypes.data, b.data.ptr, R16F, n, a.data.ptr, R16F, n,
                  beta.ctypes.data, c.data.ptr, R16F, n, ct, -1)
ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
for rnd in range(int(sys.argv[1]) if len(sys.argv) > 1 else 2):
    rows = [("cupy.matmul", lambda: cp.matmul(a, b)),
            ("torch.matmul", lambda: torch.matmul(ta, tb)),
            ("gemmEx COMPUTE_32F", lambda: gemm(68, one32, zero32)),
            ("gemmEx COMPUTE_16F", lambda: gemm(64, one16, zero16)),
            ("gemmEx COMPUTE_32F_FAST_16F", lambda: gemm(74, one32, zero32))]
    for name, f in rows:
        ms, tf = ev(f)
        print(f"round {rnd} {name:30s} {ms:.3f} ms {tf:.1f} TFLOP/s", flush=True)
# Accuracy of each against the f32 product of the same f16 inputs (relative to the mean
# magnitude of the reference): accumulating in f16 shows as errors ~10x those of f32.
ref = cp.matmul(a.astype(cp.float32), b.astype(cp.float32))
scale = float(cp.abs(ref).mean())
def err(x):
    d = cp.abs(x.astype(cp.float32) - ref)
    return float(d.mean()) / scale, float(d.max()) / scale
print("error (mean, max) relative to mean |ref|:")
print("  cupy.matmul", err(cp.matmul(a, b)))
print("  torch.matmul", err(cp.asarray(torch.matmul(ta, tb))))
for name, ct, al, be in (("COMPUTE_32F", 68, one32, zero32), ("COMPUTE_16F", 64, one16, zero16), ("COMPUTE_32F_FAST_16F", 74, one32, zero32)):
    gemm(ct, al, be); print("  gemmEx", name, err(c))
print("  f16 rounding of the reference alone", err(ref.astype(cp.float16)))
# bf16 (torch tensors, the same cuBLAS call): COMPUTE_32F against COMPUTE_32F_FAST_16BF.
R16BF = 14
xa = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
xb = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
xc = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
torch.cuda.synchronize()
def gemm_bf(ct):
    cublas.gemmEx(h, 0, 0, n, n, n, one32.ctypes.data, xb.data_ptr(), R16BF, n, xa.data_ptr(), R16BF, n,
                  zero32.ctypes.data, xc.data_ptr(), R16BF, n, ct, -1)
refb = torch.matmul(xa.float(), xb.float())
for rnd in range(2):
    for name, ct in (("bf16 gemmEx COMPUTE_32F", 68), ("bf16 gemmEx COMPUTE_32F_FAST_16BF", 75)):
        ms, tf = ev(lambda: gemm_bf(ct))
        cp.cuda.runtime.deviceSynchronize()
        e = float((xc.float() - refb).abs().mean() / refb.abs().mean())
        print(f"round {rnd} {name:36s} {ms:.3f} ms {tf:.1f} TFLOP/s, mean error {e:.3e}", flush=True)
print("  torch bf16 matmul", ev(lambda: torch.matmul(xa, xb)))
