//! Per-call overhead: wall time per call of back-to-back calls (the GPU waited for once
//! before and once after each batch) of a 1000-element `f32` add, a 1000-element `f32`
//! sum (into a 0-d array that stays on the GPU), and a 64 x 64 `f32` matrix product. At
//! these sizes the GPU work is a few microseconds, so the figure is the host-side cost
//! of one operation: kernel-cache lookup, output allocation from the pool, launch.
//! Same cases as the `_wall` cases of `benches/compare.rs`.
//!
//! Without a GPU this prints one line and exits 0.

mod common;

use common::{gpu_or_skip, rand_array, wall_time};
use criterion::Criterion;
use cuarray::Device;

fn benches(c: &mut Criterion, dev: &Device) {
    let a = rand_array::<f32>(dev, &[1000]);
    let b = rand_array::<f32>(dev, &[1000]);
    let (m1, m2) = (
        rand_array::<f32>(dev, &[64, 64]),
        rand_array::<f32>(dev, &[64, 64]),
    );
    let mut g = c.benchmark_group("overhead");
    g.bench_function("add_f32_1000_wall", |bn| {
        bn.iter_custom(|iters| wall_time(dev, iters, || (&a + &b).map(drop)))
    });
    g.bench_function("sum_f32_1000_wall", |bn| {
        bn.iter_custom(|iters| wall_time(dev, iters, || a.sum().map(drop)))
    });
    g.bench_function("matmul_f32_64_wall", |bn| {
        bn.iter_custom(|iters| wall_time(dev, iters, || m1.matmul(&m2).map(drop)))
    });
    // An allocate-and-free cycle of the caching pool (no driver call once warm).
    g.bench_function("pool_cycle_4KiB_wall", |bn| {
        bn.iter_custom(|iters| {
            wall_time(dev, iters, || {
                cuarray::DeviceBuffer::new(dev, 4096).map(drop)
            })
        })
    });
    g.finish();
}

fn main() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c, &dev);
    c.final_summary();
}
