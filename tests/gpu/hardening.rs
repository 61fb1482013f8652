//! Hostile sizes and NumPy's edge semantics on the device: shapes whose element count or
//! byte size overflows are errors in every constructor and view (never a wrapped size),
//! allocation rounding never wraps, errors name their values, empty reductions without an
//! identity raise, out-of-range float casts are as documented, and short-lived streams
//! reuse one another's memory.

use crate::common::{ensure, gpu_trial, gpu_trial_exclusive, TResult};
use cuarray::{concatenate, s, stack, Device, DeviceArray, DeviceBuffer, Error};
use libtest_mimic::Trial;

/// `r` is `Error::TooLarge` naming `op`.
fn too_large<T: std::fmt::Debug>(what: &str, op: &str, r: cuarray::Result<T>) -> TResult {
    match r {
        Err(Error::TooLarge {
            op: o, ref shape, ..
        }) if o == op && !shape.is_empty() => {
            let msg = r.unwrap_err().to_string();
            ensure!(msg.contains(op), "{what}: message without the op: {msg}");
            Ok(())
        }
        other => Err(format!("{what}: expected TooLarge from {op}, got {other:?}").into()),
    }
}

const HUGE: usize = 1 << 32;

fn constructors(dev: &Device) -> TResult {
    too_large(
        "zeros",
        "zeros",
        DeviceArray::<f32>::zeros(dev, &[HUGE, HUGE]),
    )?;
    too_large(
        "ones",
        "ones",
        DeviceArray::<i8>::ones(dev, &[HUGE, HUGE, 2]),
    )?;
    too_large("full", "full", DeviceArray::full(dev, &[HUGE, HUGE], 1u8))?;
    too_large(
        "full u8 MAX",
        "full",
        DeviceArray::full(dev, &[usize::MAX], 1u8),
    )?;
    // The element count fits, the byte size does not.
    too_large(
        "zeros f64 2^61",
        "zeros",
        DeviceArray::<f64>::zeros(dev, &[1usize << 61]),
    )?;
    too_large("eye", "eye", DeviceArray::<f32>::eye(dev, HUGE))?;
    too_large(
        "from_host",
        "from_host",
        DeviceArray::<f32>::from_host(dev, &[], &[HUGE, HUGE]),
    )?;
    // The product wraps to 16 in release builds: it must not be accepted.
    let sixteen = [0f32; 16];
    too_large(
        "from_host wrapping to 16",
        "from_host",
        DeviceArray::from_host(dev, &sixteen, &[(1usize << 60) + 1, 16]),
    )?;
    too_large(
        "arange u64",
        "arange",
        DeviceArray::<u64>::arange(dev, 0, u64::MAX, 1),
    )?;
    too_large(
        "arange i64",
        "arange",
        DeviceArray::<i64>::arange(dev, i64::MIN, i64::MAX, 1),
    )?;
    too_large(
        "arange f64",
        "arange",
        DeviceArray::<f64>::arange(dev, 0.0, 1e300, 1.0),
    )?;
    too_large(
        "linspace",
        "linspace",
        DeviceArray::<f32>::linspace(dev, 0.0, 1.0, usize::MAX),
    )?;
    // Empty shapes with huge extents are still judged by their non-zero extents.
    ensure!(
        DeviceArray::<f32>::zeros(dev, &[0, HUGE])?.size() == 0,
        "an empty array with one huge extent"
    );
    too_large(
        "zeros [0, 2^32, 2^32]",
        "zeros",
        DeviceArray::<f32>::zeros(dev, &[0, HUGE, HUGE]),
    )?;
    Ok(())
}

fn views(dev: &Device) -> TResult {
    let a = DeviceArray::<f32>::arange(dev, 0.0, 16.0, 1.0)?;
    // Previously accepted: the product wrapped to 16 and rows read another array's data.
    ensure!(
        a.reshape(&[(1usize << 60) + 1, 16]).is_err(),
        "reshape to [2^60+1, 16]"
    );
    too_large(
        "reshape -1",
        "reshape",
        a.reshape(&[-1isize, 1 << 62, 1 << 62]),
    )?;
    too_large(
        "broadcast_to",
        "broadcast_to",
        a.reshape(&[16, 1])?.broadcast_to(&[16, HUGE, HUGE]),
    )?;
    ensure!(a.slice(s![usize::MAX]).is_err(), "s![usize::MAX]");
    ensure!(
        a.slice(s![(1usize << 63)..])?.size() == 0,
        "s![2^63..] is empty"
    );
    ensure!(
        a.slice(s![..;isize::MAX])?.to_host()? == vec![0.0],
        "step isize::MAX"
    );
    ensure!(
        a.slice(s![..;isize::MIN])?.to_host()? == vec![15.0],
        "step isize::MIN"
    );
    // A broadcast view of 2^62 elements is a valid view, but 2^64 bytes of f32 are
    // not: to_host fails before allocating anything (no 'capacity overflow' panic).
    let big = a.slice(s![..1])?.broadcast_to(&[1usize << 31, 1 << 31])?;
    too_large("to_host 2^64 bytes", "to_host", big.to_host())?;
    too_large("astype", "astype", big.astype::<f64>())?;
    too_large("copy", "copy", big.copy())?;
    // 2^60 elements of f32 fit in isize::MAX bytes but not in the host's memory.
    let big = a.slice(s![..1])?.broadcast_to(&[1usize << 30, 1 << 30])?;
    ensure!(big.to_host().is_err(), "to_host of 4 EiB");
    // Concatenation: the joined extent overflows.
    let wide = a.slice(s![..1])?.broadcast_to(&[1usize << 62])?;
    too_large(
        "concatenate",
        "concatenate",
        concatenate(&[&wide, &wide], 0),
    )?;
    let widest = a.slice(s![..1])?.broadcast_to(&[isize::MAX as usize])?;
    too_large(
        "concatenate (usize overflow)",
        "concatenate",
        concatenate(&[&widest, &widest, &widest], 0),
    )?;
    too_large("stack", "concatenate", stack(&[&widest, &widest], 0))?;
    Ok(())
}

