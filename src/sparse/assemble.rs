//! Host plans of sparse structure: assembling CSR from triplets (sorted, duplicates
//! summed) and the checks of a structure's lengths. Pure host logic, tested here.

use crate::array::same_device;
use crate::{Device, Error, Result};

/// A CSR structure on the host: `m + 1` row offsets, column indices sorted within each
/// row without duplicates, and values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HostCsr<T> {
    pub(crate) indptr: Vec<usize>,
    pub(crate) indices: Vec<usize>,
    pub(crate) data: Vec<T>,
}

/// The CSR structure of the `m x n` matrix with entries `vals[i]` at
/// `(rows[i], cols[i])`, duplicates summed (SciPy's `coo_matrix(...).tocsr()`).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` when the three lengths differ or an index is
/// negative or out of range.
pub(crate) fn csr_from_triplets<T: Copy + std::ops::Add<Output = T>>(
    op: &'static str,
    (m, n): (usize, usize),
    rows: &[i64],
    cols: &[i64],
    vals: &[T],
) -> Result<HostCsr<T>> {
    if rows.len() != cols.len() || rows.len() != vals.len() {
        return Err(Error::invalid(
            op,
            format!(
                "rows, cols and vals must have one length, got {}, {} and {}",
                rows.len(),
                cols.len(),
                vals.len()
            ),
        ));
    }
    for (k, (&r, &c)) in rows.iter().zip(cols).enumerate() {
        if r < 0 || r as u64 >= m as u64 {
            return Err(Error::invalid(
                op,
                format!("rows[{k}] = {r} is outside 0..{m}"),
            ));
        }
        if c < 0 || c as u64 >= n as u64 {
            return Err(Error::invalid(
                op,
                format!("cols[{k}] = {c} is outside 0..{n}"),
            ));
        }
    }
    // Counting sort by row (stable), then a sort by column within each row.
    let mut count = vec![0usize; m + 1];
    for &r in rows {
        count[r as usize + 1] += 1;
    }
    for i in 0..m {
        count[i + 1] += count[i];
    }
    let mut next = count.clone();
    let mut order = vec![0usize; rows.len()];
    for (k, &r) in rows.iter().enumerate() {
        order[next[r as usize]] = k;
        next[r as usize] += 1;
    }
    let mut indptr = Vec::with_capacity(m + 1);
    let mut indices = Vec::with_capacity(rows.len());
    let mut data = Vec::with_capacity(rows.len());
    indptr.push(0);
    for i in 0..m {
        let row = &mut order[count[i]..count[i + 1]];
        row.sort_by_key(|&k| cols[k]);
        let start = indices.len();
        for &k in row.iter() {
            let c = cols[k] as usize;
            if indices.len() > start && indices[indices.len() - 1] == c {
                let last = data.len() - 1;
                data[last] = data[last] + vals[k];
            } else {
                indices.push(c);
                data.push(vals[k]);
            }
        }
        indptr.push(indices.len());
    }
    Ok(HostCsr {
        indptr,
        indices,
        data,
    })
}

/// Checks the lengths of a CSR structure of shape `(m, n)` against its arrays'
/// (`indptr`, `indices`, `data`) lengths and that `max_index` (the index type's
/// largest value) can hold every offset and column.
pub(crate) fn check_lengths(
    op: &'static str,
    (m, n): (usize, usize),
    indptr: usize,
    indices: usize,
    data: usize,
    max_index: usize,
) -> Result<()> {
    if indptr != m + 1 {
        return Err(Error::invalid(
            op,
            format!("indptr must have m + 1 = {} entries, got {indptr}", m + 1),
        ));
    }
    if indices != data {
        return Err(Error::invalid(
            op,
            format!("indices and data must have one length, got {indices} and {data}"),
        ));
    }
    if data > max_index || n > max_index || m > max_index {
        return Err(Error::invalid(
            op,
            format!(
                "shape ({m}, {n}) with {data} nonzeros does not fit the index type (max {max_index}); use i64 indices"
            ),
        ));
    }
    Ok(())
}

