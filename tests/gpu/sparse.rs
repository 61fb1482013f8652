//! Sparse matrices (cuSPARSE): triplet assembly, checked construction from device parts,
//! to_dense, SpMV and SpMM (CSR, and CSC through the transpose) against host dense
//! products in f64, for f32, f64 and c64 with i32 and i64 indices, rectangular and
//! empty-row matrices, nnz = 0, non-contiguous operands; the validation errors; and cg on
//! a small SPD Poisson matrix against a host solve.

use crate::common::{gpu_trial, gpu_trial_exclusive, Rng, TResult};
use cuarray::sparse::{self, linalg, CsrMatrix, SparseElement, SparseIndex};
use cuarray::{Complex32, Device, DeviceArray, Error};
use libtest_mimic::Trial;

/// An element as a complex number in f64, and back.
pub(crate) trait Val: SparseElement {
    fn of(re: f64, im: f64) -> Self;
    fn parts(self) -> (f64, f64);
    const TOL: f64;
}
impl Val for f32 {
    fn of(re: f64, _: f64) -> Self {
        re as f32
    }
    fn parts(self) -> (f64, f64) {
        (self as f64, 0.0)
    }
    const TOL: f64 = 1e-4;
}
impl Val for f64 {
    fn of(re: f64, _: f64) -> Self {
        re
    }
    fn parts(self) -> (f64, f64) {
        (self, 0.0)
    }
    const TOL: f64 = 1e-11;
}
impl Val for Complex32 {
    fn of(re: f64, im: f64) -> Self {
        Complex32::new(re as f32, im as f32)
    }
    fn parts(self) -> (f64, f64) {
        (self.re as f64, self.im as f64)
    }
    const TOL: f64 = 1e-4;
}

pub(crate) fn mulc(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

pub(crate) fn close<T: Val>(what: &str, got: &[T], want: &[(f64, f64)]) -> TResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, want {}", got.len(), want.len()).into());
    }
    let scale = want
        .iter()
        .fold(1.0f64, |s, w| s.max(w.0.abs()).max(w.1.abs()));
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let g = g.parts();
        if (g.0 - w.0).abs() > T::TOL * scale || (g.1 - w.1).abs() > T::TOL * scale {
            return Err(format!("{what}[{k}]: got {g:?}, want {w:?}").into());
        }
    }
    Ok(())
}

/// Random triplets of an (m, n) matrix with duplicates and rows left empty.
pub(crate) fn triplets<T: Val>(
    rng: &mut Rng,
    m: usize,
    n: usize,
    count: usize,
) -> (Vec<usize>, Vec<usize>, Vec<T>) {
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    if m == 0 || n == 0 {
        return (r, c, v);
    }
    for _ in 0..count {
        let row = rng.below(m);
        if row % 3 == 1 {
            continue; // every third row stays empty
        }
        r.push(row);
        c.push(rng.below(n));
        v.push(T::of(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)));
    }
    (r, c, v)
}

pub(crate) fn host_dense<T: Val>(
    m: usize,
    n: usize,
    r: &[usize],
    c: &[usize],
    v: &[T],
) -> Vec<(f64, f64)> {
    let mut d = vec![(0.0, 0.0); m * n];
    for k in 0..v.len() {
        let e = &mut d[r[k] * n + c[k]];
        let p = v[k].parts();
        e.0 += p.0;
        e.1 += p.1;
    }
    d
}

pub(crate) fn idx<I: SparseIndex>(v: &[usize]) -> Vec<I> {
    v.iter().map(|&x| I::from_u64_wrapping(x as u64)).collect()
}

