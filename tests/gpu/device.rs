//! The device itself: identity, kernel cache, memory pool, formatting.

use crate::common::{add_gpu, check_array, ensure, gpu_trial_exclusive, HostNd, Rng, TResult};
use cuarray::common_specs;
use cuarray::{Device, DeviceArray, Error};
use libtest_mimic::Trial;

fn info(dev: &Device, rng: &mut Rng) -> TResult {
    ensure!(
        cuarray::is_available(),
        "is_available() is false with a device open"
    );
    ensure!(
        cuarray::unavailable_reason().is_none(),
        "unavailable_reason() is {:?}",
        cuarray::unavailable_reason()
    );
    let count = cuarray::device_count()?;
    ensure!(count >= 1, "device_count() = {count}");
    ensure!(dev.ordinal() == 0, "ordinal {}", dev.ordinal());
    let again = Device::new(0)?;
    ensure!(
        &again == dev,
        "Device::new(0) twice gives two different devices"
    );
    match Device::new(count) {
        Err(Error::DeviceOutOfRange { ordinal, count: c }) => {
            ensure!(
                ordinal == count && c == count,
                "DeviceOutOfRange {{ {ordinal}, {c} }}"
            )
        }
        other => return Err(format!("Device::new({count}) gave {other:?}").into()),
    }
    let name = dev.name()?;
    ensure!(!name.trim().is_empty(), "empty device name");
    let cc = dev.compute_capability()?;
    ensure!(cc >= (5, 3), "compute capability {cc:?}");
    ensure!(dev.multiprocessor_count() > 0, "no multiprocessors");
    let (free, total) = dev.memory_info()?;
    ensure!(
        free <= total && total > (1 << 30),
        "memory_info free={free} total={total}"
    );
    dev.synchronize()?;
    // Formatting does not touch the device; to_host_string copies.
    let a = DeviceArray::from_host(dev, &[1i32, 2, 3, 4], &[2, 2])?;
    ensure!(a.device() == dev, "array on another device");
    let dbg = format!("{a:?}");
    ensure!(
        dbg.contains("i32") && dbg.contains("[2, 2]"),
        "Debug: {dbg}"
    );
    let disp = format!("{a}");
    ensure!(
        disp.contains("i32") && disp.contains("[2, 2]"),
        "Display: {disp}"
    );
    let s = a.to_host_string()?;
    ensure!(s == "[[1, 2],\n [3, 4]]", "to_host_string: {s:?}");
    let t = a.t().to_host_string()?;
    ensure!(t == "[[1, 3],\n [2, 4]]", "to_host_string of t(): {t:?}");
    let h = HostNd::<f32>::random(rng, &[3]);
    check_array("a float array on the device", &h.upload(dev)?, &h, 0.0)?;
    Ok(())
}

fn kernel_cache(dev: &Device) -> TResult {
    let mut rng = Rng::for_name("device/kernel_cache");
    let ha = HostNd::<f32>::random(&mut rng, &[1000]);
    let hb = HostNd::<f32>::random(&mut rng, &[1000]);
    let (a, b) = (ha.upload(dev)?, hb.upload(dev)?);
    let _ = (&a - &b)?; // compiled or loaded now
    let s0 = dev.kernel_cache_stats();
    let c = (&a - &b)?;
    let s1 = dev.kernel_cache_stats();
    ensure!(
        s1.memory_hits > s0.memory_hits,
        "memory_hits {} -> {} after a repeated op",
        s0.memory_hits,
        s1.memory_hits
    );
    ensure!(
        s1.compiles == s0.compiles && s1.disk_hits == s0.disk_hits,
        "a repeated op compiled or loaded again: {s0:?} -> {s1:?}"
    );
    let want = crate::common::host_binary(crate::common::Op::Sub, &ha, &hb);
    check_array("a - b after the cache hit", &c, &want, f32::EPSILON as f64)?;
    dev.prewarm(&common_specs())?;
    let s2 = dev.kernel_cache_stats();
    // Every common spec is in memory now: using one compiles nothing.
    let x = DeviceArray::from_slice(dev, &[1i64, 2, 3])?;
    let y = (&x * &x)?;
    let s3 = dev.kernel_cache_stats();
    ensure!(y.to_host()? == [1, 4, 9], "i64 multiply after prewarm");
    ensure!(
        s3.compiles == s2.compiles && s3.memory_hits > s2.memory_hits,
        "an op of common_specs() after prewarm: {s2:?} -> {s3:?}"
    );
    ensure!(
        s3.compiles + s3.disk_hits > 0,
        "no kernel was ever compiled or loaded: {s3:?}"
    );
    Ok(())
}

