#!/usr/bin/env python3
"""The peers' side of the comparison: the cases of benches/compare.rs measured the same way
(CUDA events around each repetition after warm-up, median of 30, more for the small sizes
of the sweep; wall time per call for the `_wall` cases; wall time around one call and the
wait for the GPU, median of 7, for the pageable transfers) with CuPy and PyTorch. Prints
one JSON object per line.

    python3 bench/peers.py [FILTER ...]
"""
import json
import os
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
        "bytes": int(nbytes),
    }), flush=True)


def sweep_reps(k):
    """Repetitions of the sweep's 2^k case (as `sweep_reps` in benches/compare.rs)."""
    return min(REPS << (28 - k), 1000)


class Peer:
    def __init__(self, name, xp, event, sync):
        self.name, self.xp, self.event, self.sync = name, xp, event, sync

    def device_time(self, f, warmup=5, reps=REPS):
        for _ in range(warmup):
            f()
        self.sync()
        pairs = []
        for _ in range(reps):
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

    def transfer_time(self, f):
        """Wall time of one call of `f` and the wait for the GPU (2 warm-ups, median of 7);
        the result is released outside the timed region."""
        for _ in range(2):
            f()
        runs = []
        for _ in range(7):
            self.sync()
            t = time.perf_counter()
            r = f()
            self.sync()
            runs.append(time.perf_counter() - t)
            del r
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
    # The elementwise catalogue, 2^26 float32 (one input, or two for arctan2 and hypot).
    m = 1 << 26
    if any(wanted(f"{op}_f32_2^26") for op in ("arctan2", "log10", "cbrt", "hypot")):
        x = xp.arange(m, dtype=xp.float32) * 1e-6 + 0.5
        y = xp.full((m,), 1.5, dtype=xp.float32)
        is_torch = p.name == "pytorch"
        if is_torch:
            import torch
        cbrt = (lambda v: torch.sign(v) * torch.abs(v).pow(1.0 / 3.0)) if is_torch else xp.cbrt
        atan2 = torch.atan2 if is_torch else xp.arctan2
        for op, f, ins in (("arctan2", lambda: atan2(x, y), 2), ("log10", lambda: xp.log10(x), 1),
                           ("cbrt", lambda: cbrt(x), 1), ("hypot", lambda: xp.hypot(x, y), 2)):
            if wanted(f"{op}_f32_2^26"):
                emit(p.name, f"{op}_f32_2^26", "device", p.device_time(f), (ins + 1) * m * 4)
        del x, y
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
    sorting(p)
    randoms(p)
    ffts(p)
    signals(p)
    matmuls(p)
    complexes(p)
    matvecs(p)
    linalgs(p)
    more_linalgs(p)
    sparses(p)
    sweep(p)
    transfers(p)
    pinned(p)
    if wanted("add_f32_1000_wall"):
        a = xp.full((1000,), 1.0, dtype=xp.float32)
        b = xp.full((1000,), 2.0, dtype=xp.float32)
        emit(p.name, "add_f32_1000_wall", "wall", p.wall_time(lambda: a + b))
    user_kernels(p)
    specials(p)
    statistics(p)
    ndimage(p)
    try:
        fusion(p)
    except Exception as e:  # one peer's failure must not hide the other's figures
        print(json.dumps({"lib": p.name, "error": f"fusion: {e}"}), flush=True)


def user_kernels(p):
    """A saxpy kernel written by the user (z = a * x + y, float32): CuPy's ElementwiseKernel;
    PyTorch has no equivalent and is skipped."""
    if p.name != "cupy":
        return
    import cupy
    import numpy as np
    saxpy = cupy.ElementwiseKernel("T x, T y, float32 a", "T z", "z = a * x + y", "saxpy")
    a = np.float32(2.0)
    n = 1 << 28
    if wanted("user_saxpy_f32_2^28"):
        x = cupy.arange(n, dtype=cupy.float32)
        y = cupy.full((n,), 1.5, dtype=cupy.float32)
        emit(p.name, "user_saxpy_f32_2^28", "device", p.device_time(lambda: saxpy(x, y, a)), 3 * n * 4)
        del x, y
    if wanted("user_saxpy_f32_1000_wall"):
        x = cupy.full((1000,), 1.0, dtype=cupy.float32)
        y = cupy.full((1000,), 2.0, dtype=cupy.float32)
        emit(p.name, "user_saxpy_f32_1000_wall", "wall", p.wall_time(lambda: saxpy(x, y, a)))


def chain16(x):
    """The 16-step chain x = x * 1.0001 + 0.5: 32 operations."""
    for _ in range(16):
        x = x * 1.0001 + 0.5
    return x


def mul_add(a, b, c):
    """a * b + c (a named function: cupy.fuse names its kernel after it, and `fma` is
    taken by CUDA's math library)."""
    return a * b + c


def fusion(p):
    """The 16-step chain on 1000 float32 (wall time per call, back to back): unfused (both
    peers), fused (CuPy: cupy.fuse, and an ElementwiseKernel of the whole chain), fused in a
    CUDA graph (CuPy: the ElementwiseKernel captured), unfused in a graph (PyTorch:
    torch.cuda.CUDAGraph; CuPy: stream capture). a * b + c on 2^28 float32 (device time):
    unfused (both), fused (cupy.fuse; PyTorch's addcmul is one kernel)."""
    xp = p.xp
    if wanted("chain16"):
        x = xp.full((1000,), 1.0, dtype=xp.float32)
        if wanted("chain16_unfused_f32_1000_wall"):
            emit(p.name, "chain16_unfused_f32_1000_wall", "wall", p.wall_time(lambda: chain16(x)))
        if p.name == "cupy":
            import cupy
            if wanted("chain16_fused_f32_1000_wall"):
                fchain = cupy.fuse(chain16)
                emit(p.name, "chain16_fused_f32_1000_wall", "wall", p.wall_time(lambda: fchain(x)))
            body = "y = x; " + "y = y * 1.0001f + 0.5f; " * 16
            ek = cupy.ElementwiseKernel("float32 x", "float32 y", body, "chain16")
            if wanted("chain16_fused_ek_f32_1000_wall"):
                emit(p.name, "chain16_fused_ek_f32_1000_wall", "wall", p.wall_time(lambda: ek(x)))
            s = cupy.cuda.Stream(non_blocking=True)
            if wanted("chain16_fused_graph_f32_1000_wall"):
                y = cupy.empty_like(x)
                with s:
                    ek(x, y)
                    s.synchronize()
                    s.begin_capture()
                    ek(x, y)
                    g = s.end_capture()
                emit(p.name, "chain16_fused_graph_f32_1000_wall", "wall", p.wall_time(lambda: g.launch(stream=s)))
            if wanted("chain16_unfused_graph_f32_1000_wall"):
                y = cupy.empty_like(x)
                with s:
                    chain16(x)
                    s.synchronize()
                    s.begin_capture()
                    y[...] = chain16(x)
                    g2 = s.end_capture()
                emit(p.name, "chain16_unfused_graph_f32_1000_wall", "wall", p.wall_time(lambda: g2.launch(stream=s)))
        else:
            import torch
            if wanted("chain16_unfused_graph_f32_1000_wall"):
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        chain16(x)
                torch.cuda.current_stream().wait_stream(s)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    y = chain16(x)
                emit(p.name, "chain16_unfused_graph_f32_1000_wall", "wall", p.wall_time(lambda: g.replay()))
    n = 1 << 28
    if wanted("fma_fused_f32_2^28") or wanted("fma_unfused_f32_2^28"):
        a = xp.arange(n, dtype=xp.float32)
        b = xp.full((n,), 1.5, dtype=xp.float32)
        c = xp.full((n,), 0.25, dtype=xp.float32)
        if wanted("fma_unfused_f32_2^28"):
            emit(p.name, "fma_unfused_f32_2^28", "device", p.device_time(lambda: a * b + c), 4 * n * 4)
        if wanted("fma_fused_f32_2^28"):
            if p.name == "cupy":
                import cupy
                f = cupy.fuse(mul_add)
                emit(p.name, "fma_fused_f32_2^28", "device", p.device_time(lambda: f(a, b, c)), 4 * n * 4)
            else:
                import torch
                emit(p.name, "fma_fused_f32_2^28", "device", p.device_time(lambda: torch.addcmul(c, a, b)), 4 * n * 4)
        del a, b, c


