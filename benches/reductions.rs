//! Reduction benchmarks (device time, CUDA events): the sum of 2^28 `f32` into one value,
//! the row sums (axis 1) and column sums (axis 0) of a 16384 x 16384 `f32` matrix, the
//! argmax of 2^28 `f32`, and the inclusive cumsum of 2^28 `f32`. Throughput is the bytes
//! that must cross device memory: the input read once (plus the output written once for
//! cumsum). Same cases and sizes as `benches/compare.rs`.
//!
//! Without a GPU this prints one line and exits 0.

mod common;

use common::{device_time, gpu_or_skip, rand_array};
use criterion::{Criterion, Throughput};
use cuarray::Device;

fn benches(c: &mut Criterion, dev: &Device) {
    let n = 1usize << 28;
    let mut g = c.benchmark_group("reductions");
    g.sample_size(20);

    let a = rand_array::<f32>(dev, &[n]);
    g.throughput(Throughput::Bytes((n * 4) as u64));
    g.bench_function("sum_f32_2^28", |b| {
        b.iter_custom(|iters| device_time(dev, iters, || a.sum().map(drop)))
    });
    g.bench_function("argmax_f32_2^28", |b| {
        b.iter_custom(|iters| device_time(dev, iters, || a.argmax().map(drop)))
    });
    g.throughput(Throughput::Bytes((2 * n * 4) as u64));
    g.bench_function("cumsum_f32_2^28", |b| {
        b.iter_custom(|iters| device_time(dev, iters, || a.cumsum(0).map(drop)))
    });

    let m = a.reshape(&[16384, 16384]).unwrap();
    g.throughput(Throughput::Bytes((n * 4) as u64));
    g.bench_function("sum_axis1_16384^2", |b| {
        b.iter_custom(|iters| device_time(dev, iters, || m.sum_axis(1).map(drop)))
    });
    g.bench_function("sum_axis0_16384^2", |b| {
        b.iter_custom(|iters| device_time(dev, iters, || m.sum_axis(0).map(drop)))
    });
    g.finish();
}

fn main() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c, &dev);
    c.final_summary();
}
