//! Resampling (`scipy.ndimage`'s `_interpolation`): values at mapped coordinates, one
//! thread an output element, B-spline orders 0 (nearest) to 5 with SciPy's boundary
//! rules. Orders 2 to 5 first compute the f64 spline coefficients (SciPy's prefilter: the
//! inverse B-spline filter along each axis, run as one separable filter pass per axis of
//! its impulse response truncated below 1e-17); they support the modes `Mirror`,
//! `Constant`, `GridWrap` and `GridConstant` so far (the input padded by 12 on every side
//! for `GridConstant`, as SciPy), and the other modes are an error naming `order`.
//!
//! Every function but [`map_coordinates`] maps the output index through an affine map
//! (`zoom` and `shift` through a diagonal one, as SciPy's `zoom_shift` computes them). A
//! coordinate outside the input is mapped into it as `mode` says (`Constant`: the value
//! `cval`), and the taps past the edge are extended as SciPy does (reflected for
//! `Reflect`, periodic for `GridWrap`, the edge for `Nearest`, `cval` for `GridConstant`,
//! mirrored otherwise). Integer results are rounded half away from zero and saturated.

use super::launch;
use super::{per_axis, Mode};
use crate::array::{DeviceArray, PadMode};
use crate::element::NumElement;
use crate::kernels::family::ndimage::WindowOp;
use crate::shape::normalize_axis;
use crate::{Error, Result};

/// Checks the spline order for `mode`: 0 and 1 for every mode; 2..=5 for the modes whose
/// prefilter is implemented; above 5 never.
fn check_order(op: &'static str, order: usize, mode: Mode) -> Result<u8> {
    match (order, mode) {
        (0 | 1, _) => Ok(order as u8),
        (2..=5, Mode::Mirror | Mode::Constant(_) | Mode::GridWrap | Mode::GridConstant(_)) => {
            Ok(order as u8)
        }
        (2..=5, _) => Err(Error::invalid(
            op,
            format!("`order` {order} with {mode:?}: spline orders 2 to 5 support Mirror, Constant, GridWrap and GridConstant so far"),
        )),
        _ => Err(Error::invalid(op, format!("`order` {order} is above 5"))),
    }
}

/// The f64 B-spline coefficients of `input` for `order` (2..=5) and `mode`, and the
/// padding they carry on every side (12 for `GridConstant`, `pad` on).
fn coefficients<T: NumElement>(
    input: &DeviceArray<T>,
    order: u8,
    mode: Mode,
    pad: bool,
) -> Result<(DeviceArray<f64>, usize)> {
    let mut c = input.astype::<f64>()?.contiguous()?;
    let npad = if pad && matches!(mode, Mode::GridConstant(_)) {
        12
    } else {
        0
    };
    if npad > 0 {
        let widths = vec![(npad, npad); input.ndim()];
        c = c
            .pad(&widths, PadMode::Constant(mode.cval()))?
            .contiguous()?;
    }
    // SciPy's recursion with the mirrored (periodic for GridWrap) initial values filters
    // the signal extended that way: the same taps over that extension.
    let ext = if matches!(mode, Mode::GridWrap) {
        Mode::Wrap
    } else {
        Mode::Mirror
    };
    let taps = spline_taps(order);
    let half = (taps.len() / 2) as isize;
    for axis in 0..c.ndim() {
        if c.shape()[axis] <= 1 {
            continue;
        }
        let out = DeviceArray::<f64>::alloc_for("spline_filter", c.device(), c.shape())?;
        launch::line(
            "spline_filter",
            &c,
            &out,
            axis,
            WindowOp::Sum,
            &taps,
            taps.len(),
            -half,
            ext,
        )?;
        c = out;
    }
    Ok((c, npad))
}

/// The poles of the B-spline prefilter of `order` (2..=5), as SciPy's.
fn spline_poles(order: u8) -> &'static [f64] {
    match order {
        2 => &[-0.171_572_875_253_809_9],
        3 => &[-0.267_949_192_431_122_7],
        4 => &[-0.361_341_225_900_220_2, -0.013_725_429_297_339_121],
        _ => &[-0.430_575_347_099_973_8, -0.043_096_288_203_264_65],
    }
}

