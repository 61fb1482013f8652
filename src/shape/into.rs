//! Shape and axes arguments: [`IntoShape`] and [`IntoAxes`], accepted by every
//! constructor, `reshape`, `broadcast_to`, `permute` and the reductions over several axes.

use super::Layout;
use crate::{Error, Result};

/// Anything that names a shape: slices, arrays and `Vec`s of `usize` or `isize`, arrays of
/// `i32` (so that integer literals work: `&[2, 3]`, `&[3, -1]`), tuples (`(2, 3)`, `()` for
/// 0-d), a single integer (a 1-D shape), and references to any of these.
///
/// Constructors take non-negative extents only; [`reshape`](crate::DeviceArray::reshape)
/// also infers one `-1` from the element count, as NumPy.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let (n, d) = (4usize, 3usize);
/// let a = DeviceArray::<f32>::zeros(&dev, &[n, d])?;   // usize values
/// let b = DeviceArray::<f32>::ones(&dev, (2, 6))?;     // a tuple
/// let c = b.reshape(a.shape())?;                       // another array's shape
/// let d = c.reshape(&[2, -1])?;                        // one -1 inferred
/// let e = DeviceArray::<i32>::zeros(&dev, vec![5])?;   // a Vec
/// assert_eq!((d.shape(), e.shape()), (&[2, 6][..], &[5][..]));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// Arrays of signed integers are implemented for ranks 1 to 12, arrays of `usize` for
/// every rank: that keeps `&[]` (the 0-d shape) unambiguous.
pub trait IntoShape {
    /// The extents as given, signed so that a `-1` can stand for an inferred one.
    fn extents(&self) -> Vec<i128>;
}

/// One extent or axis of a tuple argument: `usize`, `isize`, `i32`, `i64` or `u32`.
pub trait Dim: Copy {
    /// The value, exactly.
    fn to_i128(self) -> i128;
}

macro_rules! dims {
    ($($t:ty),*) => {$(
        impl Dim for $t {
            fn to_i128(self) -> i128 { self as i128 }
        }
        impl IntoShape for $t {
            fn extents(&self) -> Vec<i128> { vec![*self as i128] }
        }
    )*};
}
dims!(usize, isize, i32, i64, u32);

impl<S: IntoShape + ?Sized> IntoShape for &S {
    fn extents(&self) -> Vec<i128> {
        (**self).extents()
    }
}

macro_rules! sequences {
    ($($t:ty),*) => {$(
        impl IntoShape for [$t] {
            fn extents(&self) -> Vec<i128> { self.iter().map(|&d| d as i128).collect() }
        }
        impl IntoShape for Vec<$t> {
            fn extents(&self) -> Vec<i128> { self.iter().map(|&d| d as i128).collect() }
        }
    )*};
}
sequences!(usize, isize, i32);

impl<const N: usize> IntoShape for [usize; N] {
    fn extents(&self) -> Vec<i128> {
        self.iter().map(|&d| d as i128).collect()
    }
}

macro_rules! signed_arrays {
    ($($n:literal)*) => {$(
        impl IntoShape for [isize; $n] {
            fn extents(&self) -> Vec<i128> { self.iter().map(|&d| d as i128).collect() }
        }
        impl IntoShape for [i32; $n] {
            fn extents(&self) -> Vec<i128> { self.iter().map(|&d| d as i128).collect() }
        }
    )*};
}
signed_arrays!(1 2 3 4 5 6 7 8 9 10 11 12);

macro_rules! tuples {
    ($(($($d:ident),*))*) => {$(
        impl<$($d: Dim),*> IntoShape for ($($d,)*) {
            #[allow(non_snake_case)]
            fn extents(&self) -> Vec<i128> {
                let ($($d,)*) = *self;
                vec![$($d.to_i128()),*]
            }
        }
    )*};
}
tuples! { (A) (A, B) (A, B, C) (A, B, C, D) (A, B, C, D, E) (A, B, C, D, E, F) }

impl IntoShape for () {
    fn extents(&self) -> Vec<i128> {
        Vec::new()
    }
}

/// `shape` as the extents of a new array: every one non-negative.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` for a negative extent (only `reshape` infers a
/// `-1`), [`Error::TooLarge`] for an extent past `usize::MAX`.
///
/// ```
/// use cuarray::shape::new_shape;
/// assert_eq!(new_shape("zeros", &[2, 3]).unwrap(), vec![2, 3]);
/// assert_eq!(new_shape("zeros", (4usize,)).unwrap(), vec![4]);
/// assert!(new_shape("zeros", &[2, -1]).is_err());
/// ```
pub fn new_shape(op: &'static str, shape: impl IntoShape) -> Result<Vec<usize>> {
    let ext = shape.extents();
    if let Some(&d) = ext.iter().find(|&&d| d < 0) {
        return Err(Error::invalid(
            op,
            format!("negative extent {d} in shape {ext:?} (only reshape infers a -1 extent)"),
        ));
    }
    ext.iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<Vec<usize>, _>>()
        .map_err(|_| Error::TooLarge {
            op,
            shape: ext
                .iter()
                .map(|&d| d.min(usize::MAX as i128) as usize)
                .collect(),
            elem_bytes: None,
        })
}

