//! The shape logic of NumPy's advanced indexing: where each index array and each slice
//! lands in the result, planned on the host from shapes alone.
//!
//! An index expression (built on arrays by [`ix!`](crate::ix)) is seen here as a list of
//! [`IxEntry`]: basic entries ([`SliceElem`]: ranges with steps, integers, new axes), integer
//! index arrays (their [`Layout`]) and boolean masks (their shape and the number of true
//! elements). [`plan_index`] turns it into an [`IxPlan`]: the result's shape, a strided view of
//! the source over the result's dimensions, and for each index array the strides with which it
//! is read over the result's dimensions and the source axis it walks.
//!
//! NumPy's rules, followed exactly:
//! - integer arrays broadcast together to one shape `B`; a mask over `k` axes counts as the `k`
//!   index arrays of its true elements' coordinates (each of length `count`);
//! - once any array is present, integers count as advanced indices too (0-d arrays);
//! - when the advanced indices are adjacent (no slice or new axis between them), `B` replaces
//!   them in place; otherwise `B` comes first, followed by the sliced axes in order.
//!
//! ```
//! use cuarray::shape::{plan_index, IxEntry, Layout, SliceElem};
//! // NumPy: np.empty((5, 6, 7))[:, [0, 1, 2], [[1], [2]]].shape == (5, 2, 3)
//! let src = Layout::contiguous(&[5, 6, 7]);
//! let all = SliceElem::Range { start: None, end: None, step: 1 };
//! let p = plan_index(
//!     "index",
//!     &src,
//!     &[
//!         IxEntry::Slice(all),
//!         IxEntry::Array(Layout::contiguous(&[3])),
//!         IxEntry::Array(Layout::contiguous(&[2, 1])),
//!     ],
//! )?;
//! assert_eq!(p.shape, vec![5, 2, 3]);
//! // Separated by a slice, the broadcast shape moves to the front:
//! // np.empty((5, 6, 7))[[0, 1], :, [2, 3]].shape == (2, 6)
//! let p = plan_index(
//!     "index",
//!     &src,
//!     &[IxEntry::Array(Layout::contiguous(&[2])), IxEntry::Slice(all), IxEntry::Array(Layout::contiguous(&[2]))],
//! )?;
//! assert_eq!(p.shape, vec![2, 6]);
//! # Ok::<(), cuarray::Error>(())
//! ```

use super::{broadcast_shapes, checked_size, Layout, SliceElem};
use crate::{Error, Result};

/// One entry of an index expression, as the shape logic sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IxEntry {
    /// A basic entry: a range with a step, an integer, or a new axis.
    Slice(SliceElem),
    /// An integer index array (i64) with this layout; it walks one axis of the source.
    Array(Layout),
    /// A boolean mask of `shape` with `count` true elements: it walks `shape.len()` axes of
    /// the source, whose extents must equal `shape`, and stands for `shape.len()` index arrays
    /// of shape `[count]` (contiguous), the coordinates of its true elements.
    Mask {
        /// The mask's shape.
        shape: Vec<usize>,
        /// How many of its elements are true.
        count: usize,
    },
}

/// How one index array is read, over the result's dimensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IxAxis {
    /// The index array's strides over the result's dimensions (0 outside the advanced block
    /// and along broadcast dimensions).
    pub strides: Vec<isize>,
    /// The extent of the source axis it indexes (an index `v` must lie in `-extent..extent`).
    pub extent: usize,
    /// The stride of that source axis.
    pub stride: isize,
}

/// The plan of an index expression: what each result element reads.
///
/// Result element `r` reads the source at `src.index_of(r) + sum_k wrap(idx_k[r]) * stride_k`
/// where `idx_k[r]` is index array `k` read through `arrays[k].strides`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IxPlan {
    /// The result's shape.
    pub shape: Vec<usize>,
    /// The source over the result's dimensions: slices applied (integers folded into the
    /// offset), stride 0 along the advanced dimensions.
    pub src: Layout,
    /// The index arrays, in the order of the expression (a mask gives one per axis it walks).
    pub arrays: Vec<IxAxis>,
    /// Where the broadcast shape of the advanced indices sits in the result (empty without
    /// index arrays).
    pub advanced: std::ops::Range<usize>,
}

