#!/usr/bin/env python3
"""The peers' side of the comparison: the cases of benches/compare.rs measured the same way
(CUDA events around each repetition after warm-up, median of 30; wall time per call for the
`_wall` cases) with CuPy and PyTorch. Prints one JSON object per line.

    python3 bench/peers.py [FILTER ...]
"""
import json
import sys
import time

FILTERS = [a for a in sys.argv[1:] if not a.startswith("-")]
REPS = 30


def wanted(name):
    return not FILTERS or any(f in name for f in FILTERS)


def emit(lib, case, kind, seconds, nbytes=0.0, flops=0.0):
    print(json.dumps({
        "lib": lib, "case": case, "kind": kind, "us": round(seconds * 1e6, 3),
        "gbps": round(nbytes / seconds / 1e9, 1) if nbytes else 0.0,
        "tflops": round(flops / seconds / 1e12, 2) if flops else 0.0,
    }), flush=True)


class Peer:
    def __init__(self, name, xp, event, sync):
        self.name, self.xp, self.event, self.sync = name, xp, event, sync

    def device_time(self, f, warmup=5):
        for _ in range(warmup):
            f()
        self.sync()
        pairs = []
        for _ in range(REPS):
            a, b = self.event(), self.event()
            a.record()
            f()
            b.record()
            pairs.append((a, b))
        self.sync()
        times = sorted(self.elapsed(a, b) for a, b in pairs)
        return times[len(times) // 2]

    def wall_time(self, f, iters=2000):
        for _ in range(200):
            f()
        self.sync()
        runs = []
        for _ in range(7):
            t = time.perf_counter()
            for _ in range(iters):
                f()
            self.sync()
            runs.append((time.perf_counter() - t) / iters)
        return sorted(runs)[3]


def cases(p):
    xp = p.xp
    n = 1 << 28
    if wanted("add_f32_2^28") or wanted("exp_f32_2^28"):
        a = xp.arange(n, dtype=xp.float32)
        b = xp.full((n,), 1.5, dtype=xp.float32)
        if wanted("add_f32_2^28"):
            emit(p.name, "add_f32_2^28", "device", p.device_time(lambda: a + b), 3 * n * 4)
        if wanted("exp_f32_2^28"):
            s = a * 1e-9
            emit(p.name, "exp_f32_2^28", "device", p.device_time(lambda: xp.exp(s)), 2 * n * 4)
        del a, b
    side = 8192
    m2 = side * side
    if wanted("8192"):
        m = xp.arange(m2, dtype=xp.float32).reshape(side, side)
        col = xp.full((side, 1), 2.0, dtype=xp.float32)
        other = xp.full((side, side), 3.0, dtype=xp.float32)
        if wanted("add_broadcast_8192x8192+8192x1"):
            emit(p.name, "add_broadcast_8192x8192+8192x1", "device", p.device_time(lambda: m + col), 2 * m2 * 4 + side * 4)
        if wanted("add_transposed_8192x8192"):
            emit(p.name, "add_transposed_8192x8192", "device", p.device_time(lambda: m.T + other), 3 * m2 * 4)
        if wanted("transpose_copy_8192x8192"):
            cont = (lambda: xp.ascontiguousarray(m.T)) if p.name == "cupy" else (lambda: m.T.contiguous())
            emit(p.name, "transpose_copy_8192x8192", "device", p.device_time(cont), 2 * m2 * 4)
    if wanted("copy_kernel_f32_2^28"):
        a = xp.full((n,), 1.0, dtype=xp.float32)
        emit(p.name, "copy_kernel_f32_2^28", "device", p.device_time(lambda: a.copy() if p.name == "cupy" else a.clone()), 2 * n * 4)
        del a
    reductions(p)
    matmuls(p)
    if wanted("add_f32_1000_wall"):
        a = xp.full((1000,), 1.0, dtype=xp.float32)
        b = xp.full((1000,), 2.0, dtype=xp.float32)
        emit(p.name, "add_f32_1000_wall", "wall", p.wall_time(lambda: a + b))


def rand_matrix(p, shape, dtype):
    xp = p.xp
    n = 1
    for d in shape:
        n *= d
    x = xp.arange(n, dtype=xp.float32) * 0.618034
    return (x - xp.floor(x) - 0.5).astype(dtype).reshape(shape)


def reductions(p):
    xp = p.xp
    n = 1 << 28
    if wanted("sum_f32_2^28") or wanted("argmax_f32_2^28"):
        a = rand_matrix(p, (n,), xp.float32)
        if wanted("sum_f32_2^28"):
            emit(p.name, "sum_f32_2^28", "device", p.device_time(lambda: a.sum()), n * 4)
        if wanted("argmax_f32_2^28"):
            emit(p.name, "argmax_f32_2^28", "device", p.device_time(lambda: a.argmax()), n * 4)
        del a
    if wanted("cumsum_f32_2^28"):
        a = rand_matrix(p, (n,), xp.float32)
        cs = (lambda: xp.cumsum(a)) if p.name == "cupy" else (lambda: a.cumsum(0))
        emit(p.name, "cumsum_f32_2^28", "device", p.device_time(cs), 2 * n * 4)
        del a
    if wanted("16384"):
        m = rand_matrix(p, (16384, 16384), xp.float32)
        if wanted("sum_axis1_16384^2"):
            emit(p.name, "sum_axis1_16384^2", "device", p.device_time(lambda: m.sum(1)), n * 4)
        if wanted("sum_axis0_16384^2"):
            emit(p.name, "sum_axis0_16384^2", "device", p.device_time(lambda: m.sum(0)), n * 4)
        if wanted("max_axis1_16384^2"):
            mx = (lambda: m.max(1)) if p.name == "cupy" else (lambda: m.amax(1))
            emit(p.name, "max_axis1_16384^2", "device", p.device_time(mx), n * 4)
        del m
    if wanted("sum_f32_1000_wall"):
        a = rand_matrix(p, (1000,), xp.float32)
        emit(p.name, "sum_f32_1000_wall", "wall", p.wall_time(lambda: a.sum()))


def matmuls(p):
    xp = p.xp
    specs = [
        ("matmul_f32_8192", 1, 8192, xp.float32, False),
        ("matmul_tf32_8192", 1, 8192, xp.float32, True),
        ("matmul_f16_8192", 1, 8192, xp.float16, False),
        ("matmul_bf16_8192", 1, 8192, getattr(xp, "bfloat16", None), False),
        ("matmul_f64_4096", 1, 4096, xp.float64, False),
        ("bmm_f32_512x256", 512, 256, xp.float32, False),
    ]
    for name, batch, m, dtype, tf32 in specs:
        if not wanted(name) or dtype is None or (tf32 and p.name == "cupy"):
            # CuPy fixes TF32 at import (CUPY_TF32), so it has no TF32 figure here.
            continue
        shape = (batch, m, m) if batch > 1 else (m, m)
        a, b = rand_matrix(p, shape, dtype), rand_matrix(p, shape, dtype)
        p.set_tf32(tf32)
        t = p.device_time(lambda: xp.matmul(a, b))
        p.set_tf32(False)
        emit(p.name, name, "device", t, flops=2.0 * batch * m * m * m)
        del a, b
    if wanted("matmul_f32_64_wall"):
        a, b = rand_matrix(p, (64, 64), xp.float32), rand_matrix(p, (64, 64), xp.float32)
        emit(p.name, "matmul_f32_64_wall", "wall", p.wall_time(lambda: xp.matmul(a, b)))


def torch_peer():
    import torch

    class XP:
        float32, float16, float64, bfloat16 = torch.float32, torch.float16, torch.float64, torch.bfloat16

        @staticmethod
        def arange(n, dtype):
            return torch.arange(n, dtype=dtype, device="cuda")

        @staticmethod
        def full(shape, v, dtype):
            return torch.full(shape, v, dtype=dtype, device="cuda")

        exp, floor, matmul = staticmethod(torch.exp), staticmethod(torch.floor), staticmethod(torch.matmul)

    p = Peer("pytorch", XP, lambda: torch.cuda.Event(enable_timing=True), torch.cuda.synchronize)
    p.elapsed = lambda a, b: a.elapsed_time(b) / 1e3

    def set_tf32(on):
        torch.backends.cuda.matmul.allow_tf32 = on
    p.set_tf32 = set_tf32
    # torch tensors: .astype -> .to
    torch.Tensor.astype = lambda self, d: self.to(d)
    return p


def cupy_peer():
    import cupy

    def event():
        e = cupy.cuda.Event()
        e.record = e.record
        return e
    p = Peer("cupy", cupy, event, cupy.cuda.runtime.deviceSynchronize)
    p.elapsed = lambda a, b: cupy.cuda.get_elapsed_time(a, b) / 1e3
    p.set_tf32 = lambda on: None
    return p


if __name__ == "__main__":
    for make in (cupy_peer, torch_peer):
        try:
            peer = make()
        except Exception as e:  # a peer that is not installed is reported, not fatal
            print(json.dumps({"lib": make.__name__[:-5], "error": str(e)}), flush=True)
            continue
        cases(peer)
        try:
            peer.xp.get_default_memory_pool().free_all_blocks()
        except AttributeError:
            import torch
            torch.cuda.empty_cache()
