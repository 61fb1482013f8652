# Timing shared by the Python probes: CUDA events around each call of `f`, the median of
# `reps` calls after `warm` warm-up calls, in milliseconds. `stream`: the stream the events
# are recorded on (CuPy's current stream when None).
import cupy as cp, numpy as np


def median_ms(f, reps=20, warm=3, stream=None):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for i in range(reps + warm):
        s.record(stream); f(); e.record(stream); e.synchronize()
        if i >= warm:
            ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))