fn products<T: Val, I: SparseIndex>(dev: &Device, m: usize, n: usize, count: usize) -> TResult {
    let mut rng = Rng::for_name(&format!("sparse/{m}x{n}/{count}"));
    let (r, c, v) = triplets::<T>(&mut rng, m, n, count);
    let a = CsrMatrix::<T, I>::from_triplets(dev, &idx::<I>(&r), &idx::<I>(&c), &v, (m, n))?;
    let want = host_dense(m, n, &r, &c, &v);
    close("to_dense", &a.to_dense()?.to_host()?, &want)?;
    // Round trip through the device parts (validated) and through a dense array.
    let b = CsrMatrix::from_parts(a.indptr(), a.indices(), a.data(), (m, n))?;
    close("from_parts", &b.to_dense()?.to_host()?, &want)?;
    let back = CsrMatrix::<T, I>::from_dense(&a.to_dense()?)?;
    close("from_dense", &back.to_dense()?.to_host()?, &want)?;
    // SpMV with a non-contiguous x (every other element of a longer vector).
    let xs: Vec<T> = (0..2 * n)
        .map(|_| T::of(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)))
        .collect();
    let xd = DeviceArray::from_slice(dev, &xs)?.slice(cuarray::s![..;2])?;
    let x: Vec<(f64, f64)> = xs.iter().step_by(2).map(|e| e.parts()).collect();
    let y = a.matvec(&xd)?;
    let mut wy = vec![(0.0, 0.0); m];
    for i in 0..m {
        for j in 0..n {
            let p = mulc(want[i * n + j], x[j]);
            wy[i].0 += p.0;
            wy[i].1 += p.1;
        }
    }
    close("matvec", &y.to_host()?, &wy)?;
    // CSC: the transpose times a vector of m.
    let xt: Vec<T> = (0..m).map(|_| T::of(rng.range(-1.0, 1.0), 0.5)).collect();
    let yt = a.t().matvec(&DeviceArray::from_slice(dev, &xt)?)?;
    let mut wt = vec![(0.0, 0.0); n];
    for i in 0..m {
        for j in 0..n {
            let p = mulc(want[i * n + j], xt[i].parts());
            wt[j].0 += p.0;
            wt[j].1 += p.1;
        }
    }
    close("t().matvec", &yt.to_host()?, &wt)?;
    close("t().to_dense", &a.t().t().to_dense()?.to_host()?, &want)?;
    // SpMM with 5 columns.
    let k = 5;
    let bs: Vec<T> = (0..n * k)
        .map(|_| T::of(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)))
        .collect();
    let c2 = a.matmul(&DeviceArray::from_host(dev, &bs, &[n, k])?)?;
    let mut wc = vec![(0.0, 0.0); m * k];
    for i in 0..m {
        for j in 0..n {
            for l in 0..k {
                let p = mulc(want[i * n + j], bs[j * k + l].parts());
                wc[i * k + l].0 += p.0;
                wc[i * k + l].1 += p.1;
            }
        }
    }
    close("matmul", &c2.to_host()?, &wc)?;
    // The same B in Fortran order (read in place, a column-major product), and A's
    // transpose (CSC) times a Fortran-order B of m rows.
    let bf = DeviceArray::from_host(dev, &bs, &[n, k])?
        .t()
        .contiguous()?
        .t();
    let c3 = a.matmul(&bf)?;
    if c3.shape() != [m, k] {
        return Err(format!("Fortran-order matmul shape {:?}", c3.shape()).into());
    }
    close(
        "matmul (Fortran-order B)",
        &c3.contiguous()?.to_host()?,
        &wc,
    )?;
    let bt: Vec<T> = (0..m * k)
        .map(|_| T::of(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)))
        .collect();
    let ct = a.t().matmul(
        &DeviceArray::from_host(dev, &bt, &[m, k])?
            .t()
            .contiguous()?
            .t(),
    )?;
    let mut wct = vec![(0.0, 0.0); n * k];
    for i in 0..m {
        for j in 0..n {
            for l in 0..k {
                let p = mulc(want[i * n + j], bt[i * k + l].parts());
                wct[j * k + l].0 += p.0;
                wct[j * k + l].1 += p.1;
            }
        }
    }
    close(
        "t().matmul (Fortran-order B)",
        &ct.contiguous()?.to_host()?,
        &wct,
    )?;
    close("&a * &x", &(&a * &xd)?.to_host()?, &wy)?;
    Ok(())
}