/// The impulse response of the B-spline prefilter of `order` (2..=5), symmetric, of odd
/// length: per pole `z`, SciPy's gain `(1 - z)(1 - 1/z)` times the causal and anticausal
/// passes `-z / ((1 - z q^-1)(1 - z q))`, whose response is `-z z^|j| / (1 - z^2)`; the
/// poles' responses convolved, each cut where `|z|^j` falls below 1e-17 (at most 121
/// taps, order 5).
pub(crate) fn spline_taps(order: u8) -> Vec<f64> {
    let mut h = vec![1.0f64];
    for &z in spline_poles(order) {
        let k = (1e-17f64.ln() / z.abs().ln()).ceil() as usize;
        let scale = (1.0 - z) * (1.0 - 1.0 / z) * -z / (1.0 - z * z);
        let p: Vec<f64> = (0..=2 * k)
            .map(|j| scale * z.powi((j as i32 - k as i32).abs()))
            .collect();
        let mut next = vec![0.0; h.len() + p.len() - 1];
        for (i, &a) in h.iter().enumerate() {
            for (j, &b) in p.iter().enumerate() {
                next[i + j] += a * b;
            }
        }
        h = next;
    }
    h
}

/// Resamples `input` into `out` (from `coords`, or the affine map) at `order`.
fn resample<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    out: &DeviceArray<T>,
    coords: Option<&DeviceArray<f64>>,
    affine: (&[f64], &[f64]),
    order: u8,
    mode: Mode,
) -> Result<()> {
    if order <= 1 {
        let x = input.contiguous()?;
        return launch::interp(op, &x, out, coords, affine, order, mode, 0.0);
    }
    if out.size() == 0 {
        return Ok(());
    }
    let (c, npad) = coefficients(input, order, mode, true)?;
    launch::interp(op, &c, out, coords, affine, order, mode, npad as f64)
}

/// Resamples through the affine map `matrix` (rank x rank, row-major) and `offset` into
/// an array of `out_shape`.
fn affine<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    matrix: &[f64],
    offset: &[f64],
    out_shape: &[usize],
    order: usize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    let order = check_order(op, order, mode)?;
    let out = DeviceArray::<T>::alloc_for(op, input.device(), out_shape)?;
    resample(op, input, &out, None, (matrix, offset), order, mode)?;
    Ok(out)
}

/// The values of `input` at the coordinates `coords` (SciPy's `map_coordinates`):
/// `coords` has shape `(rank, ...)`, its `[.., i]` the input coordinate of output `i`;
/// the output has shape `coords.shape()[1..]`.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[0.0f64, 10.0, 20.0, 30.0])?;
/// let at = DeviceArray::from_host(&dev, &[0.5f64, 2.25, -1.0], [1, 3])?;
/// let v = ndimage::map_coordinates(&x, &at, 1, Mode::Constant(-1.0))?;
/// assert_eq!(v.to_host()?, vec![5.0, 22.5, -1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `coords` (its first extent is not the input's rank)
/// or `order` (above 5, or 2 to 5 with a mode not supported yet), or for an empty input with a
/// non-empty output; [`Error::DeviceMismatch`].
pub fn map_coordinates<T: NumElement>(
    input: &DeviceArray<T>,
    coords: &DeviceArray<f64>,
    order: usize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    const OP: &str = "map_coordinates";
    let order = check_order(OP, order, mode)?;
    coords.used_by(OP, input.device())?;
    if coords.ndim() == 0 || coords.shape()[0] != input.ndim() {
        return Err(Error::invalid(
            OP,
            format!(
                "`coords` has shape {:?}; its first extent must be the input's rank {}",
                coords.shape(),
                input.ndim()
            ),
        ));
    }
    let c = coords.contiguous()?;
    let out = DeviceArray::<T>::alloc_for(OP, input.device(), &coords.shape()[1..])?;
    resample(OP, input, &out, Some(&c), (&[], &[]), order, mode)?;
    Ok(out)
}

