//! Sparse solvers against host references in f64 (complex): gmres, bicgstab, cgs and
//! minres on an SPD (2-D Poisson), a non-symmetric (convection-diffusion) and an
//! indefinite (shifted Poisson) matrix with known solutions, for f32, f64, c64 and c128;
//! each solver's `Info` when `maxiter` is too small (not converged, never a hang), from
//! an exact `x0`, with a preconditioner; lsqr and lsmr (overdetermined, damped,
//! consistent); spsolve_triangular, spsolve, norm, expm_multiply, eigsh (every `Which`,
//! a complex Hermitian matrix unitarily similar to Poisson), svds (tall and wide), the
//! adjoint products; and the errors.

use crate::common::{gpu_trial, Rng, TResult};
use cuarray::linalg::NormOrd;
use cuarray::sparse::linalg::{self, FnOperator, Info, LinearOperator, Tol, Which};
use cuarray::sparse::{CsrMatrix, SparseElement};
use cuarray::{Complex32, Complex64, ContractElement, Device, DeviceArray, Error, InexactElement};
use libtest_mimic::Trial;

type C = Complex64;

/// An element type of the trials: its conversions to and from `Complex64`, the solver
/// tolerance it is run at and the accuracy expected of its solutions.
trait Scalar: SparseElement + ContractElement + InexactElement {
    const NAME: &'static str;
    const COMPLEX: bool;
    /// The `rtol` the solvers are given.
    const RTOL: f64;
    /// The relative error accepted in a solution (the matrices' condition is about 40).
    const ERR: f64;
    fn of(z: C) -> Self;
    fn c(self) -> C;
}

impl Scalar for f32 {
    const NAME: &'static str = "f32";
    const COMPLEX: bool = false;
    const RTOL: f64 = 1e-4;
    const ERR: f64 = 2e-2;
    fn of(z: C) -> Self {
        z.re as f32
    }
    fn c(self) -> C {
        C::new(self as f64, 0.0)
    }
}
impl Scalar for f64 {
    const NAME: &'static str = "f64";
    const COMPLEX: bool = false;
    const RTOL: f64 = 1e-10;
    const ERR: f64 = 1e-7;
    fn of(z: C) -> Self {
        z.re
    }
    fn c(self) -> C {
        C::new(self, 0.0)
    }
}
impl Scalar for Complex32 {
    const NAME: &'static str = "c64";
    const COMPLEX: bool = true;
    const RTOL: f64 = 1e-4;
    const ERR: f64 = 2e-2;
    fn of(z: C) -> Self {
        Complex32::new(z.re as f32, z.im as f32)
    }
    fn c(self) -> C {
        C::new(self.re as f64, self.im as f64)
    }
}
impl Scalar for Complex64 {
    const NAME: &'static str = "c128";
    const COMPLEX: bool = true;
    const RTOL: f64 = 1e-10;
    const ERR: f64 = 1e-7;
    fn of(z: C) -> Self {
        z
    }
    fn c(self) -> C {
        self
    }
}

/// A host matrix as triplets (no duplicates), values in `Complex64`.
#[derive(Clone)]
struct Mat {
    m: usize,
    n: usize,
    r: Vec<usize>,
    c: Vec<usize>,
    v: Vec<C>,
}

