//! Sparse iterative solvers against host references in f64 (complex): gmres, bicgstab,
//! cgs and minres on an SPD (2-D Poisson), a non-symmetric (convection-diffusion) and an
//! indefinite (shifted Poisson) matrix with known solutions, for f32, f64, c64 and c128;
//! each solver's `Info` when `maxiter` is too small (not converged, never a hang), from
//! an exact `x0`, with a preconditioner; lsqr and lsmr (overdetermined, damped,
//! consistent); and the errors. The host matrices and checks here serve
//! `sparse_direct.rs` too.
use crate::common::{gpu_trial, Rng, TResult};
use cuarray::sparse::linalg::{self, FnOperator, Info, LinearOperator, Tol};
use cuarray::sparse::{CsrMatrix, SparseElement};
use cuarray::{Complex32, Complex64, ContractElement, Device, DeviceArray, Error, InexactElement};
use libtest_mimic::Trial;

pub(crate) type C = Complex64;

/// An element type of the trials: its conversions to and from `Complex64`, the solver
/// tolerance it is run at and the accuracy expected of its solutions.
pub(crate) trait Scalar: SparseElement + ContractElement + InexactElement {
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
pub(crate) struct Mat {
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) r: Vec<usize>,
    pub(crate) c: Vec<usize>,
    pub(crate) v: Vec<C>,
}

impl Mat {
    pub(crate) fn csr<T: Scalar>(&self, dev: &Device) -> cuarray::Result<CsrMatrix<T>> {
        let r: Vec<i32> = self.r.iter().map(|&x| x as i32).collect();
        let c: Vec<i32> = self.c.iter().map(|&x| x as i32).collect();
        let v: Vec<T> = self.v.iter().map(|&z| T::of(z)).collect();
        CsrMatrix::from_triplets(dev, &r, &c, &v, (self.m, self.n))
    }
    pub(crate) fn matvec(&self, x: &[C]) -> Vec<C> {
        let mut y = vec![C::new(0.0, 0.0); self.m];
        for k in 0..self.v.len() {
            y[self.r[k]] += self.v[k] * x[self.c[k]];
        }
        y
    }
    pub(crate) fn rmatvec(&self, x: &[C]) -> Vec<C> {
        let mut y = vec![C::new(0.0, 0.0); self.n];
        for k in 0..self.v.len() {
            y[self.c[k]] += self.v[k].conj() * x[self.r[k]];
        }
        y
    }
    pub(crate) fn dense(&self) -> Vec<C> {
        let mut d = vec![C::new(0.0, 0.0); self.m * self.n];
        for k in 0..self.v.len() {
            d[self.r[k] * self.n + self.c[k]] += self.v[k];
        }
        d
    }
    pub(crate) fn transpose(&self) -> Mat {
        Mat {
            m: self.n,
            n: self.m,
            r: self.c.clone(),
            c: self.r.clone(),
            v: self.v.clone(),
        }
    }
    /// The matrix plus `s` on the diagonal.
    pub(crate) fn shift(&self, s: C) -> Mat {
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
    pub(crate) fn phased(&self) -> Mat {
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
pub(crate) fn stencil(g: usize, w: f64) -> Mat {
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
pub(crate) fn poisson_eigenvalues(g: usize) -> Vec<f64> {
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
pub(crate) fn matrix(name: &str, complex: bool) -> Mat {
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

pub(crate) fn random_vec(rng: &mut Rng, n: usize, complex: bool) -> Vec<C> {
    (0..n)
        .map(|_| {
            let im = if complex { rng.range(-1.0, 1.0) } else { 0.0 };
            C::new(rng.range(-1.0, 1.0), im)
        })
        .collect()
}

pub(crate) fn dev_vec<T: Scalar>(dev: &Device, v: &[C]) -> cuarray::Result<DeviceArray<T>> {
    let t: Vec<T> = v.iter().map(|&z| T::of(z)).collect();
    DeviceArray::from_slice(dev, &t)
}

pub(crate) fn host_vec<T: Scalar>(a: &DeviceArray<T>) -> cuarray::Result<Vec<C>> {
    Ok(a.to_host()?.into_iter().map(Scalar::c).collect())
}

pub(crate) fn norm(v: &[C]) -> f64 {
    v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

fn rel_err(got: &[C], want: &[C]) -> f64 {
    let d: Vec<C> = got.iter().zip(want).map(|(g, w)| g - w).collect();
    norm(&d) / norm(want).max(f64::MIN_POSITIVE)
}

pub(crate) fn expect_close(what: &str, got: &[C], want: &[C], tol: f64) -> TResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, want {}", got.len(), want.len()).into());
    }
    let e = rel_err(got, want);
    if e.is_nan() || e > tol {
        return Err(format!("{what}: relative error {e:e} > {tol:e}").into());
    }
    Ok(())
}

pub(crate) fn expect_err(
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
pub(crate) fn tall(rng: &mut Rng, m: usize, n: usize, complex: bool) -> Mat {
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
}

pub fn trials(out: &mut Vec<Trial>) {
    typed::<f32>(out);
    typed::<f64>(out);
    typed::<Complex32>(out);
    typed::<Complex64>(out);
}
