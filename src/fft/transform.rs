//! The transforms: one-dimensional ([`fft`], [`ifft`], [`rfft`], [`irfft`]), two-dimensional
//! and n-dimensional, and how they go to cuFFT: the axes and lengths, the groups of
//! adjacent axes, the input's preparation (crop, zero-pad, conversion) and the
//! normalisation pass.

use super::plan::{run as run_stage, Stage, FFT_SCALE_BODY};
use super::{ComplexOf, FftFloat, FftInput, FftRealInput, Norm, RealOf};
use crate::array::DeviceArray;
use crate::element::Element;
use crate::kernels::abi::Scalar;
use crate::ops::catalogue::CAST_BODY;
use crate::ops::elementwise;
use crate::shape::{normalize_axis, Layout};
use crate::{Error, Result};

// ---- axes and lengths ------------------------------------------------------------------

/// The axes (normalised, in the order given) and the lengths of a transform: `s[i]` or the
/// array's extent along `axes[i]`. An empty `axes` means NumPy's `None`: the last
/// `s.len()` axes with `s`, else `default_all` (every axis) or the last two.
pub(super) fn resolve(
    op: &'static str,
    shape: &[usize],
    s: Option<&[usize]>,
    axes: &[isize],
    default_all: bool,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let ndim = shape.len();
    let axes: Vec<usize> = if axes.is_empty() {
        let k = match s {
            Some(s) => s.len(),
            None if default_all => ndim,
            None => 2,
        };
        if k > ndim {
            return Err(Error::invalid(
                op,
                format!("{k} axes asked of an array of {ndim} dimensions (shape {shape:?})"),
            ));
        }
        (ndim - k..ndim).collect()
    } else {
        axes.iter()
            .map(|&a| normalize_axis(op, a, ndim))
            .collect::<Result<_>>()?
    };
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].contains(a) {
            return Err(Error::invalid(
                op,
                format!("axis {a} appears twice in the axes {axes:?}"),
            ));
        }
    }
    let lens: Vec<usize> = match s {
        Some(s) if s.len() != axes.len() => {
            return Err(Error::invalid(
                op,
                format!(
                    "s has {} lengths for {} axes ({s:?} for axes {axes:?})",
                    s.len(),
                    axes.len()
                ),
            ))
        }
        Some(s) => s.to_vec(),
        None => axes.iter().map(|&a| shape[a]).collect(),
    };
    Ok((axes, lens))
}

fn check_lengths(op: &'static str, lens: &[usize]) -> Result<()> {
    if let Some(&n) = lens.iter().find(|&&n| n == 0) {
        return Err(Error::invalid(
            op,
            format!("invalid number of data points ({n}) for a transform (lengths {lens:?})"),
        ));
    }
    Ok(())
}

/// The array's shape with `lens` along `axes`.
fn with_lengths(shape: &[usize], axes: &[usize], lens: &[usize]) -> Vec<usize> {
    let mut out = shape.to_vec();
    for (&a, &n) in axes.iter().zip(lens) {
        out[a] = n;
    }
    out
}

/// The view of `layout` cut to `shape` (each extent at most the layout's), same strides.
fn cropped(layout: &Layout, shape: &[usize]) -> Layout {
    Layout::from_parts(shape.to_vec(), layout.strides().to_vec(), layout.offset())
}

/// True when every axis longer than 1 has a positive stride and none has a negative one
/// (what a cuFFT stage reads: a reversed axis of extent 1, as a flipped row vector has,
/// counts as negative there).
fn strides_ok(layout: &Layout) -> bool {
    layout
        .shape()
        .iter()
        .zip(layout.strides())
        .all(|(&n, &s)| s > 0 || (n <= 1 && s == 0))
}

