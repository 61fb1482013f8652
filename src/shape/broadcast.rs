//! NumPy broadcasting of shapes.

use super::checked_size;
use crate::{Error, Result};

/// The shape that `a` and `b` broadcast to, by NumPy's rules: align trailing axes; each
/// pair of extents must be equal or one of them 1.
///
/// # Errors
/// [`Error::Broadcast`] for incompatible shapes, [`Error::TooLarge`] when the result's
/// element count overflows (see [`checked_size`]).
///
/// ```
/// use cuarray::shape::broadcast_shapes;
/// assert_eq!(broadcast_shapes("add", &[3, 1], &[4]).unwrap(), vec![3, 4]);
/// assert!(broadcast_shapes("add", &[3], &[4]).is_err());
/// ```
pub fn broadcast_shapes(op: &'static str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0usize; n];
    for (i, o) in out.iter_mut().enumerate() {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        *o = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::Broadcast {
                op,
                lhs: a.to_vec(),
                rhs: b.to_vec(),
            });
        };
    }
    checked_size(op, &out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(broadcast_shapes("t", &[], &[2, 3]).unwrap(), vec![2, 3]);
        assert_eq!(
            broadcast_shapes("t", &[8, 1, 6, 1], &[7, 1, 5]).unwrap(),
            vec![8, 7, 6, 5]
        );
        assert_eq!(broadcast_shapes("t", &[0], &[1]).unwrap(), vec![0]);
        assert_eq!(broadcast_shapes("t", &[1], &[0]).unwrap(), vec![0]);
        let e = broadcast_shapes("add", &[2, 3], &[4, 3])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("[2, 3]") && e.contains("[4, 3]") && e.contains("add"),
            "{e}"
        );
    }
}
