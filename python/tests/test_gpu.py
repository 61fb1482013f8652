"""GPU tests of the cuarray Python module: exchange with PyTorch, CuPy and JAX both ways,
zero copy, stream ordering, every dtype, strides, errors, lifetimes, pool statistics.

Skipped without a GPU. On the GPU machine: ``python3 -m pytest python/tests/test_gpu.py``
after ``pip install`` of the wheel.
"""

import gc
import time

import numpy as np
import pytest

import cuarray

pytestmark = pytest.mark.skipif(
    not cuarray.is_available(), reason=f"no GPU: {cuarray.unavailable_reason()}"
)

torch = pytest.importorskip("torch") if cuarray.is_available() else None

DTYPES = ["float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8", "bool", "complex64"]


def torch_dtype(name):
    return {"bool": torch.bool, "complex64": torch.complex64}.get(name) or getattr(torch, name)


def sample(name, shape=(3, 4)):
    n = int(np.prod(shape))
    if name == "bool":
        return (torch.arange(n) % 3 == 0).reshape(shape).cuda()
    if name == "complex64":
        return torch.complex(torch.arange(n, dtype=torch.float32), -torch.arange(n, dtype=torch.float32)).reshape(shape).cuda()
    return torch.arange(n).to(torch_dtype(name)).reshape(shape).cuda()


def as_numpy(t):
    if t.dtype == torch.bfloat16:
        return t.float().cpu().numpy()
    return t.cpu().numpy()


def host(a):
    if a.dtype == "bfloat16":
        return torch.from_dlpack(a).float().cpu().numpy()
    return a.to_host()


# ---- PyTorch -------------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPES)
def test_torch_both_ways_zero_copy(name):
    t = sample(name)
    a = cuarray.from_dlpack(t)
    assert a.dtype == name and a.shape == (3, 4)
    assert a.data_ptr == t.data_ptr()
    np.testing.assert_array_equal(host(a), as_numpy(t))
    u = torch.from_dlpack(a)
    assert u.data_ptr() == t.data_ptr() and u.dtype == t.dtype
    assert torch.equal(u, t)


def test_torch_writes_are_seen():
    t = torch.zeros(8, device="cuda")
    a = cuarray.from_dlpack(t)
    t += 3
    torch.cuda.synchronize()
    assert a.to_host().tolist() == [3.0] * 8


def test_transposed_both_ways():
    t = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4).T
    a = cuarray.from_dlpack(t)
    assert a.shape == (4, 3)
    assert a.strides == tuple(s * 4 for s in t.stride())
    np.testing.assert_array_equal(a.to_host(), t.cpu().numpy())
    b = cuarray.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    u = torch.from_dlpack(b.T)
    assert u.stride() == (1, 4) and u.data_ptr() == b.data_ptr
    assert torch.equal(u.cpu(), torch.arange(12, dtype=torch.float32).reshape(3, 4).T)


def test_cpu_tensor_is_a_clear_error():
    with pytest.raises(BufferError, match="host memory"):
        cuarray.from_dlpack(torch.ones(3))


def test_side_stream_producer():
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.ones(1 << 24, device="cuda")
        for _ in range(20):
            t.mul_(2)
        a = cuarray.from_dlpack(t)  # torch makes cuarray's stream wait for `s`
    assert float(a.sum().to_host()) == float(2**20 * (1 << 24))


def test_cuarray_producer_torch_consumer_on_side_stream():
    a = cuarray.asarray(np.random.default_rng(0).standard_normal(1 << 22).astype(np.float32)).sort()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        u = torch.from_dlpack(a)  # passes `s`: it waits for the sort
        ok = bool((u[1:] >= u[:-1]).all())
    assert ok


