//! Helpers shared by the criterion benches (`mod common;` in each). Not every bench uses
//! every helper.
#![allow(dead_code)]

use cuarray::{Device, DeviceArray, GemmElement};
use std::time::{Duration, Instant};

/// Device 0, or `None` after printing the one line that says why there is none (the
/// bench then returns, exiting 0).
pub fn gpu_or_skip() -> Option<Device> {
    match cuarray::testing::gpu() {
        Ok(d) => Some(d),
        Err(reason) => {
            println!("skipped: {reason}");
            None
        }
    }
}

/// Device time of `iters` calls of `f`: each call between two CUDA events on the device's
/// stream (`Device::time`, no warm-up), the per-call times summed. For criterion's
/// `iter_custom`.
pub fn device_time(dev: &Device, iters: u64, f: impl FnMut() -> cuarray::Result<()>) -> Duration {
    let t = dev.time(0, iters as usize, f).expect("timed call failed");
    t.samples().iter().sum()
}

/// Wall time of `iters` back-to-back calls of `f`, waiting for the GPU before the first
/// and after the last (per-call overhead, including whatever the GPU work adds).
pub fn wall_time(dev: &Device, iters: u64, mut f: impl FnMut() -> cuarray::Result<()>) -> Duration {
    dev.synchronize().unwrap();
    let t = Instant::now();
    for _ in 0..iters {
        f().unwrap();
    }
    dev.synchronize().unwrap();
    t.elapsed()
}

/// A random-ish array of `shape` in [-0.5, 0.5) (not zeros or a ramp: zeros run faster
/// than real data on tensor cores), made on the device. Same values as
/// `benches/compare.rs` and `bench/peers.py`.
pub fn rand_array<T: GemmElement>(dev: &Device, shape: &[usize]) -> DeviceArray<T> {
    let n: usize = shape.iter().product();
    let x = DeviceArray::<f32>::arange(dev, 0.0, n as f32, 1.0).unwrap();
    let y = (&x * 0.618034f32).unwrap();
    let frac = (&y - &y.floor().unwrap()).unwrap();
    let shape: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    (&frac - 0.5f32)
        .unwrap()
        .astype::<T>()
        .unwrap()
        .reshape(&shape)
        .unwrap()
}
