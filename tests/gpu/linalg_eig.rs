//! `linalg::eig` and `eigvals` (cuSOLVER's `Xgeev`) in f32, f64, c64 and c128: the
//! residual `A v_j - w_j v_j` of every eigenpair against the host matrix in f64, unit
//! eigenvectors, conjugate pairs of real matrices (positive imaginary part first, the
//! conjugate eigenvector next), known spectra (a rotation: ±i; a triangular matrix: its
//! diagonal), batches and transposed views, empty and 1 x 1 inputs, errors for
//! non-square input.

use crate::common::{add_gpu, ensure, Rng, TResult};
use cuarray::linalg::{self, SolverElement};
use cuarray::{Complex32, Complex64, DType, Device, DeviceArray, Element};
use libtest_mimic::Trial;

/// The four solver types as complex numbers on the host (in f64), with a tolerance.
pub trait Host: SolverElement {
    fn from_c(z: Complex64) -> Self;
    fn to_c(self) -> Complex64;
    /// A relative tolerance for backward-stable results of order-`n` problems.
    fn tol(n: usize) -> f64 {
        let eps = if Self::Spectral::DTYPE == DType::F32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        eps * 200.0 * (n.max(1) as f64)
    }
    /// True for the complex types.
    fn is_complex() -> bool {
        Self::DTYPE.is_complex()
    }
}
impl Host for f32 {
    fn from_c(z: Complex64) -> Self {
        z.re as f32
    }
    fn to_c(self) -> Complex64 {
        Complex64::new(self as f64, 0.0)
    }
}
impl Host for f64 {
    fn from_c(z: Complex64) -> Self {
        z.re
    }
    fn to_c(self) -> Complex64 {
        Complex64::new(self, 0.0)
    }
}
impl Host for Complex32 {
    fn from_c(z: Complex64) -> Self {
        Complex32::new(z.re as f32, z.im as f32)
    }
    fn to_c(self) -> Complex64 {
        Complex64::new(self.re as f64, self.im as f64)
    }
}
impl Host for Complex64 {
    fn from_c(z: Complex64) -> Self {
        z
    }
    fn to_c(self) -> Complex64 {
        self
    }
}

/// Random values of `T` in [-1, 1] (both parts for complex types).
pub fn random<T: Host>(rng: &mut Rng, len: usize) -> Vec<Complex64> {
    (0..len)
        .map(|_| {
            let re = rng.range(-1.0, 1.0);
            let im = if T::is_complex() {
                rng.range(-1.0, 1.0)
            } else {
                0.0
            };
            Complex64::new(re, im)
        })
        .collect()
}

pub fn up<T: Host>(
    dev: &Device,
    v: &[Complex64],
    shape: &[usize],
) -> cuarray::Result<DeviceArray<T>> {
    let data: Vec<T> = v.iter().map(|&z| T::from_c(z)).collect();
    DeviceArray::from_host(dev, &data, shape)
}

pub fn down<T: Host>(a: &DeviceArray<T>) -> cuarray::Result<Vec<Complex64>> {
    Ok(a.to_host()?.into_iter().map(|z| z.to_c()).collect())
}

pub fn norm(v: &[Complex64]) -> f64 {
    v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// Checks every eigenpair of the row-major `n x n` matrix `a`: `|A v_j - w_j v_j| <=
/// tol |A|`, `|v_j| = 1` (`v` row-major, eigenvectors in its columns).
fn check_pairs(
    what: &str,
    a: &[Complex64],
    w: &[Complex64],
    v: &[Complex64],
    n: usize,
    tol: f64,
) -> TResult {
    let scale = norm(a).max(1e-300);
    for j in 0..n {
        let col: Vec<Complex64> = (0..n).map(|i| v[i * n + j]).collect();
        ensure!(
            (norm(&col) - 1.0).abs() <= tol,
            "{what}: eigenvector {j} has norm {}",
            norm(&col)
        );
        let mut r = 0.0;
        for i in 0..n {
            let av: Complex64 = (0..n).map(|p| a[i * n + p] * col[p]).sum();
            r += (av - w[j] * col[i]).norm_sqr();
        }
        ensure!(
            r.sqrt() <= tol * scale,
            "{what}: |A v - w v| = {} for eigenvalue {j} ({}), |A| = {scale}",
            r.sqrt(),
            w[j]
        );
    }
    Ok(())
}

/// Each of `got` within `tol` of some value of `want` (spectra compared as sets).
fn same_spectrum(what: &str, got: &[Complex64], want: &[Complex64], tol: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} eigenvalues, expected {}",
        got.len(),
        want.len()
    );
    for (j, g) in got.iter().enumerate() {
        ensure!(
            want.iter().any(|x| (x - g).norm() <= tol),
            "{what}: eigenvalue {j} = {g} is not in {want:?}"
        );
    }
    Ok(())
}

