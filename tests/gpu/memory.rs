//! The memory pool (limit, out-of-memory recovery, no leak), the transfer counters (no
//! hidden transfers), and one device used from several threads.

use crate::common::{ensure, gpu_trial_exclusive};
use cuarray::{Device, DeviceArray, Error};
use libtest_mimic::Trial;

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial_exclusive("memory/limit_oom_recovery/f32/16MiB", |dev: &Device| {
        let pool = dev.memory_pool();
        pool.free_all_blocks().map_err(|e| e.to_string())?;
        let base = pool.used_bytes();
        pool.set_limit(Some(base + (100 << 20)));
        let mut held = Vec::new();
        let err = loop {
            match DeviceArray::<f32>::zeros(dev, &[4 << 20]) {
                Ok(a) => held.push(a),
                Err(e) => break e,
            }
            if held.len() > 100 {
                pool.set_limit(None);
                return Err("the limit was never hit".into());
            }
        };
        let ok = matches!(err, Error::OutOfMemory { requested, limit: Some(_), .. } if requested == 16 << 20);
        ensure!(ok, "unexpected error: {err}");
        ensure!(err.to_string().contains("bytes requested"), "message: {err}");
        ensure!(held.len() >= 5, "only {} arrays fit under a 100 MiB limit", held.len());
        // Drop, retry, succeed.
        held.clear();
        let again = DeviceArray::<f32>::full(dev, &[4 << 20], 1.5);
        pool.set_limit(None);
        let again = again.map_err(|e| format!("allocation after dropping arrays failed: {e}"))?;
        ensure!(again.sum().map_err(|e| e.to_string())?.to_scalar().map_err(|e| e.to_string())? == 1.5 * (4 << 20) as f32, "data after recovery");
        // A request larger than the card fails cleanly too.
        let huge = DeviceArray::<u8>::zeros(dev, &[1usize << 50]);
        ensure!(matches!(huge, Err(Error::OutOfMemory { .. })), "huge allocation: {:?}", huge.err());
        Ok(())
    }));
    out.push(gpu_trial_exclusive(
        "memory/no_leak_100k_ops/f32/1000",
        |dev: &Device| {
            let a = DeviceArray::<f32>::full(dev, &[1000], 1.0).map_err(|e| e.to_string())?;
            let b = DeviceArray::<f32>::full(dev, &[1000], 2.0).map_err(|e| e.to_string())?;
            let warm = (&a + &b).map_err(|e| e.to_string())?;
            drop(warm);
            let pool = dev.memory_pool();
            let (used, total) = (pool.used_bytes(), pool.total_bytes());
            for _ in 0..100_000 {
                drop((&a + &b).map_err(|e| e.to_string())?);
            }
            dev.synchronize().map_err(|e| e.to_string())?;
            ensure!(
                pool.used_bytes() == used,
                "in use {} -> {}",
                used,
                pool.used_bytes()
            );
            ensure!(
                pool.total_bytes() == total,
                "reserved {} -> {}",
                total,
                pool.total_bytes()
            );
            Ok(())
        },
    ));
    out.push(gpu_trial_exclusive(
        "memory/no_hidden_transfers/f32/chain",
        |dev: &Device| {
            let a = DeviceArray::<f32>::arange(dev, 0.0, 4096.0, 1.0)
                .map_err(|e| e.to_string())?
                .reshape(&[64, 64])
                .map_err(|e| e.to_string())?;
            let before = dev.transfer_stats();
            let mut x = a.clone();
            for _ in 0..20 {
                x = ((&x * 0.5f32).map_err(|e| e.to_string())? + &a.t())
                    .map_err(|e| e.to_string())?;
                x = x
                    .sigmoid()
                    .map_err(|e| e.to_string())?
                    .matmul(&a)
                    .map_err(|e| e.to_string())?;
                let s = x.sum_axis(0).map_err(|e| e.to_string())?;
                x = (&x - &s)
                    .map_err(|e| e.to_string())?
                    .clip(-1.0, 1.0)
                    .map_err(|e| e.to_string())?;
            }
            let mid = dev.transfer_stats();
            ensure!(
                mid == before,
                "a chain of device operations moved the counters: {before:?} -> {mid:?}"
            );
            let host = x.to_host().map_err(|e| e.to_string())?;
            let after = dev.transfer_stats();
            ensure!(
                after.d2h_calls == before.d2h_calls + 1
                    && after.d2h_bytes == before.d2h_bytes + 4 * 4096,
                "{after:?}"
            );
            ensure!(
                after.h2d_calls == before.h2d_calls && after.syncs == before.syncs + 1,
                "{after:?}"
            );
            ensure!(host.iter().all(|v| v.is_finite()), "values");
            Ok(())
        },
    ));
    out.push(gpu_trial_exclusive(
        "memory/threads_share_a_device/f64/4x",
        |dev: &Device| {
            fn assert_send_sync<T: Send + Sync>() {}
            assert_send_sync::<Device>();
            assert_send_sync::<DeviceArray<f32>>();
            let shared =
                DeviceArray::<f64>::arange(dev, 0.0, 10_000.0, 1.0).map_err(|e| e.to_string())?;
            let results: Vec<Result<f64, String>> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..4)
                    .map(|t| {
                        let shared = shared.clone();
                        let dev = dev.clone();
                        s.spawn(move || -> Result<f64, String> {
                            let mut acc = 0.0;
                            for i in 0..50 {
                                let k = (t * 100 + i) as f64;
                                let y = (&shared * k).map_err(|e| e.to_string())?;
                                let own = DeviceArray::<f64>::full(&dev, &[10_000], 1.0)
                                    .map_err(|e| e.to_string())?;
                                acc += (&y + &own)
                                    .map_err(|e| e.to_string())?
                                    .sum()
                                    .map_err(|e| e.to_string())?
                                    .to_scalar()
                                    .map_err(|e| e.to_string())?;
                            }
                            Ok(acc)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err("thread panicked".into())))
                    .collect()
            });
            let base: f64 = (0..10_000).map(|i| i as f64).sum();
            for (t, r) in results.into_iter().enumerate() {
                let got = r?;
                let want: f64 = (0..50)
                    .map(|i| (t * 100 + i) as f64 * base + 10_000.0)
                    .sum();
                ensure!(
                    (got - want).abs() <= 1e-9 * want,
                    "thread {t}: {got} vs {want}"
                );
            }
            Ok(())
        },
    ));
    out.push(gpu_trial_exclusive(
        "memory/threads_back_to_baseline/f32/16x300",
        threads_back_to_baseline,
    ));
}

