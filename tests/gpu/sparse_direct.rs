//! Sparse direct solves, norms, matrix functions and eigenproblems against host
//! references in f64 (complex): spsolve_triangular (both triangles, unit diagonal, 2-D
//! right-hand sides), spsolve, norm, expm_multiply, eigsh (every `Which`, a complex
//! Hermitian matrix unitarily similar to Poisson), svds (tall and wide), the adjoint
//! products of CSR, CSC, COO and dense operators; and the errors.

use crate::common::{gpu_trial, Rng, TResult};
use crate::sparse_solvers::{
    dev_vec, expect_close, expect_err, host_vec, matrix, norm, poisson_eigenvalues, random_vec,
    stencil, tall, Mat, Scalar, C,
};
use cuarray::linalg::NormOrd;
use cuarray::sparse::linalg::{self, FnOperator, LinearOperator, Which};
use cuarray::sparse::SparseElement;
use cuarray::{Complex32, Complex64, Device, DeviceArray, Error};
use libtest_mimic::Trial;

/// The adjoint products of CSR, CSC and dense operators against the host.
fn adjoints<T: Scalar>(dev: &Device) -> TResult {
    let mut rng = Rng::for_name(&format!("sparse_solvers/rmatvec/{}", T::NAME));
    let mat = tall(&mut rng, 13, 7, T::COMPLEX);
    let xh = random_vec(&mut rng, 13, T::COMPLEX);
    let x = dev_vec::<T>(dev, &xh)?;
    let want = mat.rmatvec(&xh);
    let tol = T::ERR * 1e-2;
    expect_close(
        "csr rmatvec",
        &host_vec(&mat.csr::<T>(dev)?.rmatvec(&x)?)?,
        &want,
        tol,
    )?;
    let csc = mat.transpose().csr::<T>(dev)?.t();
    expect_close(
        "csc rmatvec",
        &host_vec(&LinearOperator::rmatvec(&csc, &x)?)?,
        &want,
        tol,
    )?;
    let ri: Vec<i32> = mat.r.iter().map(|&v| v as i32).collect();
    let ci: Vec<i32> = mat.c.iter().map(|&v| v as i32).collect();
    let vals: Vec<T> = mat.v.iter().map(|&z| T::of(z)).collect();
    let coo = cuarray::sparse::CooMatrix::<T, i32>::from_triplets(dev, &ri, &ci, &vals, (13, 7))?;
    expect_close(
        "coo rmatvec",
        &host_vec(&LinearOperator::rmatvec(&coo, &x)?)?,
        &want,
        tol,
    )?;
    let dense_h: Vec<T> = mat.dense().into_iter().map(T::of).collect();
    let dense = DeviceArray::from_host(dev, &dense_h, &[13, 7])?;
    expect_close(
        "dense rmatvec",
        &host_vec(&LinearOperator::rmatvec(&dense, &x)?)?,
        &want,
        tol,
    )?;
    Ok(())
}

