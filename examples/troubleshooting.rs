//! Where time and memory go: timing GPU work with CUDA events, checking that a chain of
//! operations makes no hidden transfers, reading the memory pool, and recovering from an
//! out-of-memory error. Built with `--features nvtx`, the same run shows every operation
//! by name in Nsight Systems (`nsys profile --trace=cuda,nvtx ...`).
//!
//! `cargo run --release --example troubleshooting`

use cuarray::{Device, DeviceArray, Error, Result};

fn main() {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("troubleshooting needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = run(&dev) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

const MIB: f64 = (1 << 20) as f64;

fn run(dev: &Device) -> Result<()> {
    let n = 1 << 24;
    let host: Vec<f32> = (0..n).map(|i| (i % 997) as f32 * 1e-3).collect();
    let x = DeviceArray::from_slice(dev, &host)?;

    // 1. Timing. GPU work is asynchronous: a host clock around a call measures the launch,
    //    not the work. CUDA events measure the GPU; the first call compiles the kernels
    //    (or loads them from the disk cache), so warm up first.
    let work = || -> Result<DeviceArray<f32>> { (&(&x * 2.0f32)? + &x)?.sum() };
    work()?;
    let timer = dev.timer()?;
    let total = work()?;
    let once = timer.stop()?;
    println!(
        "timer:    2x + x, then its sum, over {n} floats: {:.1} us on the GPU (sum {:.1})",
        once.as_secs_f64() * 1e6,
        total.to_scalar()?
    );
    let t = dev.time(3, 20, || work().map(drop))?;
    println!(
        "time():   median {:.1} us, fastest {:.1} us of 20 runs after 3 of warm-up",
        t.median().as_secs_f64() * 1e6,
        t.min().as_secs_f64() * 1e6
    );

    // 2. No hidden transfers: 200 operations move no data between host and GPU and never
    //    wait; only the explicit copy back does.
    let start = dev.transfer_stats();
    let mut acc = x.copy()?;
    for _ in 0..100 {
        acc = (&(&acc * 0.5f32)? + &x)?;
    }
    let chained = dev.transfer_stats();
    let value = acc.max()?.to_scalar()?;
    let end = dev.transfer_stats();
    println!(
        "counters: 200 operations made {} copies and {} host waits; to_scalar made {} copy \
         ({} bytes) and {} wait (max {value:.3})",
        (chained.h2d_calls + chained.d2h_calls) - (start.h2d_calls + start.d2h_calls),
        chained.syncs - start.syncs,
        end.d2h_calls - chained.d2h_calls,
        end.d2h_bytes - chained.d2h_bytes,
        end.syncs - chained.syncs
    );

    // 3. Memory: the pool keeps freed blocks for reuse. A limit makes running out of
    //    memory easy to show: the error says what was asked for and what is held, and
    //    dropping arrays makes room again.
    let pool = dev.memory_pool();
    let s = pool.stats();
    println!(
        "pool:     {:.0} MiB in use, {:.0} MiB reserved, peak {:.0} MiB, {} of {} allocations \
         served from the cache",
        s.in_use as f64 / MIB,
        s.reserved as f64 / MIB,
        s.peak_in_use as f64 / MIB,
        s.cache_hits,
        s.cache_hits + s.driver_allocs
    );
    pool.set_limit(Some(pool.used_bytes() + (256 << 20)));
    let mut held = Vec::new();
    let err = loop {
        match DeviceArray::<f32>::zeros(dev, &[16 << 20]) {
            Ok(a) => held.push(a),
            Err(e) => break e,
        }
    };
    match &err {
        Error::OutOfMemory { requested, .. } => println!(
            "oom:      after {} arrays of 64 MiB: {err}\n          (asked for {:.0} MiB)",
            held.len(),
            *requested as f64 / MIB
        ),
        _ => return Err(err),
    }
    held.clear();
    let again = DeviceArray::<f32>::zeros(dev, &[16 << 20])?;
    println!(
        "          dropped them; the same allocation now succeeds ({} elements)",
        again.size()
    );
    drop(again);
    pool.set_limit(None);
    pool.free_all_blocks()?;
    println!(
        "          after free_all_blocks: {:.0} MiB reserved",
        pool.stats().reserved as f64 / MIB
    );

    // 4. The kernel cache: how many kernels were compiled, loaded or reused.
    let k = dev.kernel_cache_stats();
    println!(
        "kernels:  {} compiled ({:.0} ms in NVRTC), {} from the disk cache, {} memory hits",
        k.compiles,
        k.compile_time.as_secs_f64() * 1e3,
        k.disk_hits,
        k.memory_hits
    );
    Ok(())
}