/// The affine transform of `input` (SciPy's `affine_transform`): output `o` takes the
/// input at `matrix @ o + offset`. `matrix` holds rank x rank values (row-major), or
/// (rank+1) x (rank+1) homogeneous ones whose last column is the offset (`offset` is then
/// ignored); `offset` one value or one per axis; `output_shape` the input's by default.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
/// // The transpose.
/// let t = ndimage::affine_transform(&x, &[0.0, 1.0, 1.0, 0.0], &[0.0], None, 0, Mode::Reflect)?;
/// assert_eq!(t.to_host()?, vec![1.0, 3.0, 2.0, 4.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `matrix` (another count of values), `offset`,
/// `output_shape` (another rank) or `order`.
pub fn affine_transform<T: NumElement>(
    input: &DeviceArray<T>,
    matrix: &[f64],
    offset: &[f64],
    output_shape: Option<&[usize]>,
    order: usize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    const OP: &str = "affine_transform";
    let r = input.ndim();
    let (m, off) = if matrix.len() == r * r {
        (matrix.to_vec(), per_axis(OP, "offset", offset, r)?)
    } else if matrix.len() == (r + 1) * (r + 1) {
        let m = (0..r)
            .flat_map(|i| matrix[i * (r + 1)..i * (r + 1) + r].to_vec())
            .collect();
        let off = (0..r).map(|i| matrix[i * (r + 1) + r]).collect();
        (m, off)
    } else {
        return Err(Error::invalid(
            OP,
            format!(
                "`matrix` has {} values; an array of rank {r} takes {} (or {} homogeneous)",
                matrix.len(),
                r * r,
                (r + 1) * (r + 1)
            ),
        ));
    };
    let out_shape = output_shape.unwrap_or(input.shape());
    if out_shape.len() != r {
        return Err(Error::invalid(
            OP,
            format!("`output_shape` {out_shape:?} is not of rank {r}"),
        ));
    }
    affine(OP, input, &m, &off, out_shape, order, mode)
}

/// The diagonal matrix of `diag` (row-major).
fn diagonal(diag: &[f64]) -> Vec<f64> {
    let r = diag.len();
    (0..r * r)
        .map(|e| if e / r == e % r { diag[e / r] } else { 0.0 })
        .collect()
}

/// Zooms `input` by `factors` (one, or one per axis; SciPy's `zoom` with `grid_mode`
/// off): the output's extent is `round(n * factor)` (ties to even, as Python) and its
/// first and last elements sample the input's first and last.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[0.0f64, 3.0])?;
/// let z = ndimage::zoom(&x, &[2.0], 1, Mode::Reflect)?.to_host()?; // [0, 1, 2, 3] to rounding
/// assert!(z.iter().zip([0.0, 1.0, 2.0, 3.0]).all(|(x, w)| (x - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `factors` (a wrong count, or not positive and finite)
/// or `order`.
pub fn zoom<T: NumElement>(
    input: &DeviceArray<T>,
    factors: &[f64],
    order: usize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    const OP: &str = "zoom";
    let factors = per_axis(OP, "factors", factors, input.ndim())?;
    if let Some(f) = factors.iter().find(|f| !(f.is_finite() && **f > 0.0)) {
        return Err(Error::invalid(
            OP,
            format!("`factors` {f} must be positive and finite"),
        ));
    }
    let out_shape: Vec<usize> = input
        .shape()
        .iter()
        .zip(&factors)
        .map(|(&n, &f)| (n as f64 * f).round_ties_even() as usize)
        .collect();
    let steps: Vec<f64> = input
        .shape()
        .iter()
        .zip(&out_shape)
        .map(|(&n, &m)| {
            if m > 1 {
                (n as f64 - 1.0) / (m as f64 - 1.0)
            } else {
                1.0
            }
        })
        .collect();
    let zeros = vec![0.0; input.ndim()];
    affine(
        OP,
        input,
        &diagonal(&steps),
        &zeros,
        &out_shape,
        order,
        mode,
    )
}

/// Shifts `input` by `shift` (one, or one per axis; SciPy's `shift`): output `o` takes the
/// input at `o - shift`.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0, 4.0])?;
/// assert_eq!(ndimage::shift(&x, &[1.0], 0, Mode::Constant(0.0))?.to_host()?, vec![0.0, 1.0, 2.0, 3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `shift` (a wrong count of values) or `order`.
pub fn shift<T: NumElement>(
    input: &DeviceArray<T>,
    shift: &[f64],
    order: usize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    const OP: &str = "shift";
    let shift = per_axis(OP, "shift", shift, input.ndim())?;
    let neg: Vec<f64> = shift.iter().map(|s| -s).collect();
    let ones = vec![1.0; input.ndim()];
    affine(
        OP,
        input,
        &diagonal(&ones),
        &neg,
        input.shape(),
        order,
        mode,
    )
}

