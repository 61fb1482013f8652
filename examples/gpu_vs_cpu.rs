//! When does the GPU pay off? The same three computations with `ndarray` on the CPU and
//! cuarray on the GPU, at sizes from 10^3 to 10^8 elements:
//!
//! - an elementwise chain, `sqrt(x*x + y*y) * 0.5 + 1` (memory-bound);
//! - a reduction, `sum(x)` (memory-bound, one number back);
//! - a matrix product of two n x n matrices (compute-bound), n from 32 to 4096.
//!
//! Each GPU figure is given twice: the computation alone (the data already on the GPU,
//! the usual case inside a program that keeps its arrays there), and with the transfers
//! (the inputs sent, the result brought back). The last column says where the GPU starts
//! to win. Small sizes lose on the GPU: a launch costs microseconds whatever its size.
//!
//! Run with `cargo run --release --example gpu_vs_cpu` (`-- --quick` stops at 10^7).

use cuarray::{Device, DeviceArray};
use ndarray::{Array1, Array2};
use std::time::Instant;

fn main() {
    if let Some(reason) = cuarray::unavailable_reason() {
        eprintln!("gpu_vs_cpu needs an NVIDIA GPU: {reason}");
        std::process::exit(1);
    }
    let quick = std::env::args().any(|a| a == "--quick");
    if let Err(e) = run(quick) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// The median wall time of `reps` runs of `f`, in microseconds, after one warm-up run.
fn median_us(reps: usize, mut f: impl FnMut() -> cuarray::Result<()>) -> cuarray::Result<f64> {
    f()?;
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f().map(|_| s.elapsed().as_secs_f64() * 1e6)
        })
        .collect::<cuarray::Result<_>>()?;
    t.sort_by(f64::total_cmp);
    Ok(t[reps / 2])
}

/// Repetitions that keep each measurement short.
fn reps(n: usize) -> usize {
    (2_000_000_000 / n.max(1)).clamp(3, 200)
}

struct Row {
    label: String,
    cpu: f64,
    gpu: f64,
    gpu_with_transfers: f64,
}

fn print_table(title: &str, rows: &[Row]) {
    println!("\n{title}");
    println!(
        "{:>14} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "size", "CPU us", "GPU us", "GPU+copy us", "speedup", "w/ copies"
    );
    for r in rows {
        println!(
            "{:>14} {:>12.1} {:>12.1} {:>12.1} {:>9.1}x {:>9.1}x",
            r.label,
            r.cpu,
            r.gpu,
            r.gpu_with_transfers,
            r.cpu / r.gpu,
            r.cpu / r.gpu_with_transfers
        );
    }
    let first = |f: fn(&Row) -> f64| {
        rows.iter()
            .find(|r| f(r) < r.cpu)
            .map_or("never in this range".to_string(), |r| {
                format!("from {}", r.label)
            })
    };
    println!(
        "GPU faster: {} (data on the GPU); {} (transfers counted)",
        first(|r| r.gpu),
        first(|r| r.gpu_with_transfers)
    );
}