def test_owner_dropped_once_and_pool_untouched():
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    stats = cuarray.memory_stats()
    t = torch.ones(1 << 20, device="cuda")
    a = cuarray.from_dlpack(t)
    after = cuarray.memory_stats()
    assert after["in_use"] == stats["in_use"] and after["reserved"] == stats["reserved"]
    del t
    gc.collect()
    assert torch.cuda.memory_allocated() == base + (4 << 20)  # `a` keeps it
    assert float(a.sum().to_host()) == float(1 << 20)
    del a
    gc.collect()
    assert torch.cuda.memory_allocated() == base
    end = cuarray.memory_stats()
    assert end["in_use"] == stats["in_use"]


def test_cuarray_memory_kept_by_the_consumer():
    stats = cuarray.memory_stats()
    a = cuarray.zeros((1 << 20,), "float32")
    held = cuarray.memory_stats()["in_use"]
    assert held >= stats["in_use"] + (4 << 20)
    u = torch.from_dlpack(a)
    del a
    gc.collect()
    assert cuarray.memory_stats()["in_use"] == held  # torch holds the block
    assert float(u.sum()) == 0.0
    del u
    gc.collect()
    assert cuarray.memory_stats()["in_use"] == stats["in_use"]  # deleted exactly once


def test_legacy_and_versioned_capsules():
    a = cuarray.zeros((4,), "int32")
    cap = a.__dlpack__()
    assert "dltensor" in repr(cap) and "versioned" not in repr(cap)
    cap = a.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(cap)
    del cap  # an unused capsule deletes its tensor
    assert a.__dlpack_device__() == (2, 0)
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(1, 0))


def test_round_trip_wall_time():
    t = torch.ones(1024, device="cuda")
    for _ in range(100):
        cuarray.from_dlpack(torch.from_dlpack(cuarray.from_dlpack(t)))
    n = 2000
    a = cuarray.from_dlpack(t)
    t0 = time.perf_counter()
    for _ in range(n):
        b = cuarray.from_dlpack(torch.from_dlpack(a))
    ms = (time.perf_counter() - t0) / n * 1e3
    print(f"cuarray -> torch -> cuarray: {ms:.4f} ms")
    assert b.data_ptr == a.data_ptr
    assert ms < 1.0


def test_ops():
    x = cuarray.asarray(np.array([[3.0, 1.0], [2.0, 5.0]], dtype=np.float32))
    np.testing.assert_array_equal(x.sort().to_host(), [[1.0, 3.0], [2.0, 5.0]])
    np.testing.assert_allclose((x @ x).to_host(), np.array([[11.0, 8.0], [16.0, 27.0]]))
    np.testing.assert_allclose(x.fft().to_host(), np.fft.fft(x.to_host()), rtol=1e-6)
    v = np.linspace(-4, 4, 101)
    ref = 0.5 * v * (1 + np.tanh(0.7978845608028654 * (v + 0.044715 * v**3)))
    np.testing.assert_allclose(cuarray.asarray(v).gelu().to_host(), ref, rtol=1e-12, atol=1e-15)


# ---- CuPy ----------------------------------------------------------------------------


def test_cupy_both_ways():
    cp = pytest.importorskip("cupy")
    c = cp.arange(12, dtype=cp.float64).reshape(3, 4)
    a = cuarray.from_dlpack(c)
    assert a.data_ptr == c.data.ptr
    np.testing.assert_array_equal(a.to_host(), c.get())
    d = cp.from_dlpack(a)
    assert d.data.ptr == a.data_ptr
    e = cp.asarray(a)  # __cuda_array_interface__
    assert e.data.ptr == a.data_ptr
    assert bool((e == c).all())
    t = cp.asarray(cuarray.from_dlpack(c.T))
    assert t.strides == c.T.strides


# ---- JAX -----------------------------------------------------------------------------


def test_jax_both_ways():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    a = cuarray.from_dlpack(x)
    np.testing.assert_array_equal(a.to_host(), np.asarray(x))
    y = jnp.from_dlpack(a)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    assert a.data_ptr == x.unsafe_buffer_pointer()
