//! Labelling and measurements (`scipy.ndimage`'s `_measurements`), hole filling and the
//! Euclidean distance transform.
//!
//! `label` is union-find on the GPU: every element is united with its earlier neighbours
//! under the structure (an `atomicMin` links the larger root under the smaller, so a
//! component's root is its first element in raster order), then the roots are counted by
//! an inclusive sum, which numbers the components as SciPy does. Measurements are one
//! pass over the elements each (not a loop over labels): a table maps every label to its
//! slot, and the pass accumulates into the slots with atomics.

use super::launch::{self, Measure};
use super::morphology::structure_for;
use crate::array::DeviceArray;
use crate::element::{Element, NumElement};
use crate::shape::SliceElem;
use crate::{Error, Result};
use std::ops::Range;

/// Labels the connected components of `mask` (SciPy's `label`): the labels (`i32`, 0 for
/// the background) numbered 1.. in the raster order of each component's first element,
/// and their count. `structure` (3 along every axis, symmetric) says which neighbours
/// connect; it defaults to [`generate_binary_structure`](super::generate_binary_structure)
/// `(rank, 1)` (faces only).
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let m = DeviceArray::from_host(&dev, &[true, false, true, true, false, false, false, true, true], [3, 3])?;
/// let (labels, n) = ndimage::label(&m, None)?;
/// assert_eq!(n, 3);
/// assert_eq!(labels.to_host()?, vec![1, 0, 2, 1, 0, 0, 0, 3, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `structure` (another rank, or not 3 along every
/// axis), or for arrays of 2^31 elements or more; [`Error::DeviceMismatch`].
pub fn label(
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
) -> Result<(DeviceArray<i32>, usize)> {
    const OP: &str = "label";
    let s = label_structure(OP, mask, structure)?;
    launch::label(OP, &mask.contiguous()?, &s)
}

fn label_structure(
    op: &'static str,
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
) -> Result<DeviceArray<bool>> {
    let s = structure_for(op, mask, structure)?;
    if s.shape().iter().any(|&d| d != 3) {
        return Err(Error::invalid(
            op,
            format!(
                "`structure` has shape {:?}; it must be 3 along every axis",
                s.shape()
            ),
        ));
    }
    Ok(s)
}

/// The bounding box of every label 1..=max (SciPy's `find_objects`): `None` for a label
/// with no element. Computed on the host from one copy of the labels.
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let l = DeviceArray::from_host(&dev, &[0i32, 1, 1, 0, 0, 3], [2, 3])?;
/// let boxes = ndimage::find_objects(&l)?;
/// assert_eq!(boxes, vec![Some(vec![0..1, 1..3]), None, Some(vec![1..2, 2..3])]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for a rank above 8 (as every other function here).
pub fn find_objects(labels: &DeviceArray<i32>) -> Result<Vec<Option<Vec<Range<usize>>>>> {
    let shape = labels.shape().to_vec();
    let host = labels.to_host()?;
    let max = host.iter().copied().max().unwrap_or(0).max(0) as usize;
    let mut boxes: Vec<Option<Vec<Range<usize>>>> = vec![None; max];
    for (t, &l) in host.iter().enumerate() {
        if l <= 0 {
            continue;
        }
        let mut rem = t;
        let mut idx = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            idx[d] = rem % shape[d];
            rem /= shape[d];
        }
        let b =
            boxes[l as usize - 1].get_or_insert_with(|| idx.iter().map(|&i| i..i + 1).collect());
        for (r, &i) in b.iter_mut().zip(&idx) {
            r.start = r.start.min(i);
            r.end = r.end.max(i + 1);
        }
    }
    Ok(boxes)
}

/// The largest label a measurement takes (its table of slots has one entry a label).
const MAX_LABEL: i32 = 1 << 26;

/// The slots of one measurement: the label-to-slot table on the device, the slot count,
/// and the gather from slots to the `index` entries when they repeat labels.
struct Slots {
    lut: DeviceArray<i32>,
    slots: usize,
    gather: Option<DeviceArray<i64>>,
}

