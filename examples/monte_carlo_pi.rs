//! Monte Carlo estimate of pi: the fraction of uniform points of the unit square that
//! fall inside the quarter circle is pi / 4. 10^9 points on the GPU in batches (each batch
//! one call for x and one for y, a comparison and a sum; the counts stay on the GPU until
//! the end), then a few million points of the same stream on the CPU with
//! `HostGenerator`, which gives the same numbers as the GPU bit for bit.
//!
//! `cargo run --release --example monte_carlo_pi [-- POINTS]`

use cuarray::random::{Generator, HostGenerator};
use cuarray::{Device, DeviceArray, Result};
use std::time::Instant;

const SEED: u64 = 2024;
const BATCH: usize = 1 << 26;

fn main() {
    let points: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000_000);
    match Device::new(0) {
        Ok(dev) => {
            if let Err(e) = gpu(&dev, points) {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
        Err(e) => eprintln!("no GPU ({e}): the CPU run only"),
    }
    cpu(4_000_000);
}

/// The estimate from `inside` of `n` points, and its standard error.
fn estimate(inside: i64, n: usize) -> (f64, f64) {
    let p = inside as f64 / n as f64;
    (4.0 * p, 4.0 * (p * (1.0 - p) / n as f64).sqrt())
}

fn gpu(dev: &Device, points: usize) -> Result<()> {
    let mut rng = Generator::new(dev, SEED);
    let one = DeviceArray::<f32>::ones(dev, &[1])?;
    // Warm up (compiles or loads the kernels) on a separate generator.
    {
        let mut w = Generator::new(dev, 0);
        let x = w.random::<f32>(&[1024])?;
        (&(&x * &x)? + &x)?.lt(&one)?.sum()?.to_scalar()?;
    }
    let wall = Instant::now();
    let timer = dev.timer()?;
    let mut total = DeviceArray::<i64>::zeros(dev, &[])?;
    let mut done = 0;
    while done < points {
        let b = BATCH.min(points - done);
        let x = rng.random::<f32>(&[b])?;
        let y = rng.random::<f32>(&[b])?;
        let inside = (&(&x * &x)? + &(&y * &y)?)?.lt(&one)?.sum()?;
        total = (&total + &inside)?;
        done += b;
    }
    let device_time = timer.stop()?;
    let inside = total.to_scalar()?;
    let wall = wall.elapsed();
    let (pi, err) = estimate(inside, points);
    println!(
        "GPU: {points} points, pi = {pi:.7} +- {err:.7} (error {:+.2e}), {:.1} ms on the GPU, \
         {:.1} ms wall, {:.2} Gpoints/s",
        pi - std::f64::consts::PI,
        device_time.as_secs_f64() * 1e3,
        wall.as_secs_f64() * 1e3,
        points as f64 / device_time.as_secs_f64() / 1e9
    );
    Ok(())
}

fn cpu(points: usize) {
    // The first points of the GPU run, on the CPU: the same x and y values (the first
    // batch's x are words 0.. of the stream, its y words BATCH..).
    let mut rng = HostGenerator::new(SEED);
    let t = Instant::now();
    let n = points.min(BATCH);
    let x = rng.random::<f32>(&[n]).expect("valid arguments");
    rng.set_position(BATCH as u128);
    let y = rng.random::<f32>(&[n]).expect("valid arguments");
    let inside = x
        .iter()
        .zip(&y)
        .filter(|(&a, &b)| a * a + b * b < 1.0)
        .count() as i64;
    let (pi, err) = estimate(inside, n);
    println!(
        "CPU: {n} points, pi = {pi:.7} +- {err:.7} (error {:+.2e}), {:.1} ms",
        pi - std::f64::consts::PI,
        t.elapsed().as_secs_f64() * 1e3
    );
}
