//! Image processing on n-d arrays, as `scipy.ndimage` (and CuPy's `cupyx.scipy.ndimage`).
//!
//! - Filters ([`filters`]): [`correlate1d`], [`convolve1d`], [`correlate`], [`convolve`],
//!   [`gaussian_filter`], [`gaussian_filter1d`], [`gaussian_laplace`],
//!   [`gaussian_gradient_magnitude`], [`uniform_filter`], [`uniform_filter1d`], [`sobel`],
//!   [`prewitt`], [`laplace`], [`minimum_filter`], [`maximum_filter`],
//!   [`minimum_filter1d`], [`maximum_filter1d`], [`median_filter`], [`rank_filter`],
//!   [`percentile_filter`].
//! - Morphology ([`morphology`]): [`generate_binary_structure`], [`binary_erosion`],
//!   [`binary_dilation`], [`binary_opening`], [`binary_closing`], [`grey_erosion`],
//!   [`grey_dilation`], [`grey_opening`], [`grey_closing`], [`morphological_gradient`],
//!   [`white_tophat`], [`black_tophat`], [`binary_fill_holes`], [`distance_transform_edt`].
//! - Resampling ([`interpolation`]): [`map_coordinates`], [`affine_transform`], [`zoom`],
//!   [`shift`], [`rotate`], [`spline_filter`] (spline orders 0 to 5; from 2 on, the modes
//!   `Mirror`, `Constant`, `GridWrap` and `GridConstant` so far).
//! - Measurements ([`measurements`]): [`label`], [`find_objects`], [`sum_labels`], [`mean`],
//!   [`variance`], [`standard_deviation`], [`minimum`], [`maximum`], [`extrema`],
//!   [`center_of_mass`].
//!
//! Every filter follows SciPy's rules: the output has the input's element type (a value
//! for an integer type is truncated towards zero and wraps, as SciPy's C casts on x86), the
//! boundary is extended as [`Mode`] says, and `origin` shifts the window (a window of `k`
//! taps at output `i` covers the input from `i - origin - k / 2` on). Separable filters run
//! one pass per axis, each through tiles in shared memory; values are combined in `f32`
//! for `f16`, `bf16` and `f32` arrays and in `f64` otherwise (SciPy uses `f64` always).
//!
//! ```no_run
//! use cuarray::{ndimage, DeviceArray};
//! let dev = cuarray::Device::new(0)?;
//! let img = DeviceArray::from_host(&dev, &[0.0f32, 0.0, 9.0, 0.0, 0.0], &[5])?;
//! let box3 = ndimage::uniform_filter(&img, &[3], ndimage::Mode::Reflect, 0)?;
//! assert_eq!(box3.to_host()?, vec![0.0, 3.0, 3.0, 3.0, 0.0]);
//! # Ok::<(), cuarray::Error>(())
//! ```

pub mod filters;
pub mod interpolation;
pub(crate) mod launch;
pub mod measurements;
pub mod morphology;

pub use filters::{
    convolve, convolve1d, correlate, correlate1d, gaussian_filter, gaussian_filter1d,
    gaussian_gradient_magnitude, gaussian_laplace, laplace, maximum_filter, maximum_filter1d,
    median_filter, minimum_filter, minimum_filter1d, percentile_filter, prewitt, rank_filter,
    sobel, uniform_filter, uniform_filter1d,
};
pub use interpolation::{affine_transform, map_coordinates, rotate, shift, spline_filter, zoom};
pub use measurements::{
    binary_fill_holes, center_of_mass, distance_transform_edt, extrema, find_objects, label,
    maximum, mean, minimum, standard_deviation, sum_labels, variance,
};
pub use morphology::{
    binary_closing, binary_dilation, binary_erosion, binary_opening, black_tophat,
    generate_binary_structure, grey_closing, grey_dilation, grey_erosion, grey_opening,
    morphological_gradient, white_tophat,
};

/// How a filter extends its input past the edges (SciPy's `mode`, with `cval` inside
/// [`Mode::Constant`]). For the input `a b c d`:
///
/// | mode | extension |
/// | --- | --- |
/// | `Reflect` | `d c b a \| a b c d \| d c b a` (the edge repeated) |
/// | `Constant(v)` | `v v v v \| a b c d \| v v v v` |
/// | `Nearest` | `a a a a \| a b c d \| d d d d` |
/// | `Mirror` | `d c b \| a b c d \| c b a` (the edge not repeated) |
/// | `Wrap` | `a b c d \| a b c d \| a b c d` |
///
/// Windows longer than the input keep extending the same way (reflecting again, wrapping
/// again). SciPy's `grid-*` modes differ only when resampling (see the
/// [`interpolation`] functions): for filters `GridConstant` is `Constant`, `GridWrap` is
/// `Wrap` and `GridMirror` is `Reflect`.
///
/// ```
/// use cuarray::ndimage::Mode;
/// assert_eq!(Mode::default(), Mode::Reflect);
/// assert_eq!(Mode::Constant(1.5).cval(), 1.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Mode {
    /// Reflect about the edge, repeating the edge element (SciPy's default).
    #[default]
    Reflect,
    /// A constant value past the edges.
    Constant(f64),
    /// The edge element repeated.
    Nearest,
    /// Reflect about the centre of the edge element (not repeated).
    Mirror,
    /// Periodic.
    Wrap,
    /// A constant past the edges, interpolated with as if it were data (resampling).
    GridConstant(f64),
    /// Periodic over the whole grid (resampling; `Wrap` for filters).
    GridWrap,
    /// `Reflect` (SciPy's name for it in resampling).
    GridMirror,
}

