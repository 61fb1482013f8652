//! Pinned buffers, staged pageable transfers, streams and events, and the safety of
//! arrays shared between streams.

use crate::common::{
    add_gpu, check_eq, dname, each_dtype, ensure, gpu_trial, gpu_trial_exclusive, Rng, TElem,
    TResult,
};
use cuarray::{s, Device, DeviceArray, DeviceBuffer, PinnedBuffer};
use libtest_mimic::Trial;

/// Sizes around the staging threshold (4 MiB) and slot size (32 MiB) for 4-byte types.
const STAGED_F32: [usize; 4] = [
    (1 << 20) - 1,
    1 << 20,
    3 * (1 << 20) + 5,
    (17 << 20) + 12_345,
];

fn pinned_roundtrip<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    for n in [0usize, 1, 1001, 300_007, 3_000_017] {
        let data: Vec<T> = rng.vec(n);
        let host = PinnedBuffer::from_slice(dev, &data)?;
        ensure!(
            host.len() == n && host.is_empty() == (n == 0),
            "len {}",
            host.len()
        );
        let a = DeviceArray::from_pinned(dev, &host, &[n])?;
        check_eq(&format!("from_pinned n={n}"), &a.to_host()?, &data)?;
        let mut back = PinnedBuffer::<T>::new(dev, n)?;
        a.to_pinned(&mut back)?;
        check_eq(&format!("to_pinned n={n}"), &back, &data)?;
        // A view goes back in logical order.
        if n == 300_007 {
            let m = a.slice(s![..300_000])?.reshape(&[600, 500])?.t();
            let mut tb = PinnedBuffer::<T>::new(dev, n - 7)?;
            m.to_pinned(&mut tb)?;
            let want: Vec<T> = (0..500)
                .flat_map(|j| (0..600).map(move |i| (i, j)))
                .map(|(i, j)| data[i * 500 + j])
                .collect();
            check_eq("to_pinned of a transposed view", &tb, &want)?;
        }
    }
    let host = PinnedBuffer::<T>::new(dev, 10)?;
    ensure!(
        DeviceArray::from_pinned(dev, &host, &[3, 4]).is_err(),
        "from_pinned accepted a wrong length"
    );
    Ok(())
}

fn staged<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let scale = 4 / std::mem::size_of::<T>().min(4);
    for n in STAGED_F32.map(|n| n * scale / if std::mem::size_of::<T>() == 8 { 2 } else { 1 }) {
        let data: Vec<T> = rng.vec(n);
        let a = DeviceArray::from_slice(dev, &data)?;
        check_eq(
            &format!("staged from_host/to_host n={n}"),
            &a.to_host()?,
            &data,
        )?;
        let mut back = vec![T::ZERO; n];
        a.to_host_into(&mut back)?;
        check_eq(&format!("staged to_host_into n={n}"), &back, &data)?;
    }
    Ok(())
}

fn register<T: TElem>(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        format!("streams/pinned_roundtrip/{}", dname::<T>()),
        pinned_roundtrip::<T>,
    );
    add_gpu(
        out,
        format!("streams/staged_transfers/{}", dname::<T>()),
        staged::<T>,
    );
}

fn ops_on_a_stream(dev: &Device) -> TResult {
    let mut rng = Rng::for_name("streams/ops_on_a_stream");
    let s = dev.new_stream()?;
    let on = s.device();
    ensure!(
        on == *dev && on.stream() == s && !s.is_default() && dev.stream().is_default(),
        "stream handles"
    );
    let (m, k, n) = (67, 45, 133);
    let x: Vec<f32> = rng.vec(m * k);
    let y: Vec<f32> = rng.vec(k * n);
    let a = DeviceArray::from_host(&on, &x, &[m, k])?;
    let b = DeviceArray::from_host(&on, &y, &[k, n])?;
    ensure!(
        a.device().stream() == s,
        "from_host on a stream handle gives an array elsewhere"
    );
    let c = a.matmul(&b)?;
    let e = (&c.tanh()? + 1.0f32)?.sum_axis(1)?;
    ensure!(
        c.device().stream() == s && e.device().stream() == s,
        "results left the stream"
    );
    // Host references in f64.
    let mut want = vec![0f64; m];
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k)
                .map(|p| x[i * k + p] as f64 * y[p * n + j] as f64)
                .sum();
            want[i] += dot.tanh() + 1.0;
        }
    }
    let got = e.to_host()?;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        ensure!(
            ((*g as f64) - w).abs() <= 1e-4 * w.abs().max(1.0),
            "row {i}: {g} vs {w}"
        );
    }
    // matmul on the device's own stream again (the cuBLAS handle moves back).
    let a0 = DeviceArray::from_host(dev, &x, &[m, k])?;
    let c0 = a0.matmul(&b.on_stream(&dev.stream())?)?;
    check_eq(
        "matmul after a stream switch",
        &c0.to_host()?,
        &c.to_host()?,
    )?;
    Ok(())
}

