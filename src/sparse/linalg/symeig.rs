//! The small real symmetric eigenproblem of the Lanczos methods, on the host:
//! Householder reduction to tridiagonal form, then the implicit QL iteration with
//! Wilkinson-like shifts (EISPACK's `tred2` / `tql2`, as Numerical Recipes' `tqli`).

/// Eigenvalues (ascending) and eigenvectors (the columns of the returned row-major `n x n`
/// matrix) of the symmetric row-major `n x n` matrix `a` (both triangles are read).
/// `None` when the QL iteration takes more than 60 sweeps for one eigenvalue (values
/// that are not finite).
pub(crate) fn eigh(mut a: Vec<f64>, n: usize) -> Option<(Vec<f64>, Vec<f64>)> {
    let mut q = vec![0.0f64; n * n];
    for i in 0..n {
        q[i * n + i] = 1.0;
    }
    // Householder: A = H A H, Q = Q H for H = I - 2 v v^T zeroing A[k+2.., k].
    for k in 0..n.saturating_sub(2) {
        let norm = (k + 1..n)
            .map(|i| a[i * n + k] * a[i * n + k])
            .sum::<f64>()
            .sqrt();
        if norm == 0.0 {
            continue;
        }
        let x0 = a[(k + 1) * n + k];
        let alpha = if x0 > 0.0 { -norm } else { norm };
        let mut v = vec![0.0f64; n];
        for i in k + 1..n {
            v[i] = a[i * n + k];
        }
        v[k + 1] -= alpha;
        let vn = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if vn == 0.0 {
            continue;
        }
        v.iter_mut().for_each(|x| *x /= vn);
        // Rows: A -= 2 v (v^T A).
        for j in 0..n {
            let s: f64 = (k + 1..n).map(|i| v[i] * a[i * n + j]).sum();
            for i in k + 1..n {
                a[i * n + j] -= 2.0 * v[i] * s;
            }
        }
        // Columns: A -= 2 (A v) v^T, and Q likewise.
        for m in [&mut a, &mut q] {
            for i in 0..n {
                let s: f64 = (k + 1..n).map(|j| m[i * n + j] * v[j]).sum();
                for j in k + 1..n {
                    m[i * n + j] -= 2.0 * s * v[j];
                }
            }
        }
    }
    let mut d: Vec<f64> = (0..n).map(|i| a[i * n + i]).collect();
    let mut e: Vec<f64> = (0..n)
        .map(|i| if i + 1 < n { a[(i + 1) * n + i] } else { 0.0 })
        .collect();
    // Implicit QL on the tridiagonal (d, e), e[i] coupling i and i + 1.
    for l in 0..n {
        let mut iter = 0;
        loop {
            let mut m = l;
            while m + 1 < n {
                let dd = d[m].abs() + d[m + 1].abs();
                if e[m].abs() <= f64::EPSILON * dd {
                    break;
                }
                m += 1;
            }
            if m == l {
                break;
            }
            iter += 1;
            if iter > 60 {
                return None;
            }
            let mut g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let mut r = g.hypot(1.0);
            g = d[m] - d[l] + e[l] / (g + r.copysign(g));
            let (mut s, mut c, mut p) = (1.0f64, 1.0f64, 0.0f64);
            let mut underflow = false;
            for i in (l..m).rev() {
                let f = s * e[i];
                let b = c * e[i];
                r = f.hypot(g);
                e[i + 1] = r;
                if r == 0.0 {
                    d[i + 1] -= p;
                    e[m] = 0.0;
                    underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2.0 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                for k in 0..n {
                    let f = q[k * n + i + 1];
                    q[k * n + i + 1] = s * q[k * n + i] + c * f;
                    q[k * n + i] = c * q[k * n + i] - s * f;
                }
            }
            if underflow {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = 0.0;
        }
    }
    if d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&i, &j| d[i].total_cmp(&d[j]));
    let w = idx.iter().map(|&i| d[i]).collect();
    let mut vs = vec![0.0f64; n * n];
    for (new, &old) in idx.iter().enumerate() {
        for k in 0..n {
            vs[k * n + new] = q[k * n + old];
        }
    }
    Some((w, vs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(a: &[f64], n: usize) {
        let (w, v) = eigh(a.to_vec(), n).expect("converges");
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "{w:?}");
        let scale = a.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for j in 0..n {
            for i in 0..n {
                let av: f64 = (0..n).map(|k| a[i * n + k] * v[k * n + j]).sum();
                assert!(
                    (av - w[j] * v[i * n + j]).abs() < 1e-12 * scale * n as f64,
                    "pair {j}"
                );
            }
            for k in 0..n {
                let dot: f64 = (0..n).map(|i| v[i * n + j] * v[i * n + k]).sum();
                let want = if j == k { 1.0 } else { 0.0 };
                assert!(
                    (dot - want).abs() < 1e-12 * n as f64,
                    "orthonormality {j} {k}"
                );
            }
        }
    }

    #[test]
    fn small_and_degenerate_matrices() {
        check(&[], 0);
        check(&[3.0], 1);
        check(&[2.0, 1.0, 1.0, 2.0], 2);
        check(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], 3);
        // The 1-D Laplacian of 12 points.
        let n = 12;
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            a[i * n + i] = 2.0;
            if i + 1 < n {
                a[i * n + i + 1] = -1.0;
                a[(i + 1) * n + i] = -1.0;
            }
        }
        check(&a, n);
        let (w, _) = eigh(a, n).unwrap();
        let h = std::f64::consts::PI / (n + 1) as f64;
        for (k, wk) in w.iter().enumerate() {
            assert!((wk - (2.0 - 2.0 * ((k + 1) as f64 * h).cos())).abs() < 1e-13);
        }
    }

    #[test]
    fn arrow_plus_tridiagonal_and_dense() {
        // A thick-restart Lanczos matrix: 5 Ritz values, their couplings, a tridiagonal.
        let n = 20;
        let mut a = vec![0.0; n * n];
        let mut x = 0.37f64;
        let mut next = || {
            x = (x * 9301.0 + 49297.0) % 233280.0 / 233280.0;
            x
        };
        for i in 0..5 {
            a[i * n + i] = 4.0 + i as f64 * 1e-6;
            let c = next() * 1e-9;
            a[5 * n + i] = c;
            a[i * n + 5] = c;
        }
        for j in 5..n {
            a[j * n + j] = 4.0 * next();
            if j + 1 < n {
                let b = next();
                a[j * n + j + 1] = b;
                a[(j + 1) * n + j] = b;
            }
        }
        check(&a, n);
        let mut d = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v = next() - 0.5;
                d[i * n + j] = v;
                d[j * n + i] = v;
            }
        }
        check(&d, n);
    }
}