impl Mat {
    fn csr<T: Scalar>(&self, dev: &Device) -> cuarray::Result<CsrMatrix<T>> {
        let r: Vec<i32> = self.r.iter().map(|&x| x as i32).collect();
        let c: Vec<i32> = self.c.iter().map(|&x| x as i32).collect();
        let v: Vec<T> = self.v.iter().map(|&z| T::of(z)).collect();
        CsrMatrix::from_triplets(dev, &r, &c, &v, (self.m, self.n))
    }
    fn matvec(&self, x: &[C]) -> Vec<C> {
        let mut y = vec![C::new(0.0, 0.0); self.m];
        for k in 0..self.v.len() {
            y[self.r[k]] += self.v[k] * x[self.c[k]];
        }
        y
    }
    fn rmatvec(&self, x: &[C]) -> Vec<C> {
        let mut y = vec![C::new(0.0, 0.0); self.n];
        for k in 0..self.v.len() {
            y[self.c[k]] += self.v[k].conj() * x[self.r[k]];
        }
        y
    }
    fn dense(&self) -> Vec<C> {
        let mut d = vec![C::new(0.0, 0.0); self.m * self.n];
        for k in 0..self.v.len() {
            d[self.r[k] * self.n + self.c[k]] += self.v[k];
        }
        d
    }
    fn transpose(&self) -> Mat {
        Mat {
            m: self.n,
            n: self.m,
            r: self.c.clone(),
            c: self.r.clone(),
            v: self.v.clone(),
        }
    }
    /// The matrix plus `s` on the diagonal.
    fn shift(&self, s: C) -> Mat {
        let mut out = self.clone();
        for k in 0..out.v.len() {
            if out.r[k] == out.c[k] {
                out.v[k] += s;
            }
        }
        out
    }
    /// `D^H A D` for the diagonal unitary `D = diag(exp(i k))`: Hermitian when `A` is,
    /// with `A`'s eigenvalues.
    fn phased(&self) -> Mat {
        let mut out = self.clone();
        for k in 0..out.v.len() {
            let (i, j) = (out.r[k] as f64, out.c[k] as f64);
            out.v[k] *= C::from_polar(1.0, 0.7 * (j - i));
        }
        out
    }
}

/// The 5-point stencil of a g x g grid: `4` on the diagonal, `-1 - w` to the west,
/// `-1 + w` to the east, `-1` north and south (`w = 0`: the SPD Poisson matrix; `w != 0`
/// convection-diffusion, non-symmetric).
fn stencil(g: usize, w: f64) -> Mat {
    let n = g * g;
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..g {
        for j in 0..g {
            let k = i * g + j;
            let mut push = |col: usize, val: f64| {
                r.push(k);
                c.push(col);
                v.push(C::new(val, 0.0));
            };
            push(k, 4.0);
            if j > 0 {
                push(k - 1, -1.0 - w);
            }
            if j + 1 < g {
                push(k + 1, -1.0 + w);
            }
            if i > 0 {
                push(k - g, -1.0);
            }
            if i + 1 < g {
                push(k + g, -1.0);
            }
        }
    }
    Mat { m: n, n, r, c, v }
}

/// The eigenvalues of the g x g Poisson matrix, ascending.
fn poisson_eigenvalues(g: usize) -> Vec<f64> {
    let h = std::f64::consts::PI / (g + 1) as f64;
    let mut l: Vec<f64> = (1..=g)
        .flat_map(|i| {
            (1..=g).map(move |j| 4.0 - 2.0 * (i as f64 * h).cos() - 2.0 * (j as f64 * h).cos())
        })
        .collect();
    l.sort_by(f64::total_cmp);
    l
}

/// The trial matrices by name, complex-valued for complex element types.
fn matrix(name: &str, complex: bool) -> Mat {
    let g = 10;
    let base = match name {
        "poisson" => stencil(g, 0.0),
        "convdiff" => stencil(g, 0.4),
        // Eigenvalues on both sides of 1.642, at least 0.154 away from it.
        "indefinite" => stencil(g, 0.0).shift(C::new(-1.642, 0.0)),
        _ => unreachable!("{name}"),
    };
    match (complex, name) {
        (false, _) => base,
        (true, "convdiff") => base.phased().shift(C::new(0.0, 0.3)),
        (true, _) => base.phased(),
    }
}

fn random_vec(rng: &mut Rng, n: usize, complex: bool) -> Vec<C> {
    (0..n)
        .map(|_| {
            let im = if complex { rng.range(-1.0, 1.0) } else { 0.0 };
            C::new(rng.range(-1.0, 1.0), im)
        })
        .collect()
}