/// `cos` and `sin` of `deg` degrees, exact at multiples of 90 (as SciPy's `cosdg`, `sindg`).
fn cos_sin_deg(deg: f64) -> (f64, f64) {
    let r = deg.rem_euclid(360.0);
    if r % 90.0 == 0.0 {
        match (r / 90.0) as u8 {
            0 => (1.0, 0.0),
            1 => (0.0, 1.0),
            2 => (-1.0, 0.0),
            _ => (0.0, -1.0),
        }
    } else {
        let t = deg.to_radians();
        (t.cos(), t.sin())
    }
}

/// Rotates `input` by `angle` degrees in the plane of `axes` (SciPy's `rotate`, on every
/// plane of an array of rank above 2 at once): about the centre, the output grown to hold
/// the whole rotated input when `reshape` is on.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
/// let r = ndimage::rotate(&x, 90.0, (1, 0), true, 0, Mode::Constant(0.0))?;
/// assert_eq!(r.shape(), &[3, 2]);
/// assert_eq!(r.to_host()?, vec![3.0, 6.0, 2.0, 5.0, 1.0, 4.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an input of rank below 2, or naming `axes` (one axis
/// twice) or `order`; [`Error::AxisOutOfRange`].
pub fn rotate<T: NumElement>(
    input: &DeviceArray<T>,
    angle: f64,
    axes: (isize, isize),
    reshape: bool,
    order: usize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    const OP: &str = "rotate";
    let nd = input.ndim();
    if nd < 2 {
        return Err(Error::invalid(OP, "the input must have rank 2 or more"));
    }
    let mut ax = [
        normalize_axis(OP, axes.0, nd)?,
        normalize_axis(OP, axes.1, nd)?,
    ];
    if ax[0] == ax[1] {
        return Err(Error::invalid(OP, "`axes` names one axis twice"));
    }
    ax.sort_unstable();
    let (matrix, offset, out_shape) = rotation(input.shape(), angle, ax, reshape);
    affine(OP, input, &matrix, &offset, &out_shape, order, mode)
}

/// The affine map of [`rotate`] (SciPy's): the matrix (rank x rank, row-major), the offset
/// and the output shape of a rotation by `angle` degrees in the plane of the sorted axes
/// `ax` of an array of `shape`.
fn rotation(
    shape: &[usize],
    angle: f64,
    ax: [usize; 2],
    reshape: bool,
) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let nd = shape.len();
    let (c, s) = cos_sin_deg(angle);
    let rot = [[c, s], [-s, c]];
    let in_plane = [shape[ax[0]] as f64, shape[ax[1]] as f64];
    let out_plane: [f64; 2] = if reshape {
        let (iy, ix) = (in_plane[0], in_plane[1]);
        let corners = [(0.0, 0.0), (0.0, ix), (iy, 0.0), (iy, ix)];
        let mut o = [0.0; 2];
        for (r, row) in rot.iter().enumerate() {
            let vals: Vec<f64> = corners
                .iter()
                .map(|&(y, x)| row[0] * y + row[1] * x)
                .collect();
            let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
            o[r] = ((hi - lo) + 0.5).trunc();
        }
        o
    } else {
        in_plane
    };
    let oc = [(out_plane[0] - 1.0) / 2.0, (out_plane[1] - 1.0) / 2.0];
    let out_center = [
        rot[0][0] * oc[0] + rot[0][1] * oc[1],
        rot[1][0] * oc[0] + rot[1][1] * oc[1],
    ];
    let offset2 = [
        (in_plane[0] - 1.0) / 2.0 - out_center[0],
        (in_plane[1] - 1.0) / 2.0 - out_center[1],
    ];
    let mut matrix = diagonal(&vec![1.0; nd]);
    let mut offset = vec![0.0; nd];
    let mut out_shape = shape.to_vec();
    for i in 0..2 {
        for j in 0..2 {
            matrix[ax[i] * nd + ax[j]] = rot[i][j];
        }
        offset[ax[i]] = offset2[i];
        out_shape[ax[i]] = out_plane[i] as usize;
    }
    (matrix, offset, out_shape)
}

