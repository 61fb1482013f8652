//! The helpers of `numpy.fft`: the shifts of the zero frequency to the centre
//! ([`fftshift`], [`ifftshift`]) and the sample frequencies ([`fftfreq`], [`rfftfreq`]).

use super::plan::{FFTFREQ_BODY, RFFTFREQ_BODY};
use crate::array::DeviceArray;
use crate::element::Element;
use crate::kernels::abi::Scalar;
use crate::ops::elementwise;
use crate::shape::{normalize_axis, Layout};
#[cfg(doc)]
use crate::Error;
use crate::{Device, Result};

/// `a` rolled by `shift[i]` along `axes[i]` at once: one copy per combination of halves.
fn roll_axes<T: Element>(
    op: &'static str,
    a: &DeviceArray<T>,
    rolls: &[(usize, usize)],
) -> Result<DeviceArray<T>> {
    let out = DeviceArray::<T>::alloc_for(op, a.device(), a.shape())?;
    let rolls: Vec<(usize, usize)> = rolls
        .iter()
        .copied()
        .filter(|&(ax, s)| s % a.shape()[ax].max(1) != 0)
        .collect();
    if out.size() == 0 {
        return Ok(out);
    }
    for combo in 0..1usize << rolls.len() {
        let (mut sshape, mut soff) = (a.shape().to_vec(), a.layout().offset() as isize);
        let mut doff = 0isize;
        let (sst, dst) = (a.strides(), out.strides());
        for (k, &(ax, shift)) in rolls.iter().enumerate() {
            let n = a.shape()[ax];
            let s = shift % n;
            // Elements [n - s, n) go to [0, s), elements [0, n - s) to [s, n).
            let (src0, dst0, len) = if combo >> k & 1 == 0 {
                (n - s, 0, s)
            } else {
                (0, s, n - s)
            };
            sshape[ax] = len;
            soff += src0 as isize * sst[ax];
            doff += dst0 as isize * dst[ax];
        }
        let src = a.with_layout(Layout::from_parts(
            sshape.clone(),
            sst.to_vec(),
            soff as usize,
        ));
        let dview = out.with_layout(Layout::from_parts(sshape, dst.to_vec(), doff as usize));
        dview.assign(&src)?;
    }
    Ok(out)
}

fn shift_axes<T: Element>(
    op: &'static str,
    a: &DeviceArray<T>,
    axes: Option<&[isize]>,
    inverse: bool,
) -> Result<DeviceArray<T>> {
    let all: Vec<isize>;
    let axes = match axes {
        Some(x) => x,
        None => {
            all = (0..a.ndim() as isize).collect();
            &all
        }
    };
    let mut rolls = Vec::with_capacity(axes.len());
    for &ax in axes {
        let k = normalize_axis(op, ax, a.ndim())?;
        let n = a.shape()[k];
        // fftshift rolls by n / 2, ifftshift by -(n / 2) = n - n / 2.
        rolls.push((k, if inverse { n - n / 2 } else { n / 2 }));
    }
    roll_axes(op, a, &rolls)
}

/// Moves the zero-frequency term to the middle (NumPy's `fft.fftshift`): a roll by
/// `n / 2` along each of `axes` (`None`: every axis). Works for every element type.
///
/// ```no_run
/// use cuarray::{fft, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let f = fft::fftfreq(&dev, 5, 1.0)?;                        // [0, .2, .4, -.4, -.2]
/// let s = fft::fftshift(&f, None)?;
/// assert_eq!(s.to_host()?, vec![-0.4, -0.2, 0.0, 0.2, 0.4]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`; [`Error::OutOfMemory`].
pub fn fftshift<T: Element>(a: &DeviceArray<T>, axes: Option<&[isize]>) -> Result<DeviceArray<T>> {
    shift_axes("fftshift", a, axes, false)
}

/// The inverse of [`fftshift`] (NumPy's `fft.ifftshift`): a roll by `-(n / 2)`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, fft};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[-2, -1, 0, 1, 2])?;
/// assert_eq!(fft::ifftshift(&a, None)?.to_host()?, vec![0, 1, 2, -2, -1]);
/// assert_eq!(fft::fftshift(&fft::ifftshift(&a, None)?, None)?.to_host()?, a.to_host()?);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`; [`Error::OutOfMemory`].
pub fn ifftshift<T: Element>(a: &DeviceArray<T>, axes: Option<&[isize]>) -> Result<DeviceArray<T>> {
    shift_axes("ifftshift", a, axes, true)
}

/// The sample frequencies of an `n`-point transform with sample spacing `d` (NumPy's
/// `fft.fftfreq`): `[0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (n d)`, made on the
/// device.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, fft};
/// let dev = Device::new(0)?;
/// let f = fft::fftfreq(&dev, 4, 0.5)?; // NumPy's np.fft.fftfreq(4, 0.5)
/// assert_eq!(f.to_host()?, vec![0.0, 0.5, -1.0, -0.5]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::TooLarge`] when `n` elements pass `isize::MAX` bytes; [`Error::OutOfMemory`].
pub fn fftfreq(device: &Device, n: usize, d: f64) -> Result<DeviceArray<f64>> {
    let out = DeviceArray::<f64>::alloc_for("fftfreq", device, &[n])?;
    if n > 0 {
        elementwise::run(
            device,
            "fftfreq",
            FFTFREQ_BODY,
            &[out.operand()?],
            &[],
            &[
                Scalar::of(1.0 / (n as f64 * d)),
                Scalar::of(n.div_ceil(2) as i64),
                Scalar::of(n as i64),
            ],
        )?;
    }
    Ok(out)
}

/// The non-negative sample frequencies of an `n`-point real transform (NumPy's
/// `fft.rfftfreq`): `[0, 1, ..., n / 2] / (n d)`, made on the device.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, fft};
/// let dev = Device::new(0)?;
/// let f = fft::rfftfreq(&dev, 4, 0.5)?;
/// assert_eq!(f.to_host()?, vec![0.0, 0.5, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::TooLarge`] when `n / 2 + 1` elements pass `isize::MAX` bytes;
/// [`Error::OutOfMemory`].
pub fn rfftfreq(device: &Device, n: usize, d: f64) -> Result<DeviceArray<f64>> {
    let len = if n == 0 { 0 } else { n / 2 + 1 };
    let out = DeviceArray::<f64>::alloc_for("rfftfreq", device, &[len])?;
    if len > 0 {
        elementwise::run(
            device,
            "rfftfreq",
            RFFTFREQ_BODY,
            &[out.operand()?],
            &[],
            &[Scalar::of(1.0 / (n as f64 * d))],
        )?;
    }
    Ok(out)
}
