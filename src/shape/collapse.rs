//! Merging adjacent axes jointly over several layouts of one shape (CuPy's `_reduce_dims`,
//! ndarray's `merge_axes`), so that kernels index as few dimensions as possible.

/// Shape and per-operand strides after collapsing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collapsed {
    /// The merged extents (empty when every extent was 1).
    pub shape: Vec<usize>,
    /// One stride vector per operand, each as long as `shape`.
    pub strides: Vec<Vec<isize>>,
}

/// Collapses `shape` with each operand's `strides`: extents of 1 are dropped, and axes
/// `k, k+1` merge when every operand has `stride[k] == stride[k+1] * shape[k+1]`.
///
/// ```
/// use cuarray::shape::collapse;
/// let c = collapse(&[2, 3, 4], &[&[12, 4, 1], &[0, 4, 1]]);
/// assert_eq!(c.shape, vec![2, 12]);
/// assert_eq!(c.strides, vec![vec![12, 1], vec![0, 1]]);
/// ```
pub fn collapse(shape: &[usize], strides: &[&[isize]]) -> Collapsed {
    let keep: Vec<usize> = (0..shape.len()).filter(|&k| shape[k] != 1).collect();
    let mut out_shape: Vec<usize> = Vec::with_capacity(keep.len());
    let mut out_strides: Vec<Vec<isize>> = vec![Vec::with_capacity(keep.len()); strides.len()];
    for &k in &keep {
        let mergeable = !out_shape.is_empty()
            && strides
                .iter()
                .zip(&out_strides)
                .all(|(s, o)| o[o.len() - 1] == s[k] * shape[k] as isize);
        if mergeable {
            let last = out_shape.len() - 1;
            out_shape[last] *= shape[k];
            for (o, s) in out_strides.iter_mut().zip(strides) {
                o[last] = s[k];
            }
            continue;
        }
        out_shape.push(shape[k]);
        for (o, s) in out_strides.iter_mut().zip(strides) {
            o.push(s[k]);
        }
    }
    Collapsed {
        shape: out_shape,
        strides: out_strides,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_contiguous_and_keeps_broadcast() {
        let c = collapse(&[4, 5, 6], &[&[30, 6, 1], &[30, 6, 1]]);
        assert_eq!(c.shape, vec![120]);
        assert_eq!(c.strides, vec![vec![1], vec![1]]);
        // (8192, 8192) + (8192, 1): nothing merges.
        let c = collapse(&[3, 7], &[&[7, 1], &[1, 0]]);
        assert_eq!(c.shape, vec![3, 7]);
        // Extents of 1 vanish; all-ones gives 0-d.
        let c = collapse(&[1, 1], &[&[5, 9]]);
        assert!(c.shape.is_empty());
        // Transposed operand blocks merging.
        let c = collapse(&[2, 3], &[&[3, 1], &[1, 2]]);
        assert_eq!(c.shape, vec![2, 3]);
        // Negative strides merge when consistent.
        let c = collapse(&[2, 3], &[&[-3, -1]]);
        assert_eq!(c.shape, vec![6]);
        assert_eq!(c.strides, vec![vec![-1]]);
    }
}