/// `a` cropped or zero-padded to `shape` as `U`: a view of `a` when `U` is `T`, nothing is
/// padded, the strides suit cuFFT and `copy` is false; else a new contiguous array (the
/// overlap converted into it, zeros elsewhere).
fn prepare<T: Element, U: Element>(
    op: &'static str,
    a: &DeviceArray<T>,
    shape: &[usize],
    copy: bool,
) -> Result<DeviceArray<U>> {
    let pad = shape.iter().zip(a.shape()).any(|(n, m)| n > m);
    if !pad && !copy {
        if let Some(same) = a.as_type::<U>() {
            if shape == a.shape() && strides_ok(a.layout()) {
                return Ok(same);
            }
            let view = cropped(a.layout(), shape);
            if strides_ok(&view) {
                return Ok(same.with_layout(view));
            }
        }
    }
    let dev = a.device();
    let out = if pad {
        DeviceArray::<U>::zeros(dev, shape)?
    } else {
        DeviceArray::<U>::alloc_for(op, dev, shape)?
    };
    let region: Vec<usize> = shape
        .iter()
        .zip(a.shape())
        .map(|(&n, &m)| n.min(m))
        .collect();
    if region.contains(&0) {
        return Ok(out);
    }
    let src = a.with_layout(cropped(a.layout(), &region));
    let dst = out.with_layout(cropped(out.layout(), &region));
    elementwise::run(
        dev,
        "cast",
        CAST_BODY,
        &[dst.operand()?],
        &[src.operand()?],
        &[],
    )?;
    Ok(out)
}

/// Groups of adjacent axes (ascending, at most 3 each, the trailing ones full).
pub(super) fn groups(axes: &[usize]) -> Vec<Vec<usize>> {
    if let [a] = axes {
        return vec![vec![*a]];
    }
    let mut sorted = axes.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for a in sorted {
        match runs.last_mut() {
            Some(r) if r.last() == Some(&(a - 1)) => r.push(a),
            _ => runs.push(vec![a]),
        }
    }
    let mut out = Vec::new();
    for r in runs {
        let head = r.len() % 3;
        if head > 0 {
            out.push(r[..head].to_vec());
        }
        out.extend(r[head..].chunks(3).map(<[usize]>::to_vec));
    }
    out
}

/// Complex-to-complex transforms over `axes` from `x` into `out` (contiguous, same
/// shape): the first group reads `x`, the others run in place on `out`.
fn c2c_into<C: Element>(
    x: &DeviceArray<C>,
    out: &DeviceArray<C>,
    axes: &[usize],
    forward: bool,
) -> Result<()> {
    let dev = out.device();
    let stage = Stage::C2C { forward };
    let mut from_x = !x.shares_memory_with(out) || x.layout() != out.layout();
    for g in groups(axes).iter().rev() {
        let o = out.operand()?;
        let i = if from_x { x.operand()? } else { out.operand()? };
        from_x = false;
        if run_stage(dev, stage, g, &i, &o)? {
            continue;
        }
        // The group is not one cuFFT transform here: one axis from the input, the rest
        // in place.
        let (last, rest) = g.split_last().expect("groups are not empty");
        if g.len() == 1 || !run_stage(dev, stage, &[*last], &i, &o)? {
            return Err(Error::invalid(
                "fft",
                format!(
                    "axis {last} of a view of strides {:?} cannot be transformed",
                    x.strides()
                ),
            ));
        }
        for &a in rest.iter().rev() {
            run_stage(dev, stage, &[a], &o, &o)?;
        }
    }
    if from_x {
        // No axis at all: the result is the input.
        out.assign(x)?;
    }
    Ok(())
}

/// Multiplies `out` (contiguous, of real type `R` or its complex type) by `factor` in
/// place, unless it is 1: one pass over its parts as `R` values.
fn scale<T: Element, R: FftFloat>(out: &DeviceArray<T>, factor: f64) -> Result<()> {
    if factor == 1.0 || out.size() == 0 {
        return Ok(());
    }
    debug_assert!(out.is_contiguous() && out.layout().offset() == 0);
    let parts = out.size() * (T::DTYPE.size() / R::DTYPE.size());
    let layout = Layout::contiguous(&[parts]);
    elementwise::run(
        out.device(),
        "fft_scale",
        FFT_SCALE_BODY,
        &[out.operand_reinterpreted(layout.clone(), R::DTYPE)?],
        &[out.operand_reinterpreted(layout, R::DTYPE)?],
        &[Scalar::of(R::from_f64(factor))],
    )
}