/// Forward / back substitution on the host.
fn host_triangular(n: usize, d: &[C], b: &[C], lower: bool, unit: bool) -> Vec<C> {
    let mut x = vec![C::new(0.0, 0.0); n];
    let order: Vec<usize> = if lower {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    for &i in &order {
        let mut s = b[i];
        for j in 0..n {
            let inside = if lower { j < i } else { j > i };
            if inside {
                s -= d[i * n + j] * x[j];
            }
        }
        x[i] = if unit { s } else { s / d[i * n + i] };
    }
    x
}

fn triangular<T: Scalar>(dev: &Device) -> TResult {
    let n = 50;
    let mut rng = Rng::for_name(&format!("sparse_solvers/spsolve_triangular/{}", T::NAME));
    for lower in [true, false] {
        for unit in [false, true] {
            let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
            for i in 0..n {
                r.push(i);
                c.push(i);
                // The stored diagonal; with unit_diagonal it must not be read.
                v.push(C::new(
                    if unit {
                        100.0
                    } else {
                        2.0 + rng.range(0.0, 1.0)
                    },
                    0.0,
                ));
                for _ in 0..3 {
                    let j = rng.below(n);
                    let inside = (lower && j < i) || (!lower && j > i);
                    if inside && !r.iter().zip(&c).any(|(&a, &b)| a == i && b == j) {
                        r.push(i);
                        c.push(j);
                        let im = if T::COMPLEX {
                            rng.range(-0.3, 0.3)
                        } else {
                            0.0
                        };
                        v.push(C::new(rng.range(-0.5, 0.5), im));
                    }
                }
            }
            let mat = Mat { m: n, n, r, c, v };
            let a = mat.csr::<T>(dev)?;
            let d = mat.dense();
            let bh = random_vec(&mut rng, n, T::COMPLEX);
            let x = linalg::spsolve_triangular(&a, &dev_vec::<T>(dev, &bh)?, lower, unit)?;
            let want = host_triangular(n, &d, &bh, lower, unit);
            let what = format!("lower {lower} unit {unit}");
            expect_close(&what, &host_vec(&x)?, &want, T::ERR * 1e-2)?;
            // Three right-hand sides as the columns of a 2-D b.
            let b2h = random_vec(&mut rng, n * 3, T::COMPLEX);
            let b2 = DeviceArray::from_host(
                dev,
                &b2h.iter().map(|&z| T::of(z)).collect::<Vec<T>>(),
                &[n, 3],
            )?;
            let x2 = host_vec(&linalg::spsolve_triangular(&a, &b2, lower, unit)?)?;
            for col in 0..3 {
                let bc: Vec<C> = (0..n).map(|i| b2h[i * 3 + col]).collect();
                let got: Vec<C> = (0..n).map(|i| x2[i * 3 + col]).collect();
                expect_close(
                    &format!("{what} column {col}"),
                    &got,
                    &host_triangular(n, &d, &bc, lower, unit),
                    T::ERR * 1e-2,
                )?;
            }
        }
    }
    // No stored entries: singular unless the diagonal is ones.
    let empty = Mat {
        m: 4,
        n: 4,
        r: vec![],
        c: vec![],
        v: vec![],
    }
    .csr::<T>(dev)?;
    let b = dev_vec::<T>(dev, &random_vec(&mut rng, 4, T::COMPLEX))?;
    match linalg::spsolve_triangular(&empty, &b, true, false) {
        Err(Error::Singular { .. }) => {}
        other => return Err(format!("empty matrix: want Singular, got {other:?}").into()),
    }
    expect_close(
        "empty unit",
        &host_vec(&linalg::spsolve_triangular(&empty, &b, true, true)?)?,
        &host_vec(&b)?,
        0.0,
    )?;
    let short = DeviceArray::<T>::zeros(dev, &[3])?;
    expect_err(
        "b shape",
        linalg::spsolve_triangular(&empty, &short, true, false),
        "square",
    )?;
    Ok(())
}

/// SpSV reads one triangle: a full matrix solves as its lower (upper) part.
fn triangular_other_ignored(dev: &Device) -> TResult {
    let mat = stencil(5, 0.3);
    let a = mat.csr::<f64>(dev)?;
    let bh: Vec<C> = (0..25).map(|i| C::new(i as f64 - 12.0, 0.0)).collect();
    let b = dev_vec::<f64>(dev, &bh)?;
    for lower in [true, false] {
        let x = linalg::spsolve_triangular(&a, &b, lower, false)?;
        let want = host_triangular(25, &mat.dense(), &bh, lower, false);
        expect_close(&format!("lower {lower}"), &host_vec(&x)?, &want, 1e-12)?;
    }
    Ok(())
}

fn spsolve<T: Scalar + cuarray::linalg::SolverElement>(dev: &Device) -> TResult {
    let mut rng = Rng::for_name(&format!("sparse_direct/spsolve/{}", T::NAME));
    let mat = matrix("convdiff", T::COMPLEX);
    let xs = random_vec(&mut rng, mat.n, T::COMPLEX);
    let b = dev_vec::<T>(dev, &mat.matvec(&xs))?;
    let x = linalg::spsolve(&mat.csr::<T>(dev)?, &b)?;
    expect_close("spsolve", &host_vec(&x)?, &xs, T::ERR * 1e-2)?;
    let big = cuarray::sparse::eye::<T, i32>(dev, linalg::SPSOLVE_DENSE_LIMIT + 1, 0)?;
    let bb = DeviceArray::<T>::ones(dev, &[linalg::SPSOLVE_DENSE_LIMIT + 1])?;
    expect_err("dense limit", linalg::spsolve(&big, &bb), "dense limit")?;
    Ok(())
}

fn norms<T: Scalar>(dev: &Device) -> TResult
where
    T::Real: SparseElement + cuarray::FloatElement,
{
    let mut rng = Rng::for_name(&format!("sparse_solvers/norm/{}", T::NAME));
    let (m, n) = (37, 53);
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..300 {
        let i = rng.below(m);
        if i % 3 == 1 {
            continue; // empty rows
        }
        r.push(i);
        c.push(rng.below(n));
        let im = if T::COMPLEX {
            rng.range(-2.0, 2.0)
        } else {
            0.0
        };
        v.push(C::new(rng.range(-2.0, 2.0), im));
    }
    let mat = Mat { m, n, r, c, v };
    let a = mat.csr::<T>(dev)?; // duplicates summed, as the dense reference
    let d = mat.dense();
    let row = |i: usize| (0..n).map(|j| d[i * n + j].norm()).sum::<f64>();
    let col = |j: usize| (0..m).map(|i| d[i * n + j].norm()).sum::<f64>();
    let fro = d.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    let max = |it: &mut dyn Iterator<Item = f64>| it.fold(f64::MIN, f64::max);
    let min = |it: &mut dyn Iterator<Item = f64>| it.fold(f64::MAX, f64::min);
    let cases = [
        (None, fro),
        (Some(NormOrd::Fro), fro),
        (Some(NormOrd::Inf), max(&mut (0..m).map(row))),
        (Some(NormOrd::NegInf), min(&mut (0..m).map(row))),
        (Some(NormOrd::P(1.0)), max(&mut (0..n).map(col))),
        (Some(NormOrd::P(-1.0)), min(&mut (0..n).map(col))),
    ];
    for (ord, want) in cases {
        let got = linalg::norm(&a, ord)?.to_scalar()?;
        let got = cuarray::Element::to_f64(got);
        if (got - want).abs() > T::ERR * 1e-2 * want.max(1.0) {
            return Err(format!("norm {ord:?}: {got}, want {want}").into());
        }
    }
    expect_err(
        "ord 2",
        linalg::norm(&a, Some(NormOrd::P(2.0))),
        "not a norm",
    )?;
    let empty = Mat {
        m: 0,
        n: 4,
        r: vec![],
        c: vec![],
        v: vec![],
    }
    .csr::<T>(dev)?;
    let z = cuarray::Element::to_f64(linalg::norm(&empty, Some(NormOrd::Inf))?.to_scalar()?);
    if z != 0.0 {
        return Err(format!("norm of an empty matrix: {z}").into());
    }
    Ok(())
}

/// `exp(A) b` on the host: 64 steps of a 30-term Taylor series of `exp(A / 64)`.
fn host_expm_multiply(a: &Mat, b: &[C]) -> Vec<C> {
    let mut y = b.to_vec();
    for _ in 0..64 {
        let mut term = y.clone();
        let mut sum = y.clone();
        for k in 1..30 {
            term = a
                .matvec(&term)
                .into_iter()
                .map(|z| z / (64.0 * k as f64))
                .collect();
            for (s, t) in sum.iter_mut().zip(&term) {
                *s += t;
            }
        }
        y = sum;
    }
    y
}

fn expm<T: Scalar>(dev: &Device) -> TResult
where
    T::Real: SparseElement + cuarray::FloatElement,
{
    let mut rng = Rng::for_name(&format!("sparse_solvers/expm_multiply/{}", T::NAME));
    for scale in [-0.05, -1.0, 0.7] {
        let mut mat = stencil(5, 0.4);
        if T::COMPLEX {
            mat = mat.phased().shift(C::new(0.0, 0.3));
        }
        for v in mat.v.iter_mut() {
            *v *= scale;
        }
        let a = mat.csr::<T>(dev)?;
        let bh = random_vec(&mut rng, 25, T::COMPLEX);
        let y = linalg::expm_multiply(&a, &dev_vec::<T>(dev, &bh)?)?;
        expect_close(
            &format!("scale {scale}"),
            &host_vec(&y)?,
            &host_expm_multiply(&mat, &bh),
            T::ERR * 1e-1,
        )?;
        // Two right-hand sides.
        let b2h = random_vec(&mut rng, 50, T::COMPLEX);
        let b2 = DeviceArray::from_host(
            dev,
            &b2h.iter().map(|&z| T::of(z)).collect::<Vec<T>>(),
            &[25, 2],
        )?;
        let y2 = host_vec(&linalg::expm_multiply(&a, &b2)?)?;
        for col in 0..2 {
            let bc: Vec<C> = (0..25).map(|i| b2h[i * 2 + col]).collect();
            let got: Vec<C> = (0..25).map(|i| y2[i * 2 + col]).collect();
            expect_close(
                &format!("scale {scale} column {col}"),
                &got,
                &host_expm_multiply(&mat, &bc),
                T::ERR * 1e-1,
            )?;
        }
    }
    let short = DeviceArray::<T>::zeros(dev, &[3])?;
    let a = stencil(2, 0.0).csr::<T>(dev)?;
    expect_err("b shape", linalg::expm_multiply(&a, &short), "square")?;
    Ok(())
}

fn eigen<T: Scalar>(dev: &Device) -> TResult {
    let g = 12;
    let n = g * g;
    let mat = if T::COMPLEX {
        stencil(g, 0.0).phased()
    } else {
        stencil(g, 0.0)
    };
    let a = mat.csr::<T>(dev)?;
    let all = poisson_eigenvalues(g);
    let k = 4;
    // f64 at the default tolerance (machine epsilon); f32 at 1e-4.
    let tol = if T::ERR > 1e-4 { 1e-4 } else { 0.0 };
    let accept = if T::ERR > 1e-4 { 1e-3 } else { 1e-9 };
    for which in [
        Which::LargestAlgebraic,
        Which::SmallestAlgebraic,
        Which::LargestMagnitude,
    ] {
        let (w, v) = linalg::eigsh(&a, k, which, tol, None)?;
        let w: Vec<f64> = w
            .to_host()?
            .into_iter()
            .map(cuarray::Element::to_f64)
            .collect();
        let want: Vec<f64> = match which {
            Which::SmallestAlgebraic => all[..k].to_vec(),
            _ => all[n - k..].to_vec(),
        };
        for (got, want) in w.iter().zip(&want) {
            if (got - want).abs() > accept * 8.0 {
                return Err(format!("{which:?}: eigenvalues {w:?}, want {want:?}").into());
            }
        }
        if v.shape() != [n, k] {
            return Err(format!("{which:?}: vectors of shape {:?}", v.shape()).into());
        }
        let vh = host_vec(&v)?;
        for (i, wi) in w.iter().enumerate() {
            let col: Vec<C> = (0..n).map(|r| vh[r * k + i]).collect();
            let av = mat.matvec(&col);
            let res: Vec<C> = av.iter().zip(&col).map(|(a, c)| a - c * wi).collect();
            if (norm(&col) - 1.0).abs() > accept * 10.0 || norm(&res) > accept * 8.0 * 10.0 {
                return Err(format!(
                    "{which:?}: pair {i}: ‖v‖ = {}, ‖A v - w v‖ = {}",
                    norm(&col),
                    norm(&res)
                )
                .into());
            }
        }
    }
    // Too few restarts: an error, never a hang.
    match linalg::eigsh(&a, k, Which::SmallestAlgebraic, 0.0, Some(1)) {
        Err(Error::NoConvergence { .. }) => {}
        other => {
            return Err(
                format!("maxiter 1: want NoConvergence, got {:?}", other.map(|_| ())).into(),
            )
        }
    }
    expect_err(
        "k = 0",
        linalg::eigsh(&a, 0, Which::LargestAlgebraic, 0.0, None),
        "k must",
    )?;
    expect_err(
        "k = n",
        linalg::eigsh(&a, n, Which::LargestAlgebraic, 0.0, None),
        "k must",
    )?;
    let a2 = a.clone();
    let op = FnOperator::new((n, n), move |x: &DeviceArray<T>| a2.matvec(x));
    expect_err(
        "no device",
        linalg::eigsh(&op, k, Which::LargestAlgebraic, 0.0, None),
        "device",
    )?;
    let a3 = a.clone();
    let op = FnOperator::new((n, n), move |x: &DeviceArray<T>| a3.matvec(x)).with_device(dev);
    let (w, _) = linalg::eigsh(&op, 2, Which::LargestAlgebraic, tol, None)?;
    if w.shape() != [2] {
        return Err("eigsh through FnOperator".into());
    }
    Ok(())
}

/// svds of matrices whose columns (rows) have disjoint supports: the singular values are
/// the column (row) norms.
fn singular<T: Scalar>(dev: &Device) -> TResult {
    let mut rng = Rng::for_name(&format!("sparse_solvers/svds/{}", T::NAME));
    let (m, n, k) = (27, 12, 3);
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..m {
        r.push(i);
        c.push(i % n);
        let im = if T::COMPLEX {
            rng.range(-1.0, 1.0)
        } else {
            0.0
        };
        v.push(C::new(rng.range(0.2, 2.0), im));
    }
    let tall_mat = Mat { m, n, r, c, v };
    let accept = T::ERR * 1e-1;
    for mat in [tall_mat.clone(), tall_mat.transpose()] {
        let a = mat.csr::<T>(dev)?;
        let (u, s, vh) = linalg::svds(&a, k)?;
        let (rows, cols) = (mat.m, mat.n);
        if u.shape() != [rows, k] || s.shape() != [k] || vh.shape() != [k, cols] {
            return Err(format!("shapes {:?} {:?} {:?}", u.shape(), s.shape(), vh.shape()).into());
        }
        let d = mat.dense();
        let mut want: Vec<f64> = (0..n)
            .map(|j| {
                if rows == m {
                    (0..m).map(|i| d[i * n + j].norm_sqr()).sum::<f64>().sqrt()
                } else {
                    (0..m).map(|i| d[j * m + i].norm_sqr()).sum::<f64>().sqrt()
                }
            })
            .collect();
        want.sort_by(f64::total_cmp);
        let want = &want[n - k..];
        let s: Vec<f64> = s
            .to_host()?
            .into_iter()
            .map(cuarray::Element::to_f64)
            .collect();
        for (g, w) in s.iter().zip(want) {
            if (g - w).abs() > accept * w {
                return Err(format!("singular values {s:?}, want {want:?}").into());
            }
        }
        // A v_i = s_i u_i with v_i = conj(vh[i, :]).
        let (uh, vhh) = (host_vec(&u)?, host_vec(&vh)?);
        for (i, si) in s.iter().enumerate() {
            let vi: Vec<C> = (0..cols).map(|j| vhh[i * cols + j].conj()).collect();
            let ui: Vec<C> = (0..rows).map(|r| uh[r * k + i] * si).collect();
            expect_close(&format!("A v_{i}"), &mat.matvec(&vi), &ui, accept)?;
        }
    }
    let a = tall_mat.csr::<T>(dev)?;
    expect_err("k", linalg::svds(&a, n), "k must")?;
    Ok(())
}

fn typed<T: Scalar>(out: &mut Vec<Trial>)
where
    T::Real: SparseElement + cuarray::FloatElement,
{
    out.push(gpu_trial(
        format!("sparse_solvers/rmatvec/{}/13x7", T::NAME),
        adjoints::<T>,
    ));
    out.push(gpu_trial(
        format!("sparse_solvers/spsolve_triangular/{}/50", T::NAME),
        triangular::<T>,
    ));
    out.push(gpu_trial(
        format!("sparse_solvers/norm/{}/37x53", T::NAME),
        norms::<T>,
    ));
    out.push(gpu_trial(
        format!("sparse_solvers/expm_multiply/{}/25", T::NAME),
        expm::<T>,
    ));
    out.push(gpu_trial(
        format!("sparse_solvers/eigsh/{}/poisson_12x12", T::NAME),
        eigen::<T>,
    ));
    out.push(gpu_trial(
        format!("sparse_solvers/svds/{}/27x12", T::NAME),
        singular::<T>,
    ));
}

pub fn trials(out: &mut Vec<Trial>) {
    typed::<f32>(out);
    typed::<f64>(out);
    typed::<Complex32>(out);
    typed::<Complex64>(out);
    out.push(gpu_trial(
        "sparse_direct/spsolve/f64/convdiff_10x10",
        spsolve::<f64>,
    ));
    out.push(gpu_trial(
        "sparse_direct/spsolve/f32/convdiff_10x10",
        spsolve::<f32>,
    ));
    out.push(gpu_trial(
        "sparse_direct/spsolve/c128/convdiff_10x10",
        spsolve::<Complex64>,
    ));
    out.push(gpu_trial(
        "sparse_direct/spsolve/c64/convdiff_10x10",
        spsolve::<Complex32>,
    ));
    out.push(gpu_trial(
        "sparse_direct/spsolve_triangular/f64/full_matrix",
        triangular_other_ignored,
    ));
}
