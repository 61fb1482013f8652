//! Several GPUs of one host: NCCL all-reduce (f32, in place, one communicator per GPU driven
//! from one thread in groups) from 4 KiB to 1 GiB, and a 1 GiB peer copy between GPUs 0
//! and 1 each way. One JSON line per case, in the format of `benches/compare.rs`, plus
//! NCCL's bus bandwidth (`busbw_gbps`: the algorithm bandwidth times `2 (n - 1) / n`, as
//! nccl-tests report it). `bench/multi_gpu.py` measures PyTorch the same way
//! (torch.distributed with the NCCL backend, one process per GPU; `Tensor.to`).
//!
//! Each case: 5 warm-up calls, then `reps` back-to-back calls between two waits for every
//! GPU; the time per call is the wall time over `reps`.
//!
//! Without two GPUs (or without NCCL) this prints one line and exits 0.

use cuarray::nccl::{self, Comm, ReduceOp};
use cuarray::{Device, DeviceArray, Result};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        println!("skipped: {e}");
    }
}

fn sync_all(devs: &[Device]) -> Result<()> {
    devs.iter().try_for_each(|d| d.synchronize())
}

/// Seconds per call of `f`.
fn time(devs: &[Device], reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..5 {
        f()?;
    }
    sync_all(devs)?;
    let t = Instant::now();
    for _ in 0..reps {
        f()?;
    }
    sync_all(devs)?;
    Ok(t.elapsed().as_secs_f64() / reps as f64)
}

fn emit(case: &str, secs: f64, bytes: usize, busbw: Option<f64>) {
    let gbps = bytes as f64 / secs / 1e9;
    let bus = busbw.map_or(String::new(), |b| format!(", \"busbw_gbps\": {b:.2}"));
    println!(
        "{{\"lib\": \"cuarray\", \"case\": \"{case}\", \"kind\": \"wall\", \"us\": {:.2}, \"gbps\": {gbps:.2}{bus}}}",
        secs * 1e6
    );
}

fn run() -> Result<()> {
    let count = cuarray::device_count()?;
    if count < 2 {
        return Err(cuarray::Error::NoDevice {
            reason: format!("{count} GPU(s), the multi-GPU benches need 2"),
        });
    }
    let devs = (0..count).map(Device::new).collect::<Result<Vec<_>>>()?;
    let comms = Comm::new_group(&devs)?;
    let n = count as f64;
    for (label, bytes) in [
        ("4KiB", 4usize << 10),
        ("1MiB", 1 << 20),
        ("64MiB", 64 << 20),
        ("1GiB", 1 << 30),
    ] {
        let mut xs = devs
            .iter()
            .map(|d| DeviceArray::<f32>::ones(d, &[bytes / 4]))
            .collect::<Result<Vec<_>>>()?;
        let reps = if bytes >= 1 << 30 { 20 } else { 200 };
        let secs = time(&devs, reps, || {
            nccl::group(|| {
                for (c, x) in comms.iter().zip(&mut xs) {
                    c.all_reduce(x, ReduceOp::Sum)?;
                }
                Ok(())
            })
        })?;
        let algbw = bytes as f64 / secs / 1e9;
        emit(
            &format!("all_reduce_f32_{label}_{count}gpu"),
            secs,
            bytes,
            Some(algbw * 2.0 * (n - 1.0) / n),
        );
    }
    let bytes = 1usize << 30;
    for (from, to) in [(0, 1), (1, 0)] {
        let a = DeviceArray::<f32>::ones(&devs[from], &[bytes / 4])?;
        let secs = time(&devs, 20, || a.to_device(&devs[to]).map(drop))?;
        emit(&format!("peer_copy_{from}to{to}_1GiB"), secs, bytes, None);
    }
    Ok(())
}
