//! Transfers and streams: pageable against page-locked copies, and a copy overlapped with
//! computation on a second stream.
//!
//! `cargo run --release --example streams`

use cuarray::{Device, DeviceArray, PinnedBuffer, Result};
use std::time::{Duration, Instant};

fn gbps(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / t.as_secs_f64() / 1e9
}

fn main() -> Result<()> {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("streams needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    let n = 256 << 20; // 1 GiB of f32
    let bytes = n * 4;

    // Pageable memory (a Vec): staged through page-locked buffers, waits for the copy.
    let host: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let _ = DeviceArray::from_slice(&dev, &host[..1 << 22])?; // first use: staging buffers
    let t = Instant::now();
    let a = DeviceArray::from_slice(&dev, &host)?;
    dev.synchronize()?;
    let h2d = t.elapsed();
    let t = Instant::now();
    let back = a.to_host()?;
    let d2h = t.elapsed();
    assert_eq!(back[12_345], host[12_345]);
    println!(
        "pageable: to the GPU {:.1} GB/s, back into a new Vec {:.1} GB/s",
        gbps(bytes, h2d),
        gbps(bytes, d2h)
    );

    // Page-locked memory: the copy engine reads it directly, and the call does not wait.
    let mut pinned = PinnedBuffer::from_slice(&dev, &host)?;
    drop(DeviceArray::from_pinned(&dev, &pinned, &[n])?); // warm-up
    let timer = dev.timer()?;
    let p = DeviceArray::from_pinned(&dev, &pinned, &[n])?;
    let copy_in = timer.stop()?;
    let timer = dev.timer()?;
    p.to_pinned(&mut pinned)?;
    let copy_out = timer.stop()?;
    println!(
        "pinned:   to the GPU {:.1} GB/s, back {:.1} GB/s",
        gbps(bytes, copy_in),
        gbps(bytes, copy_out)
    );

    // Overlap: a 1 GiB upload on a second stream while the device's stream computes.
    let side = dev.new_stream()?;
    let x = DeviceArray::<f32>::ones(&dev, &[1 << 26])?;
    let compute = |x: &DeviceArray<f32>| -> Result<()> {
        let mut y = x.clone();
        for _ in 0..60 {
            y = y.exp()?.sin()?;
        }
        drop(y);
        Ok(())
    };
    compute(&x)?;
    let timer = dev.timer()?;
    compute(&x)?;
    let t_compute = timer.stop()?;
    let start = dev.stream().record_event()?;
    side.wait(&start)?;
    let uploaded = DeviceArray::from_pinned(&side.device(), &pinned, &[n])?;
    compute(&x)?;
    dev.stream().wait(&side.record_event()?)?;
    let end = dev.stream().record_event()?;
    let both = start.elapsed(&end)?;
    let serial = t_compute + copy_in;
    println!(
        "overlap:  compute {:.2} ms + upload {:.2} ms = {:.2} ms one after the other; on two streams {:.2} ms ({:.0}% of serial)",
        t_compute.as_secs_f64() * 1e3,
        copy_in.as_secs_f64() * 1e3,
        serial.as_secs_f64() * 1e3,
        both.as_secs_f64() * 1e3,
        100.0 * both.as_secs_f64() / serial.as_secs_f64()
    );
    assert_eq!(uploaded.to_host()?[777], host[777]);
    Ok(())
}