pub(crate) fn expect_invalid(
    what: &str,
    r: cuarray::Result<impl std::fmt::Debug>,
    needle: &str,
) -> TResult {
    match r {
        Err(e @ (Error::InvalidArgument { .. } | Error::ShapeMismatch { .. }))
            if e.to_string().contains(needle) =>
        {
            Ok(())
        }
        other => Err(format!("{what}: want an error naming {needle:?}, got {other:?}").into()),
    }
}

fn validation(dev: &Device) -> TResult {
    let p = |v: &[i32]| DeviceArray::from_slice(dev, v);
    let data = DeviceArray::from_slice(dev, &[1.0f64, 2.0, 3.0])?;
    expect_invalid(
        "short indptr",
        CsrMatrix::from_parts(&p(&[0, 3])?, &p(&[0, 1, 2])?, &data, (2, 3)),
        "indptr",
    )?;
    expect_invalid(
        "lengths",
        CsrMatrix::from_parts(&p(&[0, 1, 3])?, &p(&[0, 1])?, &data, (2, 3)),
        "indices and data",
    )?;
    expect_invalid(
        "first",
        CsrMatrix::from_parts(&p(&[1, 2, 3])?, &p(&[0, 1, 2])?, &data, (2, 3)),
        "indptr[0]",
    )?;
    expect_invalid(
        "last",
        CsrMatrix::from_parts(&p(&[0, 1, 2])?, &p(&[0, 1, 2])?, &data, (2, 3)),
        "indptr[m]",
    )?;
    expect_invalid(
        "monotone",
        CsrMatrix::from_parts(&p(&[0, 2, 1, 3])?, &p(&[0, 1, 2])?, &data, (3, 3)),
        "decrease",
    )?;
    expect_invalid(
        "column",
        CsrMatrix::from_parts(&p(&[0, 1, 3])?, &p(&[0, 1, 3])?, &data, (2, 3)),
        "outside 0..3",
    )?;
    expect_invalid(
        "negative",
        CsrMatrix::from_parts(&p(&[0, 1, 3])?, &p(&[0, -1, 2])?, &data, (2, 3)),
        "outside 0..3",
    )?;
    expect_invalid(
        "triplets",
        CsrMatrix::from_triplets(dev, &[0, 5], &[0, 0], &[1.0f64, 1.0], (2, 2)),
        "rows[1]",
    )?;
    let a = CsrMatrix::from_parts(&p(&[0, 1, 3])?, &p(&[0, 1, 2])?, &data, (2, 3))?;
    expect_invalid(
        "matvec",
        a.matvec(&DeviceArray::<f64>::zeros(dev, &[2])?),
        "needs 3 rows",
    )?;
    expect_invalid(
        "matmul",
        a.matmul(&DeviceArray::<f64>::zeros(dev, &[2, 4])?),
        "needs 3 rows",
    )?;
    Ok(())
}