fn run(quick: bool) -> cuarray::Result<()> {
    let dev = Device::new(0)?;
    println!("GPU: {}; CPU: ndarray, one thread", dev.name()?);
    let max_exp = if quick { 7 } else { 8 };
    let sizes: Vec<usize> = (3..=max_exp).map(|e| 10usize.pow(e)).collect();

    let mut chain = Vec::new();
    let mut reduce = Vec::new();
    for &n in &sizes {
        let hx: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 1e-3).collect();
        let hy: Vec<f32> = (0..n)
            .map(|i| ((i * 104_729) % 997) as f32 * 1e-3)
            .collect();
        let (cx, cy) = (Array1::from_vec(hx.clone()), Array1::from_vec(hy.clone()));
        let (gx, gy) = (
            DeviceArray::from_slice(&dev, &hx)?,
            DeviceArray::from_slice(&dev, &hy)?,
        );
        let r = reps(n);
        let label = format!("10^{}", n.ilog10());

        // The chain: check once that both sides agree, then time.
        let cpu_chain =
            |x: &Array1<f32>, y: &Array1<f32>| (x * x + y * y).mapv(f32::sqrt) * 0.5 + 1.0;
        let gpu_chain =
            |x: &DeviceArray<f32>, y: &DeviceArray<f32>| -> cuarray::Result<DeviceArray<f32>> {
                (((x * x)? + (y * y)?)?.sqrt()? * 0.5f32)? + 1.0f32
            };
        let want = cpu_chain(&cx, &cy);
        let got = gpu_chain(&gx, &gy)?.to_host()?;
        let worst = want
            .iter()
            .zip(&got)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        if worst > 1e-5 {
            return Err(cuarray::Error::InvalidArgument {
                op: "gpu_vs_cpu",
                msg: format!("chain differs from the CPU by {worst}"),
            });
        }
        let cpu = median_us(r, || {
            std::hint::black_box(cpu_chain(&cx, &cy));
            Ok(())
        })?;
        let gpu = median_us(r, || {
            std::hint::black_box(gpu_chain(&gx, &gy)?);
            dev.synchronize()
        })?;
        let with = median_us(r, || {
            let (x, y) = (
                DeviceArray::from_slice(&dev, &hx)?,
                DeviceArray::from_slice(&dev, &hy)?,
            );
            std::hint::black_box(gpu_chain(&x, &y)?.to_host()?);
            Ok(())
        })?;
        chain.push(Row {
            label: label.clone(),
            cpu,
            gpu,
            gpu_with_transfers: with,
        });

        let cpu = median_us(r, || {
            std::hint::black_box(cx.sum());
            Ok(())
        })?;
        let gpu = median_us(r, || {
            std::hint::black_box(gx.sum()?.to_scalar()?);
            Ok(())
        })?;
        let with = median_us(r, || {
            let x = DeviceArray::from_slice(&dev, &hx)?;
            std::hint::black_box(x.sum()?.to_scalar()?);
            Ok(())
        })?;
        reduce.push(Row {
            label,
            cpu,
            gpu,
            gpu_with_transfers: with,
        });
    }
    print_table("elementwise chain sqrt(x*x + y*y) * 0.5 + 1, f32", &chain);
    print_table(
        "sum(x), f32 (the GPU figure includes reading the result)",
        &reduce,
    );

    let mut matmul = Vec::new();
    let max_n = if quick { 2048 } else { 4096 };
    let mut n = 32;
    while n <= max_n {
        let ha: Vec<f32> = (0..n * n)
            .map(|i| ((i * 31) % 17) as f32 * 0.1 - 0.8)
            .collect();
        let hb: Vec<f32> = (0..n * n)
            .map(|i| ((i * 17) % 13) as f32 * 0.1 - 0.6)
            .collect();
        let ca = Array2::from_shape_vec((n, n), ha.clone()).expect("n * n values");
        let cb = Array2::from_shape_vec((n, n), hb.clone()).expect("n * n values");
        let (ga, gb) = (
            DeviceArray::from_host(&dev, &ha, &[n, n])?,
            DeviceArray::from_host(&dev, &hb, &[n, n])?,
        );
        let flops = 2 * n * n * n;
        let r = (20_000_000_000 / flops).clamp(3, 100);
        let cpu = median_us(r.min(10), || {
            std::hint::black_box(ca.dot(&cb));
            Ok(())
        })?;
        let gpu = median_us(r, || {
            std::hint::black_box(ga.matmul(&gb)?);
            dev.synchronize()
        })?;
        let with = median_us(r, || {
            let (a, b) = (
                DeviceArray::from_host(&dev, &ha, &[n, n])?,
                DeviceArray::from_host(&dev, &hb, &[n, n])?,
            );
            std::hint::black_box(a.matmul(&b)?.to_host()?);
            Ok(())
        })?;
        matmul.push(Row {
            label: format!("{n}x{n}"),
            cpu,
            gpu,
            gpu_with_transfers: with,
        });
        n *= 2;
    }
    print_table(
        "matmul n x n, f32 (cuBLAS; ndarray's matrixmultiply on the CPU)",
        &matmul,
    );
    println!(
        "\nThe lesson: keep data on the GPU and give it large arrays. Each transfer runs at the \
         PCIe link's speed, far below the GPU's memory bandwidth, so a single cheap operation \
         rarely pays for sending its inputs; a program that keeps its arrays on the GPU pays \
         the transfer once."
    );
    Ok(())
}