/// How many source axes an entry walks.
fn consumes(e: &IxEntry) -> usize {
    match e {
        IxEntry::Slice(SliceElem::NewAxis) => 0,
        IxEntry::Slice(_) | IxEntry::Array(_) => 1,
        IxEntry::Mask { shape, .. } => shape.len(),
    }
}

/// A shape as NumPy prints it: `(2,)`, `(5, 6)`.
pub(crate) fn dims(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}

/// Plans the index expression `entries` over the source `src`, by NumPy's rules: integer
/// arrays broadcast together to one shape `B` (a mask over `k` axes counts as the `k` index
/// arrays of its true elements' coordinates); once any array is present, integers count as
/// advanced indices too; adjacent advanced indices (no slice or new axis between them) are
/// replaced by `B` in place, otherwise `B` comes first, followed by the sliced axes in order.
/// Axes the expression does not reach are kept whole, after the others.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` for more indices than the source has dimensions,
/// an integer out of bounds, a zero step, or a mask whose shape is not that of the axes it
/// walks; [`Error::ShapeMismatch`] when the index arrays do not broadcast together (naming
/// every shape); [`Error::TooLarge`] when the result's element count overflows.
pub fn plan_index(op: &'static str, src: &Layout, entries: &[IxEntry]) -> Result<IxPlan> {
    let consumed: usize = entries.iter().map(consumes).sum();
    if consumed > src.ndim() {
        return Err(Error::invalid(
            op,
            format!(
                "too many indices: {consumed} given for an array of {} dimension(s), shape {}",
                src.ndim(),
                dims(src.shape())
            ),
        ));
    }
    let any_array = entries
        .iter()
        .any(|e| matches!(e, IxEntry::Array(_) | IxEntry::Mask { .. }));
    if !any_array {
        let basic: Vec<SliceElem> = entries
            .iter()
            .filter_map(|e| match e {
                IxEntry::Slice(s) => Some(*s),
                _ => None,
            })
            .collect();
        let view = src.slice(&basic).map_err(|e| rename(e, op))?;
        let shape = view.shape().to_vec();
        return Ok(IxPlan {
            shape,
            src: view,
            arrays: Vec::new(),
            advanced: 0..0,
        });
    }

    // Advanced entries: arrays, masks, and integers (0-d arrays once any array is present).
    let is_adv = |e: &IxEntry| {
        !matches!(
            e,
            IxEntry::Slice(SliceElem::Range { .. } | SliceElem::NewAxis)
        )
    };
    let first = entries.iter().position(is_adv).unwrap_or(0);
    let last = entries.iter().rposition(is_adv).unwrap_or(0);
    let adjacent = entries[first..=last].iter().all(is_adv);

    // The broadcast shape of the index arrays (masks give 1-D arrays of their count).
    let mut b: Vec<usize> = Vec::new();
    let mut shapes: Vec<Vec<usize>> = Vec::new();
    for e in entries {
        let s = match e {
            IxEntry::Array(l) => l.shape().to_vec(),
            IxEntry::Mask { count, .. } => vec![*count],
            _ => continue,
        };
        shapes.push(s.clone());
        b = match broadcast_shapes(op, &b, &s) {
            Ok(b) => b,
            Err(Error::Broadcast { .. }) => {
                let all: Vec<String> = shapes.iter().map(|s| dims(s)).collect();
                return Err(Error::ShapeMismatch {
                    op,
                    msg: format!(
                        "shape mismatch: indexing arrays could not be broadcast together with shapes {}",
                        all.join(" ")
                    ),
                    lhs: b,
                    rhs: s,
                });
            }
            Err(e) => return Err(e),
        };
    }

    // Walk the entries: the basic dimensions (before / after the advanced block when
    // adjacent), the offset, and each index array's source axis.
    let mut offset = src.offset() as isize;
    let mut before: Vec<(usize, isize)> = Vec::new();
    let mut after: Vec<(usize, isize)> = Vec::new();
    // (layout over B, extent, stride) of each index array.
    let mut arrays: Vec<(Layout, usize, isize)> = Vec::new();
    let mut axis = 0usize;
    for (pos, e) in entries.iter().enumerate() {
        let basic = if adjacent && pos > last {
            &mut after
        } else {
            &mut before
        };
        match e {
            IxEntry::Slice(SliceElem::NewAxis) => basic.push((1, 0)),
            IxEntry::Slice(SliceElem::Range { start, end, step }) => {
                if *step == 0 {
                    return Err(Error::invalid(
                        op,
                        format!("slice step cannot be zero (axis {axis})"),
                    ));
                }
                let (len, old) = (src.shape()[axis], src.strides()[axis]);
                let (s, count) = super::slice::resolve(*start, *end, *step, len);
                if count > 0 {
                    offset += s * old;
                }
                let stride = match old.checked_mul(*step) {
                    Some(st) => st,
                    None if count <= 1 => 0,
                    None => {
                        return Err(Error::invalid(
                            op,
                            format!("stride {old} times step {step} overflows on axis {axis}"),
                        ))
                    }
                };
                basic.push((count, stride));
                axis += 1;
            }
            IxEntry::Slice(SliceElem::Index(i)) => {
                let len = src.shape()[axis];
                let j = if *i < 0 {
                    *i as i128 + len as i128
                } else {
                    *i as i128
                };
                if j < 0 || j >= len as i128 {
                    return Err(Error::invalid(
                        op,
                        format!("index {i} is out of bounds for axis {axis} with size {len}"),
                    ));
                }
                offset += j as isize * src.strides()[axis];
                axis += 1;
            }
            IxEntry::Array(l) => {
                let lb = l.broadcast_to(&b)?;
                arrays.push((lb, src.shape()[axis], src.strides()[axis]));
                axis += 1;
            }
            IxEntry::Mask { shape, count } => {
                let walked = &src.shape()[axis..axis + shape.len()];
                if walked != &shape[..] {
                    return Err(Error::ShapeMismatch {
                        op,
                        msg: format!(
                            "boolean index of shape {} does not match the indexed axes {}..{} of shape {} (array shape {})",
                            dims(shape),
                            axis,
                            axis + shape.len(),
                            dims(walked),
                            dims(src.shape())
                        ),
                        lhs: shape.clone(),
                        rhs: walked.to_vec(),
                    });
                }
                let row = Layout::contiguous(&[*count]).broadcast_to(&b)?;
                for _ in 0..shape.len() {
                    arrays.push((row.clone(), src.shape()[axis], src.strides()[axis]));
                    axis += 1;
                }
            }
        }
    }
    // Axes the expression does not reach, kept whole.
    let tail = if adjacent { &mut after } else { &mut before };
    for k in axis..src.ndim() {
        tail.push((src.shape()[k], src.strides()[k]));
    }

    let start = if adjacent { before.len() } else { 0 };
    let nb = b.len();
    let mut shape = Vec::with_capacity(before.len() + nb + after.len());
    let mut strides = Vec::with_capacity(shape.capacity());
    let basics_front: &[(usize, isize)] = if adjacent { &before } else { &[] };
    let basics_back: Vec<(usize, isize)> = if adjacent {
        after.clone()
    } else {
        before.clone()
    };
    for &(d, s) in basics_front {
        shape.push(d);
        strides.push(s);
    }
    shape.extend_from_slice(&b);
    strides.extend(std::iter::repeat_n(0isize, nb));
    for &(d, s) in &basics_back {
        shape.push(d);
        strides.push(s);
    }
    checked_size(op, &shape)?;
    let total = shape.len();
    let arrays = arrays
        .into_iter()
        .map(|(l, extent, stride)| {
            let mut st = vec![0isize; total];
            st[start..start + nb].copy_from_slice(l.strides());
            IxAxis {
                strides: st,
                extent,
                stride,
            }
        })
        .collect();
    debug_assert!(offset >= 0);
    Ok(IxPlan {
        src: Layout::from_parts(shape.clone(), strides, offset.max(0) as usize),
        shape,
        arrays,
        advanced: start..start + nb,
    })
}