fn dev_vec<T: Scalar>(dev: &Device, v: &[C]) -> cuarray::Result<DeviceArray<T>> {
    let t: Vec<T> = v.iter().map(|&z| T::of(z)).collect();
    DeviceArray::from_slice(dev, &t)
}

fn host_vec<T: Scalar>(a: &DeviceArray<T>) -> cuarray::Result<Vec<C>> {
    Ok(a.to_host()?.into_iter().map(Scalar::c).collect())
}

fn norm(v: &[C]) -> f64 {
    v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

fn rel_err(got: &[C], want: &[C]) -> f64 {
    let d: Vec<C> = got.iter().zip(want).map(|(g, w)| g - w).collect();
    norm(&d) / norm(want).max(f64::MIN_POSITIVE)
}

fn expect_close(what: &str, got: &[C], want: &[C], tol: f64) -> TResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, want {}", got.len(), want.len()).into());
    }
    let e = rel_err(got, want);
    if e.is_nan() || e > tol {
        return Err(format!("{what}: relative error {e:e} > {tol:e}").into());
    }
    Ok(())
}

fn expect_err(what: &str, r: cuarray::Result<impl std::fmt::Debug>, needle: &str) -> TResult {
    match r {
        Err(e @ (Error::InvalidArgument { .. } | Error::ShapeMismatch { .. }))
            if e.to_string().contains(needle) =>
        {
            Ok(())
        }
        other => Err(format!("{what}: want an error naming {needle:?}, got {other:?}").into()),
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Gmres,
    Bicgstab,
    Cgs,
    Minres,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Gmres => "gmres",
            Kind::Bicgstab => "bicgstab",
            Kind::Cgs => "cgs",
            Kind::Minres => "minres",
        }
    }
    #[allow(clippy::type_complexity)]
    fn run<T: Scalar>(
        self,
        a: &dyn LinearOperator<T>,
        b: &DeviceArray<T>,
        x0: Option<&DeviceArray<T>>,
        tol: Tol,
        maxiter: Option<usize>,
        m: Option<&dyn LinearOperator<T>>,
    ) -> cuarray::Result<(DeviceArray<T>, Info)> {
        match self {
            Kind::Gmres => linalg::gmres(a, b, x0, tol, maxiter, m, Some(15)),
            Kind::Bicgstab => linalg::bicgstab(a, b, x0, tol, maxiter, m),
            Kind::Cgs => linalg::cgs(a, b, x0, tol, maxiter, m),
            Kind::Minres => linalg::minres(a, b, x0, tol, maxiter, m),
        }
    }
}

