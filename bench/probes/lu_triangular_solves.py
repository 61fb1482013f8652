# Where getrs's time goes for a 4096 f64 LU with 64 right-hand sides, and whether blocked
# triangular solves (a small trsm per diagonal block, a gemm for the rest) beat it.
# ctypes probe; the blocked sequences are timed as CUDA graphs (no Python launch gaps).
import ctypes, glob, cupy as cp, numpy as np
from events import median_ms
C = ctypes
sol = C.CDLL(sorted(glob.glob("/usr/local/cuda/lib64/libcusolver.so*"))[0])
bl = C.CDLL(sorted(glob.glob("/usr/local/cuda/lib64/libcublas.so*"))[0])
P = C.c_void_p
n, k = 4096, 64
st = cp.cuda.Stream(non_blocking=True)
h = P(); assert sol.cusolverDnCreate(C.byref(h)) == 0; assert sol.cusolverDnSetStream(h, P(st.ptr)) == 0
bh = P(); assert bl.cublasCreate_v2(C.byref(bh)) == 0; assert bl.cublasSetStream_v2(bh, P(st.ptr)) == 0
wsb = cp.empty(64 << 20, cp.uint8); assert bl.cublasSetWorkspace_v2(bh, P(wsb.data.ptr), C.c_size_t(64 << 20)) == 0
one, mone = C.c_double(1.0), C.c_double(-1.0)
rng = cp.random.default_rng(2)
with st:
    A0 = cp.asfortranarray(rng.standard_normal((n, n))); B0 = cp.asfortranarray(rng.standard_normal((n, k)))
    LU = A0.copy(); lw = C.c_int()
    sol.cusolverDnDgetrf_bufferSize(h, n, n, P(LU.data.ptr), n, C.byref(lw))
    ws = cp.empty(lw.value, cp.float64); ipiv = cp.empty(n, cp.int32); info = cp.zeros(1, cp.int32)
    assert sol.cusolverDnDgetrf(h, n, n, P(LU.data.ptr), n, P(ws.data.ptr), P(ipiv.data.ptr), P(info.data.ptr)) == 0
st.synchronize()
piv = ipiv.get() - 1; perm = np.arange(n)
for i in range(n):
    perm[i], perm[piv[i]] = perm[piv[i]], perm[i]
def ev(f, reps=15):
    return median_ms(f, reps=reps, stream=st)
X = cp.empty_like(B0)
def getrs():
    cp.cuda.runtime.memcpyAsync(X.data.ptr, B0.data.ptr, B0.nbytes, 3, st.ptr)
    assert sol.cusolverDnDgetrs(h, 0, n, k, P(LU.data.ptr), n, P(ipiv.data.ptr), P(X.data.ptr), n, P(info.data.ptr)) == 0
getrs(); st.synchronize(); ref = X.copy()
print("dgetrs (with a 2 MiB copy) ms", ev(getrs))
Bp = cp.asfortranarray(B0[cp.asarray(perm)]); Y = cp.empty_like(Bp)
def copy(): cp.cuda.runtime.memcpyAsync(Y.data.ptr, Bp.data.ptr, Bp.nbytes, 3, st.ptr)
print("copy alone ms", ev(copy))
L, Y8 = LU.data.ptr, lambda r: P(Y.data.ptr + 8 * r)
def a(r, c): return P(L + 8 * (r + c * n))
def trsm2():
    copy()
    assert bl.cublasDtrsm_v2(bh, 0, 0, 0, 1, n, k, C.byref(one), a(0, 0), n, Y8(0), n) == 0
    assert bl.cublasDtrsm_v2(bh, 0, 1, 0, 0, n, k, C.byref(one), a(0, 0), n, Y8(0), n) == 0
trsm2(); st.synchronize(); print("two cublasDtrsm ms", ev(trsm2), "maxdiff", float(abs(Y - ref).max()))
def blocked(nb):
    copy()
    for j0 in range(0, n, nb):
        jb = min(nb, n - j0)
        assert bl.cublasDtrsm_v2(bh, 0, 0, 0, 1, jb, k, C.byref(one), a(j0, j0), n, Y8(j0), n) == 0
        if j0 + jb < n:
            assert bl.cublasDgemm_v2(bh, 0, 0, n - j0 - jb, k, jb, C.byref(mone), a(j0 + jb, j0), n, Y8(j0), n, C.byref(one), Y8(j0 + jb), n) == 0
    for j0 in reversed(range(0, n, nb)):
        jb = min(nb, n - j0)
        assert bl.cublasDtrsm_v2(bh, 0, 1, 0, 0, jb, k, C.byref(one), a(j0, j0), n, Y8(j0), n) == 0
        if j0 > 0:
            assert bl.cublasDgemm_v2(bh, 0, 0, j0, k, jb, C.byref(mone), a(0, j0), n, Y8(j0), n, C.byref(one), Y8(0), n) == 0
for nb in [64, 128, 256, 512, 1024]:
    st.begin_capture(); blocked(nb); g = st.end_capture()
    g.launch(st); st.synchronize()
    t = ev(lambda: g.launch(st))
    print("blocked nb", nb, "graph ms", t, "maxdiff", float(abs(Y - ref).max()))
# Xgetrf (64-bit API, ALG_0) alone, for the share of the factorisation
prm = P(); sol.cusolverDnCreateParams(C.byref(prm))
dws, hws = C.c_size_t(), C.c_size_t(); A = A0.copy(); ip64 = cp.empty(n, cp.int64)
sol.cusolverDnXgetrf_bufferSize(h, prm, C.c_int64(n), C.c_int64(n), 1, P(A.data.ptr), C.c_int64(n), 1, C.byref(dws), C.byref(hws))
dw = cp.empty(dws.value, cp.uint8); hw = (C.c_char * max(hws.value, 1))()
def xgetrf():
    cp.cuda.runtime.memcpyAsync(A.data.ptr, A0.data.ptr, A0.nbytes, 3, st.ptr)
    assert sol.cusolverDnXgetrf(h, prm, C.c_int64(n), C.c_int64(n), 1, P(A.data.ptr), C.c_int64(n), P(ip64.data.ptr), 1, P(dw.data.ptr), C.c_size_t(dws.value), hw, C.c_size_t(hws.value), P(info.data.ptr)) == 0
print("Xgetrf (with a 128 MiB copy) ms", ev(xgetrf, 7))