fn buffers(dev: &Device) -> TResult {
    too_large(
        "DeviceBuffer::new(usize::MAX)",
        "allocate",
        DeviceBuffer::new(dev, usize::MAX),
    )?;
    let r = DeviceBuffer::new(dev, isize::MAX as usize);
    ensure!(
        matches!(r, Err(Error::OutOfMemory { .. })),
        "DeviceBuffer::new(isize::MAX): {r:?}"
    );
    let r = DeviceArray::<u8>::zeros(dev, &[1usize << 62]);
    ensure!(
        matches!(r, Err(Error::OutOfMemory { .. })),
        "zeros 2^62: {r:?}"
    );
    // No null block entered the pool: the same requests still fail, small ones work.
    too_large(
        "full u8 MAX",
        "full",
        DeviceArray::full(dev, &[usize::MAX], 1u8),
    )?;
    let r = DeviceArray::full(dev, &[1usize << 62], 1u8);
    ensure!(
        matches!(r, Err(Error::OutOfMemory { .. })),
        "full 2^62: {r:?}"
    );
    let b = DeviceBuffer::new(dev, 1000)?;
    ensure!(b.device_ptr() != 0, "null device pointer");
    ensure!(
        DeviceArray::full(dev, &[3], 7u8)?.to_host()? == vec![7; 3],
        "allocation after the failures"
    );
    Ok(())
}

fn messages(dev: &Device) -> TResult {
    let a = DeviceArray::<i32>::arange(dev, 0, 6, 1)?;
    let e = a.slice(s![1..;0]).unwrap_err().to_string();
    ensure!(e.contains("slice") && e.contains("1..;0"), "zero step: {e}");
    let e = DeviceArray::<i32>::arange(dev, 3, 9, 0)
        .unwrap_err()
        .to_string();
    ensure!(
        e.contains("arange") && e.contains("start=3") && e.contains("stop=9"),
        "arange step 0: {e}"
    );
    let none: [&DeviceArray<i32>; 0] = [];
    let e = concatenate(&none, 1).unwrap_err().to_string();
    ensure!(
        e.contains("concatenate") && e.contains("empty list"),
        "empty concatenate: {e}"
    );
    let e = stack(&none, 0).unwrap_err().to_string();
    ensure!(
        e.contains("stack") && e.contains("empty list"),
        "empty stack: {e}"
    );
    let z = a.sum()?;
    let e = concatenate(&[&z, &z], 0).unwrap_err().to_string();
    ensure!(
        e.contains("concatenate") && e.contains("shape []"),
        "0-d concatenate: {e}"
    );
    Ok(())
}

fn empty_reductions(dev: &Device) -> TResult {
    let e00 = DeviceArray::<f32>::zeros(dev, &[0, 0])?;
    let e200 = DeviceArray::<i32>::zeros(dev, &[2, 0, 0])?;
    let empty = |what: &str, r: cuarray::Result<()>| -> TResult {
        match r {
            Err(Error::EmptyReduction { .. }) => Ok(()),
            other => Err(format!("{what}: expected EmptyReduction, got {other:?}").into()),
        }
    };
    empty("max (0,0) axis 0", e00.max_axis(0).map(drop))?;
    empty("min (0,0) axis 1", e00.min_axis(1).map(drop))?;
    empty("argmax (0,0) axis 0", e00.argmax_axis(0).map(drop))?;
    empty("argmin (2,0,0) axis 1", e200.argmin_axis(1).map(drop))?;
    empty("max (2,0,0) axis 1", e200.max_axis(1).map(drop))?;
    empty("max (2,0,0) axes", e200.max_axes(&[1, 2], true).map(drop))?;
    // Reducing a non-empty axis of an empty array is fine (NumPy too).
    let e03 = DeviceArray::<f32>::zeros(dev, &[0, 3])?;
    ensure!(e03.max_axis(1)?.shape() == [0], "max over a non-empty axis");
    ensure!(e00.sum_axis(0)?.shape() == [0], "sum has an identity");
    // cumsum of a 0-d array has shape (1,).
    let c = DeviceArray::<i32>::full(dev, &[], 5)?.cumsum(0)?;
    ensure!(
        c.shape() == [1] && c.to_host()? == vec![5i64],
        "cumsum 0-d: {:?}",
        c.shape()
    );
    let c = DeviceArray::<f32>::full(dev, &[], 2.0)?.cumprod(-1)?;
    ensure!(c.shape() == [1], "cumprod 0-d: {:?}", c.shape());
    ensure!(
        DeviceArray::<f32>::full(dev, &[], 2.0)?.cumsum(1).is_err(),
        "cumsum 0-d axis 1"
    );
    Ok(())
}