/// The triplets of the `(m, n)` matrix with `diagonals[j]` on diagonal `offsets[j]`
/// (SciPy's `diags`: diagonal `k > 0` starts at `(0, k)`, `k < 0` at `(-k, 0)`; each
/// given diagonal has the diagonal's length, or one value that is repeated).
pub(crate) fn diag_triplets<T: Copy>(
    op: &'static str,
    (m, n): (usize, usize),
    diagonals: &[Vec<T>],
    offsets: &[isize],
) -> Result<(Vec<i64>, Vec<i64>, Vec<T>)> {
    if diagonals.len() != offsets.len() {
        return Err(Error::invalid(
            op,
            format!(
                "{} diagonals and {} offsets: one offset per diagonal",
                diagonals.len(),
                offsets.len()
            ),
        ));
    }
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for (d, &k) in diagonals.iter().zip(offsets) {
        let (r0, c0) = if k >= 0 {
            (0usize, k as usize)
        } else {
            (k.unsigned_abs(), 0)
        };
        let len = if r0 >= m || c0 >= n {
            0
        } else {
            (m - r0).min(n - c0)
        };
        if d.len() != len && d.len() != 1 {
            return Err(Error::invalid(
                op,
                format!(
                    "diagonal at offset {k} has {} values, the diagonal has {len}",
                    d.len()
                ),
            ));
        }
        for i in 0..len {
            r.push((r0 + i) as i64);
            c.push((c0 + i) as i64);
            v.push(if d.len() == 1 { d[0] } else { d[i] });
        }
    }
    Ok((r, c, v))
}

/// The device parts of a sparse matrix: each 1-D, all on one device (`parts`: name,
/// dimensions and device of each, the first one's device being the matrix's).
pub(crate) fn check_parts(op: &'static str, parts: [(&str, usize, &Device); 3]) -> Result<()> {
    for (name, nd, _) in parts {
        if nd != 1 {
            return Err(Error::invalid(
                op,
                format!("{name} must be 1-D, got {nd}-D"),
            ));
        }
    }
    same_device(op, parts[0].2, parts[1].2)?;
    same_device(op, parts[0].2, parts[2].2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triplets_sort_and_sum_duplicates() {
        let h = csr_from_triplets(
            "t",
            (3, 4),
            &[2, 0, 2, 0, 2],
            &[1, 3, 1, 0, 0],
            &[1.0, 2.0, 3.0, 4.0, 5.0],
        )
        .unwrap();
        assert_eq!(h.indptr, vec![0, 2, 2, 4]);
        assert_eq!(h.indices, vec![0, 3, 0, 1]);
        assert_eq!(h.data, vec![4.0, 2.0, 5.0, 4.0]);
    }

    #[test]
    fn triplets_empty_and_errors() {
        let h = csr_from_triplets::<f64>("t", (2, 2), &[], &[], &[]).unwrap();
        assert_eq!(h.indptr, vec![0, 0, 0]);
        assert!(csr_from_triplets("t", (2, 2), &[2], &[0], &[1.0])
            .unwrap_err()
            .to_string()
            .contains("rows[0]"));
        assert!(csr_from_triplets("t", (2, 2), &[0], &[-1], &[1.0])
            .unwrap_err()
            .to_string()
            .contains("cols[0]"));
        assert!(csr_from_triplets("t", (2, 2), &[0], &[0, 1], &[1.0]).is_err());
    }

    #[test]
    fn lengths() {
        assert!(check_lengths("t", (2, 3), 3, 4, 4, 100).is_ok());
        assert!(check_lengths("t", (2, 3), 2, 4, 4, 100)
            .unwrap_err()
            .to_string()
            .contains("indptr"));
        assert!(check_lengths("t", (2, 3), 3, 4, 5, 100)
            .unwrap_err()
            .to_string()
            .contains("indices and data"));
        assert!(check_lengths("t", (2, 3), 3, 4, 4, 3)
            .unwrap_err()
            .to_string()
            .contains("i64"));
    }

    #[test]
    fn diagonals() {
        let (r, c, v) = diag_triplets("t", (3, 4), &[vec![1, 2, 3], vec![9]], &[1, -1]).unwrap();
        assert_eq!(r, vec![0, 1, 2, 1, 2]);
        assert_eq!(c, vec![1, 2, 3, 0, 1]);
        assert_eq!(v, vec![1, 2, 3, 9, 9]);
        assert!(diag_triplets("t", (3, 3), &[vec![1, 2]], &[0]).is_err());
    }
}
