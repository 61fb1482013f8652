//! Matrix-product benchmarks through cuBLAS (device time, CUDA events): `f32` 8192^3,
//! the same with TF32 tensor cores (`set_tf32(true)`, switched off again afterwards),
//! `f16` 8192^3, `f64` 4096^3, a batch of 512 (256 x 256) @ (256 x 256) `f32`, and a
//! matrix-vector product `f32` (8192 x 8192) @ 8192 (`v` 1-D). Products report
//! `Throughput::Elements` of the flop count 2mnk (so criterion's "elem/s" reads as
//! flop/s); the matrix-vector product is memory-bound and reports the matrix's bytes.
//! A 64 x 64 `f32` product is timed as wall time per call (per-call overhead).
//! Same cases and sizes as `benches/compare.rs`.
//!
//! Without a GPU this prints one line and exits 0.

mod common;

use common::{device_time, gpu_or_skip, rand_array, wall_time};
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use cuarray::{Device, GemmElement};

fn square<T: GemmElement>(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    dev: &Device,
    name: &str,
    batch: usize,
    m: usize,
) {
    let shape: Vec<usize> = if batch > 1 {
        vec![batch, m, m]
    } else {
        vec![m, m]
    };
    let (a, b) = (rand_array::<T>(dev, &shape), rand_array::<T>(dev, &shape));
    g.throughput(Throughput::Elements(2 * (batch * m * m * m) as u64));
    g.bench_function(name, |bn| {
        bn.iter_custom(|iters| device_time(dev, iters, || a.matmul(&b).map(drop)))
    });
}

fn benches(c: &mut Criterion, dev: &Device) {
    let mut g = c.benchmark_group("matmul");
    // An 8192^3 f32 product takes about 20 ms: few, equal-sized samples.
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    square::<f32>(&mut g, dev, "matmul_f32_8192", 1, 8192);
    dev.set_tf32(true);
    square::<f32>(&mut g, dev, "matmul_tf32_8192", 1, 8192);
    dev.set_tf32(false);
    square::<half::f16>(&mut g, dev, "matmul_f16_8192", 1, 8192);
    square::<f64>(&mut g, dev, "matmul_f64_4096", 1, 4096);
    square::<f32>(&mut g, dev, "bmm_f32_512x256", 512, 256);

    let side = 8192usize;
    let a = rand_array::<f32>(dev, &[side, side]);
    let v = rand_array::<f32>(dev, &[side]);
    g.throughput(Throughput::Bytes((side * side * 4) as u64));
    g.bench_function("matvec_f32_8192x8192", |bn| {
        bn.iter_custom(|iters| device_time(dev, iters, || a.matmul(&v).map(drop)))
    });
    g.finish();

    let (a, b) = (
        rand_array::<f32>(dev, &[64, 64]),
        rand_array::<f32>(dev, &[64, 64]),
    );
    let mut g = c.benchmark_group("matmul_small");
    g.bench_function("matmul_f32_64_wall", |bn| {
        bn.iter_custom(|iters| wall_time(dev, iters, || a.matmul(&b).map(drop)))
    });
    g.finish();
}

fn main() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c, &dev);
    c.final_summary();
}