def specials(p):
    """Special functions on 2^26 float32 (values in [-0.5, 0.5), shifted into (0, 1) for
    ndtri); softmax and logsumexp over the rows of 4096 x 4096 float32. CuPy:
    cupyx.scipy.special; PyTorch: torch.special, torch.softmax, torch.logsumexp."""
    n = 1 << 26
    names = ["erf", "erfinv", "gammaln", "digamma", "i0e", "ndtri"]
    if any(wanted(f"special_{f}_f32_2^26") for f in names):
        a = rand_matrix(p, (n,), p.xp.float32)
        q = a + 0.5
        if p.name == "cupy":
            import cupyx.scipy.special as sp
            fns = {f: getattr(sp, f) for f in names}
        else:
            import torch
            fns = {"erf": torch.special.erf, "erfinv": torch.special.erfinv,
                   "gammaln": torch.special.gammaln, "digamma": torch.special.digamma,
                   "i0e": torch.special.i0e, "ndtri": torch.special.ndtri}
        for f in names:
            case = f"special_{f}_f32_2^26"
            if wanted(case):
                x = q if f == "ndtri" else a
                emit(p.name, case, "device", p.device_time(lambda: fns[f](x)), 2 * n * 4)
        del a, q
    if wanted("special_softmax_rows_4096^2") or wanted("special_logsumexp_rows_4096^2"):
        m = rand_matrix(p, (4096, 4096), p.xp.float32)
        b = 4096 * 4096 * 4
        if p.name == "cupy":
            import cupyx.scipy.special as sp
            softmax = lambda: sp.softmax(m, axis=-1)
            lse = lambda: sp.logsumexp(m, axis=-1)
        else:
            import torch
            softmax = lambda: torch.softmax(m, dim=-1)
            lse = lambda: torch.logsumexp(m, dim=-1)
        if wanted("special_softmax_rows_4096^2"):
            emit(p.name, "special_softmax_rows_4096^2", "device", p.device_time(softmax), 2 * b)
        if wanted("special_logsumexp_rows_4096^2"):
            emit(p.name, "special_logsumexp_rows_4096^2", "device", p.device_time(lse), b)


def statistics(p):
    """Statistics on 2^26 float32 (values in [-0.5, 0.5)): median, three percentiles,
    nansum, digitize into 1000 bins; the median along axis 1 of 4096 x 4096. CuPy: cupy.*;
    PyTorch: torch.median (the lower middle element), torch.quantile, torch.nansum,
    torch.bucketize."""
    n = 1 << 26
    names = ["stats_median_f32_2^26", "stats_percentile3_f32_2^26", "stats_nansum_f32_2^26",
             "stats_digitize_f32_2^26_1000bins"]
    if any(wanted(c) for c in names):
        a = rand_matrix(p, (n,), p.xp.float32)
        b = n * 4
        if p.name == "cupy":
            xp = p.xp
            bins = xp.linspace(-0.5, 0.5, 1000, dtype=xp.float32)
            fns = [lambda: xp.median(a), lambda: xp.percentile(a, [25.0, 50.0, 75.0]),
                   lambda: xp.nansum(a), lambda: xp.digitize(a, bins)]
        else:
            import torch
            bins = torch.linspace(-0.5, 0.5, 1000, dtype=torch.float32, device=a.device)
            qs = torch.tensor([0.25, 0.5, 0.75], dtype=torch.float32, device=a.device)
            # torch.quantile refuses inputs above 2^24 elements: kthvalue per q instead.
            fns = [lambda: torch.median(a),
                   lambda: [torch.kthvalue(a, max(1, int(q * (n - 1)) + 1)) for q in (0.25, 0.5, 0.75)],
                   lambda: torch.nansum(a), lambda: torch.bucketize(a, bins, right=True)]
        for case, f in zip(names, fns):
            if wanted(case):
                extra = n * 8 if "digitize" in case else 0
                emit(p.name, case, "device", p.device_time(f), b + extra)
        del a
    if wanted("stats_histogram_f32_2^26_1000edges") or wanted("stats_interp_f32_2^26_in_2^16"):
        a = rand_matrix(p, (n,), p.xp.float32)
        if p.name == "cupy":
            xp = p.xp
            edges = xp.linspace(-0.5, 0.5, 1000, dtype=xp.float32)
            xs = xp.linspace(-0.5, 0.5, 1 << 16, dtype=xp.float32)
            hist = lambda: xp.histogram(a, edges)
            interp = lambda: xp.interp(a, xs, xp.sin(xs))
        else:
            import torch
            # torch has no histogram over given edges on the GPU: histc (uniform bins) stands in.
            hist = lambda: torch.histc(a, bins=999, min=-0.5, max=0.5)
            interp = None
        if wanted("stats_histogram_f32_2^26_1000edges"):
            emit(p.name, "stats_histogram_f32_2^26_1000edges", "device", p.device_time(hist), n * 4)
        if wanted("stats_interp_f32_2^26_in_2^16") and interp is not None:
            emit(p.name, "stats_interp_f32_2^26_in_2^16", "device", p.device_time(interp), n * 8)
        del a
    if wanted("stats_cov_f32_256x65536"):
        m = rand_matrix(p, (256, 65536), p.xp.float32)
        f = (lambda: p.xp.cov(m)) if p.name == "cupy" else (lambda: __import__("torch").cov(m))
        emit(p.name, "stats_cov_f32_256x65536", "device", p.device_time(f), 256 * 65536 * 4)
    if wanted("stats_median_axis1_4096^2"):
        m = rand_matrix(p, (4096, 4096), p.xp.float32)
        if p.name == "cupy":
            f = lambda: p.xp.median(m, axis=1)
        else:
            import torch
            f = lambda: torch.median(m, dim=1)
        emit(p.name, "stats_median_axis1_4096^2", "device", p.device_time(f), 4096 * 4096 * 4)