/// One thread's 100 operations on `dev`: products (cuBLAS and the small kernel),
/// reductions (per-stream scratch), sorts, scans; `from` is an array another thread made.
fn hundred_ops(dev: &Device, t: usize, from: &DeviceArray<f32>) -> Result<f32, String> {
    let e = |e: Error| e.to_string();
    let mut acc = 0.0f32;
    for i in 0..10 {
        let a = DeviceArray::<f32>::full(dev, &[96, 130], (t + i) as f32 * 0.01).map_err(e)?;
        let b = DeviceArray::<f32>::ones(dev, &[130, 70]).map_err(e)?;
        let c = a.matmul(&b).map_err(e)?; // cuBLAS
        let small = a
            .slice(cuarray::s![..8, ..8])
            .map_err(e)?
            .matmul(&a.slice(cuarray::s![..8, ..8]).map_err(e)?.t())
            .map_err(e)?;
        let rows = c.sum_axis(1).map_err(e)?;
        let sorted = rows.sort(0).map_err(e)?;
        let scanned = sorted.cumsum(0).map_err(e)?;
        let mixed = (&from.reshape(&[from.size()]).map_err(e)?.sum().map_err(e)?
            + &small.max().map_err(e)?)
            .map_err(e)?;
        acc += scanned.max().map_err(e)?.to_scalar().map_err(e)? + mixed.to_scalar().map_err(e)?;
    }
    Ok(acc)
}

/// 16 threads, each 300 operations: 100 on the device's own stream, 100 on a stream of
/// its own, 100 on arrays another thread made. After every array is dropped and the
/// device synchronised, the bytes in use are back where they started; what cuarray keeps
/// for itself is reported apart (`scratch`), small, and the cached blocks (the libraries'
/// workspaces among them) go back to the driver with `free_all_blocks`.
fn threads_back_to_baseline(dev: &Device) -> crate::common::TResult {
    let pool = dev.memory_pool();
    dev.synchronize()?;
    let before = pool.stats();
    std::thread::scope(|s| -> Result<(), String> {
        let made: Vec<DeviceArray<f32>> = (0..16)
            .map(|t| DeviceArray::<f32>::full(dev, &[33, 17], t as f32).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let handles: Vec<_> = (0..16)
            .map(|t| {
                let dev = dev.clone();
                let from = made[(t + 1) % 16].clone();
                let own = made[t].clone();
                s.spawn(move || -> Result<(), String> {
                    hundred_ops(&dev, t, &own)?;
                    let stream = dev.new_stream().map_err(|e| e.to_string())?;
                    hundred_ops(&stream.device(), t, &own)?;
                    hundred_ops(&dev, t, &from)?;
                    stream.synchronize().map_err(|e| e.to_string())?;
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join().map_err(|_| "thread panicked".to_string())??;
        }
        Ok(())
    })?;
    dev.synchronize_all()?;
    let after = pool.stats();
    ensure!(
        after.in_use == before.in_use,
        "in use {} after the threads, {} before ({after:?})",
        after.in_use,
        before.in_use
    );
    ensure!(
        after.scratch <= before.scratch.max(1 << 20),
        "scratch {} after the threads ({after:?})",
        after.scratch
    );
    pool.free_all_blocks()?;
    let trimmed = pool.stats();
    ensure!(
        trimmed.reserved == trimmed.in_use + trimmed.scratch,
        "free_all_blocks kept cached blocks: {trimmed:?}"
    );
    Ok(())
}
