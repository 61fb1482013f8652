//! Arrays that leave cuarray and memory that comes in: `as_raw`, `from_raw_parts` (foreign
//! memory outside the pool, its owner dropped once), `Stream::from_raw`, DLPack both ways
//! with the stream handshake.

use crate::common::{ensure, gpu_trial, gpu_trial_exclusive, TResult};
use cuarray::{dlpack, s, DType, Device, DeviceArray, Stream};
use libtest_mimic::Trial;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts its drops.
struct Owner(Arc<AtomicUsize>);
impl Drop for Owner {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn raw_views(dev: &Device) -> TResult {
    let a = DeviceArray::<f32>::arange(dev, 0.0, 12.0, 1.0)?.reshape(&[3, 4])?;
    // SAFETY: read only while `a` lives.
    let raw = unsafe { a.as_raw() };
    ensure!(
        raw.shape == vec![3, 4] && raw.strides == vec![4, 1],
        "{raw:?}"
    );
    ensure!(
        raw.dtype == DType::F32 && raw.device == dev.ordinal(),
        "{raw:?}"
    );
    let v = a.slice(s![1.., ..;-1])?;
    // SAFETY: as above.
    let rv = unsafe { v.as_raw() };
    ensure!(
        rv.ptr == raw.ptr + 4 * (4 + 3),
        "first element of the view: {rv:?}"
    );
    ensure!(rv.strides == vec![4, -1], "{rv:?}");
    ensure!(a.stream_handle() == dev.stream().as_raw(), "stream handle");
    Ok(())
}

fn wrap_foreign(dev: &Device) -> TResult {
    let pool = dev.memory_pool();
    let src = DeviceArray::<f32>::arange(dev, 0.0, 12.0, 1.0)?;
    dev.synchronize()?;
    let before = pool.stats();
    let drops = Arc::new(AtomicUsize::new(0));
    // SAFETY: `src` lives in the owner tuple as long as the wrapped array; `raw.ptr` is
    // its first element.
    let base = unsafe { src.as_raw() }.ptr;
    let owner = (Owner(drops.clone()), src.clone());
    // A reversed 3 x 4 view: the first logical element is the last one.
    let w = unsafe {
        DeviceArray::<f32>::from_raw_parts(dev, base + 4 * 11, &[3, 4], &[-4, -1], owner)
    }?;
    let after = pool.stats();
    ensure!(
        after.in_use == before.in_use && after.reserved == before.reserved,
        "foreign memory counted by the pool: {before:?} -> {after:?}"
    );
    let expect: Vec<f32> = (0..12).rev().map(|x| x as f32).collect();
    ensure!(w.to_host()? == expect, "values {:?}", w.to_host()?);
    let t = w.t();
    let s = (&w * 2.0)?.sum()?.to_scalar()?;
    ensure!(s == 132.0, "sum {s}");
    drop(w);
    ensure!(
        drops.load(Ordering::SeqCst) == 0,
        "owner dropped while a view lives"
    );
    drop(t);
    ensure!(
        drops.load(Ordering::SeqCst) == 1,
        "owner drops: {}",
        drops.load(Ordering::SeqCst)
    );
    dev.synchronize()?;
    let end = pool.stats();
    ensure!(
        end.in_use == before.in_use,
        "in use {} -> {} (foreign memory returned to the pool?)",
        before.in_use,
        end.in_use
    );
    // Errors: misaligned, null.
    let e = unsafe { DeviceArray::<f32>::from_raw_parts(dev, base + 2, &[2], &[1], ()) };
    ensure!(e.is_err(), "misaligned pointer accepted");
    let e = unsafe { DeviceArray::<f32>::from_raw_parts(dev, 0, &[2], &[1], ()) };
    ensure!(e.is_err(), "null pointer accepted");
    // SAFETY: an empty array reads nothing.
    let z = unsafe { DeviceArray::<f32>::from_raw_parts(dev, 0, &[0, 3], &[3, 1], ()) }?;
    ensure!(z.to_host()?.is_empty(), "empty");
    Ok(())
}

fn cudarc_allocation(dev: &Device) -> TResult {
    let ctx = cuarray::cudarc::driver::CudaContext::new(dev.ordinal())?;
    let stream = ctx.default_stream();
    let host: Vec<i64> = (0..1000).collect();
    let buf = stream.clone_htod(&host)?;
    stream.synchronize()?;
    use cuarray::cudarc::driver::DevicePtr;
    let (ptr, guard) = buf.device_ptr(&stream);
    drop(guard);
    let drops = Arc::new(AtomicUsize::new(0));
    let owner = (Owner(drops.clone()), buf);
    // SAFETY: `owner` holds the cudarc allocation (primary context of the same ordinal);
    // it was written and the stream synchronised above.
    let a = unsafe { DeviceArray::<i64>::from_raw_parts(dev, ptr, &[10, 100], &[100, 1], owner) }?;
    let s = a.sum()?.to_scalar()?;
    ensure!(s == 999 * 1000 / 2, "sum {s}");
    drop(a);
    ensure!(drops.load(Ordering::SeqCst) == 1, "owner drops");
    Ok(())
}

fn foreign_stream(dev: &Device) -> TResult {
    // A stream another library created: cudarc's, on the same (primary) context.
    let ctx = cuarray::cudarc::driver::CudaContext::new(dev.ordinal())?;
    let theirs = ctx.new_stream()?;
    // SAFETY: `theirs` is a stream of device 0's context and outlives `mine`.
    let mine = unsafe { Stream::from_raw(dev, theirs.cu_stream()) }?;
    ensure!(mine.as_raw() == theirs.cu_stream(), "handle");
    let on = mine.device();
    let a = DeviceArray::<f32>::ones(&on, &[1 << 16])?;
    ensure!(a.stream_handle() == theirs.cu_stream(), "array's stream");
    let s = a.sum()?.to_scalar()?;
    ensure!(s == (1 << 16) as f32, "sum {s}");
    drop((a, on, mine));
    // The stream was not destroyed: work still runs on it.
    let back = theirs.clone_dtoh(&theirs.clone_htod(&[1u8, 2, 3])?)?;
    ensure!(back == vec![1, 2, 3], "stream destroyed");
    theirs.synchronize()?;
    // The legacy default stream.
    // SAFETY: the null stream always exists.
    let legacy = unsafe { Stream::from_raw(dev, std::ptr::null_mut()) }?;
    let c = DeviceArray::<i32>::full(&legacy.device(), &[8], 7)?;
    ensure!(c.to_host()? == vec![7; 8], "legacy stream");
    Ok(())
}

fn dlpack_round_trip<T: cuarray::Element + PartialEq + std::fmt::Debug>(
    dev: &Device,
    values: Vec<T>,
) -> TResult {
    let n = values.len();
    let a = DeviceArray::from_host(dev, &values, &[2, n / 2])?;
    let t = a.t().to_dlpack(Some(1))?;
    ensure!(
        t.data_type() == dlpack::data_type(T::DTYPE),
        "dtype {:?}",
        t.data_type()
    );
    // SAFETY: read only while `a` lives.
    ensure!(t.data_ptr() == unsafe { a.as_raw() }.ptr, "zero copy");
    let raw = t.into_raw();
    // SAFETY: from `into_raw`, taken back once.
    let t = unsafe { dlpack::Tensor::from_raw(raw) }?;
    let b = DeviceArray::<T>::from_dlpack(dev, t)?;
    ensure!(
        b.shape() == [n / 2, 2] && b.strides() == [1, n as isize / 2],
        "{:?}",
        b.strides()
    );
    ensure!(b.to_host()? == a.t().to_host()?, "values");
    ensure!(
        !b.shares_memory_with(&a),
        "a foreign buffer is a buffer of its own"
    );
    // SAFETY: as above.
    ensure!(
        unsafe { b.as_raw() }.ptr == unsafe { a.t().as_raw() }.ptr,
        "same memory"
    );
    Ok(())
}

fn dlpack_every_dtype(dev: &Device) -> TResult {
    use cuarray::{bf16, f16, Complex};
    dlpack_round_trip(dev, vec![true, false, true, true])?;
    dlpack_round_trip(dev, vec![1i8, -2, 3, -4])?;
    dlpack_round_trip(dev, vec![1i16, -2, 3, -4])?;
    dlpack_round_trip(dev, vec![1i32, -2, 3, -4])?;
    dlpack_round_trip(dev, vec![1i64, -2, 3, -4])?;
    dlpack_round_trip(dev, vec![1u8, 2, 3, 4])?;
    dlpack_round_trip(dev, vec![1u16, 2, 3, 4])?;
    dlpack_round_trip(dev, vec![1u32, 2, 3, 4])?;
    dlpack_round_trip(dev, vec![1u64, 2, 3, 4])?;
    dlpack_round_trip(dev, [1.0f32, 2.0, 3.0, 4.0].map(f16::from_f32).to_vec())?;
    dlpack_round_trip(dev, [1.0f32, 2.0, 3.0, 4.0].map(bf16::from_f32).to_vec())?;
    dlpack_round_trip(dev, vec![1.0f32, 2.0, 3.0, 4.0])?;
    dlpack_round_trip(dev, vec![1.0f64, 2.0, 3.0, 4.0])?;
    dlpack_round_trip(dev, vec![Complex::new(1.0f32, -1.0); 4])?;
    dlpack_round_trip(dev, vec![Complex::new(1.0f64, -1.0); 4])?;
    Ok(())
}

fn dlpack_lifetime_and_pool(dev: &Device) -> TResult {
    let pool = dev.memory_pool();
    let a = DeviceArray::<f32>::ones(dev, &[1 << 20])?;
    dev.synchronize()?;
    let before = pool.stats();
    let t = a.to_dlpack(None)?;
    drop(a); // the tensor keeps the memory
    let b = DeviceArray::<f32>::from_dlpack(dev, t)?;
    let mid = pool.stats();
    ensure!(mid.in_use == before.in_use, "{before:?} -> {mid:?}");
    ensure!(
        b.sum()?.to_scalar()? == (1 << 20) as f32,
        "values after the producer dropped"
    );
    drop(b);
    dev.synchronize()?;
    let after = pool.stats();
    ensure!(
        after.in_use + (4 << 20) <= before.in_use + 4096,
        "the original block did not go back: {before:?} -> {after:?}"
    );
    // Errors leave nothing behind: wrong dtype, wrong device.
    let t = DeviceArray::<f64>::zeros(dev, &[4])?.to_dlpack(None)?;
    let e = DeviceArray::<f32>::from_dlpack(dev, t)
        .unwrap_err()
        .to_string();
    ensure!(e.contains("f64") && e.contains("f32"), "{e}");
    let e = DeviceArray::<f32>::ones(dev, &[1])?.to_dlpack(Some(0));
    ensure!(e.is_err(), "stream 0 accepted");
    Ok(())
}

fn dlpack_side_stream_producer(dev: &Device) -> TResult {
    let side = dev.new_stream()?;
    let consumer = dev.new_stream()?;
    // Long work on `side`, then hand the result to `consumer` with the handshake.
    let mut x = DeviceArray::<f32>::zeros(&side.device(), &[1 << 22])?;
    for _ in 0..50 {
        x = (&x + 1.0)?;
    }
    let t = x.to_dlpack(Some(consumer.as_raw() as usize))?;
    drop(x);
    let y = DeviceArray::<f32>::from_dlpack(&consumer.device(), t)?;
    let s = y.sum()?.to_scalar()?;
    ensure!(s == 50.0 * (1 << 22) as f32, "consumer saw {s}");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial("interop/as_raw/f32/views", raw_views));
    out.push(gpu_trial_exclusive(
        "interop/from_raw_parts/f32/reversed",
        wrap_foreign,
    ));
    out.push(gpu_trial(
        "interop/from_raw_parts/i64/cudarc_alloc",
        cudarc_allocation,
    ));
    out.push(gpu_trial(
        "interop/stream_from_raw/f32/borrowed",
        foreign_stream,
    ));
    out.push(gpu_trial(
        "interop/dlpack/all/round_trip_transposed",
        dlpack_every_dtype,
    ));
    out.push(gpu_trial_exclusive(
        "interop/dlpack/f32/lifetime_pool",
        dlpack_lifetime_and_pool,
    ));
    out.push(gpu_trial(
        "interop/dlpack/f32/side_stream",
        dlpack_side_stream_producer,
    ));
}
