//! NumPy's 1-D `convolve` and `correlate`, direct: one reduction per output over a strided
//! view of the zero-padded longer input (stride -1 along the reduced axis), the shorter
//! input read along the reduced index, as the matrix-vector reduction does. O(n m) work:
//! right for short kernels; an FFT path for long ones is the later step.

use crate::array::{DeviceArray, PadMode};
use crate::element::FloatElement;
use crate::kernels::Text;
use crate::shape::Layout;
use crate::{Error, Result};

/// Which part of the full discrete convolution is returned (NumPy's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvMode {
    /// Every point of overlap: length `n + m - 1`.
    Full,
    /// Length `max(n, m)`, centred on the full result.
    Same,
    /// Only where the inputs overlap completely: length `max(n, m) - min(n, m) + 1`.
    Valid,
}

fn conv<T: FloatElement>(
    op: &'static str,
    a: &DeviceArray<T>,
    v: &DeviceArray<T>,
    mode: ConvMode,
) -> Result<DeviceArray<T>> {
    if a.ndim() != 1 || v.ndim() != 1 {
        return Err(Error::invalid(
            op,
            format!(
                "both inputs must be 1-D (shapes {:?} and {:?})",
                a.shape(),
                v.shape()
            ),
        ));
    }
    if a.size() == 0 || v.size() == 0 {
        return Err(Error::invalid(op, "an input is empty"));
    }
    v.used_by(op, a.device())?;
    // Convolution commutes: the longer input is the one padded and viewed.
    let (a, v) = if v.size() > a.size() { (v, a) } else { (a, v) };
    let (n, m) = (a.size(), v.size());
    let (start, len) = match mode {
        ConvMode::Full => (0, n + m - 1),
        ConvMode::Same => ((m - 1) / 2, n),
        ConvMode::Valid => (m - 1, n - m + 1),
    };
    let device = a.device();
    let padded = a.pad(&[(m - 1, m - 1)], PadMode::Constant(T::from_f64(0.0)))?;
    // Output k of the full result is sum_j padded[k + m - 1 - j] * v[j].
    let view = padded.with_layout(Layout::from_parts(
        vec![len, m],
        vec![1, -1],
        padded.layout().offset() + start + m - 1,
    ));
    let v = v.contiguous()?;
    let p = crate::ops::reduce::plan_reduce(
        view.layout(),
        Some(&[1]),
        false,
        true,
        device.multiprocessor_count(),
    )?;
    let out = DeviceArray::<T>::alloc_for(op, device, &p.out_shape)?;
    crate::ops::reduce::run_def_with(
        device,
        &Text::Static("convolve"),
        &crate::ops::matmul::matvec_def(T::DTYPE),
        &p,
        &view.operand()?,
        &[],
        Some(&v.operand()?),
        &out.operand()?,
        None,
        &[],
    )?;
    Ok(out)
}

/// The discrete linear convolution of the 1-D `a` and `v` (NumPy's `convolve`), `mode`
/// choosing the part returned; the inputs may come in either order (the longer one is
/// slid over). Sums in `f32` for `f16`/`bf16`/`f32`, `f64` for `f64`.
///
/// ```no_run
/// use cuarray::{stats::ConvMode, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// let v = DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 0.5])?;
/// assert_eq!(cuarray::convolve(&a, &v, ConvMode::Full)?.to_host()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// assert_eq!(cuarray::convolve(&a, &v, ConvMode::Same)?.to_host()?, vec![1.0, 2.5, 4.0]);
/// assert_eq!(cuarray::convolve(&a, &v, ConvMode::Valid)?.to_host()?, vec![2.5]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when an input is not 1-D or is empty;
/// [`Error::DeviceMismatch`].
pub fn convolve<T: FloatElement>(
    a: &DeviceArray<T>,
    v: &DeviceArray<T>,
    mode: ConvMode,
) -> Result<DeviceArray<T>> {
    conv("convolve", a, v, mode)
}

/// The cross-correlation of the 1-D `a` and `v` (NumPy's `correlate`):
/// `c[k] = sum_n a[n + k] v[n]`, which is `convolve(a, v[::-1], mode)` (so also when `v`
/// is the longer input, as NumPy).
///
/// ```no_run
/// use cuarray::{stats::ConvMode, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// let v = DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 0.5])?;
/// assert_eq!(cuarray::correlate(&a, &v, ConvMode::Valid)?.to_host()?, vec![3.5]);
/// assert_eq!(cuarray::correlate(&a, &v, ConvMode::Full)?.to_host()?, vec![0.5, 2.0, 3.5, 3.0, 0.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`convolve`].
pub fn correlate<T: FloatElement>(
    a: &DeviceArray<T>,
    v: &DeviceArray<T>,
    mode: ConvMode,
) -> Result<DeviceArray<T>> {
    let rev = v.flip(0)?;
    conv("correlate", a, &rev, mode)
}
