//! Signal processing with SciPy's names and conventions (`scipy.signal`, as
//! `cupyx.scipy.signal`):
//!
//! - filter design on the host, in `f64`: [`get_window`], [`firwin`], [`butter`];
//! - convolution: [`convolve`], [`correlate`] (direct or FFT, [`Method::Auto`] by SciPy's
//!   cost model), [`fftconvolve`], [`oaconvolve`], [`convolve2d`], [`correlate2d`] (with
//!   [`Boundary`] rules);
//! - filtering: [`lfilter`], [`sosfilt`] (IIR filters as a parallel scan over their
//!   state), [`filtfilt`], [`sosfiltfilt`], [`lfilter_zi`], [`sosfilt_zi`];
//! - spectra: [`periodogram`], [`welch`], [`csd`], [`coherence`], [`spectrogram`],
//!   [`stft`], [`istft`];
//! - the rest: [`hilbert`], [`resample`], [`upfirdn`], [`resample_poly`], [`decimate`],
//!   [`detrend`], [`medfilt`], [`medfilt2d`], [`savgol_filter`], [`wiener`], [`find_peaks`].
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
mod misc;
mod spectral;

pub use convolve::{
    convolve, convolve2d, correlate, correlate2d, fftconvolve, oaconvolve, Boundary, Method, Mode,
};
pub use design::{butter, firwin, get_window, BType, Window};
pub use filter::{filtfilt, lfilter, lfilter_zi, sosfilt, sosfilt_zi, sosfiltfilt};
pub use misc::{
    decimate, detrend, find_peaks, hilbert, medfilt, medfilt2d, resample, resample_poly,
    savgol_filter, upfirdn, wiener, Detrend,
};
pub use spectral::{coherence, csd, istft, periodogram, spectrogram, stft, welch, Scaling};

use crate::element::{ArithElement, ComplexElement, FloatElement};
use crate::fft::{FftFloat, FftInput, FftRealInput};

/// The element types of signals: `f32` and `f64` (the types cuFFT transforms in).
pub trait SignalFloat:
    FloatElement
    + crate::GemmElement
    + FftRealInput<Real = Self>
    + FftFloat<Complex: ArithElement + FftInput<Real = Self> + ComplexElement<Real = Self>>
{
}
impl SignalFloat for f32 {}
impl SignalFloat for f64 {}

/// The complex types of signal spectra: [`Complex32`](crate::Complex32) and
/// [`Complex64`](crate::Complex64) ([`istft`] takes them).
pub trait SignalComplex: ComplexElement {
    /// The real type of the same precision.
    type Part: SignalFloat;
    /// The array as the complex type of its part type (the same type).
    fn cast(a: &crate::DeviceArray<Self>)
        -> &crate::DeviceArray<<Self::Part as FftFloat>::Complex>;
}
impl SignalComplex for crate::Complex32 {
    type Part = f32;
    fn cast(a: &crate::DeviceArray<Self>) -> &crate::DeviceArray<Self> {
        a
    }
}
impl SignalComplex for crate::Complex64 {
    type Part = f64;
    fn cast(a: &crate::DeviceArray<Self>) -> &crate::DeviceArray<Self> {
        a
    }
}