/// cg on the 2-D Poisson matrix of a g x g grid against a host dense solve.
fn cg_poisson(dev: &Device) -> TResult {
    let g = 12usize;
    let n = g * g;
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..g {
        for j in 0..g {
            let k = i * g + j;
            r.push(k as i32);
            c.push(k as i32);
            v.push(4.0f64);
            for (di, dj) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                let (a, b) = (i as i64 + di, j as i64 + dj);
                if a >= 0 && b >= 0 && a < g as i64 && b < g as i64 {
                    r.push(k as i32);
                    c.push((a as usize * g + b as usize) as i32);
                    v.push(-1.0);
                }
            }
        }
    }
    let a = CsrMatrix::<f64>::from_triplets(dev, &r, &c, &v, (n, n))?;
    let bh: Vec<f64> = (0..n).map(|k| ((k * 7) % 11) as f64 - 5.0).collect();
    let b = DeviceArray::from_slice(dev, &bh)?;
    let tol = linalg::Tol {
        rtol: 1e-10,
        atol: 0.0,
    };
    let (x, info) = linalg::cg(&a, &b, None, tol, None, None)?;
    if !info.converged || info.residual > 1e-10 * bh.iter().map(|e| e * e).sum::<f64>().sqrt() {
        return Err(format!("cg did not converge: {info:?}").into());
    }
    // Host dense solve (Gaussian elimination, the matrix is SPD).
    let mut m = vec![0.0f64; n * n];
    for k in 0..v.len() {
        m[r[k] as usize * n + c[k] as usize] += v[k];
    }
    let mut rhs = bh.clone();
    for p in 0..n {
        for q in p + 1..n {
            let f = m[q * n + p] / m[p * n + p];
            if f != 0.0 {
                for l in p..n {
                    m[q * n + l] -= f * m[p * n + l];
                }
                rhs[q] -= f * rhs[p];
            }
        }
    }
    let mut want = vec![0.0; n];
    for p in (0..n).rev() {
        let s: f64 = (p + 1..n).map(|l| m[p * n + l] * want[l]).sum();
        want[p] = (rhs[p] - s) / m[p * n + p];
    }
    let want: Vec<(f64, f64)> = want.into_iter().map(|w| (w, 0.0)).collect();
    let got = x.to_host()?;
    let scale = want.iter().fold(1.0f64, |s, w| s.max(w.0.abs()));
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if (g - w.0).abs() > 1e-7 * scale {
            return Err(format!("cg x[{k}] = {g}, want {}", w.0).into());
        }
    }
    // maxiter too small: not converged, never an error.
    let (_, info) = linalg::cg(&a, &b, None, tol, Some(3), None)?;
    if info.converged || info.iterations != 3 {
        return Err(format!("cg with maxiter 3: {info:?}").into());
    }
    // A closure operator and a Jacobi preconditioner give the same solution.
    let a2 = a.clone();
    let op = linalg::FnOperator::new((n, n), move |x: &DeviceArray<f64>| a2.matvec(x));
    let jacobi = sparse::eye::<f64, i32>(dev, n, 0)?;
    let (x2, info2) = linalg::cg(&op, &b, None, tol, None, Some(&jacobi))?;
    if !info2.converged {
        return Err(format!("cg through FnOperator: {info2:?}").into());
    }
    close("cg FnOperator", &x2.to_host()?, &want)?;
    expect_invalid(
        "cg shape",
        linalg::cg(
            &a,
            &DeviceArray::<f64>::zeros(dev, &[3])?,
            None,
            tol,
            None,
            None,
        ),
        "b must",
    )?;
    Ok(())
}

fn eye_and_diags(dev: &Device) -> TResult {
    let e = sparse::eye::<f64, i64>(dev, 4, -1)?;
    let mut want = vec![(0.0, 0.0); 16];
    for i in 1..4 {
        want[i * 4 + i - 1] = (1.0, 0.0);
    }
    close("eye", &e.to_dense()?.to_host()?, &want)?;
    let d0 = DeviceArray::from_slice(dev, &[1.0f64, 2.0, 3.0])?;
    let d1 = DeviceArray::from_slice(dev, &[9.0f64])?;
    let d = sparse::diags::<f64, i32>(dev, &[&d0, &d1], &[0, 1], (3, 4))?;
    let want: Vec<(f64, f64)> = [1.0, 9.0, 0.0, 0.0, 0.0, 2.0, 9.0, 0.0, 0.0, 0.0, 3.0, 9.0]
        .iter()
        .map(|&x| (x, 0.0))
        .collect();
    close("diags", &d.to_dense()?.to_host()?, &want)
}

