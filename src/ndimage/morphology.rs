//! Binary and grey-scale morphology (`scipy.ndimage`'s `_morphology`).
//!
//! Binary erosion and dilation are n-d window kernels over the structure (the minimum
//! and maximum of the masked values, with 0 past the edges, SciPy's `border_value`), and
//! for the default cross of a 2-D image whose rows are a multiple of 16 bytes, a
//! byte-parallel kernel (sixteen pixels a thread, four combined per operation); grey
//! morphology with a flat box `size` is the separable minimum and maximum filters.

use super::filters::box_nd;
use super::launch::{self, Window};
use super::Mode;
use crate::array::DeviceArray;
use crate::device::Device;
use crate::element::NumElement;
use crate::kernels::family::ndimage::WindowOp;
use crate::{Error, Result};

/// SciPy's `generate_binary_structure`: the `3^rank` mask of the elements within
/// `connectivity` steps (city-block distance) of the centre; `connectivity` 0 is taken as 1,
/// `rank` or more gives the full box.
///
/// ```no_run
/// use cuarray::ndimage;
/// let dev = cuarray::Device::new(0)?;
/// let s = ndimage::generate_binary_structure(&dev, 2, 1)?;
/// assert_eq!(s.shape(), &[3, 3]);
/// assert_eq!(s.to_host()?, vec![false, true, false, true, true, true, false, true, false]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for a rank above 8.
pub fn generate_binary_structure(
    device: &Device,
    rank: usize,
    connectivity: usize,
) -> Result<DeviceArray<bool>> {
    let host = binary_structure(rank, connectivity).ok_or_else(|| {
        Error::invalid(
            "generate_binary_structure",
            format!("`rank` {rank} is above 8"),
        )
    })?;
    DeviceArray::from_host(device, &host, &vec![3usize; rank][..])
}

/// The host values of [`generate_binary_structure`] (C order), `None` above rank 8.
pub(crate) fn binary_structure(rank: usize, connectivity: usize) -> Option<Vec<bool>> {
    if rank > 8 {
        return None;
    }
    let connectivity = connectivity.max(1);
    Some(
        (0..3usize.pow(rank as u32))
            .map(|mut e| {
                let mut dist = 0;
                for _ in 0..rank {
                    dist += usize::from(e % 3 != 1);
                    e /= 3;
                }
                dist <= connectivity
            })
            .collect(),
    )
}

/// The structure to use: `structure` (checked: the input's rank, on its device) or the
/// cross of connectivity 1.
pub(super) fn structure_for(
    op: &'static str,
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
) -> Result<DeviceArray<bool>> {
    match structure {
        Some(s) => {
            s.used_by(op, mask.device())?;
            if s.ndim() != mask.ndim() {
                return Err(Error::invalid(
                    op,
                    format!(
                        "`structure` has rank {} for an input of rank {}",
                        s.ndim(),
                        mask.ndim()
                    ),
                ));
            }
            if s.size() == 0 {
                return Err(Error::invalid(op, "`structure` is empty"));
            }
            s.contiguous()
        }
        None => generate_binary_structure(mask.device(), mask.ndim(), 1),
    }
}

/// The structure of the binary steps: on the device, or the default cross of a 2-D
/// input, known on the host, which the byte-parallel kernel takes as nine bits.
enum Structure {
    Device(DeviceArray<bool>),
    Cross2d,
}

/// The nine bits of the 2-D cross (`generate_binary_structure(2, 1)`, bit `3 r + c` for
/// element `(r, c)`): symmetric, so erosion and dilation read the same neighbours.
const CROSS2D_BITS: u32 = 0b010_111_010;

/// [`structure_for`], with the default of a 2-D input kept on the host.
fn structure_of(
    op: &'static str,
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
) -> Result<Structure> {
    if structure.is_none() && mask.ndim() == 2 {
        return Ok(Structure::Cross2d);
    }
    structure_for(op, mask, structure).map(Structure::Device)
}