/// Work on a second stream that reads an array of the first, ordered with events.
fn ordered_with_events(dev: &Device) -> TResult {
    let side = dev.new_stream()?;
    let n = 10_000_019usize;
    for round in 0..5 {
        let a = DeviceArray::<f32>::full(dev, &[n], round as f32)?;
        let a = (&a + 1.0f32)?; // still on the device's stream
        side.wait(&dev.stream().record_event()?)?;
        let b = (&a.on_stream(&side)? * 2.0f32)?;
        let total = b.sum()?;
        dev.stream().wait(&side.record_event()?)?;
        let got = total.to_scalar()?; // waits on `side` (the result's stream)
        let want = 2.0 * (round as f64 + 1.0) * n as f64;
        ensure!(
            ((got as f64) - want).abs() <= 1e-5 * want,
            "round {round}: {got} vs {want}"
        );
    }
    Ok(())
}

/// Reductions on two streams at once: each stream finishes its split reductions with
/// its own row counters, so interleaved launches never mix their pieces.
fn reductions_on_two_streams(dev: &Device) -> TResult {
    let (s1, s2) = (dev.new_stream()?, dev.new_stream()?);
    let n = 3_000_017usize;
    let a = DeviceArray::<f32>::full(dev, &[n], 1.0)?;
    let b = DeviceArray::<f32>::full(dev, &[n], 2.0)?;
    dev.synchronize()?;
    let (a1, b2) = (a.on_stream(&s1)?, b.on_stream(&s2)?);
    let mut sums = Vec::new();
    for _ in 0..40 {
        sums.push((a1.sum()?, b2.sum()?));
    }
    for (k, (x, y)) in sums.iter().enumerate() {
        let (x, y) = (x.to_scalar()? as f64, y.to_scalar()? as f64);
        ensure!(
            (x - n as f64).abs() <= 1e-5 * n as f64
                && (y - 2.0 * n as f64).abs() <= 1e-5 * n as f64,
            "round {k}: {x}, {y} (want {n}, {})",
            2 * n
        );
    }
    Ok(())
}

/// An array used on another stream and dropped at once: its memory must not be handed
/// to new work on its home stream while the other stream still reads it.
fn drop_while_in_use(dev: &Device) -> TResult {
    let side = dev.new_stream()?;
    let n = 1usize << 26;
    for round in 0..3 {
        let x = DeviceArray::<f32>::full(dev, &[n], 1.0)?;
        side.wait(&dev.stream().record_event()?)?;
        let acc = {
            let xs = x.on_stream(&side)?;
            let mut acc = xs.copy()?;
            for _ in 0..12 {
                acc = (&acc + &xs)?;
            }
            acc
        };
        // A second pattern: an operand of another stream's operation.
        let y = DeviceArray::<f32>::full(dev, &[n], 0.5)?;
        side.wait(&dev.stream().record_event()?)?;
        let acc = (&acc + &y)?;
        drop((x, y));
        // New work on the home stream that would take the freed blocks and overwrite
        // them while `side` still reads them, if the pool allowed it.
        let fill = (0..4)
            .map(|_| DeviceArray::<f32>::full(dev, &[n], -100.0))
            .collect::<Result<Vec<_>, _>>()?;
        let total = acc.sum()?.to_scalar()? as f64;
        let want = 13.5 * n as f64;
        ensure!(
            (total - want).abs() <= 1e-5 * want,
            "round {round}: sum {total}, want {want}"
        );
        drop(fill);
    }
    side.synchronize()?;
    Ok(())
}

fn events_and_timers(dev: &Device) -> TResult {
    let a = DeviceArray::<f32>::ones(dev, &[1 << 24])?;
    let t = dev.timer()?;
    let b = (&a + &a)?;
    let d = t.stop()?;
    ensure!(d.as_nanos() > 0 && d.as_secs_f64() < 1.0, "timer: {d:?}");
    let start = dev.stream().record_event()?;
    let _c = b.exp()?;
    let end = dev.stream().record_event()?;
    let e = start.elapsed(&end)?;
    ensure!(end.is_complete() && e.as_nanos() > 0, "events: {e:?}");
    end.synchronize()?;
    let s = dev.new_stream()?;
    let sa = DeviceArray::<f32>::ones(&s.device(), &[1000])?;
    s.synchronize()?;
    ensure!(sa.to_scalar().is_err(), "to_scalar of 1000 elements");
    Ok(())
}

