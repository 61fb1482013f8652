//! Host <-> device transfer benchmarks of 1 GiB of `f32` from and to pageable host memory
//! (an ordinary `Vec`), as wall time per call including the wait for the GPU:
//! - `h2d_pageable_1GiB`: `DeviceArray::from_slice`, then `Device::synchronize`;
//! - `d2h_pageable_1GiB`: `to_host` into a new `Vec` (its allocation and first-touch page
//!   faults included, as with a peer's `.cpu()` / `asnumpy`);
//! - `d2h_pageable_into_1GiB`: `to_host_into` an existing, already-touched `Vec`.
//!
//! The result of each call is dropped outside the timed region. Throughput is the bytes
//! moved. Same byte count as the `h2d_pageable_1GiB` / `d2h_pageable_1GiB` cases of
//! `benches/compare.rs`.
//!
//! Without a GPU this prints one line and exits 0.

mod common;

use common::{device_time, gpu_or_skip};
use criterion::{Criterion, SamplingMode, Throughput};
use cuarray::{Device, DeviceArray, PinnedBuffer};
use std::time::{Duration, Instant};

const N: usize = 1 << 28; // 1 GiB of f32

fn benches(c: &mut Criterion, dev: &Device) {
    let host: Vec<f32> = (0..N).map(|i| (i % 1000) as f32).collect();
    let mut g = c.benchmark_group("transfers");
    // Each call moves 1 GiB (tens of ms): few, equal-sized samples.
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Bytes((N * 4) as u64));

    g.bench_function("h2d_pageable_1GiB", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                dev.synchronize().unwrap();
                let t = Instant::now();
                let a = DeviceArray::from_slice(dev, &host).unwrap();
                dev.synchronize().unwrap();
                total += t.elapsed();
                drop(a);
            }
            total
        })
    });

    let a = DeviceArray::from_slice(dev, &host).unwrap();
    drop(host);
    g.bench_function("d2h_pageable_1GiB", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                dev.synchronize().unwrap();
                let t = Instant::now();
                let v = a.to_host().unwrap();
                total += t.elapsed();
                drop(v);
            }
            total
        })
    });

    let mut dst = vec![0.0f32; N];
    g.bench_function("d2h_pageable_into_1GiB", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                dev.synchronize().unwrap();
                let t = Instant::now();
                a.to_host_into(&mut dst).unwrap();
                total += t.elapsed();
            }
            total
        })
    });

    // Page-locked buffers: the copy is queued without waiting; device time by events.
    let mut pinned = PinnedBuffer::<f32>::new(dev, N).unwrap();
    g.bench_function("h2d_pinned_1GiB", |b| {
        b.iter_custom(|iters| {
            device_time(dev, iters, || {
                DeviceArray::from_pinned(dev, &pinned, &[N]).map(drop)
            })
        })
    });
    g.bench_function("d2h_pinned_1GiB", |b| {
        b.iter_custom(|iters| device_time(dev, iters, || a.to_pinned(&mut pinned)))
    });

    g.finish();
}

fn main() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c, &dev);
    c.final_summary();
}