/// `shape` as the target of a reshape of `size` elements: one `-1` is inferred
/// ([`Layout::infer_shape`]).
///
/// ```
/// use cuarray::shape::reshape_target;
/// assert_eq!(reshape_target(12, &[-1, 4])?, vec![3, 4]);
/// assert_eq!(reshape_target(12, (2usize, 6usize))?, vec![2, 6]);
/// assert!(reshape_target(12, &[5, -1]).is_err());
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`Layout::infer_shape`]; an extent outside `isize`'s range is [`Error::TooLarge`].
pub fn reshape_target(size: usize, shape: impl IntoShape) -> Result<Vec<usize>> {
    let ext = shape.extents();
    let signed = ext
        .iter()
        .map(|&d| isize::try_from(d))
        .collect::<std::result::Result<Vec<isize>, _>>()
        .map_err(|_| Error::TooLarge {
            op: "reshape",
            shape: ext
                .iter()
                .map(|&d| d.clamp(0, usize::MAX as i128) as usize)
                .collect(),
            elem_bytes: None,
        })?;
    Layout::infer_shape(size, &signed)
}

/// Anything that names a list of axes, negative ones counting from the end: every
/// [`IntoShape`] form (`&[0, -1]`, `&[1usize, 2]`, `vec![0]`, `(0, 2)`, a single `-1`).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::<f32>::ones(&dev, &[2, 3, 4])?;
/// assert_eq!(a.permute(&[-1, 0, 1])?.shape(), &[4, 2, 3]);
/// assert_eq!(a.sum_axes(-1, true)?.shape(), &[2, 3, 1]);
/// assert_eq!(a.sum_axes(&[0, 2], false)?.shape(), &[3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub trait IntoAxes {
    /// The axes as given (saturated to `isize`: a huge axis is out of range anyway).
    fn axes(&self) -> Vec<isize>;
}

impl<S: IntoShape + ?Sized> IntoAxes for S {
    fn axes(&self) -> Vec<isize> {
        self.extents()
            .iter()
            .map(|&d| d.clamp(isize::MIN as i128, isize::MAX as i128) as isize)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(s: impl IntoShape) -> Vec<i128> {
        s.extents()
    }

    #[test]
    fn forms() {
        let n = 3usize;
        let v = vec![2usize, 5];
        let sl: &[usize] = &v;
        assert_eq!(ext(&[]), Vec::<i128>::new());
        assert_eq!(ext(&[2, 3]), vec![2, 3]);
        assert_eq!(ext([n, 4]), vec![3, 4]);
        assert_eq!(
            ext(&[n, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]).len(),
            13
        );
        assert_eq!(ext(&[3, -1]), vec![3, -1]);
        assert_eq!(ext(&v), vec![2, 5]);
        assert_eq!(ext(v.clone()), vec![2, 5]);
        assert_eq!(ext(sl), vec![2, 5]);
        assert_eq!(ext(&sl), vec![2, 5]);
        assert_eq!(ext(&[-1isize][..]), vec![-1]);
        assert_eq!(ext(vec![4isize, -1]), vec![4, -1]);
        assert_eq!(ext((2, 3)), vec![2, 3]);
        assert_eq!(ext((n, -1)), vec![3, -1]);
        assert_eq!(ext(()), Vec::<i128>::new());
        assert_eq!(ext(7), vec![7]);
        assert_eq!(ext(usize::MAX), vec![usize::MAX as i128]);
    }

    #[test]
    fn resolved() {
        assert_eq!(new_shape("zeros", &[]).unwrap(), Vec::<usize>::new());
        assert_eq!(new_shape("zeros", (2, 3)).unwrap(), vec![2, 3]);
        let e = new_shape("zeros", &[2, -1]).unwrap_err().to_string();
        assert!(e.contains("zeros") && e.contains("-1"), "{e}");
        assert_eq!(reshape_target(12, &[3, -1]).unwrap(), vec![3, 4]);
        assert_eq!(reshape_target(12, [2usize, 6]).unwrap(), vec![2, 6]);
        assert_eq!(reshape_target(12, -1).unwrap(), vec![12]);
        assert_eq!(reshape_target(1, ()).unwrap(), Vec::<usize>::new());
        assert!(matches!(
            reshape_target(12, [usize::MAX]),
            Err(Error::TooLarge { .. })
        ));
        assert!(reshape_target(12, &[5, -1]).is_err());
        assert_eq!([0, -1].axes(), vec![0, -1]);
        assert_eq!(2usize.axes(), vec![2]);
        assert_eq!(usize::MAX.axes(), vec![isize::MAX]);
    }
}