impl Mode {
    /// The mode's number in `kernels/ndimage.cuh`.
    pub(crate) fn code(self) -> i64 {
        match self {
            Mode::Reflect | Mode::GridMirror => 0,
            Mode::Constant(_) | Mode::GridConstant(_) => 1,
            Mode::Nearest => 2,
            Mode::Mirror => 3,
            Mode::Wrap | Mode::GridWrap => 4,
        }
    }

    /// The mode's number in `kernels/ndimage_interp.cuh` (resampling).
    pub(crate) fn interp_code(self) -> i64 {
        match self {
            Mode::GridConstant(_) => 5,
            Mode::GridWrap => 6,
            m => m.code(),
        }
    }

    /// The value past the edges of [`Mode::Constant`] (0 for the other modes).
    pub fn cval(self) -> f64 {
        match self {
            Mode::Constant(v) | Mode::GridConstant(v) => v,
            _ => 0.0,
        }
    }

    /// Where index `i` of the extended line of `n` elements reads (`None`: the constant).
    /// The host twin of the kernels' `nd_index`, for plans and references.
    ///
    /// ```
    /// use cuarray::ndimage::Mode;
    /// let ext = |m: Mode| (-4..8).map(|i| m.index(i, 4)).collect::<Vec<_>>();
    /// let s = |v: &[usize]| v.iter().map(|&i| Some(i)).collect::<Vec<_>>();
    /// assert_eq!(ext(Mode::Reflect), s(&[3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]));
    /// assert_eq!(ext(Mode::Mirror), s(&[2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1]));
    /// assert_eq!(ext(Mode::Wrap), s(&[0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]));
    /// assert_eq!(ext(Mode::Nearest), s(&[0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3]));
    /// assert_eq!(Mode::Constant(0.0).index(-1, 4), None);
    /// ```
    pub fn index(self, i: isize, n: usize) -> Option<usize> {
        let n = n as isize;
        if (0..n).contains(&i) {
            return Some(i as usize);
        }
        let k = match self {
            Mode::Constant(_) | Mode::GridConstant(_) => return None,
            Mode::Reflect | Mode::GridMirror => {
                let k = i.rem_euclid(2 * n);
                if k < n {
                    k
                } else {
                    2 * n - 1 - k
                }
            }
            Mode::Nearest => i.clamp(0, n - 1),
            Mode::Mirror if n == 1 => 0,
            Mode::Mirror => {
                let k = i.rem_euclid(2 * n - 2);
                if k < n {
                    k
                } else {
                    2 * n - 2 - k
                }
            }
            Mode::Wrap | Mode::GridWrap => i.rem_euclid(n),
        };
        Some(k as usize)
    }
}

/// One value for every axis, or one per axis (SciPy's scalar-or-sequence arguments):
/// `vals` repeated to `ndim` when it holds one value, else checked to hold `ndim`.
pub(crate) fn per_axis<V: Copy>(
    op: &'static str,
    arg: &str,
    vals: &[V],
    ndim: usize,
) -> crate::Result<Vec<V>> {
    match vals.len() {
        1 => Ok(vec![vals[0]; ndim]),
        n if n == ndim => Ok(vals.to_vec()),
        n => Err(crate::Error::invalid(
            op,
            format!("`{arg}` has {n} values for an array of rank {ndim} (one, or one per axis)"),
        )),
    }
}

/// Checks SciPy's bound on `origin` for a window of `len` taps:
/// `-(len / 2) <= origin <= (len - 1) / 2`.
pub(crate) fn check_origin(op: &'static str, origin: isize, len: usize) -> crate::Result<()> {
    let len = len as isize;
    if origin < -(len / 2) || origin > (len - 1) / 2 {
        return Err(crate::Error::invalid(
            op,
            format!(
                "`origin` {origin} is outside {}..={} for a window of {len}",
                -(len / 2),
                (len - 1) / 2
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_extend_long_halos_periodically() {
        // Halos longer than the line: SciPy's extension repeats the pattern.
        let ext = |m: Mode, n| (-7..10).map(|i| m.index(i, n).unwrap()).collect::<Vec<_>>();
        assert_eq!(
            ext(Mode::Reflect, 3),
            [0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2]
        );
        assert_eq!(
            ext(Mode::Mirror, 3),
            [1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1]
        );
        assert_eq!(ext(Mode::Mirror, 1), [0; 17]);
        assert_eq!(ext(Mode::Reflect, 1), [0; 17]);
    }

    #[test]
    fn origins_are_bounded_as_scipy() {
        assert!(check_origin("f", 1, 3).is_ok());
        assert!(check_origin("f", -1, 3).is_ok());
        assert!(check_origin("f", 2, 3).is_err());
        assert!(check_origin("f", -2, 4).is_ok());
        assert!(check_origin("f", 2, 4).is_err());
        assert!(per_axis("f", "size", &[3usize], 2).unwrap() == vec![3, 3]);
        assert!(per_axis("f", "size", &[3usize, 1, 2], 2).is_err());
    }
}
