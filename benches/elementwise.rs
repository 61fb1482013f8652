//! Elementwise benchmarks: large contiguous and broadcast adds (bandwidth), a transpose
//! copy, and the wall time of a small add (per-call overhead).
//!
//! Without a GPU this prints one line and exits 0.

use criterion::{Criterion, Throughput};
use cuarray::{Device, DeviceArray};
use std::time::{Duration, Instant};

/// Times `iters` back-to-back calls of `f`, synchronising once at the end.
fn timed(dev: &Device, iters: u64, mut f: impl FnMut()) -> Duration {
    dev.synchronize().unwrap();
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    dev.synchronize().unwrap();
    t.elapsed()
}

fn benches(c: &mut Criterion, dev: &Device) {
    let n = 1usize << 28;
    let a = DeviceArray::<f32>::arange(dev, 0.0, n as f32, 1.0).unwrap();
    let b = DeviceArray::<f32>::full(dev, &[n], 1.5).unwrap();
    let mut g = c.benchmark_group("elementwise");
    g.sample_size(20);
    g.throughput(Throughput::Bytes((3 * n * 4) as u64));
    g.bench_function("add_f32_2^28", |bn| {
        bn.iter_custom(|iters| timed(dev, iters, || drop((&a + &b).unwrap())))
    });
    let m = a.reshape(&[16384, 16384]).unwrap();
    let col = DeviceArray::<f32>::full(dev, &[16384, 1], 2.0).unwrap();
    g.throughput(Throughput::Bytes((2 * n * 4) as u64));
    g.bench_function("add_broadcast_16384x16384+16384x1", |bn| {
        bn.iter_custom(|iters| timed(dev, iters, || drop((&m + &col).unwrap())))
    });
    g.bench_function("contiguous_transpose_16384^2", |bn| {
        bn.iter_custom(|iters| timed(dev, iters, || drop(m.t().contiguous().unwrap())))
    });
    g.finish();

    let small_a = DeviceArray::<f32>::full(dev, &[1000], 1.0).unwrap();
    let small_b = DeviceArray::<f32>::full(dev, &[1000], 2.0).unwrap();
    let mut g = c.benchmark_group("overhead");
    g.bench_function("add_f32_1000_wall", |bn| {
        bn.iter_custom(|iters| timed(dev, iters, || drop((&small_a + &small_b).unwrap())))
    });
    g.finish();
}

fn main() {
    let dev = match cuarray::testing::gpu() {
        Ok(d) => d,
        Err(reason) => {
            println!("skipped: {reason}");
            return;
        }
    };
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c, &dev);
    c.final_summary();
}
