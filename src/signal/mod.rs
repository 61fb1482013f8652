//! Signal processing with SciPy's names and conventions (`scipy.signal`, as
//! `cupyx.scipy.signal`):
//!
//! - filter design on the host, in `f64`: [`get_window`], [`firwin`], [`butter`];
//! - convolution: [`convolve`], [`correlate`] (direct or FFT, [`Method::Auto`] by SciPy's
//!   cost model), [`fftconvolve`], [`oaconvolve`], [`convolve2d`], [`correlate2d`] (with
//!   [`Boundary`] rules);
//! - filtering: [`lfilter`], [`sosfilt`] (IIR filters as a parallel scan over their
//!   state), [`filtfilt`], [`sosfiltfilt`], [`lfilter_zi`], [`sosfilt_zi`].
//!
//! Signals are `f32` or `f64` arrays ([`SignalFloat`]); sums run in the signal's type.
//!
//! ```no_run
//! use cuarray::signal::{self, Method, Mode};
//! use cuarray::DeviceArray;
//! let dev = cuarray::Device::new(0)?;
//! let taps = signal::firwin(31, &[0.1], signal::Window::Hamming, true, None)?;
//! let h = DeviceArray::from_slice(&dev, &taps)?;
//! let x = DeviceArray::<f64>::ones(&dev, &[10_000])?;
//! let y = signal::convolve(&x, &h, Mode::Same, Method::Auto)?;
//! assert_eq!(y.shape(), &[10_000]);
//! # Ok::<(), cuarray::Error>(())
//! ```

mod convolve;
mod design;
mod filter;

pub use convolve::{
    convolve, convolve2d, correlate, correlate2d, fftconvolve, oaconvolve, Boundary, Method, Mode,
};
pub use design::{butter, firwin, get_window, BType, Window};
pub use filter::{filtfilt, lfilter, lfilter_zi, sosfilt, sosfilt_zi, sosfiltfilt};

use crate::element::{ArithElement, FloatElement};
use crate::fft::{FftFloat, FftInput, FftRealInput};

/// The element types of signals: `f32` and `f64` (the types cuFFT transforms in).
pub trait SignalFloat:
    FloatElement + FftRealInput<Real = Self> + FftFloat<Complex: ArithElement + FftInput<Real = Self>>
{
}
impl SignalFloat for f32 {}
impl SignalFloat for f64 {}