/// One erosion (`dilate` false) or dilation step of the C-contiguous `mask` by `s`.
fn binary_step(
    op: &'static str,
    mask: &DeviceArray<bool>,
    s: &Structure,
    dilate: bool,
) -> Result<DeviceArray<bool>> {
    let out = DeviceArray::<bool>::alloc_for(op, mask.device(), mask.shape())?;
    let cross;
    let structure = match s {
        Structure::Device(d) => d,
        Structure::Cross2d => {
            if launch::binary3_fits(mask) && launch::binary3_fits(&out) {
                launch::binary3(mask, &out, CROSS2D_BITS, dilate, false)?;
                return Ok(out);
            }
            cross = generate_binary_structure(mask.device(), 2, 1)?;
            &cross
        }
    };
    let (fp, origin, wop) = if dilate {
        // SciPy's dilation: the erosion's complement with the structure reflected, the
        // origin moved back one on axes of even length.
        let axes: Vec<usize> = (0..structure.ndim()).collect();
        let flipped = if axes.is_empty() {
            structure.clone()
        } else {
            structure.flip(&axes[..])?.contiguous()?
        };
        let origin = structure
            .shape()
            .iter()
            .map(|&l| -isize::from(l.is_multiple_of(2)))
            .collect();
        (flipped, origin, WindowOp::Max)
    } else {
        (structure.clone(), vec![0; mask.ndim()], WindowOp::Min)
    };
    let window = Window {
        shape: fp.shape().to_vec(),
        origin,
        op: wop,
        weights: None,
        footprint: Some(&fp),
        kth: 0,
    };
    launch::window(op, mask, &out, &window, Mode::Constant(0.0))?;
    Ok(out)
}

/// `iterations` steps (0: until nothing changes; each step then compares on the host).
fn binary_repeat(
    op: &'static str,
    mask: &DeviceArray<bool>,
    s: &Structure,
    iterations: usize,
    dilate: bool,
) -> Result<DeviceArray<bool>> {
    let mask = mask.contiguous()?;
    // The cross goes to the device once when the byte-parallel kernel cannot take the
    // image (its steps' outputs have the same shape).
    let on_device;
    let s = if matches!(s, Structure::Cross2d) && !launch::binary3_fits(&mask) {
        on_device = Structure::Device(generate_binary_structure(mask.device(), 2, 1)?);
        &on_device
    } else {
        s
    };
    let mut x = binary_step(op, &mask, s, dilate)?;
    if iterations == 0 {
        loop {
            let next = binary_step(op, &x, s, dilate)?;
            if crate::array_equal(&next, &x)? {
                return Ok(next);
            }
            x = next;
        }
    }
    for _ in 1..iterations {
        x = binary_step(op, &x, s, dilate)?;
    }
    Ok(x)
}

/// Binary erosion (SciPy's `binary_erosion`, border value 0): an element stays true when
/// every element under the structure centred on it is true, repeated `iterations` times
/// (0: until nothing changes). `structure` defaults to the cross of
/// [`generate_binary_structure`]`(rank, 1)`.
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let m = DeviceArray::from_slice(&dev, &[false, true, true, true, true, false])?;
/// assert_eq!(ndimage::binary_erosion(&m, None, 1)?.to_host()?, vec![false, false, true, true, false, false]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `structure` (another rank, or empty);
/// [`Error::DeviceMismatch`].
pub fn binary_erosion(
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
    iterations: usize,
) -> Result<DeviceArray<bool>> {
    const OP: &str = "binary_erosion";
    let s = structure_of(OP, mask, structure)?;
    binary_repeat(OP, mask, &s, iterations, false)
}

/// Binary dilation (SciPy's `binary_dilation`): an element becomes true when any element
/// under the reflected structure centred on it is true.
///
/// # Errors
/// As [`binary_erosion`].
pub fn binary_dilation(
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
    iterations: usize,
) -> Result<DeviceArray<bool>> {
    const OP: &str = "binary_dilation";
    let s = structure_of(OP, mask, structure)?;
    binary_repeat(OP, mask, &s, iterations, true)
}

/// Binary opening (SciPy's `binary_opening`): `iterations` erosions, then as many
/// dilations.
///
/// # Errors
/// As [`binary_erosion`].
pub fn binary_opening(
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
    iterations: usize,
) -> Result<DeviceArray<bool>> {
    const OP: &str = "binary_opening";
    let s = structure_of(OP, mask, structure)?;
    let e = binary_repeat(OP, mask, &s, iterations, false)?;
    binary_repeat(OP, &e, &s, iterations, true)
}