/// SciPy's `spline_filter`: the f64 B-spline coefficients of `input` for `order`, one
/// recursive pass per axis and pole. Orders 0 and 1 need none (a copy as f64, as SciPy);
/// orders 2 to 5 take the mirrored initialisation (`Mirror`, `Constant`, `GridConstant`)
/// or the periodic one (`GridWrap`).
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f64, 1.0, 1.0, 1.0])?;
/// let c = ndimage::spline_filter(&x, 3, Mode::Mirror)?.to_host()?;
/// assert!(c.iter().all(|v| (v - 1.0).abs() < 1e-12)); // a constant is its own spline
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `order` (above 5, or 2 to 5 with another mode).
pub fn spline_filter<T: NumElement>(
    input: &DeviceArray<T>,
    order: usize,
    mode: Mode,
) -> Result<DeviceArray<f64>> {
    let order = check_order("spline_filter", order, mode)?;
    if order <= 1 {
        return input.astype::<f64>();
    }
    Ok(coefficients(input, order, mode, false)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SciPy's recursive prefilter of one line with the mirrored initial values.
    fn recursive(c: &mut [f64], order: u8) {
        let n = c.len();
        for &z in spline_poles(order) {
            let gain = (1.0 - z) * (1.0 - 1.0 / z);
            c.iter_mut().for_each(|v| *v *= gain);
            let zn1 = z.powi(n as i32 - 1);
            let mut c0 = c[0] + zn1 * c[n - 1];
            let mut zi = z;
            for i in 1..n - 1 {
                c0 += zi * (c[i] + zn1 * c[n - 1 - i]);
                zi *= z;
            }
            c[0] = c0 / (1.0 - zn1 * zn1);
            for i in 1..n {
                c[i] += z * c[i - 1];
            }
            c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1.0);
            for i in (0..n - 1).rev() {
                c[i] = z * (c[i + 1] - c[i]);
            }
        }
    }

    #[test]
    fn spline_taps_equal_the_recursive_prefilter() {
        for order in 2..=5u8 {
            let h = spline_taps(order);
            assert!(h.len() % 2 == 1 && h.len() <= 128, "{}", h.len());
            assert!((h.iter().sum::<f64>() - 1.0).abs() < 1e-14);
            for n in [2usize, 3, 7, 40, 300] {
                let x: Vec<f64> = (0..n).map(|i| ((i * 37 % 11) as f64) - 4.5).collect();
                let mut want = x.clone();
                recursive(&mut want, order);
                let half = (h.len() / 2) as isize;
                let p = 2 * n as isize - 2;
                for (i, w) in want.iter().enumerate() {
                    let got: f64 = h
                        .iter()
                        .enumerate()
                        .map(|(j, t)| {
                            let mut m = (i as isize + j as isize - half).rem_euclid(p);
                            if m >= n as isize {
                                m = p - m;
                            }
                            t * x[m as usize]
                        })
                        .sum();
                    assert!(
                        (got - w).abs() < 1e-13,
                        "order {order} n {n} i {i}: {got} {w}"
                    );
                }
            }
        }
    }

    #[test]
    fn rotation_is_scipys() {
        // scipy.ndimage.rotate's shapes and offsets (cosdg / sindg for the matrix).
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12 * b.abs().max(1.0);
        let (m, off, shape) = rotation(&[5, 7], 30.0, [0, 1], true);
        assert_eq!(shape, vec![8, 9]);
        assert!(close(m[0], 0.8660254037844387) && close(m[1], 0.49999999999999994));
        assert!(close(m[2], -0.49999999999999994) && close(m[3], 0.8660254037844387));
        assert!(
            close(off[0], -3.0310889132455356) && close(off[1], 1.285898384862245),
            "{off:?}"
        );
        let (_, off, shape) = rotation(&[5, 7], -50.0, [0, 1], false);
        assert_eq!(shape, vec![5, 7]);
        assert!(
            close(off[0], 3.012558109983856) && close(off[1], -0.460451715297574),
            "{off:?}"
        );
        let (_, off, shape) = rotation(&[512, 300], 123.4, [0, 1], true);
        assert_eq!(shape, vec![532, 593]);
        assert!(
            close(off[0], 154.53766896659806) && close(off[1], 534.0944067615931),
            "{off:?}"
        );
        // A 3-d array: the plane's block, identity elsewhere.
        let (m, off, shape) = rotation(&[2, 5, 7], 90.0, [1, 2], true);
        assert_eq!(shape, vec![2, 7, 5]);
        assert_eq!(m, vec![1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -1.0, 0.0]);
        assert_eq!(off[0], 0.0);
        assert_eq!(cos_sin_deg(-90.0), (0.0, -1.0));
    }
}