def ndimage(p):
    """Image processing (cupyx.scipy.ndimage; PyTorch has no counterpart): float32 images of
    4096 x 4096 (2048 x 2048 for the distance transform and zoom) from rand_matrix, the
    same cases as benches/compare_cases/ndimage.rs."""
    if p.name != "cupy":
        return
    import cupyx.scipy.ndimage as nd
    xp = p.xp
    side = 4096
    n = side * side
    rw = 2 * n * 4
    names = ["ndimage_gaussian_f32_4096^2_s3", "ndimage_uniform_f32_4096^2_9",
             "ndimage_sobel_f32_4096^2", "ndimage_median_f32_4096^2_5x5",
             "ndimage_maximum_f32_4096^2_7x7", "ndimage_rotate30_order1_f32_4096^2",
             "ndimage_map_coordinates_order1_f32_2^22", "ndimage_binary_erosion_4096^2_3x3",
             "ndimage_label_4096^2_d0.3", "ndimage_center_of_mass_f32_4096^2_1000labels"]
    if any(wanted(c) for c in names):
        img = rand_matrix(p, (side, side), xp.float32)
        fns = [lambda: nd.gaussian_filter(img, 3.0, mode="reflect", truncate=4.0),
               lambda: nd.uniform_filter(img, 9, mode="reflect"),
               lambda: nd.sobel(img, 0, mode="reflect"),
               lambda: nd.median_filter(img, 5, mode="reflect"),
               lambda: nd.maximum_filter(img, 7, mode="reflect"),
               lambda: nd.rotate(img, 30.0, axes=(1, 0), reshape=False, order=1, mode="constant")]
        for case, f in zip(names, fns):
            if wanted(case):
                emit(p.name, case, "device", p.device_time(f), rw)
        if wanted(names[6]):
            m = 1 << 22
            c = (rand_matrix(p, (2, m), xp.float64) + 0.5) * (side - 1)
            f = lambda: nd.map_coordinates(img, c, order=1, mode="constant")
            emit(p.name, names[6], "device", p.device_time(f), m * 20)
        if wanted(names[7]) or wanted(names[8]):
            mask = img < -0.2
            if wanted(names[7]):
                emit(p.name, names[7], "device", p.device_time(lambda: nd.binary_erosion(mask)), 2 * n)
            if wanted(names[8]):
                emit(p.name, names[8], "device", p.device_time(lambda: nd.label(mask)), 5 * n)
        if wanted(names[9]):
            labels = (xp.arange(n, dtype=xp.int32) // ((n + 999) // 1000) + 1).reshape(side, side)
            index = xp.arange(1, 1001)
            f = lambda: nd.center_of_mass(img, labels, index)
            emit(p.name, names[9], "device", p.device_time(f), n * 8)
        del img
    small = 2048
    if wanted("ndimage_edt_2048^2"):
        mask = rand_matrix(p, (small, small), xp.float32) > -0.45
        f = lambda: nd.distance_transform_edt(mask)
        emit(p.name, "ndimage_edt_2048^2", "device", p.device_time(f), small * small * 9)
    for order in (1, 3):
        name = f"ndimage_zoom2_order{order}_f32_2048^2"
        if wanted(name):
            img = rand_matrix(p, (small, small), xp.float32)
            f = lambda: nd.zoom(img, 2.0, order=order, mode="constant")
            emit(p.name, name, "device", p.device_time(f), small * small * 20)


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


def randoms(p):
    """Random numbers, write-only (bytes = the output): uniform, standard normal and
    exponential (scale 1) float32 and integers in [0, 1000) as int32, 2^28 of each; wall time
    of a 1000-value uniform call. CuPy: its cuRAND-backed `cupy.random` functions; PyTorch:
    rand, randn, exponential_, randint (Philox)."""
    xp = p.xp
    n = 1 << 28
    if p.name == "cupy":
        uniform = lambda k: xp.random.random_sample(k, dtype=xp.float32)
        normal = lambda k: xp.random.standard_normal(k, dtype=xp.float32)
        exponential = lambda k: xp.random.standard_exponential(k, dtype=xp.float32)
        integers = lambda k: xp.random.randint(0, 1000, k, dtype=xp.int32)
    else:
        import torch
        uniform = lambda k: torch.rand(k, device="cuda")
        normal = lambda k: torch.randn(k, device="cuda")
        exponential = lambda k: torch.empty(k, device="cuda").exponential_()
        integers = lambda k: torch.randint(0, 1000, (k,), dtype=torch.int32, device="cuda")
    for name, f in (("uniform_f32_2^28", uniform), ("normal_f32_2^28", normal),
                    ("exponential_f32_2^28", exponential), ("integers_i32_2^28", integers)):
        if wanted(name):
            emit(p.name, name, "device", p.device_time(lambda: f(n)), n * 4)
    if wanted("uniform_f32_1000_wall"):
        emit(p.name, "uniform_f32_1000_wall", "wall", p.wall_time(lambda: uniform(1000)))
    distributions(p)


def distributions(p):
    """NumPy's distributions, 2^24 samples (bytes = the output): gamma k = 2.5 float32
    (PyTorch's _standard_gamma; CuPy's gamma has no dtype, so it is left out), poisson
    lam = 10, binomial n = 100 p = 0.3, beta(2, 5), choice of 2^24 from 1000 with p
    (CuPy's choice; torch.multinomial with replacement), choice of 2^20 of 2^24 without
    replacement (CuPy's choice; PyTorch: randperm(2^24)[:2^20])."""
    xp = p.xp
    n = 1 << 24
    if p.name == "cupy":
        w = xp.arange(1, 1001, dtype=xp.float64)
        pv = w / w.sum()
        cases = {
            "poisson_i64_2^24": (lambda: xp.random.poisson(10.0, n), n * 8),
            "binomial_i64_2^24": (lambda: xp.random.binomial(100, 0.3, n), n * 8),
            "beta_f32_2^24": (lambda: xp.random.beta(2.0, 5.0, n, dtype=xp.float32), n * 4),
            "choice_p_i64_2^24_of_1000": (lambda: xp.random.choice(1000, n, True, pv), n * 8),
            "choice_noreplace_i64_2^20_of_2^24": (lambda: xp.random.choice(n, 1 << 20, False), (1 << 20) * 8),
        }
    else:
        import torch
        k = torch.full((n,), 2.5, device="cuda")
        lam = torch.full((n,), 10.0, device="cuda")
        cnt = torch.full((n,), 100.0, device="cuda")
        prob = torch.full((n,), 0.3, device="cuda")
        w = torch.arange(1, 1001, dtype=torch.float32, device="cuda")
        pf = w / w.sum()
        cases = {
            "gamma_f32_2^24": (lambda: torch._standard_gamma(k), n * 4),
            "poisson_i64_2^24": (lambda: torch.poisson(lam), n * 4),
            "binomial_i64_2^24": (lambda: torch.binomial(cnt, prob), n * 4),
            "choice_p_i64_2^24_of_1000": (lambda: torch.multinomial(pf, n, replacement=True), n * 8),
            "choice_noreplace_i64_2^20_of_2^24": (lambda: torch.randperm(n, device="cuda")[: 1 << 20], (1 << 20) * 8),
        }
    for name, (f, nbytes) in cases.items():
        if wanted(name):
            emit(p.name, name, "device", p.device_time(f), nbytes)


def ffts(p):
    """FFTs (bytes = input + output): c64 fft of 2^24, fft2 c64 8192 x 8192, rfft f32 2^24, a
    batch of 4096 rows of 4096 c64 along the last axis; wall time of a c64 fft of 1024
    points (cached plan). CuPy: cupy.fft; PyTorch: torch.fft."""
    xp = p.xp
    fft_mod = xp.fft if p.name == "cupy" else __import__("torch").fft
    n = 1 << 24

    def c64(shape):
        if p.name == "cupy":
            return rand_matrix(p, shape, xp.float32).astype(xp.complex64)
        import torch
        return rand_matrix(p, shape, xp.float32).to(torch.complex64)
    if wanted("fft_c64_2^24"):
        a = c64((n,))
        emit(p.name, "fft_c64_2^24", "device", p.device_time(lambda: fft_mod.fft(a)), 2 * n * 8)
        del a
    if wanted("fft2_c64_8192x8192"):
        a = c64((8192, 8192))
        m = 8192 * 8192
        emit(p.name, "fft2_c64_8192x8192", "device", p.device_time(lambda: fft_mod.fft2(a)), 2 * m * 8)
        del a
    if wanted("rfft_f32_2^24"):
        a = rand_matrix(p, (n,), xp.float32)
        emit(p.name, "rfft_f32_2^24", "device", p.device_time(lambda: fft_mod.rfft(a)), n * 4 + (n // 2 + 1) * 8)
        del a
    if wanted("fft_c64_4096x4096_rows"):
        a = c64((4096, 4096))
        emit(p.name, "fft_c64_4096x4096_rows", "device", p.device_time(lambda: fft_mod.fft(a)), 2 * n * 8)
        del a
    if wanted("fft_c64_1024_wall"):
        a = c64((1024,))
        emit(p.name, "fft_c64_1024_wall", "wall", p.wall_time(lambda: fft_mod.fft(a)))

def signals(p):
    """Signal processing on float32 (as benches/compare_cases/signal.rs; bytes = input read
    once + output written once). CuPy: cupyx.scipy.signal (np.convolve's peer: cupy.convolve);
    PyTorch: conv1d / conv2d for the direct convolutions (its only peers here)."""
    xp = p.xp
    n = 1 << 22
    if p.name == "cupy":
        import cupyx.scipy.signal as sig
        from scipy.signal import butter
        a = rand_matrix(p, (n,), xp.float32)
        v = rand_matrix(p, (1 << 12,), xp.float32)
        h63 = rand_matrix(p, (63,), xp.float32)
        img = rand_matrix(p, (4096, 4096), xp.float32)
        k5 = rand_matrix(p, (5, 5), xp.float32)
        x = rand_matrix(p, (256, 16384), xp.float32)
        b2 = xp.asarray([0.2, 0.4, 0.2], dtype=xp.float32)
        a2 = xp.asarray([1.0, -0.5, 0.25], dtype=xp.float32)
        sos = xp.asarray(butter(8, 0.2, output="sos"), dtype=xp.float32)
        rows = 2 * 256 * 16384 * 4
        cases = {
            "sig_fftconvolve_f32_2^22x2^12": (lambda: sig.fftconvolve(a, v), (2 * n + (1 << 12)) * 4),
            "sig_oaconvolve_f32_2^22x2^12": (lambda: sig.oaconvolve(a, v), (2 * n + (1 << 12)) * 4),
            "sig_convolve_f32_2^22x63": (lambda: xp.convolve(a, h63), 2 * n * 4),
            "sig_convolve2d_f32_4096^2x5x5": (lambda: sig.convolve2d(img, k5, mode="same"), 2 * 4096 * 4096 * 4),
            "sig_lfilter_o2_f32_256x16384": (lambda: sig.lfilter(b2, a2, x, axis=-1), rows),
            "sig_sosfilt_4sec_f32_256x16384": (lambda: sig.sosfilt(sos, x, axis=-1), rows),
            "sig_medfilt_f32_2^22_k7": (lambda: sig.medfilt(a, 7), 2 * n * 4),
            "sig_welch_f32_2^22_nperseg4096": (lambda: sig.welch(a, nperseg=4096), n * 4),
            "sig_stft_f32_2^22_nperseg1024": (lambda: sig.stft(a, nperseg=1024), 3 * n * 4),
        }
    else:
        import torch
        F = torch.nn.functional
        a = rand_matrix(p, (n,), xp.float32)
        h63 = rand_matrix(p, (63,), xp.float32)
        img = rand_matrix(p, (4096, 4096), xp.float32)
        k5 = rand_matrix(p, (5, 5), xp.float32)
        cases = {
            "sig_convolve_f32_2^22x63": (
                lambda: F.conv1d(a.view(1, 1, -1), h63.flip(0).view(1, 1, -1), padding=62), 2 * n * 4),
            "sig_convolve2d_f32_4096^2x5x5": (
                lambda: F.conv2d(img.view(1, 1, 4096, 4096), k5.flip(0, 1).view(1, 1, 5, 5), padding=2),
                2 * 4096 * 4096 * 4),
        }
    for name, (f, nbytes) in cases.items():
        if wanted(name):
            emit(p.name, name, "device", p.device_time(f), nbytes)


def sorting(p):
    """Sorting, selection, indexing and sets, on standard-normal float32 data and random
    int32 (as sort_cases in benches/compare.rs). PyTorch's sort returns the indices too;
    CuPy has no topk."""
    xp = p.xp
    n = 1 << 26
    if p.name == "cupy":
        normal = lambda shape: xp.random.standard_normal(shape, dtype=xp.float32)
        half = lambda k: xp.random.random_sample(k, dtype=xp.float32) < 0.5
        ints = lambda hi, k: xp.random.randint(0, hi, k, dtype=xp.int64)
        sort = lambda a: xp.sort(a)
        argsort = lambda a, axis=-1: xp.argsort(a, axis=axis)
        select = lambda a, m: a[m]
        take = lambda a, i: xp.take(a, i)
        search = lambda s, v: xp.searchsorted(s, v)
        topk = None
    else:
        import torch
        normal = lambda shape: torch.randn(shape, device="cuda")
        half = lambda k: torch.rand(k, device="cuda") < 0.5
        ints = lambda hi, k: torch.randint(0, hi, (k,), dtype=torch.int64, device="cuda")
        sort = lambda a: torch.sort(a)
        argsort = lambda a, axis=-1: torch.argsort(a, dim=axis, stable=True)
        select = lambda a, m: torch.masked_select(a, m)
        take = lambda a, i: torch.take(a, i)
        search = lambda s, v: torch.searchsorted(s, v)
        topk = lambda a, k: torch.topk(a, k)
    if wanted("sort_f32_2^26") or wanted("argsort_f32_2^26"):
        a = normal((n,))
        if wanted("sort_f32_2^26"):
            emit(p.name, "sort_f32_2^26", "device", p.device_time(lambda: sort(a)), n * 8)
        if wanted("argsort_f32_2^26"):
            emit(p.name, "argsort_f32_2^26", "device", p.device_time(lambda: argsort(a)), n * 12)
        del a
    if wanted("argsort_rows_f32_4096x4096"):
        m = normal((4096, 4096))
        emit(p.name, "argsort_rows_f32_4096x4096", "device", p.device_time(lambda: argsort(m, 1)), 4096 * 4096 * 12)
        del m
    if wanted("masked_select_f32_2^26"):
        a, m = normal((n,)), half(n)
        emit(p.name, "masked_select_f32_2^26", "device", p.device_time(lambda: select(a, m)), n * 5 + n // 2 * 4)
        del a, m
    if wanted("take_f32_2^26"):
        a, i = normal((n,)), ints(n, n)
        emit(p.name, "take_f32_2^26", "device", p.device_time(lambda: take(a, i)), n * 16)
        del a, i
    if wanted("index_rows_f32_2^20x64") or wanted("index_put_rows_f32_2^20x64"):
        rows = 1 << 20
        a, i = normal((rows, 64)), ints(rows, rows)
        bytes_ = rows * 64 * 8 + rows * 8
        if wanted("index_rows_f32_2^20x64"):
            emit(p.name, "index_rows_f32_2^20x64", "device", p.device_time(lambda: a[i]), bytes_)
        if wanted("index_put_rows_f32_2^20x64"):
            v = normal((rows, 64))

            def put():
                a[i] = v

            emit(p.name, "index_put_rows_f32_2^20x64", "device", p.device_time(put), bytes_)
            del v
        del a, i
    if wanted("index_points_f32_8192^2_2^22"):
        m = normal((8192, 8192))
        k = 1 << 22
        i, j = ints(8192, k), ints(8192, k)
        emit(p.name, "index_points_f32_8192^2_2^22", "device", p.device_time(lambda: m[i, j]), k * 20)
        del m, i, j
    if wanted("topk_f32_2^24_k100") and topk is not None:
        a = normal((1 << 24,))
        emit(p.name, "topk_f32_2^24_k100", "device", p.device_time(lambda: topk(a, 100)), 4 << 24)
        del a
    if wanted("searchsorted_f32_2^20_in_2^24"):
        s = sort(normal((1 << 24,)))
        s = s[0] if isinstance(s, tuple) or hasattr(s, "values") else s
        v = normal((1 << 20,))
        emit(p.name, "searchsorted_f32_2^20_in_2^24", "device", p.device_time(lambda: search(s, v)), 12 << 20)
        del s, v
    # Sets of int32: isin of 2^24 values in 2^20, unique with counts of 2^24 values in [0, 2^20).
    if wanted("isin_i32_2^24_in_2^20") or wanted("unique_counts_i32_2^24"):
        a = ints(1 << 20, 1 << 24).astype(xp.int32)
        t = ints(1 << 24, 1 << 20).astype(xp.int32)
        if p.name == "cupy":
            isin = lambda: xp.isin(a, t)
            uniq = lambda: xp.unique(a, return_counts=True)
        else:
            import torch
            isin = lambda: torch.isin(a, t)
            uniq = lambda: torch.unique(a, sorted=True, return_counts=True)
        if wanted("isin_i32_2^24_in_2^20"):
            emit(p.name, "isin_i32_2^24_in_2^20", "device", p.device_time(isin), (5 << 24) + (4 << 20))
        if wanted("unique_counts_i32_2^24"):
            emit(p.name, "unique_counts_i32_2^24", "device", p.device_time(uniq), 4 << 24)
        del a, t


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
        cupy_tf32 = p.name == "cupy" and os.environ.get("CUPY_TF32") == "1"
        if not wanted(name) or dtype is None or (p.name == "cupy" and tf32 != cupy_tf32):
            # CuPy fixes TF32 at import (CUPY_TF32): its TF32 figure comes from a second
            # process (`--cupy-tf32`), and only that one.
            continue
        if cupy_tf32 and dtype != xp.float32:
            continue
        shape = (batch, m, m) if batch > 1 else (m, m)
        a, b = rand_matrix(p, shape, dtype), rand_matrix(p, shape, dtype)
        p.set_tf32(tf32)
        t = p.device_time(lambda: xp.matmul(a, b))
        p.set_tf32(False)
        emit(p.name, name, "device", t, flops=2.0 * batch * m * m * m)
        del a, b
    if wanted("matmul_f16_8192_normal"):
        # Standard-normal inputs from each library's own generator (see benches/compare.rs).
        n = 8192
        if p.name == "cupy":
            a = xp.random.standard_normal((n, n), dtype=xp.float32).astype(xp.float16)
            b = xp.random.standard_normal((n, n), dtype=xp.float32).astype(xp.float16)
        else:
            import torch
            a = torch.randn(n, n, device="cuda", dtype=torch.float16)
            b = torch.randn(n, n, device="cuda", dtype=torch.float16)
        emit(p.name, "matmul_f16_8192_normal", "device", p.device_time(lambda: xp.matmul(a, b)),
             flops=2.0 * n ** 3)
        del a, b
    if wanted("matmul_f32_64_wall"):
        a, b = rand_matrix(p, (64, 64), xp.float32), rand_matrix(p, (64, 64), xp.float32)
        emit(p.name, "matmul_f32_64_wall", "wall", p.wall_time(lambda: xp.matmul(a, b)))


def complexes(p):
    """Complex numbers (as `complex_cases` in benches/compare.rs): a product of two
    complex64 arrays of 2^24, abs into float32, a sum, and a complex64 matmul of 4096
    (8 real flops per complex multiply-add)."""
    xp = p.xp

    def parts(shape):
        re = rand_matrix(p, shape, xp.float32)
        im = xp.flip(re * -0.75, (0,))
        if p.name == "cupy":
            return (re + 1j * im).astype(xp.complex64)
        return xp.complex(re, im.contiguous())

    n = 1 << 24
    if wanted("mul_c64_2^24") or wanted("abs_c64_2^24") or wanted("sum_c64_2^24"):
        a = parts((n,))
        b = xp.flip(parts((n,)), 0).copy() if p.name == "cupy" else parts((n,)).flip(0).contiguous()
        if wanted("mul_c64_2^24"):
            emit(p.name, "mul_c64_2^24", "device", p.device_time(lambda: a * b), 3 * n * 8)
        if wanted("abs_c64_2^24"):
            emit(p.name, "abs_c64_2^24", "device", p.device_time(lambda: abs(a)), n * 12)
        if wanted("sum_c64_2^24"):
            emit(p.name, "sum_c64_2^24", "device", p.device_time(lambda: a.sum()), n * 8)
        del a, b
    if wanted("matmul_c64_4096"):
        m = 4096
        a, b = parts((m, m)), parts((m, m))
        emit(p.name, "matmul_c64_4096", "device", p.device_time(lambda: xp.matmul(a, b)), flops=8.0 * m * m * m)
def linalgs(p):
    """The linear algebra cases of benches/compare.rs: same inputs (a diagonal shift of n,
    symmetric where the routine needs it), the library's default routine and checks."""
    xp = p.xp
    la = xp.linalg

    def shifted(n, batch, symmetric, dtype):
        shape = (batch, n, n) if batch > 1 else (n, n)
        r = rand_matrix(p, shape, xp.float64)
        if symmetric:
            r = (r + r.swapaxes(-1, -2)) * 0.5
        eye = xp.eye(n, dtype=xp.float64) if p.name == "cupy" else p.eye(n)
        return (r + eye * n).astype(dtype)

    slow = dict(warmup=2, reps=10)
    if wanted("solve_f64_4096x64"):
        a, b = shifted(4096, 1, False, xp.float64), rand_matrix(p, (4096, 64), xp.float64)
        emit(p.name, "solve_f64_4096x64", "device", p.device_time(lambda: la.solve(a, b), **slow))
        del a, b
    if wanted("cholesky_f64_4096"):
        a = shifted(4096, 1, True, xp.float64)
        emit(p.name, "cholesky_f64_4096", "device", p.device_time(lambda: la.cholesky(a), **slow))
        del a
    def gaussian(n):
        if p.name == "cupy":
            return xp.random.standard_normal((n, n), dtype=xp.float32)
        import torch
        return torch.randn(n, n, dtype=torch.float32, device="cuda")

    if wanted("svd_f32_2048"):
        a = gaussian(2048)
        emit(p.name, "svd_f32_2048", "device",
             p.device_time(lambda: la.svd(a, full_matrices=False), **slow))
        del a
    if wanted("eigh_f32_2048"):
        g = gaussian(2048)
        a = (g + g.T) * 0.5
        emit(p.name, "eigh_f32_2048", "device", p.device_time(lambda: la.eigh(a), **slow))
        del a
    if wanted("solve_batched_f32_10000x8x8"):
        a, b = shifted(8, 10000, False, xp.float32), rand_matrix(p, (10000, 8, 1), xp.float32)
        emit(p.name, "solve_batched_f32_10000x8x8", "device", p.device_time(lambda: la.solve(a, b)))
        del a, b


def more_linalgs(p):
    """Contractions and the third round's linear algebra (as benches/compare_cases/
    linalg_more.rs): einsum, tensordot and kron (flops or bytes), the general eigensolver,
    lu_factor, solve_triangular, expm, and the complex SVD and Hermitian eigensolver. CuPy:
    cupyx.scipy.linalg for the SciPy names (a case its version lacks is left out);
    PyTorch: torch.linalg."""
    xp = p.xp
    cupy = p.name == "cupy"
    if cupy:
        import cupyx.scipy.linalg as sla
        mod = xp
    else:
        import torch
        mod = torch
    slow = dict(warmup=2, reps=10)

    def shifted(n):
        r = rand_matrix(p, (n, n), xp.float64)
        eye = xp.eye(n, dtype=xp.float64) if cupy else p.eye(n)
        return r + eye * n

    if wanted("einsum_ij_jk_f32_512x1024x768"):
        a, b = rand_matrix(p, (512, 1024), xp.float32), rand_matrix(p, (1024, 768), xp.float32)
        emit(p.name, "einsum_ij_jk_f32_512x1024x768", "device",
             p.device_time(lambda: mod.einsum("ij,jk->ik", a, b)), flops=2.0 * 512 * 1024 * 768)
        del a, b
    if wanted("einsum_bhqd_bhkd_f32_32x16x512x64"):
        q = rand_matrix(p, (32, 16, 512, 64), xp.float32)
        k = rand_matrix(p, (32, 16, 512, 64), xp.float32)
        emit(p.name, "einsum_bhqd_bhkd_f32_32x16x512x64", "device",
             p.device_time(lambda: mod.einsum("bhqd,bhkd->bhqk", q, k)),
             flops=2.0 * 32 * 16 * 512 * 512 * 64)
        del q, k
    if wanted("tensordot_f32_64x128x256_256x128x96"):
        a = rand_matrix(p, (64, 128, 256), xp.float32)
        b = rand_matrix(p, (256, 128, 96), xp.float32)
        if cupy:
            f = lambda: xp.tensordot(a, b, axes=([1, 2], [1, 0]))
        else:
            f = lambda: torch.tensordot(a, b, dims=([1, 2], [1, 0]))
        emit(p.name, "tensordot_f32_64x128x256_256x128x96", "device", p.device_time(f),
             flops=2.0 * 64 * 96 * 128 * 256)
        del a, b
    if wanted("kron_f32_64^2"):
        a, b = rand_matrix(p, (64, 64), xp.float32), rand_matrix(p, (64, 64), xp.float32)
        emit(p.name, "kron_f32_64^2", "device", p.device_time(lambda: mod.kron(a, b)),
             (4096 * 4096 + 2 * 64 * 64) * 4)
        del a, b

    def gaussian(n, dtype):
        if cupy:
            return xp.random.standard_normal((n, n), dtype=xp.float32).astype(dtype)
        return torch.randn(n, n, dtype=torch.float32, device="cuda").to(dtype)

    def gaussian_c64(n):
        if cupy:
            re, im = gaussian(n, xp.float32), gaussian(n, xp.float32)
            return (re + 1j * im).astype(xp.complex64)
        return torch.complex(gaussian(n, torch.float32), gaussian(n, torch.float32))

    if wanted("eig_f64_2048") and (not cupy or hasattr(xp.linalg, "eig")):
        a = gaussian(2048, xp.float64)
        emit(p.name, "eig_f64_2048", "device", p.device_time(lambda: mod.linalg.eig(a), **slow))
        del a
    if wanted("lu_factor_f64_4096"):
        a = shifted(4096)
        f = (lambda: sla.lu_factor(a)) if cupy else (lambda: torch.linalg.lu_factor(a))
        emit(p.name, "lu_factor_f64_4096", "device", p.device_time(f, **slow))
        del a
    if wanted("solve_triangular_f64_4096x64"):
        a, b = shifted(4096), rand_matrix(p, (4096, 64), xp.float64)
        if cupy:
            f = lambda: sla.solve_triangular(a, b, lower=True)
        else:
            f = lambda: torch.linalg.solve_triangular(a, b, upper=False)
        emit(p.name, "solve_triangular_f64_4096x64", "device", p.device_time(f, **slow))
        del a, b
    if wanted("svd_c64_2048"):
        a = gaussian_c64(2048)
        emit(p.name, "svd_c64_2048", "device",
             p.device_time(lambda: mod.linalg.svd(a, full_matrices=False), **slow))
        del a
    if wanted("eigh_c64_2048"):
        g = gaussian_c64(2048)
        a = (g + g.conj().T) * 0.5
        emit(p.name, "eigh_c64_2048", "device", p.device_time(lambda: mod.linalg.eigh(a), **slow))
        del a, g
    if wanted("expm_f64_1024") and (not cupy or hasattr(sla, "expm")):
        a = rand_matrix(p, (1024, 1024), xp.float64)
        f = (lambda: sla.expm(a)) if cupy else (lambda: torch.linalg.matrix_exp(a))
        emit(p.name, "expm_f64_1024", "device", p.device_time(f, **slow))
        del a


def sparses(p):
    """The sparse cases of benches/compare.rs: SpMV of a CSR matrix of 2^22 rows with 16
    entries per row (columns (i + j 2^18) mod 2^22), SpMM of it with 16 dense columns,
    SpGEMM of the 2^18-row matrix with 8 entries per row squared, and 500 iterations of cg (tolerance 0)
    on the 5-point Laplacian of a 1024 x 1024 grid (CuPy only: PyTorch has no cg)."""
    import numpy as np

    def csr(indptr, indices, data, n, dtype):
        if p.name == "cupy":
            import cupy
            import cupyx.scipy.sparse as csp
            return csp.csr_matrix((cupy.asarray(data, dtype=dtype), cupy.asarray(indices),
                                   cupy.asarray(indptr)), shape=(n, n))
        import torch
        t = {np.float32: torch.float32, np.float64: torch.float64}[dtype]
        return torch.sparse_csr_tensor(torch.from_numpy(indptr).cuda(), torch.from_numpy(indices).cuda(),
                                       torch.from_numpy(data).to(t).cuda(), size=(n, n))

    if wanted("spmv_csr_f32_2^22x16"):
        n, k = 1 << 22, 16
        e = np.arange(n * k, dtype=np.int64)
        indptr = (np.arange(n + 1, dtype=np.int64) * k).astype(np.int32)
        indices = ((e // k + (e % k) * (n // k)) % n).astype(np.int32)
        data = 1.0 + (e % 7) * 0.125
        a = csr(indptr, indices, data, n, np.float32)
        x = rand_matrix(p, (n,), p.xp.float32)
        emit(p.name, "spmv_csr_f32_2^22x16", "device", p.device_time(lambda: a @ x), n * k * 8 + n * 4 + n * 4 * 2)
        del a, x
    def ring(n, k):
        e = np.arange(n * k, dtype=np.int64)
        indptr = (np.arange(n + 1, dtype=np.int64) * k).astype(np.int32)
        indices = ((e // k + (e % k) * (n // k)) % n).astype(np.int32)
        return csr(indptr, indices, 1.0 + (e % 7) * 0.125, n, np.float32)

    if wanted("spmm_csr_f32_2^22x16_k16"):
        n, k, cols = 1 << 22, 16, 16
        a = ring(n, k)
        b = rand_matrix(p, (n, cols), p.xp.float32)
        emit(p.name, "spmm_csr_f32_2^22x16_k16", "device", p.device_time(lambda: a @ b),
             n * k * 8 + n * 4 + n * cols * 4 * 2)
        del a, b
    if wanted("spgemm_csr_f32_2^18x8"):
        n, k = 1 << 18, 8
        a = ring(n, k)
        emit(p.name, "spgemm_csr_f32_2^18x8", "device", p.device_time(lambda: a @ a), 2 * (n * k * 8 + n * 4))
        del a
    if wanted("cg_poisson_f64_1024^2_500it") and p.name == "cupy":
        import cupy
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cla
        g = 1024
        one = csp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(g, g), format="csr")
        eye = csp.identity(g, format="csr")
        a = (csp.kron(one, eye) + csp.kron(eye, one)).tocsr()
        b = cupy.ones(g * g, dtype=cupy.float64)
        import inspect
        rel = "rtol" if "rtol" in inspect.signature(cla.cg).parameters else "tol"
        zero = {rel: 0.0, "atol": 0.0}
        emit(p.name, "cg_poisson_f64_1024^2_500it", "device",
             p.device_time(lambda: cla.cg(a, b, maxiter=500, **zero), warmup=1, reps=5))
        del a, b
    if (wanted("gmres_poisson_f64_256^2") or wanted("eigsh_k6_f64_65536")) and p.name == "cupy":
        # benches/compare_cases/sparse_solvers.rs: the 5-point Laplacian of a 256 x 256 grid.
        import cupy
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cla
        import inspect
        g = 256
        one = csp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(g, g), format="csr")
        eye = csp.identity(g, format="csr")
        a = (csp.kron(one, eye) + csp.kron(eye, one)).tocsr()
        if wanted("gmres_poisson_f64_256^2"):
            b = cupy.ones(g * g, dtype=cupy.float64)
            rel = "rtol" if "rtol" in inspect.signature(cla.gmres).parameters else "tol"
            zero = {rel: 0.0, "atol": 0.0}
            # restart 20, 100 Arnoldi steps (CuPy's maxiter counts steps; cuarray's cycles).
            emit(p.name, "gmres_poisson_f64_256^2", "device",
                 p.device_time(lambda: cla.gmres(a, b, restart=20, maxiter=100, **zero), warmup=1, reps=5))
            del b
        if wanted("eigsh_k6_f64_65536"):
            emit(p.name, "eigsh_k6_f64_65536", "device",
                 p.device_time(lambda: cla.eigsh(a, k=6, which="LM", tol=0), warmup=1, reps=3))
        del a


def matvecs(p):
    """Matrix-vector products of an 8192 x 8192 matrix: memory-bound, bytes = the matrix."""
    xp = p.xp
    side = 8192
    if wanted("matvec_f32_8192x8192") or wanted("vecmat_f32_8192x8192"):
        a, v = rand_matrix(p, (side, side), xp.float32), rand_matrix(p, (side,), xp.float32)
        if wanted("matvec_f32_8192x8192"):
            emit(p.name, "matvec_f32_8192x8192", "device", p.device_time(lambda: xp.matmul(a, v)), side * side * 4)
        if wanted("vecmat_f32_8192x8192"):
            emit(p.name, "vecmat_f32_8192x8192", "device", p.device_time(lambda: xp.matmul(v, a)), side * side * 4)
        del a, v
    if wanted("matvec_f64_8192x8192"):
        a, v = rand_matrix(p, (side, side), xp.float64), rand_matrix(p, (side,), xp.float64)
        emit(p.name, "matvec_f64_8192x8192", "device", p.device_time(lambda: xp.matmul(a, v)), side * side * 8)
        del a, v


def sweep(p):
    """The size sweep below 2^28 (the 2^28 points are add_f32_2^28 and sum_f32_2^28)."""
    xp = p.xp
    for k in range(10, 28, 2):
        n = 1 << k
        name = f"add_f32_2^{k}"
        if wanted(name):
            a = xp.arange(n, dtype=xp.float32)
            b = xp.full((n,), 1.5, dtype=xp.float32)
            emit(p.name, name, "device", p.device_time(lambda: a + b, warmup=10, reps=sweep_reps(k)), 3 * n * 4)
            del a, b
    for k in range(10, 28, 2):
        n = 1 << k
        name = f"sum_f32_2^{k}"
        if wanted(name):
            a = rand_matrix(p, (n,), xp.float32)
            emit(p.name, name, "device", p.device_time(lambda: a.sum(), warmup=10, reps=sweep_reps(k)), n * 4)
            del a
    # Back to back: 20 calls queued between one pair of events, the time a call (as
    # `*_x20` in benches/compare.rs).
    for k in (20, 24):
        n = 1 << k
        add, total = f"add_f32_2^{k}_x20", f"sum_f32_2^{k}_x20"
        if not (wanted(add) or wanted(total)):
            continue
        a = rand_matrix(p, (n,), xp.float32)
        b = xp.full((n,), 1.5, dtype=xp.float32)

        def chain(f):
            def run():
                for _ in range(20):
                    f()
            return p.device_time(run, warmup=10, reps=sweep_reps(k) // 4) / 20
        if wanted(add):
            emit(p.name, add, "device", chain(lambda: a + b), 3 * n * 4)
        if wanted(total):
            emit(p.name, total, "device", chain(lambda: a.sum()), n * 4)
        del a, b


def transfers(p):
    """Pageable transfers of 16 MiB and 1 GiB of float32: a NumPy array to the device, and
    back into a new NumPy array."""
    import numpy as np
    for n, size in ((1 << 22, "16MiB"), (1 << 28, "1GiB")):
        h2d, d2h = f"h2d_pageable_{size}", f"d2h_pageable_{size}"
        if not (wanted(h2d) or wanted(d2h)):
            continue
        host = np.full(n, 1.5, dtype=np.float32)
        if wanted(h2d):
            emit(p.name, h2d, "wall", p.transfer_time(lambda: p.h2d(host)), n * 4)
        if wanted(d2h):
            a = p.h2d(host)
            del host
            emit(p.name, d2h, "wall", p.transfer_time(lambda: p.d2h(a)), n * 4)
            del a


def pinned(p):
    """Page-locked transfers of 1 GiB of float32 (device time), and the pool's allocate and
    free cycle of a 4 KiB block (wall time per call)."""
    n = 1 << 28
    if wanted("h2d_pinned_1GiB") or wanted("d2h_pinned_1GiB"):
        host, dev = p.pinned(n), p.xp_full(n)
        if wanted("h2d_pinned_1GiB"):
            emit(p.name, "h2d_pinned_1GiB", "device", p.device_time(lambda: p.pinned_h2d(dev, host)), n * 4)
        if wanted("d2h_pinned_1GiB"):
            emit(p.name, "d2h_pinned_1GiB", "device", p.device_time(lambda: p.pinned_d2h(host, dev)), n * 4)
        del host, dev
    if wanted("pool_cycle_4KiB_wall"):
        emit(p.name, "pool_cycle_4KiB_wall", "wall", p.wall_time(lambda: p.empty(1024)))


def torch_peer():
    import torch

    class XP:
        float32, float16, float64, bfloat16 = torch.float32, torch.float16, torch.float64, torch.bfloat16
        int32, int64 = torch.int32, torch.int64

        @staticmethod
        def arange(n, dtype):
            return torch.arange(n, dtype=dtype, device="cuda")

        @staticmethod
        def full(shape, v, dtype):
            return torch.full(shape, v, dtype=dtype, device="cuda")

        exp, floor, matmul = staticmethod(torch.exp), staticmethod(torch.floor), staticmethod(torch.matmul)
        flip, complex = staticmethod(torch.flip), staticmethod(torch.complex)
        linalg = torch.linalg

    p = Peer("pytorch", XP, lambda: torch.cuda.Event(enable_timing=True), torch.cuda.synchronize)
    p.elapsed = lambda a, b: a.elapsed_time(b) / 1e3

    def set_tf32(on):
        torch.backends.cuda.matmul.allow_tf32 = on
    p.set_tf32 = set_tf32
    p.h2d = lambda x: torch.from_numpy(x).to("cuda")
    p.d2h = lambda t: t.cpu()
    p.pinned = lambda n: torch.empty(n, dtype=torch.float32, pin_memory=True).fill_(1.5)
    p.xp_full = lambda n: torch.full((n,), 1.5, dtype=torch.float32, device="cuda")
    p.pinned_h2d = lambda d, h: d.copy_(h, non_blocking=True)
    p.pinned_d2h = lambda h, d: h.copy_(d, non_blocking=True)
    p.empty = lambda n: torch.empty(n, dtype=torch.float32, device="cuda")
    p.eye = lambda n: torch.eye(n, dtype=torch.float64, device="cuda")
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
    p.h2d = cupy.asarray
    p.d2h = cupy.asnumpy

    def pinned_array(n):
        import numpy as np
        import cupyx
        a = cupyx.empty_pinned((n,), dtype=np.float32)
        a[:] = 1.5
        return a
    p.pinned = pinned_array
    p.xp_full = lambda n: cupy.full((n,), 1.5, dtype=cupy.float32)
    p.pinned_h2d = lambda d, h: d.set(h, stream=cupy.cuda.get_current_stream())
    p.pinned_d2h = lambda h, d: d.get(stream=cupy.cuda.get_current_stream(), out=h, blocking=False)
    p.empty = lambda n: cupy.empty(n, dtype=cupy.float32)
    return p


def exchanges():
    """Zero-copy exchange through DLPack, wall time per round trip on 1024 float32 on the
    GPU: cuarray (its Python module) -> PyTorch -> cuarray, and CuPy -> PyTorch -> CuPy."""
    if not wanted("dlpack_roundtrip_f32_1024_wall"):
        return
    import torch
    t = torch.ones(1024, device="cuda")
    p = Peer("exchange", None, None, torch.cuda.synchronize)
    try:
        import cuarray
        a = cuarray.from_dlpack(t)
        emit("cuarray", "dlpack_roundtrip_f32_1024_wall", "wall",
             p.wall_time(lambda: cuarray.from_dlpack(torch.from_dlpack(a))))
    except ImportError as e:  # the wheel is not installed here
        print(json.dumps({"lib": "cuarray", "case": "dlpack_roundtrip_f32_1024_wall", "error": str(e)}), flush=True)
    try:
        import cupy
        c = cupy.from_dlpack(t)
        emit("cupy", "dlpack_roundtrip_f32_1024_wall", "wall",
             p.wall_time(lambda: cupy.from_dlpack(torch.from_dlpack(c))))
    except ImportError:
        pass


if __name__ == "__main__":
    if "--cupy-tf32" in sys.argv:
        # Run as CUPY_TF32=1 python3 bench/peers.py --cupy-tf32: CuPy's TF32 matmul only.
        matmuls(cupy_peer())
        sys.exit(0)
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
    exchanges()