fn random_matrices<T: Host>(dev: &Device, rng: &mut Rng) -> TResult
where
    T::Complex: Host,
{
    for n in [1usize, 2, 5, 17, 40, 96] {
        let a = random::<T>(rng, n * n);
        let d = up::<T>(dev, &a, &[n, n])?;
        let (w, v) = linalg::eig(&d)?;
        ensure!(
            w.shape() == [n] && v.shape() == [n, n],
            "eig n={n}: shapes {:?} {:?}",
            w.shape(),
            v.shape()
        );
        let (w, v) = (down(&w)?, down(&v)?);
        check_pairs(&format!("eig n={n}"), &a, &w, &v, n, T::tol(n))?;
        if !T::is_complex() {
            // Conjugate pairs, positive imaginary part first, conjugate eigenvectors.
            let mut j = 0;
            while j < n {
                if w[j].im != 0.0 {
                    ensure!(
                        w[j].im > 0.0 && j + 1 < n,
                        "eig n={n}: eigenvalue {j} = {} opens no pair",
                        w[j]
                    );
                    ensure!(
                        w[j + 1] == w[j].conj(),
                        "eig n={n}: {} and {} are not conjugates",
                        w[j],
                        w[j + 1]
                    );
                    for i in 0..n {
                        ensure!(
                            v[i * n + j + 1] == v[i * n + j].conj(),
                            "eig n={n}: eigenvectors {j}, {} not conjugate",
                            j + 1
                        );
                    }
                    j += 2;
                } else {
                    j += 1;
                }
            }
        }
        let wv = down(&linalg::eigvals(&d)?)?;
        same_spectrum(
            &format!("eigvals n={n}"),
            &wv,
            &w,
            T::tol(n) * norm(&a).max(1.0),
        )?;
    }
    Ok(())
}