fn memory(dev: &Device) -> TResult {
    dev.synchronize()?;
    let before = dev.memory_stats();
    ensure!(
        before.reserved >= before.in_use,
        "reserved < in_use: {before:?}"
    );
    {
        let mut rng = Rng::for_name("device/memory");
        let a = HostNd::<f32>::random(&mut rng, &[1000, 257]).upload(dev)?;
        let b = DeviceArray::<f64>::zeros(dev, &[4099])?;
        let c = (&a.t() * 2.0f32)?;
        let d = c.slice(cuarray::s![..;-1, 3..])?.copy()?;
        let e = DeviceArray::<u8>::zeros(dev, &[0])?;
        let during = dev.memory_stats();
        let min_bytes = 1000 * 257 * 4 * 2 + 4099 * 8 + 257 * 997 * 4;
        ensure!(
            during.in_use >= before.in_use + min_bytes,
            "in_use {} while holding at least {min_bytes} new bytes (before {})",
            during.in_use,
            before.in_use
        );
        ensure!(
            during.peak_in_use >= during.in_use,
            "peak below in_use: {during:?}"
        );
        drop((a, b, c, d, e));
    }
    let after = dev.memory_stats();
    ensure!(
        after.in_use == before.in_use,
        "in_use {} after dropping every array, {} before",
        after.in_use,
        before.in_use
    );
    ensure!(
        after.reserved >= after.in_use + after.scratch,
        "reserved < in_use + scratch: {after:?}"
    );
    let pool = dev.memory_pool();
    pool.free_all_blocks()?;
    let freed = dev.memory_stats();
    // What stays reserved is what arrays and cuarray's scratch blocks hold: nothing cached.
    ensure!(
        freed.reserved == freed.in_use + freed.scratch,
        "after free_all_blocks reserved {} != in_use {} + scratch {}",
        freed.reserved,
        freed.in_use,
        freed.scratch
    );
    ensure!(
        freed.scratch <= 1 << 20,
        "scratch {} after free_all_blocks",
        freed.scratch
    );
    ensure!(
        pool.used_bytes() == freed.in_use && pool.total_bytes() == freed.reserved,
        "pool handle counters"
    );
    pool.reset_peak();
    let reset = dev.memory_stats();
    ensure!(
        reset.peak_in_use == reset.in_use && pool.peak_bytes() == reset.in_use,
        "reset_peak: {reset:?}"
    );
    // A limit turns a large request into OutOfMemory naming the bytes involved.
    let cap = reset.in_use + (1 << 20);
    pool.set_limit(Some(cap));
    ensure!(pool.limit() == Some(cap), "limit {:?}", pool.limit());
    let r = DeviceArray::<f32>::zeros(dev, &[4 << 20]);
    pool.set_limit(None);
    match r {
        Err(e @ Error::OutOfMemory { .. }) => {
            let msg = e.to_string();
            if let Error::OutOfMemory {
                requested, limit, ..
            } = e
            {
                ensure!(
                    requested >= 16 << 20 && limit == Some(cap),
                    "OutOfMemory {{ {requested}, {limit:?} }}"
                );
            }
            ensure!(
                msg.contains(&(16usize << 20).to_string()),
                "OutOfMemory message: {msg}"
            );
        }
        other => return Err(format!("16 MiB under a 1 MiB limit gave {other:?}").into()),
    }
    ensure!(
        DeviceArray::<f32>::zeros(dev, &[4 << 20]).is_ok(),
        "allocation after removing the limit"
    );
    // The pool reuses a freed block.
    let hits = dev.memory_stats().cache_hits;
    drop(DeviceArray::<f32>::zeros(dev, &[12345])?);
    drop(DeviceArray::<f32>::zeros(dev, &[12345])?);
    ensure!(
        dev.memory_stats().cache_hits > hits,
        "a freed block was not reused"
    );
    Ok(())
}