// ---- the transforms ----------------------------------------------------------------------

fn c2cn<T: FftInput>(
    op: &'static str,
    a: &DeviceArray<T>,
    s: Option<&[usize]>,
    axes: &[isize],
    default_all: bool,
    norm: Norm,
    forward: bool,
) -> Result<DeviceArray<ComplexOf<T>>> {
    let _range = crate::profile::range(op);
    let (axes, lens) = resolve(op, a.shape(), s, axes, default_all)?;
    if axes.is_empty() {
        return Err(Error::invalid(
            op,
            "a real transform needs at least one axis",
        ));
    }
    check_lengths(op, &lens)?;
    let shape = with_lengths(a.shape(), &axes, &lens);
    let x = prepare::<T, ComplexOf<T>>(op, a, &shape, false)?;
    let out = DeviceArray::<ComplexOf<T>>::alloc_for(op, a.device(), &shape)?;
    if out.size() == 0 {
        return Ok(out);
    }
    c2c_into(&x, &out, &axes, forward)?;
    scale::<_, T::Real>(&out, norm.factor(lens.iter().product(), !forward))?;
    Ok(out)
}

/// The group of the real axis (the last of `axes` as given): it and the axes of `axes`
/// just below it, at most 3, ascending; and the other axes.
pub(super) fn real_group(axes: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let r = axes[axes.len() - 1];
    let mut g = vec![r];
    while g.len() < 3 && g[0] > 0 && axes.contains(&(g[0] - 1)) {
        g.insert(0, g[0] - 1);
    }
    let rest = axes.iter().copied().filter(|a| !g.contains(a)).collect();
    (g, rest)
}

fn r2cn<T: FftRealInput>(
    op: &'static str,
    a: &DeviceArray<T>,
    s: Option<&[usize]>,
    axes: &[isize],
    default_all: bool,
    norm: Norm,
) -> Result<DeviceArray<ComplexOf<T>>> {
    let _range = crate::profile::range(op);
    let (axes, lens) = resolve(op, a.shape(), s, axes, default_all)?;
    check_lengths(op, &lens)?;
    let shape = with_lengths(a.shape(), &axes, &lens);
    let x = prepare::<T, T::Real>(op, a, &shape, false)?;
    let real_axis = axes[axes.len() - 1];
    let mut oshape = shape.clone();
    oshape[real_axis] = shape[real_axis] / 2 + 1;
    let out = DeviceArray::<ComplexOf<T>>::alloc_for(op, a.device(), &oshape)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let dev = out.device();
    let (g, mut rest) = real_group(&axes);
    if !run_stage(dev, Stage::R2C, &g, &x.operand()?, &out.operand()?)? {
        if !run_stage(
            dev,
            Stage::R2C,
            &[real_axis],
            &x.operand()?,
            &out.operand()?,
        )? {
            return Err(Error::invalid("fft", "a single strided axis did not nest"));
        }
        rest.extend(g.iter().copied().filter(|&a| a != real_axis));
    }
    if !rest.is_empty() {
        c2c_into(&out, &out, &rest, true)?;
    }
    scale::<_, T::Real>(&out, norm.factor(lens.iter().product(), false))?;
    Ok(out)
}

