#!/usr/bin/env python3
"""PyTorch's side of benches/multi_gpu.rs, measured the same way: all_reduce of f32 (sum, in
place) from 4 KiB to 1 GiB with torch.distributed's NCCL backend, one process per GPU on
this host; then a 1 GiB Tensor.to between GPUs 0 and 1 each way. Each case: 5 warm-up
calls, then `reps` back-to-back calls between two waits for the GPU(s); the time per call
is the wall time over `reps` (for all_reduce, the slowest rank's). One JSON object per
line, with NCCL's bus bandwidth (algorithm bandwidth times 2 (n - 1) / n) for all_reduce.

    python3 bench/multi_gpu.py
"""
import json
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SIZES = [("4KiB", 4 << 10), ("1MiB", 1 << 20), ("64MiB", 64 << 20), ("1GiB", 1 << 30)]


def emit(case, secs, nbytes, busbw=None):
    row = {"lib": "pytorch", "case": case, "kind": "wall", "us": round(secs * 1e6, 2),
           "gbps": round(nbytes / secs / 1e9, 2)}
    if busbw is not None:
        row["busbw_gbps"] = round(busbw, 2)
    print(json.dumps(row), flush=True)


def worker(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device(f"cuda:{rank}"))
    for label, nbytes in SIZES:
        x = torch.ones(nbytes // 4, dtype=torch.float32, device=f"cuda:{rank}")
        reps = 20 if nbytes >= 1 << 30 else 200
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        secs = torch.tensor([(time.perf_counter() - t0) / reps], device=f"cuda:{rank}")
        dist.all_reduce(secs, op=dist.ReduceOp.MAX)
        if rank == 0:
            s = secs.item()
            algbw = nbytes / s / 1e9
            emit(f"all_reduce_f32_{label}_{world}gpu", s, nbytes, algbw * 2 * (world - 1) / world)
    dist.destroy_process_group()


def peer_copies():
    nbytes = 1 << 30
    for src, dst in [(0, 1), (1, 0)]:
        a = torch.ones(nbytes // 4, dtype=torch.float32, device=f"cuda:{src}")
        for _ in range(5):
            a.to(f"cuda:{dst}")
        torch.cuda.synchronize(src)
        torch.cuda.synchronize(dst)
        t0 = time.perf_counter()
        for _ in range(20):
            a.to(f"cuda:{dst}")
        torch.cuda.synchronize(src)
        torch.cuda.synchronize(dst)
        emit(f"peer_copy_{src}to{dst}_1GiB", (time.perf_counter() - t0) / 20, nbytes)


def main():
    world = torch.cuda.device_count()
    if world < 2:
        print(f"skipped: {world} GPU(s), the multi-GPU benches need 2")
        return
    mp.spawn(worker, args=(world, 29511), nprocs=world, join=True)
    peer_copies()


if __name__ == "__main__":
    main()