fn rename(e: Error, op: &'static str) -> Error {
    match e {
        Error::InvalidArgument { msg, .. } => Error::InvalidArgument { op, msg },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: SliceElem = SliceElem::Range {
        start: None,
        end: None,
        step: 1,
    };

    fn arr(shape: &[usize]) -> IxEntry {
        IxEntry::Array(Layout::contiguous(shape))
    }
    fn sl(s: SliceElem) -> IxEntry {
        IxEntry::Slice(s)
    }
    fn shape_of(src: &[usize], e: &[IxEntry]) -> Vec<usize> {
        plan_index("index", &Layout::contiguous(src), e)
            .unwrap()
            .shape
    }
    fn range(start: isize, end: isize, step: isize) -> SliceElem {
        SliceElem::Range {
            start: Some(start),
            end: Some(end),
            step,
        }
    }

    // Expected shapes from NumPy 2 (np.empty(src)[expr].shape).
    #[test]
    fn numpy_placement() {
        // a[[0,1]] on (5,6,7) -> (2,6,7)
        assert_eq!(shape_of(&[5, 6, 7], &[arr(&[2])]), vec![2, 6, 7]);
        // a[:, [0,1,2], [[1],[2]]] -> (5,2,3)
        assert_eq!(
            shape_of(&[5, 6, 7], &[sl(ALL), arr(&[3]), arr(&[2, 1])]),
            vec![5, 2, 3]
        );
        // a[[0,1], :, [2,3]] -> (2,6)
        assert_eq!(
            shape_of(&[5, 6, 7], &[arr(&[2]), sl(ALL), arr(&[2])]),
            vec![2, 6]
        );
        // a[0, :, [0,1]] -> (2,6): the integer counts as advanced
        assert_eq!(
            shape_of(&[5, 6, 7], &[sl(SliceElem::Index(0)), sl(ALL), arr(&[2])]),
            vec![2, 6]
        );
        // a[:, 0, [0,1]] -> (5,2): adjacent
        assert_eq!(
            shape_of(&[5, 6, 7], &[sl(ALL), sl(SliceElem::Index(0)), arr(&[2])]),
            vec![5, 2]
        );
        // a[[0,1], None, [0,1]] -> (2,1,7): a new axis separates
        assert_eq!(
            shape_of(&[5, 6, 7], &[arr(&[2]), sl(SliceElem::NewAxis), arr(&[2])]),
            vec![2, 1, 7]
        );
        // a[None, [0,1], [0,1]] -> (1,2,7)
        assert_eq!(
            shape_of(&[5, 6, 7], &[sl(SliceElem::NewAxis), arr(&[2]), arr(&[2])]),
            vec![1, 2, 7]
        );
        // a[1:4, [[0],[1]], ::-2] -> (3,2,1,4)
        assert_eq!(
            shape_of(
                &[5, 6, 7],
                &[sl(range(1, 4, 1)), arr(&[2, 1]), sl(ALL.with_step(-2))]
            ),
            vec![3, 2, 1, 4]
        );
        // 0-d index arrays: a[np.array(1), np.array(2)] -> (7,)
        assert_eq!(shape_of(&[5, 6, 7], &[arr(&[]), arr(&[])]), vec![7]);
        // a[i, j, k] all 0-d -> ()
        assert_eq!(
            shape_of(&[5, 6, 7], &[arr(&[]), arr(&[]), arr(&[])]),
            Vec::<usize>::new()
        );
        // empty index arrays: a[np.array([], int)] -> (0,6,7)
        assert_eq!(shape_of(&[5, 6, 7], &[arr(&[0])]), vec![0, 6, 7]);
        // four index arrays: a4[i, j, k, l] with (3,1),(4,),(1,4),(3,4) -> (3,4)
        assert_eq!(
            shape_of(
                &[2, 3, 4, 5],
                &[arr(&[3, 1]), arr(&[4]), arr(&[1, 4]), arr(&[3, 4])]
            ),
            vec![3, 4]
        );
        // a[:, [0,1], :, [1,2]] on (2,3,4,5) -> (2,2,4): separated
        assert_eq!(
            shape_of(&[2, 3, 4, 5], &[sl(ALL), arr(&[2]), sl(ALL), arr(&[2])]),
            vec![2, 2, 4]
        );
        // a[..., newaxis] basic only stays basic: a[:, None] -> (5,1,6,7)
        assert_eq!(
            shape_of(&[5, 6, 7], &[sl(ALL), sl(SliceElem::NewAxis)]),
            vec![5, 1, 6, 7]
        );
    }

    #[test]
    fn masks() {
        let m = |shape: &[usize], count| IxEntry::Mask {
            shape: shape.to_vec(),
            count,
        };
        // a[mask2d] on (5,6,7) with 9 true -> (9,7)
        assert_eq!(shape_of(&[5, 6, 7], &[m(&[5, 6], 9)]), vec![9, 7]);
        // a[:, mask(6,)] with 4 true -> (5,4,7)
        assert_eq!(shape_of(&[5, 6, 7], &[sl(ALL), m(&[6], 4)]), vec![5, 4, 7]);
        // a[mask(5,), :, [1,2,3,4]]: separated -> (4,6)
        assert_eq!(
            shape_of(&[5, 6, 7], &[m(&[5], 4), sl(ALL), arr(&[4])]),
            vec![4, 6]
        );
        // the whole array: a[mask3d] -> (count,)
        let p = plan_index(
            "index",
            &Layout::contiguous(&[5, 6, 7]),
            &[m(&[5, 6, 7], 3)],
        )
        .unwrap();
        assert_eq!(p.shape, vec![3]);
        assert_eq!(p.arrays.len(), 3);
        assert_eq!(
            p.arrays.iter().map(|a| a.stride).collect::<Vec<_>>(),
            vec![42, 7, 1]
        );
        // wrong shape
        let e = plan_index("index", &Layout::contiguous(&[5, 6]), &[m(&[5, 5], 1)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("(5, 5)") && e.contains("(5, 6)"), "{e}");
    }

    #[test]
    fn strides_and_offsets() {
        // a = arange(5*6*7).reshape(5,6,7); a[1:4, [2, 0], ::-2]: element [r0, r1, r2]
        // reads a[1 + r0, idx[r1], 6 - 2 r2].
        let p = plan_index(
            "index",
            &Layout::contiguous(&[5, 6, 7]),
            &[sl(range(1, 4, 1)), arr(&[2]), sl(ALL.with_step(-2))],
        )
        .unwrap();
        assert_eq!(p.shape, vec![3, 2, 4]);
        assert_eq!(p.src.strides(), &[42, 0, -2]);
        assert_eq!(p.src.offset(), 42 + 6);
        assert_eq!(p.arrays[0].strides, vec![0, 1, 0]);
        assert_eq!((p.arrays[0].extent, p.arrays[0].stride), (6, 7));
        assert_eq!(p.advanced, 1..2);
        // Separated: a[[0,1], 2:, 3] -> (2, 4): advanced first, integer folded into offset.
        let p = plan_index(
            "index",
            &Layout::contiguous(&[5, 6, 7]),
            &[arr(&[2]), sl(range(2, 6, 1)), sl(SliceElem::Index(3))],
        )
        .unwrap();
        assert_eq!(p.shape, vec![2, 4]);
        assert_eq!(p.src.strides(), &[0, 7]);
        assert_eq!(p.src.offset(), 14 + 3);
        assert_eq!(p.arrays[0].strides, vec![1, 0]);
        // Broadcast index arrays read with stride 0 along broadcast dims.
        let p = plan_index(
            "index",
            &Layout::contiguous(&[5, 6]),
            &[arr(&[3, 1]), arr(&[4])],
        )
        .unwrap();
        assert_eq!(p.shape, vec![3, 4]);
        assert_eq!(p.arrays[0].strides, vec![1, 0]);
        assert_eq!(p.arrays[1].strides, vec![0, 1]);
    }

    #[test]
    fn errors_name_the_shapes() {
        let e = plan_index(
            "index",
            &Layout::contiguous(&[5, 6]),
            &[arr(&[2]), arr(&[3])],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("(2,) (3,)"), "{e}");
        assert!(e.contains("(3"), "{e}");
        let e = plan_index(
            "index",
            &Layout::contiguous(&[5, 6]),
            &[arr(&[2]), arr(&[2]), arr(&[2])],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("too many indices") && e.contains("(5, 6)"),
            "{e}"
        );
        assert!(plan_index(
            "index",
            &Layout::contiguous(&[5, 6]),
            &[sl(SliceElem::Index(5)), arr(&[2])]
        )
        .is_err());
        assert!(plan_index(
            "index",
            &Layout::contiguous(&[5, 6]),
            &[sl(ALL.with_step(0)), arr(&[2])]
        )
        .is_err());
    }
}
