//! Discrete Fourier transforms on cuFFT, with NumPy's functions and arguments
//! (`numpy.fft`): [`fft`], [`ifft`], [`rfft`], [`irfft`], [`fft2`], [`ifft2`], [`rfft2`],
//! [`irfft2`], [`fftn`], [`ifftn`], [`rfftn`], [`irfftn`], [`fftshift`], [`ifftshift`],
//! [`fftfreq`], [`rfftfreq`].
//!
//! ```no_run
//! use cuarray::{fft, Complex32, Device, DeviceArray};
//! let dev = Device::new(0)?;
//! let x = DeviceArray::<f32>::arange(&dev, 0.0, 8.0, 1.0)?;
//! let spectrum = fft::rfft(&x, None, -1, fft::Norm::Backward)?;      // 5 Complex32 values
//! let back = fft::irfft(&spectrum, Some(8), -1, fft::Norm::Backward)?; // x again
//! let c: DeviceArray<Complex32> = fft::fft(&x, None, 0, fft::Norm::Ortho)?;
//! # Ok::<(), cuarray::Error>(())
//! ```
//!
//! - **Types.** `f32`, `f16`, `bf16` and [`Complex32`] transform in single precision
//!   (results [`Complex32`] / `f32`); `f64`, the integer types and [`Complex64`] in double
//!   precision (NumPy 2 keeps single precision likewise). Real input to the complex
//!   transforms is converted to complex.
//! - **Axes** are any axes, negative ones counting from the end; `n` / `s` crop or
//!   zero-pad the input along them (a cropped view is transformed in place of a copy when
//!   no conversion is needed).
//! - **Layouts.** Strided views and axes other than the last go to cuFFT through its
//!   advanced layout (strides, embeddings, batch distance), without a transposed copy; up
//!   to 3 adjacent axes are one transform.
//! - **Normalisation** ([`Norm`]) is one elementwise pass over the result, none when the
//!   factor is 1.
//! - **Plans** are cached per device (16, least recently used out); their work areas come
//!   from the memory pool, so [`MemoryStats`](crate::MemoryStats) and the pool's limit
//!   count them. The cache's counters are in
//!   [`Device::kernel_cache_stats`](crate::Device::kernel_cache_stats).
//! - [`irfft`] and its relatives never change their input (cuFFT's complex-to-real
//!   transform overwrites its input, so it runs on a copy).

mod cufft;
mod helpers;
pub(crate) mod plan;
#[cfg(test)]
mod tests;
mod transform;

pub use helpers::{fftfreq, fftshift, ifftshift, rfftfreq};
pub use transform::{
    fft, fft2, fftn, ifft, ifft2, ifftn, irfft, irfft2, irfftn, rfft, rfft2, rfftn,
};

use crate::element::{Complex32, Complex64, Element};
use crate::Device;
use half::{bf16, f16};

mod sealed {
    pub trait Sealed {}
}

/// The real types cuFFT computes in: `f32` and `f64`, each with its complex type.
pub trait FftFloat: Element + sealed::Sealed {
    /// The complex type of the same precision.
    type Complex: Element;
}
impl FftFloat for f32 {
    type Complex = Complex32;
}
impl FftFloat for f64 {
    type Complex = Complex64;
}

/// Element types the transforms take: every numeric type, real or complex. `Real` is the
/// precision the transform computes in.
pub trait FftInput: Element + sealed::Sealed {
    /// `f32` for `f16`, `bf16`, `f32` and [`Complex32`]; `f64` otherwise.
    type Real: FftFloat;
}

/// The real element types ([`rfft`] and its relatives take only these).
pub trait FftRealInput: FftInput {}

macro_rules! fft_input {
    ($($t:ty => $r:ty, $real:tt);* $(;)?) => {$(
        impl FftInput for $t {
            type Real = $r;
        }
        fft_input!(@real $real $t);
    )*};
    (@real true $t:ty) => { impl FftRealInput for $t {} };
    (@real false $t:ty) => {};
}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for f64 {}
macro_rules! sealed { ($($t:ty),*) => {$( impl sealed::Sealed for $t {} )*}; }
sealed!(f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, Complex32, Complex64);
fft_input!(
    f16 => f32, true; bf16 => f32, true; f32 => f32, true; f64 => f64, true;
    i8 => f64, true; i16 => f64, true; i32 => f64, true; i64 => f64, true;
    u8 => f64, true; u16 => f64, true; u32 => f64, true; u64 => f64, true;
    Complex32 => f32, false; Complex64 => f64, false;
);

/// The complex type a transform of `T` returns ([`Complex32`] or [`Complex64`]).
pub type ComplexOf<T> = <<T as FftInput>::Real as FftFloat>::Complex;
/// The real type an inverse real transform of `T` returns (`f32` or `f64`).
pub type RealOf<T> = <T as FftInput>::Real;

/// Normalisation of the transforms, NumPy's `norm` argument. `n` is the product of the
/// transform's lengths.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::fft::{self, Norm};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<f64>::ones(&dev, &[4])?;
/// let f = fft::fft(&x, None, -1, Norm::Forward)?; // scaled by 1/n: the mean at frequency 0
/// assert!((f.to_host()?[0].re - 1.0).abs() < 1e-12);
/// let back = fft::ifft(&f, None, -1, Norm::Forward)?; // unscaled: x again
/// assert!(back.to_host()?.iter().all(|c| (c.re - 1.0).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Norm {
    /// Forward transforms unscaled, inverse ones scaled by `1/n` (NumPy's default).
    #[default]
    Backward,
    /// Both directions scaled by `1/sqrt(n)` (unitary transforms).
    Ortho,
    /// Forward transforms scaled by `1/n`, inverse ones unscaled.
    Forward,
}

impl Norm {
    /// The factor of a transform of `n` points in the given direction.
    fn factor(self, n: usize, inverse: bool) -> f64 {
        match (self, inverse) {
            (Norm::Backward, false) | (Norm::Forward, true) => 1.0,
            (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            _ => 1.0 / n as f64,
        }
    }
}

/// Plans in `device`'s FFT plan cache now (at most 16).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::fft::{self, Norm};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[64])?;
/// fft::rfft(&x, None, -1, Norm::Backward)?;
/// assert!(fft::cached_plans(&dev) >= 1); // kept for the next transform of this shape
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn cached_plans(device: &Device) -> usize {
    cufft::cached_plans(device)
}

/// Drops every plan of `device`'s FFT plan cache (their memory goes back to cuFFT).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::fft::{self, Norm};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[64])?;
/// fft::rfft(&x, None, -1, Norm::Backward)?;
/// fft::clear_plan_cache(&dev);
/// assert_eq!(fft::cached_plans(&dev), 0);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn clear_plan_cache(device: &Device) {
    cufft::clear_plans(device)
}
