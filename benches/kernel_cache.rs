//! Kernel-cache benchmarks: what getting one kernel costs on each path, as wall time per
//! call of `Device::prewarm(&[spec])` for one spec (the `f32` add of
//! `cuarray::common_specs()`, vectorized, 32-bit index):
//! - `memory_hit`: the kernel is already loaded; the call is a hash-map lookup (what
//!   every operation pays; the whole operation's cost is in `benches/overhead.rs`).
//! - `disk_hit`: before each call (untimed) `Device::clear_kernel_memory_cache` drops the
//!   loaded modules; the call reads the CUBIN from the disk cache, checks its sha256 and
//!   loads it into the context (`cuModuleLoadData`, plus the occupancy query). What a
//!   second run of a program pays per kernel at first use.
//! - `cold_compile`: as `disk_hit`, with `CUARRAY_CACHE=off`; the disk-cache setting is
//!   read at every miss (`DiskCache::from_env` per compile), so each call renders the
//!   source, compiles it with NVRTC and loads it. NVRTC keeps nothing between programs,
//!   so compiling the same source again is a full compile. What a first run pays per
//!   kernel (less the disk write of the result).
//!
//! The disk cache lives in a temporary folder (`CUARRAY_CACHE_DIR`, set before any kernel
//! is used, removed at the end), so the user's cache is neither read nor written. The
//! cache counters are checked after the disk and cold cases, so each measured what it
//! says.
//!
//! Without a GPU this prints one line and exits 0.

mod common;

use common::gpu_or_skip;
use criterion::{Criterion, SamplingMode};
use cuarray::Device;
use std::time::{Duration, Instant};

/// Runs `iters` calls of `prewarm(specs)`, each preceded (untimed) by `before`.
fn timed_prewarm(
    dev: &Device,
    specs: &[cuarray::KernelSpec],
    iters: u64,
    mut before: impl FnMut(),
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        before();
        let t = Instant::now();
        dev.prewarm(specs).unwrap();
        total += t.elapsed();
    }
    total
}

fn benches(c: &mut Criterion, dev: &Device) {
    let spec = cuarray::common_specs().swap_remove(0);
    let specs = [spec];
    dev.prewarm(&specs).unwrap(); // compiled once, stored in the temporary disk cache

    let mut g = c.benchmark_group("kernel_cache");
    g.bench_function("memory_hit", |b| {
        b.iter_custom(|iters| timed_prewarm(dev, &specs, iters, || ()))
    });

    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    let before = dev.kernel_cache_stats();
    let mut calls = 0;
    g.bench_function("disk_hit", |b| {
        b.iter_custom(|iters| {
            calls += iters;
            timed_prewarm(dev, &specs, iters, || dev.clear_kernel_memory_cache())
        })
    });
    let after = dev.kernel_cache_stats();
    assert_eq!(
        after.disk_hits - before.disk_hits,
        calls,
        "disk_hit: every call a disk hit"
    );
    assert_eq!(after.compiles, before.compiles, "disk_hit: no compiles");

    std::env::set_var("CUARRAY_CACHE", "off");
    let before = dev.kernel_cache_stats();
    let mut calls = 0;
    g.bench_function("cold_compile", |b| {
        b.iter_custom(|iters| {
            calls += iters;
            timed_prewarm(dev, &specs, iters, || dev.clear_kernel_memory_cache())
        })
    });
    let after = dev.kernel_cache_stats();
    std::env::remove_var("CUARRAY_CACHE");
    assert_eq!(
        after.compiles - before.compiles,
        calls,
        "cold_compile: every call a compile"
    );
    assert_eq!(
        after.disk_hits, before.disk_hits,
        "cold_compile: no disk hits"
    );
    g.finish();
}

fn main() {
    // Before anything can use a kernel: a disk cache of this run's own.
    let dir =
        std::env::temp_dir().join(format!("cuarray-bench-kernel-cache-{}", std::process::id()));
    std::env::set_var("CUARRAY_CACHE_DIR", &dir);
    std::env::remove_var("CUARRAY_CACHE");
    let Some(dev) = gpu_or_skip() else { return };
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c, &dev);
    c.final_summary();
    let _ = std::fs::remove_dir_all(&dir);
}
