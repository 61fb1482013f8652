//! The first GPU program: put two vectors on the GPU, add them there, bring the result
//! back. Then a 2-D example with broadcasting and a transpose view.
//!
//! Run with `cargo run --release --example quickstart`.

use cuarray::{Device, DeviceArray};
use std::time::Instant;

fn main() {
    if let Some(reason) = cuarray::unavailable_reason() {
        eprintln!("quickstart needs an NVIDIA GPU: {reason}");
        std::process::exit(1);
    }
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> cuarray::Result<()> {
    let t0 = Instant::now();
    let dev = Device::new(0)?;
    println!(
        "device: {} (compute capability {:?})",
        dev.name()?,
        dev.compute_capability()?
    );

    // 1-D: explicit copies in, one kernel, explicit copy out.
    let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0])?;
    let b = DeviceArray::from_slice(&dev, &[5.0f32, 4.0, 3.0, 2.0, 1.0])?;
    let c = (&a + &b)?;
    println!("{}", c.to_host_string()?);

    // 2-D: a (3, 4) matrix plus a (3, 1) column broadcast across the columns.
    let m = DeviceArray::<f32>::arange(&dev, 0.0, 12.0, 1.0)?.reshape(&[3, 4])?;
    let col = DeviceArray::from_host(&dev, &[100.0f32, 200.0, 300.0], &[3, 1])?;
    let shifted = (&m + &col)?;
    println!("m + col =\n{}", shifted.to_host_string()?);

    // A transpose is a view (no copy); operations accept it directly.
    let mt = shifted.t();
    println!(
        "(m + col).T, shape {:?}, strides {:?} =\n{}",
        mt.shape(),
        mt.strides(),
        mt.to_host_string()?
    );
    let scaled = (&mt * 0.5f32)?;
    println!("0.5 * (m + col).T =\n{}", scaled.to_host_string()?);

    let stats = dev.kernel_cache_stats();
    println!(
        "kernels: {} compiled ({:.0} ms in NVRTC), {} from the disk cache, {} memory hits; total {:.0} ms",
        stats.compiles,
        stats.compile_time.as_secs_f64() * 1e3,
        stats.disk_hits,
        stats.memory_hits,
        t0.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