fn plan<T: Element>(
    op: &'static str,
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<(DeviceArray<T>, DeviceArray<i32>, Slots)> {
    labels.used_by(op, input.device())?;
    if labels.shape() != input.shape() {
        return Err(Error::invalid(
            op,
            format!(
                "`labels` has shape {:?} for an input of shape {:?}",
                labels.shape(),
                input.shape()
            ),
        ));
    }
    if input.ndim() > crate::kernels::family::ndimage::MAX_RANK {
        return Err(Error::invalid(op, "arrays of rank above 8"));
    }
    let nlut = index.iter().copied().max().unwrap_or(-1).max(-1) + 1;
    if nlut > MAX_LABEL {
        return Err(Error::invalid(
            op,
            format!(
                "`index` holds label {}; labels up to {MAX_LABEL} are measured",
                nlut - 1
            ),
        ));
    }
    let mut lut = vec![-1i32; nlut as usize];
    let mut of_index = Vec::with_capacity(index.len());
    let mut slots = 0usize;
    let mut repeated = false;
    for &l in index {
        if l < 0 {
            // A label no element has: a slot of its own that nothing fills.
            of_index.push(slots as i64);
            slots += 1;
            continue;
        }
        let s = &mut lut[l as usize];
        if *s < 0 {
            *s = slots as i32;
            slots += 1;
        } else {
            repeated = true;
        }
        of_index.push(i64::from(*s));
    }
    let device = input.device();
    let lut = DeviceArray::from_slice(device, &lut)?;
    let gather = if repeated || of_index.iter().enumerate().any(|(k, &s)| s != k as i64) {
        Some(DeviceArray::from_slice(device, &of_index)?)
    } else {
        None
    };
    Ok((
        input.contiguous()?,
        labels.contiguous()?,
        Slots { lut, slots, gather },
    ))
}

impl Slots {
    /// `a` (one row a slot) as one row an index entry.
    fn out<T: Element>(&self, a: DeviceArray<T>) -> Result<DeviceArray<T>> {
        match &self.gather {
            Some(g) => a.take(g, Some(0)),
            None => Ok(a),
        }
    }
}

/// Counts and sums per slot.
fn sums<T: NumElement>(
    x: &DeviceArray<T>,
    l: &DeviceArray<i32>,
    s: &Slots,
) -> Result<(DeviceArray<f64>, DeviceArray<f64>)> {
    let dev = x.device();
    let count = DeviceArray::<f64>::zeros(dev, [s.slots])?;
    let sum = DeviceArray::<f64>::zeros(dev, [s.slots])?;
    let m = Measure {
        a0: Some(&count),
        a1: Some(&sum),
        p0: None,
        p1: None,
        aux0: None,
        aux1: None,
    };
    launch::measure(x, l, &s.lut, s.slots, 0, &m)?;
    Ok((count, sum))
}

/// The population variance per slot, from a second pass centred on the means (as SciPy).
fn variances<T: NumElement>(
    x: &DeviceArray<T>,
    l: &DeviceArray<i32>,
    s: &Slots,
) -> Result<DeviceArray<f64>> {
    let (count, sum) = sums(x, l, s)?;
    let mean = (&sum / &count)?;
    let sq = DeviceArray::<f64>::zeros(x.device(), [s.slots])?;
    let m = Measure {
        a0: Some(&sq),
        a1: None,
        p0: None,
        p1: None,
        aux0: Some(&mean),
        aux1: None,
    };
    launch::measure(x, l, &s.lut, s.slots, 1, &m)?;
    &sq / &count
}

/// The sum of `input` over each label of `index` (SciPy's `sum_labels`), in `f64`.
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1u8, 2, 3, 4, 5])?;
/// let l = DeviceArray::from_slice(&dev, &[1i32, 1, 0, 2, 2])?;
/// assert_eq!(ndimage::sum_labels(&x, &l, &[1, 2, 7])?.to_host()?, vec![3.0, 9.0, 0.0]);
/// assert_eq!(ndimage::mean(&x, &l, &[2])?.to_host()?, vec![4.5]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `labels` (another shape); [`Error::DeviceMismatch`].
pub fn sum_labels<T: NumElement>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<DeviceArray<f64>> {
    let (x, l, s) = plan("sum_labels", input, labels, index)?;
    s.out(sums(&x, &l, &s)?.1)
}

/// The mean of `input` over each label of `index` (SciPy's `mean`; NaN for a label with
/// no element).
///
/// # Errors
/// As [`sum_labels`].
pub fn mean<T: NumElement>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<DeviceArray<f64>> {
    let (x, l, s) = plan("mean", input, labels, index)?;
    let (count, sum) = sums(&x, &l, &s)?;
    s.out((&sum / &count)?)
}

/// The population variance of `input` over each label of `index` (SciPy's `variance`:
/// the mean squared deviation from the label's mean, computed in a second pass).
///
/// # Errors
/// As [`sum_labels`].
pub fn variance<T: NumElement>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<DeviceArray<f64>> {
    let (x, l, s) = plan("variance", input, labels, index)?;
    s.out(variances(&x, &l, &s)?)
}

/// The standard deviation of `input` over each label of `index` (SciPy's
/// `standard_deviation`: the square root of [`variance`]).
///
/// # Errors
/// As [`sum_labels`].
pub fn standard_deviation<T: NumElement>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<DeviceArray<f64>> {
    let (x, l, s) = plan("standard_deviation", input, labels, index)?;
    s.out(variances(&x, &l, &s)?.sqrt()?)
}