/// Only the explicit transfer calls move data or wait: a chain of device work changes no
/// transfer counter; one `to_host` adds one copy back and one wait.
fn no_hidden_transfers(dev: &Device) -> TResult {
    let mut rng = Rng::for_name("device/transfers");
    let h = HostNd::<f32>::random(&mut rng, &[300, 200]);
    let before = dev.transfer_stats();
    let a = h.upload(dev)?;
    let after_upload = dev.transfer_stats();
    ensure!(
        after_upload.h2d_calls == before.h2d_calls + 1
            && after_upload.h2d_bytes == before.h2d_bytes + 240_000,
        "from_host: {before:?} -> {after_upload:?}"
    );
    let b = ((&a.t() * 2.0f32)? + &a.t().slice(cuarray::s![..;-1, ..])?)?;
    let c = b.astype::<f64>()?.reshape(&[-1])?.copy()?;
    let d = cuarray::concatenate(&[&c, &c], 0)?;
    let _e = DeviceArray::<i32>::arange(dev, 0, 1000, 3)?;
    let _z = DeviceArray::<u8>::zeros(dev, &[77])?;
    let mid = dev.transfer_stats();
    ensure!(
        mid == after_upload,
        "device work moved transfer counters: {after_upload:?} -> {mid:?}"
    );
    let host = d.to_host()?;
    let end = dev.transfer_stats();
    ensure!(
        end.d2h_calls == mid.d2h_calls + 1
            && end.d2h_bytes == mid.d2h_bytes + 8 * host.len() as u64,
        "to_host: {mid:?} -> {end:?}"
    );
    ensure!(
        end.syncs > mid.syncs,
        "to_host did not wait: {mid:?} -> {end:?}"
    );
    ensure!(
        end.h2d_calls == mid.h2d_calls,
        "to_host copied to the device: {mid:?} -> {end:?}"
    );
    Ok(())
}

/// A disk-cache entry whose checksum is valid but whose CUBIN the driver will not load is
/// recompiled and replaced; an empty `CUARRAY_CACHE_DIR` counts as unset.
fn disk_cache_recovers(dev: &Device) -> TResult {
    let dir = std::env::temp_dir().join(format!("cuarray-gpu-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let old = std::env::var_os("CUARRAY_CACHE_DIR");
    std::env::set_var("CUARRAY_CACHE_DIR", "");
    let empty_is_unset = cuarray::testing::kernels::DiskCache::from_env()
        .is_none_or(|c| !c.dir().as_os_str().is_empty());
    std::env::set_var("CUARRAY_CACHE_DIR", &dir);
    let result = (|| -> TResult {
        ensure!(
            empty_is_unset,
            "CUARRAY_CACHE_DIR=\"\" names the working directory"
        );
        let a = DeviceArray::from_slice(dev, &[3u16, 4, 5])?;
        let run = || -> cuarray::Result<Vec<u16>> { (&a * &a)?.to_host() };
        dev.clear_kernel_memory_cache();
        ensure!(run()? == vec![9, 16, 25], "first run");
        let cache = cuarray::testing::kernels::DiskCache::new(&dir);
        let keys: Vec<String> = std::fs::read_dir(&dir)?
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_suffix(".cubin").map(String::from)
            })
            .collect();
        ensure!(!keys.is_empty(), "no entry written to {}", dir.display());
        for k in &keys {
            cache.store(k, b"not a CUBIN, with a valid checksum");
        }
        dev.clear_kernel_memory_cache();
        let before = dev.kernel_cache_stats();
        ensure!(
            run()? == vec![9, 16, 25],
            "run after the entries were spoilt"
        );
        let after = dev.kernel_cache_stats();
        ensure!(after.compiles > before.compiles, "nothing was recompiled");
        for k in &keys {
            let bin = cache.load(k).unwrap_or_default();
            ensure!(bin.starts_with(b"\x7fELF"), "entry {k} was not replaced");
        }
        Ok(())
    })();
    match old {
        Some(v) => std::env::set_var("CUARRAY_CACHE_DIR", v),
        None => std::env::remove_var("CUARRAY_CACHE_DIR"),
    }
    dev.clear_kernel_memory_cache();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial_exclusive(
        "device/kernel_cache/u16/disk_entry_that_fails_to_load",
        disk_cache_recovers,
    ));
    add_gpu(out, "device/info/f32/identity_formatting".into(), info);
    out.push(gpu_trial_exclusive(
        "device/kernel_cache/f32/memory_hits_prewarm",
        kernel_cache,
    ));
    out.push(gpu_trial_exclusive(
        "device/memory_stats/f32/in_use_returns_limit_oom",
        memory,
    ));
    out.push(gpu_trial_exclusive(
        "device/transfer_stats/f32/no_hidden_transfers",
        no_hidden_transfers,
    ));
}