fn pool_per_stream(dev: &Device) -> TResult {
    let pool = dev.memory_pool();
    let bytes = 3 << 20;
    {
        let s = dev.new_stream()?;
        let on = s.device();
        drop(DeviceBuffer::new(&on, bytes)?);
        let before = pool.stats();
        let again = DeviceBuffer::new(&on, bytes)?;
        let after = pool.stats();
        ensure!(
            after.cache_hits == before.cache_hits + 1,
            "no cache hit on the same stream: {before:?} -> {after:?}"
        );
        ensure!(again.len() == bytes && !again.is_empty(), "len");
    }
    // The stream is gone: its cached block went to the device's own stream.
    let before = pool.stats();
    let b = DeviceBuffer::new(dev, bytes)?;
    let after = pool.stats();
    ensure!(
        after.cache_hits == before.cache_hits + 1,
        "the dropped stream's block was not reused: {before:?} -> {after:?}"
    );
    drop(b);
    Ok(())
}

fn pinned_counters(dev: &Device) -> TResult {
    let n = 1 << 20;
    let host = PinnedBuffer::<f32>::from_slice(dev, &vec![2.5; n])?;
    let before = dev.transfer_stats();
    let a = DeviceArray::from_pinned(dev, &host, &[n])?;
    let mut back = PinnedBuffer::<f32>::new(dev, n)?;
    (&a * 2.0f32)?.to_pinned(&mut back)?;
    let mid = dev.transfer_stats();
    ensure!(
        mid.h2d_calls == before.h2d_calls + 1 && mid.d2h_calls == before.d2h_calls + 1,
        "{before:?} -> {mid:?}"
    );
    ensure!(
        mid.syncs == before.syncs,
        "to_pinned waited for the GPU: {before:?} -> {mid:?}"
    );
    ensure!(back.iter().all(|&v| v == 5.0), "values");
    ensure!(back.is_ready(), "ready after reading");
    Ok(())
}

/// A long chain of kernels each reading the one before it: library elementwise and
/// reduction kernels (launched so that they may start while the grid before them runs, on
/// sm_90 and later), a user's raw kernel (launched plainly) between them, a cuBLAS product
/// and a captured graph of the same steps. Every value is an integer in f64, so the host's
/// reference is exact whatever the order of additions.
fn dependent_chain(dev: &Device, rng: &mut Rng) -> TResult {
    const TWICE: &str = r#"
extern "C" __global__ void twice(double* p, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) p[i] = 2.0 * p[i];
}"#;
    let n = 300_007usize;
    let twice = cuarray::RawKernel::new(dev, TWICE, "twice")?;
    let host: Vec<f64> = (0..n).map(|_| (rng.next_u64() % 100) as f64).collect();
    let mut want = host.clone();
    let mut x = DeviceArray::from_slice(dev, &host)?;
    let ones = DeviceArray::<f64>::ones(dev, &[n])?;
    let mut sums = Vec::new();
    let mut want_sums = Vec::new();
    for step in 0..300 {
        x = (&x + &ones)?; // reads the grid before it
        want.iter_mut().for_each(|v| *v += 1.0);
        if step % 7 == 0 {
            sums.push(x.sum()?);
            want_sums.push(want.iter().sum::<f64>());
        }
        if step % 50 == 0 {
            // A user's kernel in place, then a library kernel reading what it wrote.
            // SAFETY: `twice` takes (double* p, unsigned long long n) and touches p[i]
            // for i < n only; `x` holds n f64 and is used on the device's stream only.
            unsafe {
                twice.launch(
                    ((n as u32).div_ceil(256), 1, 1),
                    (256, 1, 1),
                    0,
                    (&x, n as u64),
                )?
            };
            want.iter_mut().for_each(|v| *v *= 2.0);
            x = (&x - 3.0)?;
            want.iter_mut().for_each(|v| *v -= 3.0);
        }
    }
    // A cuBLAS product of the chain's result, then a library kernel reading it.
    let m = x.slice(s![..300_000])?.reshape(&[600, 500])?;
    let v = DeviceArray::<f64>::ones(dev, &[500])?;
    let mv = (m.matmul(&v)? * 0.5)?;
    check_eq("chain result", &x.to_host()?, &want)?;
    let got_mv = mv.to_host()?;
    for (r, &g) in got_mv.iter().enumerate() {
        let w: f64 = want[r * 500..(r + 1) * 500].iter().sum::<f64>() * 0.5;
        ensure!(g == w, "row {r} of the product: {g}, want {w}");
    }
    for (k, (s, &w)) in sums.iter().zip(&want_sums).enumerate() {
        let g = s.to_scalar()?;
        ensure!(g == w, "sum {k}: {g}, want {w}");
    }
    // The same steps captured once and replayed: each replay reads the one before it.
    let y = DeviceArray::from_slice(dev, &host)?;
    let total = DeviceArray::<f64>::zeros(dev, [0usize; 0])?;
    // Compiled before the capture, and the scratch a first capture keeps made; the
    // uploads finished (a capture may not wait on work outside it).
    y.add_assign(1.0)?;
    y.assign(&(&y * 2.0)?)?;
    total.add_assign(&y.sum()?)?;
    drop(dev.capture(|| Ok(()))?);
    y.assign(&DeviceArray::from_slice(dev, &host)?)?;
    total.assign(&DeviceArray::<f64>::zeros(dev, [0usize; 0])?)?;
    dev.synchronize()?;
    let g = dev.capture(|| {
        y.add_assign(1.0)?;
        y.assign(&(&y * 2.0)?)?;
        total.add_assign(&y.sum()?)?;
        Ok(())
    })?;
    let mut want_y = host.clone();
    let mut want_total = 0.0;
    // 12 replays: every value and sum stays an integer below 2^53, exact in f64.
    for _ in 0..12 {
        g.launch()?;
        want_y.iter_mut().for_each(|v| *v = (*v + 1.0) * 2.0);
        want_total += want_y.iter().sum::<f64>();
    }
    check_eq("replayed chain", &y.to_host()?, &want_y)?;
    let t = total.to_scalar()?;
    ensure!(t == want_total, "replayed sums {t}, want {want_total}");
    drop(g);
    dev.synchronize()?;
    Ok(())
}