fn c2rn<T: FftInput>(
    op: &'static str,
    a: &DeviceArray<T>,
    s: Option<&[usize]>,
    axes: &[isize],
    default_all: bool,
    norm: Norm,
) -> Result<DeviceArray<RealOf<T>>> {
    let _range = crate::profile::range(op);
    let (axes, mut lens) = resolve(op, a.shape(), s, axes, default_all)?;
    if axes.is_empty() {
        return Err(Error::invalid(
            op,
            "a real transform needs at least one axis",
        ));
    }
    let real_axis = axes[axes.len() - 1];
    if s.is_none() {
        // NumPy's default output length: 2 (m - 1) for m inputs.
        let m = a.shape()[real_axis];
        lens[axes.len() - 1] = 2 * m.saturating_sub(1);
    }
    check_lengths(op, &lens)?;
    let oshape = with_lengths(a.shape(), &axes, &lens);
    let mut wshape = oshape.clone();
    wshape[real_axis] = oshape[real_axis] / 2 + 1;
    let out = DeviceArray::<RealOf<T>>::alloc_for(op, a.device(), &oshape)?;
    if out.size() == 0 {
        return Ok(out);
    }
    // Always a copy: cuFFT's complex-to-real transform overwrites its input.
    let w = prepare::<T, ComplexOf<T>>(op, a, &wshape, true)?;
    let rest: Vec<usize> = axes[..axes.len() - 1].to_vec();
    if !rest.is_empty() {
        c2c_into(&w, &w, &rest, false)?;
    }
    let dev = out.device();
    if !run_stage(
        dev,
        Stage::C2R,
        &[real_axis],
        &w.operand()?,
        &out.operand()?,
    )? {
        return Err(Error::invalid("fft", "a contiguous stage did not nest"));
    }
    scale::<_, T::Real>(&out, norm.factor(lens.iter().product(), true))?;
    Ok(out)
}