/// Minima and maxima per slot.
fn min_max<T: NumElement>(
    x: &DeviceArray<T>,
    l: &DeviceArray<i32>,
    s: &Slots,
) -> Result<(DeviceArray<f64>, DeviceArray<f64>)> {
    let dev = x.device();
    let lo = DeviceArray::<f64>::full(dev, [s.slots], f64::INFINITY)?;
    let hi = DeviceArray::<f64>::full(dev, [s.slots], f64::NEG_INFINITY)?;
    let m = Measure {
        a0: Some(&lo),
        a1: Some(&hi),
        p0: None,
        p1: None,
        aux0: None,
        aux1: None,
    };
    launch::measure(x, l, &s.lut, s.slots, 2, &m)?;
    Ok((lo, hi))
}

/// The minimum of `input` over each label of `index` (SciPy's `minimum`), as `f64`
/// (`inf` for a label with no element, where SciPy gives 0).
///
/// # Errors
/// As [`sum_labels`].
pub fn minimum<T: NumElement>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<DeviceArray<f64>> {
    let (x, l, s) = plan("minimum", input, labels, index)?;
    s.out(min_max(&x, &l, &s)?.0)
}

/// The maximum of `input` over each label of `index` (SciPy's `maximum`), as `f64`
/// (`-inf` for a label with no element, where SciPy gives 0).
///
/// # Errors
/// As [`sum_labels`].
pub fn maximum<T: NumElement>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<DeviceArray<f64>> {
    let (x, l, s) = plan("maximum", input, labels, index)?;
    s.out(min_max(&x, &l, &s)?.1)
}

/// Linear indices (u64) as coordinates: shape `(len, rank)`.
fn unravel(p: &DeviceArray<u64>, shape: &[usize]) -> Result<DeviceArray<i64>> {
    let p = p.astype::<i64>()?;
    let len = p.size();
    if shape.is_empty() {
        return DeviceArray::<i64>::zeros(p.device(), [len, 0]);
    }
    let mut stride = 1i64;
    let mut cols = vec![None; shape.len()];
    for d in (0..shape.len()).rev() {
        cols[d] = Some(((&p / stride)? % shape[d] as i64)?);
        stride *= shape[d] as i64;
    }
    let cols: Vec<DeviceArray<i64>> = cols.into_iter().flatten().collect();
    let refs: Vec<&DeviceArray<i64>> = cols.iter().collect();
    crate::stack(&refs, 1)
}

/// The minimum, maximum and their first positions (raster order) over each label of
/// `index` (SciPy's `extrema`): `(min, max, min_pos, max_pos)`, the positions of shape
/// `(len, rank)`.
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_host(&dev, &[5.0f32, 1.0, 9.0, 1.0], [2, 2])?;
/// let l = DeviceArray::from_host(&dev, &[1i32, 1, 1, 1], [2, 2])?;
/// let (lo, hi, lo_at, hi_at) = ndimage::extrema(&x, &l, &[1])?;
/// assert_eq!((lo.to_host()?, hi.to_host()?), (vec![1.0], vec![9.0]));
/// assert_eq!((lo_at.to_host()?, hi_at.to_host()?), (vec![0, 1], vec![1, 0]));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`sum_labels`].
#[allow(clippy::type_complexity)]
pub fn extrema<T: NumElement>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<(
    DeviceArray<f64>,
    DeviceArray<f64>,
    DeviceArray<i64>,
    DeviceArray<i64>,
)> {
    let (x, l, s) = plan("extrema", input, labels, index)?;
    let (lo, hi) = min_max(&x, &l, &s)?;
    let dev = x.device();
    let p0 = DeviceArray::<u64>::full(dev, [s.slots], u64::MAX)?;
    let p1 = DeviceArray::<u64>::full(dev, [s.slots], u64::MAX)?;
    let m = Measure {
        a0: None,
        a1: None,
        p0: Some(&p0),
        p1: Some(&p1),
        aux0: Some(&lo),
        aux1: Some(&hi),
    };
    launch::measure(&x, &l, &s.lut, s.slots, 3, &m)?;
    Ok((
        s.out(lo)?,
        s.out(hi)?,
        s.out(unravel(&p0, x.shape())?)?,
        s.out(unravel(&p1, x.shape())?)?,
    ))
}