/// One solver on one matrix: the solution against the known one, the true residual,
/// then too few iterations, an exact `x0`, and (f64) a Jacobi preconditioner.
fn solve<T: Scalar>(dev: &Device, kind: Kind, name: &str) -> TResult {
    let mut rng = Rng::for_name(&format!(
        "sparse_solvers/{}/{}/{name}",
        kind.name(),
        T::NAME
    ));
    let mat = matrix(name, T::COMPLEX);
    let a = mat.csr::<T>(dev)?;
    let xs = random_vec(&mut rng, mat.n, T::COMPLEX);
    let bh = mat.matvec(&xs);
    let b = dev_vec::<T>(dev, &bh)?;
    let tol = Tol {
        rtol: T::RTOL,
        atol: 0.0,
    };
    let (x, info) = kind.run(&a, &b, None, tol, None, None)?;
    if !info.converged || info.residual.is_nan() || info.residual > T::RTOL * norm(&bh) * 1.0001 {
        return Err(format!("{}: {info:?}", kind.name()).into());
    }
    let xh = host_vec(&x)?;
    expect_close("x", &xh, &xs, T::ERR)?;
    let r: Vec<C> = bh
        .iter()
        .zip(mat.matvec(&xh))
        .map(|(b, ax)| b - ax)
        .collect();
    if norm(&r) > 20.0 * T::RTOL * norm(&bh) {
        return Err(format!("true residual {:e} for ‖b‖ {:e}", norm(&r), norm(&bh)).into());
    }
    // Too few iterations: not converged, said so, no error.
    let (few, limit) = match kind {
        Kind::Gmres => (Some(1), 15),
        _ => (Some(2), 2),
    };
    let (_, info) = kind.run(
        &a,
        &b,
        None,
        Tol {
            rtol: 1e-14,
            atol: 0.0,
        },
        few,
        None,
    )?;
    if info.converged || info.iterations > limit || !info.residual.is_finite() {
        return Err(format!("maxiter {few:?}: {info:?}").into());
    }
    // From the solution itself: nothing to do.
    let x0 = dev_vec::<T>(dev, &xs)?;
    let (x, info) = kind.run(&a, &b, Some(&x0), tol, None, None)?;
    if !info.converged || info.iterations != 0 {
        return Err(format!("exact x0: {info:?}").into());
    }
    expect_close("x from x0", &host_vec(&x)?, &xs, T::ERR)?;
    // b = 0: x = 0 at once.
    let zero = DeviceArray::<T>::zeros(dev, &[mat.n])?;
    let (x, info) = kind.run(&a, &zero, Some(&x0), tol, None, None)?;
    if !info.converged || norm(&host_vec(&x)?) != 0.0 {
        return Err(format!("b = 0: {info:?}").into());
    }
    // A Jacobi preconditioner (diag(A) is 4 or 4 - 1.642 + 0.3i).
    let d = mat.dense();
    let inv: Vec<C> = (0..mat.n)
        .map(|i| C::new(1.0, 0.0) / d[i * mat.n + i])
        .collect();
    let jacobi = Mat {
        m: mat.n,
        n: mat.n,
        r: (0..mat.n).collect(),
        c: (0..mat.n).collect(),
        v: inv,
    };
    if !matches!(kind, Kind::Minres) || name == "poisson" {
        let m = jacobi.csr::<T>(dev)?;
        let (x, info) = kind.run(&a, &b, None, tol, None, Some(&m))?;
        if !info.converged {
            return Err(format!("preconditioned: {info:?}").into());
        }
        expect_close("x preconditioned", &host_vec(&x)?, &xs, T::ERR)?;
    }
    // Shapes.
    let short = DeviceArray::<T>::zeros(dev, &[3])?;
    expect_err(
        "b shape",
        kind.run(&a, &short, None, tol, None, None),
        "b must",
    )?;
    expect_err(
        "x0 shape",
        kind.run(&a, &b, Some(&short), tol, None, None),
        "x0 must",
    )?;
    let rect = Mat {
        m: 3,
        n: 2,
        r: vec![0],
        c: vec![0],
        v: vec![C::new(1.0, 0.0)],
    }
    .csr::<T>(dev)?;
    expect_err(
        "square",
        kind.run(&rect, &short, None, tol, None, None),
        "square",
    )?;
    Ok(())
}

/// A full-rank `(m, n)` matrix: random entries plus 3 on the leading diagonal.
fn tall(rng: &mut Rng, m: usize, n: usize, complex: bool) -> Mat {
    let mut d = vec![C::new(0.0, 0.0); m * n];
    for i in 0..n.min(m) {
        d[i * n + i] = C::new(3.0, 0.0);
    }
    for _ in 0..3 * m {
        let (i, j) = (rng.below(m), rng.below(n));
        let im = if complex { rng.range(-1.0, 1.0) } else { 0.0 };
        d[i * n + j] += C::new(rng.range(-1.0, 1.0), im);
    }
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..m {
        for j in 0..n {
            if d[i * n + j] != C::new(0.0, 0.0) {
                r.push(i);
                c.push(j);
                v.push(d[i * n + j]);
            }
        }
    }
    Mat { m, n, r, c, v }
}