/// SpMV and SpMM captured into a CUDA graph read the operands' memory at each launch.
fn captured(dev: &Device) -> TResult {
    let a = CsrMatrix::<f32>::from_triplets(dev, &[0, 1, 1], &[1, 0, 2], &[2.0, 3.0, 4.0], (2, 3))?;
    let x = DeviceArray::from_slice(dev, &[1.0f32, 2.0, 3.0])?;
    let y = DeviceArray::<f32>::zeros(dev, &[2])?;
    let b = DeviceArray::<f32>::ones(dev, &[3, 2])?;
    let c = DeviceArray::<f32>::zeros(dev, &[2, 2])?;
    // cuSPARSE's handle is made by the first call on the device, which a capture refuses
    // (a clear error, not a broken capture): one call first.
    a.matvec(&x)?;
    let g = dev.capture(|| {
        y.assign(&a.matvec(&x)?)?;
        c.assign(&a.matmul(&b)?)
    })?;
    x.assign(&DeviceArray::from_slice(dev, &[1.0f32, 1.0, 1.0])?)?;
    g.launch()?;
    let (yv, cv) = (y.to_host()?, c.to_host()?);
    if yv != vec![2.0, 7.0] || cv != vec![2.0, 2.0, 7.0, 7.0] {
        return Err(format!("captured products: y {yv:?}, c {cv:?}").into());
    }
    Ok(())
}

/// CSC from device parts, and i64 structure errors.
fn csc_and_i64(dev: &Device) -> TResult {
    // [[1, 0], [2, 3], [0, 4]] by columns.
    let p = DeviceArray::from_slice(dev, &[0i64, 2, 4])?;
    let i = DeviceArray::from_slice(dev, &[0i64, 1, 1, 2])?;
    let d = DeviceArray::from_slice(dev, &[1.0f64, 2.0, 3.0, 4.0])?;
    let a = sparse::CscMatrix::from_parts(&p, &i, &d, (3, 2))?;
    let want: Vec<(f64, f64)> = [1.0, 0.0, 2.0, 3.0, 0.0, 4.0]
        .iter()
        .map(|&v| (v, 0.0))
        .collect();
    close("csc to_dense", &a.to_dense()?.to_host()?, &want)?;
    let y = a.matvec(&DeviceArray::from_slice(dev, &[1.0, 10.0])?)?;
    close(
        "csc matvec",
        &y.to_host()?,
        &[(1.0, 0.0), (32.0, 0.0), (40.0, 0.0)],
    )?;
    let bad = DeviceArray::from_slice(dev, &[0i64, 1, 1])?;
    expect_invalid(
        "csc row index",
        sparse::CscMatrix::from_parts(&p, &bad, &d, (3, 2)),
        "indices and data",
    )?;
    let far = DeviceArray::from_slice(dev, &[0i64, 1, 1, 3])?;
    expect_invalid(
        "csc row range",
        sparse::CscMatrix::from_parts(&p, &far, &d, (3, 2)),
        "outside 0..3",
    )?;
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    for (m, n, count) in [
        (37, 53, 300),
        (64, 16, 500),
        (1, 1, 1),
        (5, 7, 0),
        (0, 4, 0),
        (300, 200, 4000),
    ] {
        let layout = format!("{m}x{n}_nnz{count}");
        out.push(gpu_trial(
            format!("sparse/products/f32/i32/{layout}"),
            move |d| products::<f32, i32>(d, m, n, count),
        ));
        out.push(gpu_trial(
            format!("sparse/products/f64/i64/{layout}"),
            move |d| products::<f64, i64>(d, m, n, count),
        ));
        out.push(gpu_trial(
            format!("sparse/products/c64/i32/{layout}"),
            move |d| products::<Complex32, i32>(d, m, n, count),
        ));
    }
    out.push(gpu_trial("sparse/validation/f64/i32/errors", validation));
    out.push(gpu_trial("sparse/eye_diags/f64/i64/square", eye_and_diags));
    out.push(gpu_trial("sparse/cg/f64/i32/poisson_12x12", cg_poisson));
    out.push(gpu_trial_exclusive(
        "sparse/capture/f32/i32/spmv_spmm",
        captured,
    ));
    out.push(gpu_trial("sparse/csc/f64/i64/from_parts", csc_and_i64));
}