fn float_casts(dev: &Device) -> TResult {
    let v = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        300.0,
        -1.0,
        3e9,
        -3e9,
        1e20,
        -1e20,
    ];
    let a = DeviceArray::from_slice(dev, &v)?;
    let d = a.astype::<f64>()?;
    macro_rules! want {
        ($src:expr, $t:ty, $want:expr) => {{
            let got = $src.astype::<$t>()?.to_host()?;
            let want: Vec<$t> = $want.to_vec();
            ensure!(
                got == want,
                "{} -> {}: {got:?}, documented {want:?}",
                $src.dtype(),
                stringify!($t)
            );
        }};
    }
    macro_rules! all_integers {
        ($src:expr) => {{
            want!(
                $src,
                i32,
                [
                    0,
                    i32::MAX,
                    i32::MIN,
                    300,
                    -1,
                    i32::MAX,
                    i32::MIN,
                    i32::MAX,
                    i32::MIN
                ]
            );
            want!(
                $src,
                u32,
                [0, u32::MAX, 0, 300, 0, 3_000_000_000, 0, u32::MAX, 0]
            );
            want!(
                $src,
                i64,
                [
                    0,
                    i64::MAX,
                    i64::MIN,
                    300,
                    -1,
                    3_000_000_000,
                    -3_000_000_000,
                    i64::MAX,
                    i64::MIN
                ]
            );
            want!(
                $src,
                u64,
                [0, u64::MAX, 0, 300, 0, 3_000_000_000, 0, u64::MAX, 0]
            );
            // Narrow types: saturate to 32 bits, then keep the low bits.
            let lo = 3_000_000_000u32;
            want!($src, u8, [0, 255, 0, 44, 0, lo as u8, 0, 255, 0]);
            want!($src, i8, [0, -1, 0, 44, -1, -1, 0, -1, 0]);
            want!(
                $src,
                u16,
                [0, u16::MAX, 0, 300, 0, lo as u16, 0, u16::MAX, 0]
            );
            want!($src, i16, [0, -1, 0, 300, -1, -1, 0, -1, 0]);
            want!($src, bool, [true; 9]);
        }};
    }
    all_integers!(a);
    all_integers!(d);
    Ok(())
}

/// Reserved memory stays bounded over 500 short-lived streams: the blocks of a dropped
/// stream are reused by the next one.
fn short_lived_streams(dev: &Device) -> TResult {
    let pool = dev.memory_pool();
    let run = |i: usize| -> TResult {
        let s = dev.new_stream()?;
        let on = s.device();
        let a = DeviceArray::<f32>::full(&on, &[1 << 17], i as f32)?;
        let b = (&a * 2.0f32)?;
        ensure!(
            b.sum()?.to_scalar()? == (2 * i * (1 << 17)) as f32,
            "stream {i}: values"
        );
        Ok(())
    };
    for i in 0..10 {
        run(i)?;
    }
    dev.synchronize()?;
    let before = pool.stats();
    for i in 0..500 {
        run(i % 7)?;
    }
    dev.synchronize()?;
    let after = pool.stats();
    ensure!(
        after.reserved <= before.reserved + (8 << 20),
        "reserved grew by {} bytes over 500 streams: {before:?} -> {after:?}",
        after.reserved.saturating_sub(before.reserved)
    );
    ensure!(
        after.cache_hits >= before.cache_hits + 500,
        "new streams did not reuse cached blocks: {before:?} -> {after:?}"
    );
    ensure!(
        after.in_use == before.in_use,
        "in use {before:?} -> {after:?}"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial(
        "hardening/overflowing_constructors/all/huge",
        constructors,
    ));
    out.push(gpu_trial("hardening/overflowing_views/f32/huge", views));
    out.push(gpu_trial_exclusive(
        "hardening/allocation_rounding/u8/usize_max",
        buffers,
    ));
    out.push(gpu_trial("hardening/error_messages/i32/values", messages));
    out.push(gpu_trial(
        "hardening/empty_reductions/f32_i32/empty_axes",
        empty_reductions,
    ));
    out.push(gpu_trial(
        "hardening/float_to_int_casts/f32_f64/out_of_range",
        float_casts,
    ));
    out.push(gpu_trial_exclusive(
        "hardening/short_lived_streams/f32/500",
        short_lived_streams,
    ));
}