/// Solves the `n x n` system `a x = b` on the host (Gaussian elimination, partial pivots).
fn host_solve(n: usize, mut a: Vec<C>, mut b: Vec<C>) -> Vec<C> {
    for p in 0..n {
        let piv = (p..n)
            .max_by(|&i, &j| a[i * n + p].norm().total_cmp(&a[j * n + p].norm()))
            .unwrap();
        for k in 0..n {
            a.swap(p * n + k, piv * n + k);
        }
        b.swap(p, piv);
        for q in p + 1..n {
            let f = a[q * n + p] / a[p * n + p];
            for k in p..n {
                let s = a[p * n + k];
                a[q * n + k] -= f * s;
            }
            let s = b[p];
            b[q] -= f * s;
        }
    }
    let mut x = vec![C::new(0.0, 0.0); n];
    for p in (0..n).rev() {
        let s: C = (p + 1..n).map(|k| a[p * n + k] * x[k]).sum();
        x[p] = (b[p] - s) / a[p * n + p];
    }
    x
}

/// `argmin ‖b - A x‖² + damp² ‖x‖²` from the normal equations, on the host.
fn host_lstsq(a: &Mat, b: &[C], damp: f64) -> Vec<C> {
    let n = a.n;
    let mut g = vec![C::new(0.0, 0.0); n * n];
    for j in 0..n {
        let mut e = vec![C::new(0.0, 0.0); n];
        e[j] = C::new(1.0, 0.0);
        let col = a.rmatvec(&a.matvec(&e));
        for i in 0..n {
            g[i * n + j] = col[i];
        }
        g[j * n + j] += damp * damp;
    }
    host_solve(n, g, a.rmatvec(b))
}

type LsqFn<T> = fn(
    &dyn LinearOperator<T>,
    &DeviceArray<T>,
    Option<&DeviceArray<T>>,
    Tol,
    Option<usize>,
    f64,
) -> cuarray::Result<(DeviceArray<T>, Info)>;

/// lsqr or lsmr: overdetermined (inconsistent), damped, square consistent, through a
/// closure with and without an adjoint, too few iterations, the errors.
fn least_squares<T: Scalar>(dev: &Device, name: &str, f: LsqFn<T>) -> TResult {
    let mut rng = Rng::for_name(&format!("sparse_solvers/{name}/{}", T::NAME));
    let mat = tall(&mut rng, 60, 20, T::COMPLEX);
    let a = mat.csr::<T>(dev)?;
    let bh = random_vec(&mut rng, 60, T::COMPLEX);
    let b = dev_vec::<T>(dev, &bh)?;
    let tol = Tol {
        rtol: T::RTOL,
        atol: 0.0,
    };
    let (x, info) = f(&a, &b, None, tol, Some(200), 0.0)?;
    if !info.converged {
        return Err(format!("overdetermined: {info:?}").into());
    }
    expect_close(
        "least squares x",
        &host_vec(&x)?,
        &host_lstsq(&mat, &bh, 0.0),
        T::ERR,
    )?;
    let (x, info) = f(&a, &b, None, tol, Some(200), 0.7)?;
    if !info.converged {
        return Err(format!("damped: {info:?}").into());
    }
    expect_close(
        "damped x",
        &host_vec(&x)?,
        &host_lstsq(&mat, &bh, 0.7),
        T::ERR,
    )?;
    // A consistent square system: the exact solution.
    let sq = matrix("convdiff", T::COMPLEX);
    let xs = random_vec(&mut rng, sq.n, T::COMPLEX);
    let bs = dev_vec::<T>(dev, &sq.matvec(&xs))?;
    let (x, info) = f(&sq.csr::<T>(dev)?, &bs, None, tol, Some(1000), 0.0)?;
    if !info.converged {
        return Err(format!("square: {info:?}").into());
    }
    expect_close("square x", &host_vec(&x)?, &xs, T::ERR)?;
    // A closure with its adjoint gives the same; without one, an error.
    let (a1, a2) = (a.clone(), a.clone());
    let op = FnOperator::new((60, 20), move |v: &DeviceArray<T>| a1.matvec(v))
        .with_rmatvec(move |v: &DeviceArray<T>| a2.rmatvec(v));
    let (x, _) = f(&op, &b, None, tol, Some(200), 0.0)?;
    expect_close(
        "closure x",
        &host_vec(&x)?,
        &host_lstsq(&mat, &bh, 0.0),
        T::ERR,
    )?;
    let a3 = a.clone();
    let no_adjoint = FnOperator::new((60, 20), move |v: &DeviceArray<T>| a3.matvec(v));
    expect_err(
        "no adjoint",
        f(&no_adjoint, &b, None, tol, None, 0.0),
        "adjoint",
    )?;
    let (_, info) = f(
        &a,
        &b,
        None,
        Tol {
            rtol: 1e-14,
            atol: 0.0,
        },
        Some(2),
        0.0,
    )?;
    if info.converged || info.iterations != 2 {
        return Err(format!("maxiter 2: {info:?}").into());
    }
    let short = DeviceArray::<T>::zeros(dev, &[7])?;
    expect_err("b shape", f(&a, &short, None, tol, None, 0.0), "b must")?;
    expect_err(
        "x0 shape",
        f(&a, &b, Some(&short), tol, None, 0.0),
        "x0 must",
    )?;
    expect_err("damp", f(&a, &b, None, tol, None, -1.0), "damp")?;
    Ok(())
}

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

