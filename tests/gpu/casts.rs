//! `astype` between every pair of dtypes, against C/NumPy casting rules computed on the
//! host: floats truncate toward zero into integers (in-range values only), anything is
//! `x != 0` into bool, bool is 0/1, integers wrap, and floats round to nearest-even into
//! narrower floats (f64 -> bf16 through f32, as the kernels document).

use crate::common::{
    add_gpu, check_array, dname, each_dtype, ensure, HostNd, Rng, TElem, TResult, Val,
};
use cuarray::{DType, Device, DeviceArray};
use libtest_mimic::Trial;

/// A source value of `S` suited to a cast into `target`: in range when converting a
/// float to an integer, else spread over many magnitudes.
fn source_value<S: TElem>(rng: &mut Rng, target: DType) -> S {
    if !S::DTYPE.is_float() {
        return S::random(rng);
    }
    let x = if !target.is_float() && target != DType::Bool {
        let (lo, hi) = if target.is_signed_int() {
            (-100.0, 100.0)
        } else {
            (0.0, 200.0)
        };
        match rng.below(8) {
            0 => rng.int(lo as i64, hi as i64 - 1) as f64,
            1 => rng.int(lo as i64 * 2, hi as i64 * 2 - 1) as f64 * 0.5,
            2 => 0.0,
            3 => -0.0,
            _ => rng.range(lo, hi),
        }
    } else {
        match rng.below(10) {
            0 => 0.0,
            1 => -0.0,
            2 => rng.int(-3000, 3000) as f64,
            3 => rng.range(-1.0, 1.0) * 1e5,
            // Down to f16 and f32 subnormals.
            4 => rng.range(-1.0, 1.0) * 10f64.powi(-(rng.int(5, 44) as i32)),
            _ => rng.range(-1.0, 1.0) * 10f64.powf(rng.range(-4.0, 4.0)),
        }
    };
    S::from_val(Val::F(x))
}

fn cast_to<S: TElem, U: TElem>(dev: &Device, rng: &mut Rng, transposed: bool) -> TResult {
    let what = format!(
        "astype {} -> {} ({})",
        S::DTYPE,
        U::DTYPE,
        if transposed { "t() of 53x37" } else { "4099" }
    );
    let shape: &[usize] = if transposed { &[53, 37] } else { &[4099] };
    let n: usize = shape.iter().product();
    let h = HostNd::new(
        (0..n).map(|_| source_value::<S>(rng, U::DTYPE)).collect(),
        shape,
    );
    let mut a: DeviceArray<S> = h.upload(dev)?;
    let mut h = h;
    if transposed {
        a = a.t();
        h = h.t();
    }
    let want = h.map(|x| U::from_val(x.val()));
    let got = a.astype::<U>()?;
    ensure!(got.is_contiguous(), "{what}: result is not contiguous");
    ensure!(
        !got.shares_memory_with(&a),
        "{what}: result shares memory with its input"
    );
    check_array(&what, &got, &want, 0.0)
}

fn cast_all<S: TElem>(dev: &Device, rng: &mut Rng, transposed: bool) -> TResult {
    if transposed {
        // A transposed input goes through tiles; the conversion itself is the same code as
        // the flat casts, so a few targets of each kind suffice.
        cast_to::<S, f32>(dev, rng, transposed)?;
        cast_to::<S, half::bf16>(dev, rng, transposed)?;
        cast_to::<S, half::f16>(dev, rng, transposed)?;
        cast_to::<S, i64>(dev, rng, transposed)?;
        cast_to::<S, u8>(dev, rng, transposed)?;
        cast_to::<S, bool>(dev, rng, transposed)?;
        return Ok(());
    }
    cast_to::<S, f32>(dev, rng, transposed)?;
    cast_to::<S, f64>(dev, rng, transposed)?;
    cast_to::<S, half::f16>(dev, rng, transposed)?;
    cast_to::<S, half::bf16>(dev, rng, transposed)?;
    cast_to::<S, i8>(dev, rng, transposed)?;
    cast_to::<S, i16>(dev, rng, transposed)?;
    cast_to::<S, i32>(dev, rng, transposed)?;
    cast_to::<S, i64>(dev, rng, transposed)?;
    cast_to::<S, u8>(dev, rng, transposed)?;
    cast_to::<S, u16>(dev, rng, transposed)?;
    cast_to::<S, u32>(dev, rng, transposed)?;
    cast_to::<S, u64>(dev, rng, transposed)?;
    cast_to::<S, bool>(dev, rng, transposed)?;
    // Empty and 0-d inputs.
    let e = DeviceArray::<S>::from_host(dev, &[], &[0, 3])?.astype::<f64>()?;
    ensure!(
        e.shape() == [0, 3],
        "astype of an empty array has shape {:?}",
        e.shape()
    );
    let v = S::random(rng);
    let z = DeviceArray::<S>::from_host(dev, &[v], &[])?.astype::<i64>()?;
    ensure!(
        z.shape().is_empty(),
        "astype of a 0-d array has shape {:?}",
        z.shape()
    );
    let want = i64::from_val(v.val());
    ensure!(
        z.to_scalar()? == want,
        "0-d astype::<i64>() of {v}: got {}, expected {want}",
        z.to_scalar()?
    );
    Ok(())
}

fn register<S: TElem>(out: &mut Vec<Trial>) {
    let d = dname::<S>();
    add_gpu(
        out,
        format!("cast/astype/{d}/to_all_contiguous_4099"),
        |dev, rng| cast_all::<S>(dev, rng, false),
    );
    add_gpu(
        out,
        format!("cast/astype/{d}/to_6_transposed_53x37"),
        |dev, rng| cast_all::<S>(dev, rng, true),
    );
}

pub fn trials(out: &mut Vec<Trial>) {
    each_dtype!(register(out));
}