fn known<T: Host>(dev: &Device, _rng: &mut Rng) -> TResult
where
    T::Complex: Host,
{
    let c = |re: f64| Complex64::new(re, 0.0);
    let i = Complex64::new(0.0, 1.0);
    // A rotation by 90 degrees: i and -i (for real input in that order).
    let rot = [c(0.0), c(-1.0), c(1.0), c(0.0)];
    let (w, v) = linalg::eig(&up::<T>(dev, &rot, &[2, 2])?)?;
    let (w, v) = (down(&w)?, down(&v)?);
    let tol = T::tol(2);
    same_spectrum("eig rotation", &w, &[i, -i], tol)?;
    if !T::is_complex() {
        ensure!(
            (w[0] - i).norm() <= tol,
            "eig rotation: first eigenvalue {}, expected i",
            w[0]
        );
    }
    check_pairs("eig rotation", &rot, &w, &v, 2, tol)?;
    // Upper triangular: the diagonal.
    let tri = [
        c(1.0),
        c(2.0),
        c(3.0),
        c(0.0),
        c(-4.0),
        c(5.0),
        c(0.0),
        c(0.0),
        c(0.5),
    ];
    let w = down(&linalg::eigvals(&up::<T>(dev, &tri, &[3, 3])?)?)?;
    same_spectrum(
        "eigvals triangular",
        &w,
        &[c(1.0), c(-4.0), c(0.5)],
        tol * 10.0,
    )?;
    // 1 x 1.
    let (w, v) = linalg::eig(&up::<T>(dev, &[c(5.0)], &[1, 1])?)?;
    let (w, v) = (down(&w)?, down(&v)?);
    ensure!(
        (w[0] - c(5.0)).norm() <= tol * 5.0 && (v[0] - c(1.0)).norm() <= tol,
        "eig 1x1: {w:?} {v:?}"
    );
    // Empty batches and matrices.
    let (w, v) = linalg::eig(&up::<T>(dev, &[], &[0, 3, 3])?)?;
    ensure!(
        w.shape() == [0, 3] && v.shape() == [0, 3, 3],
        "eig (0, 3, 3): {:?} {:?}",
        w.shape(),
        v.shape()
    );
    let (w, v) = linalg::eig(&up::<T>(dev, &[], &[2, 0, 0])?)?;
    ensure!(
        w.shape() == [2, 0] && v.shape() == [2, 0, 0],
        "eig (2, 0, 0): {:?} {:?}",
        w.shape(),
        v.shape()
    );
    ensure!(
        linalg::eigvals(&up::<T>(dev, &[], &[0, 0])?)?.shape() == [0],
        "eigvals (0, 0)"
    );
    // Errors: not square, not a matrix.
    let e = linalg::eig(&up::<T>(dev, &[c(1.0); 6], &[2, 3])?).err();
    ensure!(
        e.as_ref().is_some_and(|e| e.to_string().contains("eig")),
        "eig of (2, 3): {e:?}"
    );
    ensure!(
        linalg::eigvals(&up::<T>(dev, &[c(1.0); 3], &[3])?).is_err(),
        "eigvals of (3,) accepted"
    );
    Ok(())
}

fn batch_views<T: Host>(dev: &Device, rng: &mut Rng) -> TResult
where
    T::Complex: Host,
{
    let (b, n) = (3usize, 6usize);
    let a = random::<T>(rng, b * n * n);
    // Each matrix transposed (a column-major view).
    let d = up::<T>(dev, &a, &[b, n, n])?.permute(&[0, 2, 1])?;
    let (w, v) = linalg::eig(&d)?;
    ensure!(
        w.shape() == [b, n] && v.shape() == [b, n, n],
        "eig batch shapes {:?} {:?}",
        w.shape(),
        v.shape()
    );
    let (w, v) = (down(&w)?, down(&v.contiguous()?)?);
    for k in 0..b {
        let t: Vec<Complex64> = (0..n * n)
            .map(|e| a[k * n * n + (e % n) * n + e / n])
            .collect();
        check_pairs(
            &format!("eig batch {k}"),
            &t,
            &w[k * n..(k + 1) * n],
            &v[k * n * n..(k + 1) * n * n],
            n,
            T::tol(n),
        )?;
    }
    // Two batch axes (2 x 1): each matrix's spectrum is its own.
    let a = random::<T>(rng, 2 * 8 * 8);
    let d = up::<T>(dev, &a, &[2, 1, 8, 8])?;
    let w = down(&linalg::eigvals(&d)?)?;
    for k in 0..2 {
        let (wk, _) = linalg::eig(&up::<T>(dev, &a[k * 64..(k + 1) * 64], &[8, 8])?)?;
        same_spectrum(
            "eigvals batch",
            &w[k * 8..(k + 1) * 8],
            &down(&wk)?,
            T::tol(8) * 8.0,
        )?;
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    macro_rules! per_dtype {
        ($($t:ty),*) => {$(
            let d = <$t as Element>::DTYPE.name();
            add_gpu(out, format!("linalg_eig/eig/{d}/random"), random_matrices::<$t>);
            add_gpu(out, format!("linalg_eig/eig/{d}/known_empty_errors"), known::<$t>);
            add_gpu(out, format!("linalg_eig/eig/{d}/batch_views"), batch_views::<$t>);
        )*};
    }
    per_dtype!(f32, f64, Complex32, Complex64);
}
