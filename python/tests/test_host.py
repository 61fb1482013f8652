"""Host-side tests of the cuarray Python module: what works without a GPU.

Run after installing the wheel: ``python -m pytest python/tests/test_host.py`` (or
``python python/tests/test_host.py`` without pytest).
"""

import cuarray


def test_module_attributes():
    assert cuarray.__version__
    for name in [
        "Array",
        "CuarrayError",
        "from_dlpack",
        "asarray",
        "zeros",
        "is_available",
        "unavailable_reason",
        "device_count",
        "memory_stats",
        "synchronize",
    ]:
        assert hasattr(cuarray, name), name
    for name in ["__dlpack__", "__dlpack_device__", "__cuda_array_interface__", "to_host", "sort", "fft", "matmul", "gelu", "T"]:
        assert hasattr(cuarray.Array, name), name
    assert issubclass(cuarray.CuarrayError, RuntimeError)


def test_availability_is_consistent():
    reason = cuarray.unavailable_reason()
    assert cuarray.is_available() == (reason is None)
    if reason is not None:
        assert isinstance(reason, str) and reason


def test_no_gpu_is_a_clean_exception():
    if cuarray.is_available():
        return
    for call in [
        lambda: cuarray.zeros((2, 3)),
        lambda: cuarray.asarray([1.0, 2.0]),
        lambda: cuarray.memory_stats(),
        lambda: cuarray.synchronize(),
    ]:
        try:
            call()
        except cuarray.CuarrayError as e:
            assert str(e)
        else:
            raise AssertionError("expected CuarrayError without a GPU")
    try:
        cuarray.device_count()
    except cuarray.CuarrayError:
        pass


def test_host_tensor_is_a_buffer_error():
    # Checked before any device work: a NumPy array (host memory) is refused by name.
    import numpy as np

    try:
        cuarray.from_dlpack(np.arange(4, dtype=np.float32))
    except BufferError as e:
        assert "host memory" in str(e), e
    else:
        raise AssertionError("a host tensor was accepted")


def test_unknown_dtype_is_a_type_error():
    try:
        cuarray.zeros((2,), dtype="float128")
    except TypeError as e:
        assert "float128" in str(e)
    else:
        raise AssertionError("float128 accepted")


def test_not_a_dlpack_producer():
    try:
        cuarray.from_dlpack(object())
    except (AttributeError, TypeError):
        pass
    else:
        raise AssertionError("an object without __dlpack__ was accepted")


if __name__ == "__main__":
    import sys

    failed = 0
    for name, f in sorted(globals().items()):
        if name.startswith("test_") and callable(f):
            try:
                f()
                print("ok  ", name)
            except Exception as e:  # noqa: BLE001
                failed += 1
                print("FAIL", name, repr(e))
    sys.exit(1 if failed else 0)