/// The centre of mass of `input` over each label of `index` (SciPy's `center_of_mass`):
/// shape `(len, rank)`, the coordinates weighted by the values.
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_host(&dev, &[1.0f64, 3.0, 0.0, 4.0], [2, 2])?;
/// let l = DeviceArray::from_host(&dev, &[1i32, 1, 2, 2], [2, 2])?;
/// assert_eq!(ndimage::center_of_mass(&x, &l, &[1, 2])?.to_host()?, vec![0.0, 0.75, 1.0, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`sum_labels`].
pub fn center_of_mass<T: NumElement>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    index: &[i32],
) -> Result<DeviceArray<f64>> {
    let (x, l, s) = plan("center_of_mass", input, labels, index)?;
    let rank = x.ndim();
    let dev = x.device();
    let total = DeviceArray::<f64>::zeros(dev, [s.slots])?;
    let moments = DeviceArray::<f64>::zeros(dev, [s.slots * rank])?;
    let m = Measure {
        a0: Some(&total),
        a1: Some(&moments),
        p0: None,
        p1: None,
        aux0: None,
        aux1: None,
    };
    launch::measure(&x, &l, &s.lut, s.slots, 4, &m)?;
    let com = (&moments.reshape([s.slots, rank])? / &total.reshape([s.slots, 1])?)?;
    s.out(com)
}

/// Fills the holes of `mask` (SciPy's `binary_fill_holes`): background components (under
/// `structure`, the cross by default) that touch no border of the array become true.
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let m = DeviceArray::from_host(&dev, &[
///     true, true, true, false,
///     true, false, true, false,
///     true, true, true, false], [3, 4])?;
/// let f = ndimage::binary_fill_holes(&m, None)?;
/// assert_eq!(f.to_host()?[5], true);
/// assert_eq!(f.to_host()?[3], false);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`label`].
pub fn binary_fill_holes(
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
) -> Result<DeviceArray<bool>> {
    const OP: &str = "binary_fill_holes";
    let s = label_structure(OP, mask, structure)?;
    let background = mask.logical_not()?;
    let (labels, count) = launch::label(OP, &background, &s)?;
    // Labels on the border of the array reach the outside.
    let mut outside = vec![false; count + 1];
    outside[0] = true;
    let nd = mask.ndim();
    for d in 0..nd {
        let n = mask.shape()[d];
        for at in [0, n.saturating_sub(1)] {
            if n == 0 {
                continue;
            }
            let spec: Vec<SliceElem> = (0..nd)
                .map(|k| {
                    if k == d {
                        SliceElem::Index(at as isize)
                    } else {
                        SliceElem::Range {
                            start: None,
                            end: None,
                            step: 1,
                        }
                    }
                })
                .collect();
            for l in labels.slice(&spec)?.to_host()? {
                outside[l as usize] = true;
            }
        }
    }
    if nd == 0 {
        return mask.copy();
    }
    let enclosed: Vec<bool> = outside.iter().map(|&o| !o).collect();
    let enclosed = DeviceArray::from_slice(mask.device(), &enclosed)?;
    let flat = labels.reshape([labels.size()])?.astype::<i64>()?;
    let holes = enclosed.take(&flat, Some(0))?.reshape(mask.shape())?;
    &holes | mask
}

/// The exact Euclidean distance from every true element of `mask` to the nearest false
/// one (SciPy's `distance_transform_edt`; 0 on false elements), `sampling` the spacing
/// along each axis (one value, or one per axis; 1 by default). Separable: one pass per
/// axis of the lower envelope of parabolas (Felzenszwalb-Huttenlocher), a thread a line.
/// Without any false element the distances are infinite.
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let m = DeviceArray::from_slice(&dev, &[false, true, true, true, true])?;
/// assert_eq!(ndimage::distance_transform_edt(&m, None)?.to_host()?, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `sampling` (a wrong count of values, or one not
/// positive and finite).
pub fn distance_transform_edt(
    mask: &DeviceArray<bool>,
    sampling: Option<&[f64]>,
) -> Result<DeviceArray<f64>> {
    const OP: &str = "distance_transform_edt";
    let nd = mask.ndim();
    let sampling = super::per_axis(OP, "sampling", sampling.unwrap_or(&[1.0]), nd)?;
    if let Some(s) = sampling.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
        return Err(Error::invalid(
            OP,
            format!("`sampling` {s} must be positive and finite"),
        ));
    }
    let f = mask.astype::<f64>()?;
    if nd == 0 {
        // One line of one element: 0 for false, no site (infinite) for true.
        let line = f.reshape([1])?;
        launch::edt_pass(OP, &line, 0, 1.0, true)?;
        return line.reshape([0usize; 0])?.sqrt();
    }
    for (d, s) in sampling.iter().enumerate() {
        launch::edt_pass(OP, &f, d, s * s, d == 0)?;
    }
    f.sqrt()
}
