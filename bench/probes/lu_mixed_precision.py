# cuSOLVER LU variants for a 4096 f64 solve with 64 right-hand sides (ctypes probe).
import ctypes, glob, cupy as cp, numpy as np
from events import median_ms
lib = ctypes.CDLL(sorted(glob.glob("/usr/local/cuda/lib64/libcusolver.so*"))[0])
h = ctypes.c_void_p(); assert lib.cusolverDnCreate(ctypes.byref(h)) == 0
P = ctypes.c_void_p
n, k = 4096, 64
rng = cp.random.default_rng(1)
A0 = rng.standard_normal((n, n)); B0 = rng.standard_normal((n, k))
Af = cp.asfortranarray(A0); Bf = cp.asfortranarray(B0)
def ev_time(f, reps=7):
    return median_ms(f, reps=reps, warm=2)
def resid(X):
    return float(cp.linalg.norm(A0 @ X - B0) / (cp.linalg.norm(A0) * cp.linalg.norm(X)))
# legacy dgetrf + dgetrs
lw = ctypes.c_int()
A = Af.copy(); lib.cusolverDnDgetrf_bufferSize(h, n, n, P(A.data.ptr), n, ctypes.byref(lw))
ws = cp.empty(lw.value, cp.float64); ipiv = cp.empty(n, cp.int32); info = cp.zeros(1, cp.int32)
def legacy():
    A[...] = Af; X = Bf.copy()
    assert lib.cusolverDnDgetrf(h, n, n, P(A.data.ptr), n, P(ws.data.ptr), P(ipiv.data.ptr), P(info.data.ptr)) == 0
    assert lib.cusolverDnDgetrs(h, 0, n, k, P(A.data.ptr), n, P(ipiv.data.ptr), P(X.data.ptr), n, P(info.data.ptr)) == 0
    return X
X = legacy(); print("legacy dgetrf+dgetrs ms", ev_time(legacy), "resid", resid(X))
def getrf_only():
    A[...] = Af
    lib.cusolverDnDgetrf(h, n, n, P(A.data.ptr), n, P(ws.data.ptr), P(ipiv.data.ptr), P(info.data.ptr))
print("  dgetrf alone ms", ev_time(getrf_only))
As = cp.asfortranarray(A0.astype(cp.float32)); A32 = As.copy(); lw32 = ctypes.c_int()
lib.cusolverDnSgetrf_bufferSize(h, n, n, P(A32.data.ptr), n, ctypes.byref(lw32)); ws32 = cp.empty(lw32.value, cp.float32)
def sgetrf():
    A32[...] = As
    lib.cusolverDnSgetrf(h, n, n, P(A32.data.ptr), n, P(ws32.data.ptr), P(ipiv.data.ptr), P(info.data.ptr))
print("  sgetrf alone ms", ev_time(sgetrf))
# mixed precision gesv
for name in ["DDgesv", "DSgesv", "DXgesv", "DHgesv", "DBgesv"]:
    f = getattr(lib, "cusolverDn" + name); fb = getattr(lib, "cusolverDn" + name + "_bufferSize")
    A = Af.copy(); X = cp.empty_like(Bf); ipiv = cp.empty(n, cp.int32); lwb = ctypes.c_size_t()
    st = fb(h, n, k, P(A.data.ptr), n, P(ipiv.data.ptr), P(Bf.data.ptr), n, P(X.data.ptr), n, None, ctypes.byref(lwb))
    if st != 0: print(name, "bufferSize status", st); continue
    wsb = cp.empty(lwb.value, cp.uint8); it = ctypes.c_int()
    def run():
        A[...] = Af
        st = f(h, n, k, P(A.data.ptr), n, P(ipiv.data.ptr), P(Bf.data.ptr), n, P(X.data.ptr), n, P(wsb.data.ptr), lwb.value, ctypes.byref(it), P(info.data.ptr))
        assert st == 0, st
    run()
    print(name, "ms", ev_time(run), "iters", it.value, "info", int(info[0]), "resid", resid(X), "ws MiB", lwb.value >> 20)
# singular in the middle
S = Af.copy(); S[:, 100] = S[:, 7]; A = S.copy(); X = cp.empty_like(Bf)
f = lib.cusolverDnDSgesv; lwb = ctypes.c_size_t()
lib.cusolverDnDSgesv_bufferSize(h, n, k, P(A.data.ptr), n, P(ipiv.data.ptr), P(Bf.data.ptr), n, P(X.data.ptr), n, None, ctypes.byref(lwb))
wsb = cp.empty(lwb.value, cp.uint8); it = ctypes.c_int()
st = f(h, n, k, P(A.data.ptr), n, P(ipiv.data.ptr), P(Bf.data.ptr), n, P(X.data.ptr), n, P(wsb.data.ptr), lwb.value, ctypes.byref(it), P(info.data.ptr))
print("singular DSgesv status", st, "iters", it.value, "info", int(info[0]))
for m in [512, 1024, 2048]:
    a = cp.asfortranarray(A0[:m, :m]); b = cp.asfortranarray(B0[:m]); A = a.copy(); X = cp.empty_like(b)
    for name in ["DDgesv", "DSgesv"]:
        f = getattr(lib, "cusolverDn" + name); fb = getattr(lib, "cusolverDn" + name + "_bufferSize")
        fb(h, m, k, P(A.data.ptr), m, P(ipiv.data.ptr), P(b.data.ptr), m, P(X.data.ptr), m, None, ctypes.byref(lwb))
        wsb = cp.empty(lwb.value, cp.uint8)
        def run():
            A[...] = a
            assert f(h, m, k, P(A.data.ptr), m, P(ipiv.data.ptr), P(b.data.ptr), m, P(X.data.ptr), m, P(wsb.data.ptr), lwb.value, ctypes.byref(it), P(info.data.ptr)) == 0
        print(m, name, "ms", ev_time(run), "iters", it.value)
import torch
a = torch.as_tensor(A0, device="cuda"); b = torch.as_tensor(B0, device="cuda")
print("torch solve ms", ev_time(lambda: torch.linalg.solve(a, b)))