/// Other threads use the device while one thread captures graphs on it. Each of their
/// operations either runs, with the right result, or is refused with `Error::Capture`;
/// none is recorded into a graph (the replays give exactly the captured steps), and every
/// thread's transfers and kernels work after the captures (no event or block of theirs
/// was left belonging to a graph).
fn capture_with_other_threads(dev: &Device, rng: &mut Rng) -> TResult {
    use std::sync::atomic::{AtomicBool, Ordering};
    // 6 MB of f32: through the staging slots.
    let n = 1_500_007usize;
    let host: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 1000) as f32).collect();
    let small: Vec<f32> = (0..100_003)
        .map(|_| (rng.next_u64() % 100) as f32)
        .collect();
    let y = DeviceArray::from_slice(dev, &small)?;
    // Compiled before the captures, and the scratch a first capture keeps made.
    y.add_assign(1.0)?;
    y.assign(&(&y - 1.0)?)?;
    drop(dev.capture(|| Ok(()))?);
    dev.synchronize()?;
    let stop = AtomicBool::new(false);
    let refused_ok = |e: cuarray::Error| match e {
        cuarray::Error::Capture { .. } => Ok(()),
        e => Err(e),
    };
    type Counts = Result<(usize, usize), String>;
    let (counts, main): (Vec<Counts>, TResult) = std::thread::scope(|s| {
        let workers: Vec<_> = (0..3usize)
            .map(|w| {
                let (host, stop) = (&host, &stop);
                s.spawn(move || -> Counts {
                    let (mut done, mut refused) = (0usize, 0usize);
                    let mut pinned = PinnedBuffer::<f32>::new(dev, n).map_err(|e| e.to_string())?;
                    let mut k = 0u32;
                    while !stop.load(Ordering::Relaxed) || done < 2 {
                        k += 1;
                        let add = (k % 7) as f32;
                        let mut step = || -> cuarray::Result<Vec<f32>> {
                            let a = DeviceArray::from_slice(dev, host)?;
                            let b = (&a + add)?;
                            match w {
                                0 => b.to_host(),
                                1 => {
                                    b.to_pinned(&mut pinned)?;
                                    pinned.wait()?;
                                    Ok(pinned.to_vec())
                                }
                                _ => Ok(vec![b.sum()?.to_scalar()?]),
                            }
                        };
                        match step() {
                            Ok(v) => {
                                let right = if w == 2 {
                                    let want: f64 = host.iter().map(|&x| (x + add) as f64).sum();
                                    (v[0] as f64 - want).abs() <= want * 1e-5
                                } else {
                                    v.len() == n && v.iter().zip(host).all(|(g, h)| *g == h + add)
                                };
                                if !right {
                                    return Err(format!("thread {w}, step {k}: wrong result"));
                                }
                                done += 1;
                            }
                            Err(e) => {
                                refused_ok(e).map_err(|e| format!("thread {w}, step {k}: {e}"))?;
                                refused += 1;
                            }
                        }
                    }
                    Ok((done, refused))
                })
            })
            .collect();
        let main = (|| -> TResult {
            let mut want = small.clone();
            // A pinned buffer filled just before a capture and read inside it: the read
            // waits for the copy without breaking the capture.
            let mut pinned = PinnedBuffer::<f32>::new(dev, small.len())?;
            // An array used on a second stream, dropped inside a capture: its block goes
            // back to the pool when the capture ends (ordering its reuse needs a wait on
            // the captured stream, which would break the capture).
            let side = dev.new_stream()?;
            let mut shared = Some(DeviceArray::<f32>::from_slice(dev, &small)?);
            if let Some(a) = &shared {
                let twice = (&a.on_stream(&side)? * 2.0)?;
                side.synchronize()?;
                drop(twice);
            }
            for round in 0..25 {
                if round % 5 == 0 {
                    y.to_pinned(&mut pinned)?;
                }
                let g = dev.capture(|| {
                    if round % 5 == 0 {
                        assert!(pinned[..] == want[..], "pinned copy read in a capture");
                    }
                    drop(shared.take());
                    y.add_assign(1.0)?;
                    y.assign(&(&y - 0.5)?)?;
                    Ok(())
                })?;
                g.launch()?;
                want.iter_mut().for_each(|v| *v += 0.5);
                if round % 5 == 4 {
                    check_eq("replayed steps", &y.to_host()?, &want)?;
                }
            }
            Ok(())
        })();
        stop.store(true, Ordering::Relaxed);
        let counts = workers
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a worker panicked".into())))
            .collect();
        (counts, main)
    });
    main?;
    for (w, c) in counts.into_iter().enumerate() {
        let (done, refused) = c.map_err(|e| format!("worker {w}: {e}"))?;
        println!("worker {w}: {done} steps ran, {refused} refused during a capture");
    }
    // Afterwards every path works on this thread and on a new one.
    for _ in 0..2 {
        std::thread::scope(|s| {
            s.spawn(|| -> TResult {
                let a = DeviceArray::from_slice(dev, &host)?;
                let mut pinned = PinnedBuffer::<f32>::new(dev, n)?;
                a.to_pinned(&mut pinned)?;
                check_eq("pinned after the captures", &pinned, &host)?;
                check_eq("staged after the captures", &a.to_host()?, &host)?;
                Ok(())
            })
            .join()
            .unwrap_or_else(|_| Err("panicked".into()))
        })?;
    }
    dev.synchronize()?;
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    each_dtype!(register(out));
    out.push(gpu_trial(
        "streams/ops_on_a_stream/f32/67x45x133",
        ops_on_a_stream,
    ));
    // Exclusive: a capture forbids other threads' waits on the device meanwhile.
    out.push(gpu_trial_exclusive(
        "streams/dependent_chain/f64/300007",
        |dev| dependent_chain(dev, &mut Rng::new(0x5eed_c4a1)),
    ));
    // Exclusive: it captures while its own threads use the device.
    out.push(gpu_trial_exclusive(
        "streams/capture_with_other_threads/f32/1500007",
        |dev| capture_with_other_threads(dev, &mut Rng::new(0xc0ff_ee42)),
    ));
    out.push(gpu_trial(
        "streams/ordered_with_events/f32/10000019",
        ordered_with_events,
    ));
    out.push(gpu_trial(
        "streams/reductions_on_two_streams/f32/3000017",
        reductions_on_two_streams,
    ));
    out.push(gpu_trial(
        "streams/drop_while_in_use/f32/2p26",
        drop_while_in_use,
    ));
    out.push(gpu_trial(
        "streams/events_and_timers/f32/2p24",
        events_and_timers,
    ));
    out.push(gpu_trial_exclusive(
        "streams/pool_per_stream/u8/3MiB",
        pool_per_stream,
    ));
    out.push(gpu_trial_exclusive(
        "streams/pinned_counters/f32/2p20",
        pinned_counters,
    ));
}