/// The one-dimensional discrete Fourier transform along `axis` (NumPy's `fft.fft`): `n`
/// crops or zero-pads the input along `axis` first. Real input is converted to complex.
///
/// ```no_run
/// use cuarray::{fft, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f64, 0.0, 0.0, 0.0])?;
/// let y = fft::fft(&x, None, -1, fft::Norm::Backward)?;    // four ones
/// assert!(y.to_host()?.iter().all(|c| (c.re - 1.0).abs() < 1e-12 && c.im == 0.0));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for `n == 0` or an empty axis;
/// [`Error::LibraryNotFound`] without cuFFT; [`Error::OutOfMemory`].
pub fn fft<T: FftInput>(
    a: &DeviceArray<T>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<DeviceArray<ComplexOf<T>>> {
    let s = n.map(|n| [n]);
    c2cn(
        "fft",
        a,
        s.as_ref().map(|s| &s[..]),
        &[axis],
        false,
        norm,
        true,
    )
}

/// The inverse of [`fft`] (NumPy's `fft.ifft`), same arguments.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::fft::{self, Norm};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[4.0f64, 0.0, 0.0, 0.0])?;
/// let y = fft::ifft(&x, None, -1, Norm::Backward)?; // divides by n: four ones
/// assert!(y.to_host()?.iter().all(|c| (c.re - 1.0).abs() < 1e-12 && c.im.abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`fft`].
pub fn ifft<T: FftInput>(
    a: &DeviceArray<T>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<DeviceArray<ComplexOf<T>>> {
    let s = n.map(|n| [n]);
    c2cn(
        "ifft",
        a,
        s.as_ref().map(|s| &s[..]),
        &[axis],
        false,
        norm,
        false,
    )
}

/// The transform of real input (NumPy's `fft.rfft`): the `n / 2 + 1` non-negative
/// frequency terms along `axis`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::fft::{self, Norm};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[8])?;
/// let f = fft::rfft(&x, None, -1, Norm::Backward)?;
/// assert_eq!(f.shape(), &[5]); // 8 / 2 + 1 terms
/// assert!((f.to_host()?[0].re - 8.0).abs() < 1e-5);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`fft`].
pub fn rfft<T: FftRealInput>(
    a: &DeviceArray<T>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<DeviceArray<ComplexOf<T>>> {
    let s = n.map(|n| [n]);
    r2cn("rfft", a, s.as_ref().map(|s| &s[..]), &[axis], false, norm)
}

/// The inverse of [`rfft`] (NumPy's `fft.irfft`): `n` real outputs along `axis` (by
/// default `2 * (m - 1)` for `m` inputs; pass `n` for an odd length). The input is
/// cropped or zero-padded to `n / 2 + 1` terms and left unchanged.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::fft::{self, Norm};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0])?;
/// let f = fft::rfft(&x, None, -1, Norm::Backward)?; // 3 terms
/// let back = fft::irfft(&f, Some(5), -1, Norm::Backward)?; // the odd length given
/// assert!(back.to_host()?.iter().zip(1..).all(|(v, k)| (v - k as f32).abs() < 1e-5));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`fft`] (`n` is the output length here).
pub fn irfft<T: FftInput>(
    a: &DeviceArray<T>,
    n: Option<usize>,
    axis: isize,
    norm: Norm,
) -> Result<DeviceArray<RealOf<T>>> {
    let s = n.map(|n| [n]);
    c2rn("irfft", a, s.as_ref().map(|s| &s[..]), &[axis], false, norm)
}

macro_rules! nd {
    ($(#[$doc:meta])* $name:ident, $bound:ident, $out:ident, $all:expr, |$a:ident, $s:ident, $axes:ident, $norm:ident| $body:expr) => {
        $(#[$doc])*
        pub fn $name<T: $bound>(
            $a: &DeviceArray<T>,
            $s: Option<&[usize]>,
            $axes: &[isize],
            $norm: Norm,
        ) -> Result<DeviceArray<$out<T>>> {
            $body
        }
    };
}

nd!(
    /// The two-dimensional transform over `axes` (NumPy's `fft.fft2`; an empty `axes`
    /// means the last two, NumPy's default), `s` cropping or zero-padding them.
    ///
    /// ```no_run
    /// use cuarray::{fft, Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let img = DeviceArray::<f32>::ones(&dev, &[4, 6])?;
    /// let f = fft::fft2(&img, None, &[-2, -1], fft::Norm::Backward)?;
    /// assert_eq!(f.shape(), &[4, 6]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis, `s` and
    /// `axes` of different lengths, or a zero length; [`Error::LibraryNotFound`] without
    /// cuFFT; [`Error::OutOfMemory`].
    fft2, FftInput, ComplexOf, false, |a, s, axes, norm| c2cn("fft2", a, s, axes, false, norm, true)
);
nd!(
    /// The inverse of [`fft2`] (NumPy's `fft.ifft2`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::fft::{self, Norm};
    /// let dev = Device::new(0)?;
    /// let img = DeviceArray::<f32>::ones(&dev, &[4, 6])?;
    /// let f = fft::fft2(&img, None, &[], Norm::Backward)?;
    /// let back = fft::ifft2(&f, None, &[], Norm::Backward)?;
    /// assert!(back.to_host()?.iter().all(|c| (c.re - 1.0).abs() < 1e-5 && c.im.abs() < 1e-5));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis, `s` and
    /// `axes` of different lengths, or a zero length; [`Error::LibraryNotFound`] without
    /// cuFFT; [`Error::OutOfMemory`].
    ifft2, FftInput, ComplexOf, false, |a, s, axes, norm| c2cn("ifft2", a, s, axes, false, norm, false)
);
nd!(
    /// The two-dimensional transform of real input (NumPy's `fft.rfft2`): the last of
    /// `axes` gets `n / 2 + 1` terms.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::fft::{self, Norm};
    /// let dev = Device::new(0)?;
    /// let img = DeviceArray::<f32>::ones(&dev, &[4, 6])?;
    /// let f = fft::rfft2(&img, None, &[-2, -1], Norm::Backward)?;
    /// assert_eq!(f.shape(), &[4, 4]); // the last axis: 6 / 2 + 1 terms
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis, `s` and
    /// `axes` of different lengths, or a zero length; [`Error::LibraryNotFound`] without
    /// cuFFT; [`Error::OutOfMemory`].
    rfft2, FftRealInput, ComplexOf, false, |a, s, axes, norm| r2cn("rfft2", a, s, axes, false, norm)
);
nd!(
    /// The inverse of [`rfft2`] (NumPy's `fft.irfft2`): pass `s` for an odd last length.
    /// The input is left unchanged.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::fft::{self, Norm};
    /// let dev = Device::new(0)?;
    /// let img = DeviceArray::<f32>::ones(&dev, &[4, 5])?;
    /// let f = fft::rfft2(&img, None, &[], Norm::Backward)?; // shape [4, 3]
    /// let back = fft::irfft2(&f, Some(&[4, 5][..]), &[], Norm::Backward)?;
    /// assert_eq!(back.shape(), &[4, 5]);
    /// assert!(back.to_host()?.iter().all(|v| (v - 1.0).abs() < 1e-5));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis, `s` and
    /// `axes` of different lengths, or a zero length; [`Error::LibraryNotFound`] without
    /// cuFFT; [`Error::OutOfMemory`].
    irfft2, FftInput, RealOf, false, |a, s, axes, norm| c2rn("irfft2", a, s, axes, false, norm)
);
nd!(
    /// The n-dimensional transform over `axes` (NumPy's `fft.fftn`): an empty `axes`
    /// means NumPy's `None`, the last `s.len()` axes with `s`, else every axis.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::fft::{self, Norm};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f64>::ones(&dev, &[2, 3, 4])?;
    /// let f = fft::fftn(&a, None, &[], Norm::Backward)?; // every axis
    /// assert_eq!(f.shape(), &[2, 3, 4]);
    /// assert!((f.to_host()?[0].re - 24.0).abs() < 1e-12); // the sum of the elements
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis, `s` and
    /// `axes` of different lengths, or a zero length; [`Error::LibraryNotFound`] without
    /// cuFFT; [`Error::OutOfMemory`].
    fftn, FftInput, ComplexOf, true, |a, s, axes, norm| c2cn("fftn", a, s, axes, true, norm, true)
);
nd!(
    /// The inverse of [`fftn`] (NumPy's `fft.ifftn`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::fft::{self, Norm};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f64>::ones(&dev, &[2, 3, 4])?;
    /// let f = fft::fftn(&a, None, &[0, 2], Norm::Ortho)?;
    /// let back = fft::ifftn(&f, None, &[0, 2], Norm::Ortho)?;
    /// assert!(back.to_host()?.iter().all(|c| (c.re - 1.0).abs() < 1e-12));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis, `s` and
    /// `axes` of different lengths, or a zero length; [`Error::LibraryNotFound`] without
    /// cuFFT; [`Error::OutOfMemory`].
    ifftn, FftInput, ComplexOf, true, |a, s, axes, norm| c2cn("ifftn", a, s, axes, true, norm, false)
);
nd!(
    /// The n-dimensional transform of real input (NumPy's `fft.rfftn`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::fft::{self, Norm};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[2, 3, 4])?;
    /// let f = fft::rfftn(&a, None, &[], Norm::Backward)?;
    /// assert_eq!(f.shape(), &[2, 3, 3]); // the last axis: 4 / 2 + 1 terms
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis, `s` and
    /// `axes` of different lengths, or a zero length; [`Error::LibraryNotFound`] without
    /// cuFFT; [`Error::OutOfMemory`].
    rfftn, FftRealInput, ComplexOf, true, |a, s, axes, norm| r2cn("rfftn", a, s, axes, true, norm)
);
nd!(
    /// The inverse of [`rfftn`] (NumPy's `fft.irfftn`). The input is left unchanged.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::fft::{self, Norm};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[2, 3, 4])?;
    /// let f = fft::rfftn(&a, None, &[], Norm::Backward)?;
    /// let back = fft::irfftn(&f, Some(&[2, 3, 4][..]), &[], Norm::Backward)?;
    /// assert!(back.to_host()?.iter().all(|v| (v - 1.0).abs() < 1e-5));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis, `s` and
    /// `axes` of different lengths, or a zero length; [`Error::LibraryNotFound`] without
    /// cuFFT; [`Error::OutOfMemory`].
    irfftn, FftInput, RealOf, true, |a, s, axes, norm| c2rn("irfftn", a, s, axes, true, norm)
);