fn spsolve<T: Scalar + cuarray::linalg::RealElement>(dev: &Device) -> TResult {
    let mut rng = Rng::for_name(&format!("sparse_solvers/spsolve/{}", T::NAME));
    let mat = matrix("convdiff", false);
    let xs = random_vec(&mut rng, mat.n, false);
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

fn kinds_for(name: &str) -> &'static [Kind] {
    match name {
        "poisson" => &[Kind::Gmres, Kind::Bicgstab, Kind::Cgs, Kind::Minres],
        "convdiff" => &[Kind::Gmres, Kind::Bicgstab, Kind::Cgs],
        _ => &[Kind::Gmres, Kind::Minres],
    }
}

fn typed<T: Scalar>(out: &mut Vec<Trial>)
where
    T::Real: SparseElement + cuarray::FloatElement,
{
    for name in ["poisson", "convdiff", "indefinite"] {
        for &kind in kinds_for(name) {
            out.push(gpu_trial(
                format!("sparse_solvers/{}/{}/{name}_10x10", kind.name(), T::NAME),
                move |d| solve::<T>(d, kind, name),
            ));
        }
    }
    out.push(gpu_trial(
        format!("sparse_solvers/lsqr/{}/60x20", T::NAME),
        |d| {
            least_squares::<T>(d, "lsqr", |a, b, x0, t, m, damp| {
                linalg::lsqr(a, b, x0, t, m, damp)
            })
        },
    ));
    out.push(gpu_trial(
        format!("sparse_solvers/lsmr/{}/60x20", T::NAME),
        |d| {
            least_squares::<T>(d, "lsmr", |a, b, x0, t, m, damp| {
                linalg::lsmr(a, b, x0, t, m, damp)
            })
        },
    ));
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
        "sparse_solvers/spsolve/f64/convdiff_10x10",
        spsolve::<f64>,
    ));
    out.push(gpu_trial(
        "sparse_solvers/spsolve/f32/convdiff_10x10",
        spsolve::<f32>,
    ));
    out.push(gpu_trial(
        "sparse_solvers/spsolve_triangular/f64/full_matrix",
        triangular_other_ignored,
    ));
}
