"""The quickstart example's work (examples/quickstart.rs) in CuPy or PyTorch, for the
end-to-end wall time of a whole process: import, device start, first kernels, results back.

    python3 bench/quickstart_peer.py cupy|pytorch

CuPy compiles its kernels at first use and keeps them on disk (CUPY_CACHE_DIR), like
cuarray; PyTorch ships precompiled kernels.
"""
import sys

lib = sys.argv[1]
if lib == "cupy":
    import cupy as xp

    def arr(v, shape=None):
        a = xp.asarray(v, dtype=xp.float32)
        return a.reshape(shape) if shape else a

    def host(a):
        return xp.asnumpy(a)
else:
    import torch

    def arr(v, shape=None):
        a = torch.tensor(v, dtype=torch.float32, device="cuda")
        return a.reshape(shape) if shape else a

    def host(a):
        return a.cpu().numpy()

a = arr([1.0, 2.0, 3.0, 4.0, 5.0])
b = arr([5.0, 4.0, 3.0, 2.0, 1.0])
print(host(a + b))
m = arr(list(range(12)), (3, 4))
col = arr([100.0, 200.0, 300.0], (3, 1))
shifted = m + col
print(host(shifted))
mt = shifted.T
print(host(mt))
print(host(mt * 0.5))