/// Binary closing (SciPy's `binary_closing`): `iterations` dilations, then as many
/// erosions.
///
/// # Errors
/// As [`binary_erosion`].
pub fn binary_closing(
    mask: &DeviceArray<bool>,
    structure: Option<&DeviceArray<bool>>,
    iterations: usize,
) -> Result<DeviceArray<bool>> {
    const OP: &str = "binary_closing";
    let s = structure_of(OP, mask, structure)?;
    let d = binary_repeat(OP, mask, &s, iterations, true)?;
    binary_repeat(OP, &d, &s, iterations, false)
}

/// Grey erosion with a flat box `size` (SciPy's `grey_erosion(input, size)`, mode
/// reflect): the minimum filter.
///
/// ```no_run
/// use cuarray::{ndimage, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[3u8, 1, 4, 1, 5, 9, 2, 6])?;
/// assert_eq!(ndimage::grey_erosion(&x, &[2])?.to_host()?, vec![3, 1, 1, 1, 1, 5, 2, 2]);
/// assert_eq!(ndimage::grey_dilation(&x, &[2])?.to_host()?, vec![3, 4, 4, 5, 9, 9, 6, 6]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `size` (0 on an axis, or neither one value nor one
/// per axis).
pub fn grey_erosion<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
) -> Result<DeviceArray<T>> {
    box_nd(
        "grey_erosion",
        WindowOp::Min,
        input,
        size,
        Mode::Reflect,
        |_| 0,
    )
}

/// Grey dilation with a flat box `size` (SciPy's `grey_dilation(input, size)`): the
/// maximum filter over the reflected box, whose origin moves back one on axes of even size.
///
/// # Errors
/// As [`grey_erosion`].
pub fn grey_dilation<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
) -> Result<DeviceArray<T>> {
    box_nd(
        "grey_dilation",
        WindowOp::Max,
        input,
        size,
        Mode::Reflect,
        |len| -isize::from(len.is_multiple_of(2)),
    )
}

/// Grey opening: [`grey_erosion`], then [`grey_dilation`].
///
/// # Errors
/// As [`grey_erosion`].
pub fn grey_opening<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
) -> Result<DeviceArray<T>> {
    grey_dilation(&grey_erosion(input, size)?, size)
}

/// Grey closing: [`grey_dilation`], then [`grey_erosion`].
///
/// # Errors
/// As [`grey_erosion`].
pub fn grey_closing<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
) -> Result<DeviceArray<T>> {
    grey_erosion(&grey_dilation(input, size)?, size)
}

/// The morphological gradient: the dilation less the erosion, in the input's type.
///
/// # Errors
/// As [`grey_erosion`].
pub fn morphological_gradient<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
) -> Result<DeviceArray<T>> {
    &grey_dilation(input, size)? - &grey_erosion(input, size)?
}

/// The white top-hat: the input less its [`grey_opening`].
///
/// # Errors
/// As [`grey_erosion`].
pub fn white_tophat<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
) -> Result<DeviceArray<T>> {
    input - &grey_opening(input, size)?
}

/// The black top-hat: the [`grey_closing`] less the input.
///
/// # Errors
/// As [`grey_erosion`].
pub fn black_tophat<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
) -> Result<DeviceArray<T>> {
    &grey_closing(input, size)? - input
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_structures_are_scipys() {
        let b = |v: &[u8]| v.iter().map(|&x| x == 1).collect::<Vec<_>>();
        assert_eq!(binary_structure(1, 1).unwrap(), b(&[1, 1, 1]));
        assert_eq!(
            binary_structure(2, 1).unwrap(),
            b(&[0, 1, 0, 1, 1, 1, 0, 1, 0])
        );
        assert_eq!(binary_structure(2, 2).unwrap(), b(&[1; 9]));
        let s3 = binary_structure(3, 1).unwrap();
        assert_eq!(s3.iter().filter(|&&x| x).count(), 7);
        assert_eq!(
            binary_structure(3, 2)
                .unwrap()
                .iter()
                .filter(|&&x| x)
                .count(),
            19
        );
        assert_eq!(binary_structure(0, 1).unwrap(), vec![true]);
        assert!(binary_structure(9, 1).is_none());
    }
}
