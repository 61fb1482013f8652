//! `choice`, `choice_from` and `multivariate_normal`, on the device and the host.
//!
//! - With replacement, without `p`: `integers(0, n)`.
//! - With replacement, with `p`: inverse CDF. The CDF is built on the host (the vector is
//!   read back to check it anyway), normalised by its sum, and searched per element by
//!   the `choice` sampler of distributions.cuh with one uniform of the element's substream.
//! - Without replacement, without `p`: random keys, `n` 64-bit integers as
//!   [`Generator::permutation`] draws them, and the indices of the `k` smallest (the
//!   radix sort's top-k, ties in index order): a uniformly random `k`-subset in random
//!   order.
//! - An empty size draws nothing (the position stays where it was).
//! - Without replacement, with `p`: Efraimidis and Spirakis's keys `E_i / p_i` for
//!   standard exponentials `E_i` (the `k` smallest), which draws items one after another
//!   with probability proportional to `p` among those left, as NumPy's.

use super::distributions::{cdf, pvector, Call};
use super::{Generator, HostGenerator};
use crate::array::DeviceArray;
use crate::element::Element;
use crate::kernels::family::random::Sampler;
use crate::linalg::RealElement;
use crate::{Error, Result};

fn total(op: &'static str, size: &[usize]) -> Result<usize> {
    size.iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Error::invalid(op, format!("size {size:?} is too large")))
}

fn check_n(op: &'static str, n: usize, k: usize, replace: bool, p: Option<&[f64]>) -> Result<()> {
    if n == 0 && k > 0 {
        return Err(Error::invalid(
            op,
            "a must not be empty (n = 0) when size > 0",
        ));
    }
    if !replace && k > n {
        return Err(Error::invalid(
            op,
            format!("cannot take a sample of {k} from {n} without replacement (replace = false)"),
        ));
    }
    if let Some(p) = p {
        if p.len() != n {
            return Err(Error::invalid(
                op,
                format!("p has {} entries, a has {n}", p.len()),
            ));
        }
        pvector(op, p)?;
        if !replace {
            let nonzero = p.iter().filter(|&&v| v > 0.0).count();
            if nonzero < k {
                return Err(Error::invalid(
                    op,
                    format!(
                        "p has {nonzero} non-zero entries, fewer than size = {k} (replace = false)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The lower factor `L` (row-major, `cov = L Lᵀ`) of a positive semi-definite matrix:
/// Cholesky where zero pivots (within `1e-10` of the largest diagonal entry) give zero
/// columns. Errs naming `cov` when the matrix is not symmetric or not positive
/// semi-definite.
pub(crate) fn psd_factor(cov: &[f64], d: usize) -> Result<Vec<f64>> {
    let op = "multivariate_normal";
    let scale = (0..d).map(|i| cov[i * d + i].abs()).fold(0.0f64, f64::max);
    let tol = 1e-10 * scale.max(f64::MIN_POSITIVE);
    for i in 0..d {
        for j in 0..i {
            if (cov[i * d + j] - cov[j * d + i]).abs() > 1e-8 * scale.max(1e-300) {
                return Err(Error::invalid(
                    op,
                    format!("cov is not symmetric (at [{i}, {j}])"),
                ));
            }
        }
    }
    let mut l = vec![0.0f64; d * d];
    for j in 0..d {
        let s: f64 = (0..j).map(|k| l[j * d + k] * l[j * d + k]).sum();
        let piv = cov[j * d + j] - s;
        if piv < -tol {
            return Err(Error::invalid(op, "cov is not positive semi-definite"));
        }
        if piv <= tol {
            for i in j + 1..d {
                let v = cov[i * d + j] - (0..j).map(|k| l[i * d + k] * l[j * d + k]).sum::<f64>();
                if v.abs() > tol.sqrt() * scale.sqrt().max(1e-300) {
                    return Err(Error::invalid(op, "cov is not positive semi-definite"));
                }
            }
            continue;
        }
        let ljj = piv.sqrt();
        l[j * d + j] = ljj;
        for i in j + 1..d {
            let v = cov[i * d + j] - (0..j).map(|k| l[i * d + k] * l[j * d + k]).sum::<f64>();
            l[i * d + j] = v / ljj;
        }
    }
    Ok(l)
}

impl Generator {
    /// `size` indices into `0..n` (NumPy's `choice(n, size, replace, p)`), as `i64`: with
    /// replacement, uniform or with probabilities `p` (inverse CDF); without replacement,
    /// `k` distinct indices in random order (random keys and a top-k; with `p`, the
    /// Efraimidis-Spirakis keys `E_i / p_i`). `p` must have `n` entries in `[0, 1]`
    /// summing to 1 within [`P_TOL`](super::P_TOL). Reads `p` back to the host to check
    /// it (this waits for the GPU).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `replace` is false and the size passes `n` (or the
    /// number of non-zero `p`), when `p` has the wrong length, a negative entry or
    /// does not sum to 1, or when `n` is 0 and the size is not.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let boot = rng.choice(1000, &[1000], true, None)?;      // a bootstrap resample
    /// let p = cuarray::DeviceArray::from_slice(&dev, &[0.1, 0.2, 0.7])?;
    /// let w = rng.choice(3, &[10], true, Some(&p))?;
    /// let sub = rng.choice(1 << 20, &[100], false, None)?;    // 100 distinct indices
    /// assert!(rng.choice(5, &[6], false, None).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn choice(
        &mut self,
        n: usize,
        size: &[usize],
        replace: bool,
        p: Option<&DeviceArray<f64>>,
    ) -> Result<DeviceArray<i64>> {
        let op = "choice";
        let k = total(op, size)?;
        let ph = p.map(|p| p.to_host()).transpose()?;
        check_n(op, n, k, replace, ph.as_deref())?;
        if k == 0 {
            return DeviceArray::<i64>::alloc_uninit(&self.device, size);
        }
        match (replace, ph) {
            (true, None) => self.integers::<i64>(0, n.max(1) as i64, size),
            (true, Some(ph)) => {
                let c = cdf(op, &ph)?;
                let call = Call {
                    sampler: Sampler::ChoiceCdf,
                    p: [0.0; 4],
                    aux: &c,
                };
                self.sample(call, size)
            }
            (false, None) => {
                let keys = self.integers::<u64>(0, u64::MAX, &[n])?;
                keys.topk(k, 0, false)?.1.reshape(size)
            }
            (false, Some(_)) => {
                let e = self.exponential::<f64>(1.0, &[n])?;
                let keys = e.div(p.expect("p is some"))?;
                keys.topk(k, 0, false)?.1.reshape(size)
            }
        }
    }

    /// `size` elements of `a` along its first axis (NumPy's `choice(a, size, replace, p)`):
    /// the indices of [`choice`](Generator::choice), then a gather; the result has shape
    /// `size + a.shape[1..]`.
    ///
    /// # Errors
    /// As [`choice`](Generator::choice), and [`Error::InvalidArgument`] for a 0-d `a`.
    ///
    /// ```no_run
    /// use cuarray::DeviceArray;
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let rows = DeviceArray::<f32>::arange(&dev, 0.0, 12.0, 1.0)?.reshape(&[4, 3])?;
    /// let pick = rng.choice_from(&rows, &[2], false, None)?;
    /// assert_eq!(pick.shape(), &[2, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn choice_from<T: Element>(
        &mut self,
        a: &DeviceArray<T>,
        size: &[usize],
        replace: bool,
        p: Option<&DeviceArray<f64>>,
    ) -> Result<DeviceArray<T>> {
        if a.ndim() == 0 {
            return Err(Error::invalid(
                "choice_from",
                "a 0-d array has no axis to choose along",
            ));
        }
        let k = total("choice_from", size)?;
        let idx = self.choice(a.shape()[0], &[k], replace, p)?;
        let picked = a.take(&idx, Some(0))?;
        let mut shape = size.to_vec();
        shape.extend_from_slice(&a.shape()[1..]);
        picked.reshape(shape)
    }

    /// Multivariate normal vectors of mean `mean` (length `d`) and covariance `cov`
    /// (`d x d`): shape `size + [d]`, `mean + z Lᵀ` for standard normals `z` (as
    /// [`standard_normal`](Generator::standard_normal) draws them) and the Cholesky factor
    /// `L` of `cov` ([`linalg::cholesky`](crate::linalg::cholesky), cuSOLVER). A positive
    /// semi-definite but singular `cov` is factored on the host instead (zero pivots give
    /// zero columns).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `cov` when it is not `d x d`, not symmetric or
    /// not positive semi-definite.
    ///
    /// ```no_run
    /// use cuarray::DeviceArray;
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let mean = DeviceArray::from_slice(&dev, &[0.0f64, 1.0])?;
    /// let cov = DeviceArray::from_host(&dev, &[1.0f64, 0.5, 0.5, 2.0], &[2, 2])?;
    /// let x = rng.multivariate_normal(&mean, &cov, &[1000])?;
    /// assert_eq!(x.shape(), &[1000, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn multivariate_normal<T: RealElement>(
        &mut self,
        mean: &DeviceArray<T>,
        cov: &DeviceArray<T>,
        size: &[usize],
    ) -> Result<DeviceArray<T>> {
        let op = "multivariate_normal";
        let d = mean.size();
        if mean.ndim() != 1 || cov.shape() != [d, d] {
            return Err(Error::invalid(
                op,
                format!(
                    "mean must be 1-d (d) and cov d x d, got {:?} and {:?}",
                    mean.shape(),
                    cov.shape()
                ),
            ));
        }
        let l = match crate::linalg::cholesky(cov) {
            Ok(l) => l,
            Err(Error::NotPositiveDefinite { .. }) => {
                let host: Vec<f64> = cov.to_host()?.into_iter().map(|v| v.to_f64()).collect();
                let lf = psd_factor(&host, d)?;
                let lt: Vec<T> = lf.into_iter().map(T::from_f64).collect();
                DeviceArray::from_host(mean.device(), &lt, &[d, d])?
            }
            Err(e) => return Err(e),
        };
        let m = total(op, size)?;
        let z = self.standard_normal::<T>(&[m, d])?;
        let x = z.matmul(&l.t())?.add(mean)?;
        let mut shape = size.to_vec();
        shape.push(d);
        x.reshape(shape)
    }
}

impl HostGenerator {
    /// As [`Generator::choice`], on the CPU (`p` a host slice), with the same numbers.
    ///
    /// # Errors
    /// As [`Generator::choice`].
    ///
    /// ```
    /// let mut rng = cuarray::random::HostGenerator::new(1);
    /// let mut s = rng.choice(10, &[10], false, None)?;
    /// s.sort();
    /// assert_eq!(s, (0..10).collect::<Vec<i64>>());
    /// assert!(rng.choice(3, &[2], true, Some(&[0.5, 0.6, -0.1])).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn choice(
        &mut self,
        n: usize,
        size: &[usize],
        replace: bool,
        p: Option<&[f64]>,
    ) -> Result<Vec<i64>> {
        let op = "choice";
        let k = total(op, size)?;
        check_n(op, n, k, replace, p)?;
        if k == 0 {
            return Ok(vec![]);
        }
        match (replace, p) {
            (true, None) => self.integers::<i64>(0, n.max(1) as i64, size),
            (true, Some(p)) => {
                let c = cdf(op, p)?;
                let call = Call {
                    sampler: Sampler::ChoiceCdf,
                    p: [0.0; 4],
                    aux: &c,
                };
                self.sample_int(call, size)
            }
            (false, None) => {
                let keys = self.integers::<u64>(0, u64::MAX, &[n])?;
                let mut idx: Vec<i64> = (0..n as i64).collect();
                idx.sort_by_key(|&i| keys[i as usize]);
                idx.truncate(k);
                Ok(idx)
            }
            (false, Some(p)) => {
                let e = self.exponential::<f64>(1.0, &[n])?;
                let keys: Vec<f64> = e.iter().zip(p).map(|(e, p)| e / p).collect();
                let mut idx: Vec<i64> = (0..n as i64).collect();
                idx.sort_by(|&a, &b| keys[a as usize].total_cmp(&keys[b as usize]));
                idx.truncate(k);
                Ok(idx)
            }
        }
    }

    /// As [`Generator::choice_from`], on the CPU: `a` a row-major slice of shape
    /// `a_shape`; the result is row-major of shape `size + a_shape[1..]`.
    ///
    /// # Errors
    /// As [`Generator::choice_from`], and when `a.len()` is not the product of `a_shape`.
    pub fn choice_from<T: Clone>(
        &mut self,
        a: &[T],
        a_shape: &[usize],
        size: &[usize],
        replace: bool,
        p: Option<&[f64]>,
    ) -> Result<Vec<T>> {
        let op = "choice_from";
        if a_shape.is_empty() || total(op, a_shape)? != a.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "a has {} elements, not of shape {a_shape:?} (1-d at least)",
                    a.len()
                ),
            ));
        }
        let row: usize = a_shape[1..].iter().product();
        let k = total(op, size)?;
        let idx = self.choice(a_shape[0], &[k], replace, p)?;
        Ok(idx
            .iter()
            .flat_map(|&i| a[i as usize * row..(i as usize + 1) * row].iter().cloned())
            .collect())
    }

    /// As [`Generator::multivariate_normal`], on the CPU, in `f64` (`cov` row-major,
    /// factored as positive semi-definite on the host): the same normals, so equal to the
    /// device's values up to the rounding of the factor and the product.
    ///
    /// # Errors
    /// As [`Generator::multivariate_normal`].
    ///
    /// ```
    /// let mut rng = cuarray::random::HostGenerator::new(1);
    /// let x = rng.multivariate_normal(&[0.0, 0.0], &[1.0, 1.0, 1.0, 1.0], &[5])?; // singular: fine
    /// assert!(x.chunks(2).all(|v| (v[0] - v[1]).abs() < 1e-12));
    /// assert!(rng.multivariate_normal(&[0.0, 0.0], &[1.0, 2.0, 2.0, 1.0], &[5]).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn multivariate_normal(
        &mut self,
        mean: &[f64],
        cov: &[f64],
        size: &[usize],
    ) -> Result<Vec<f64>> {
        let d = mean.len();
        if cov.len() != d * d {
            return Err(Error::invalid(
                "multivariate_normal",
                format!("cov must be d x d = {} entries, got {}", d * d, cov.len()),
            ));
        }
        let l = psd_factor(cov, d)?;
        let m = total("multivariate_normal", size)?;
        let z = self.standard_normal::<f64>(&[m, d])?;
        let mut out = Vec::with_capacity(m * d);
        for zr in z.chunks(d.max(1)).take(m) {
            for i in 0..d {
                out.push(mean[i] + (0..=i).map(|k| l[i * d + k] * zr[k]).sum::<f64>());
            }
        }
        Ok(out)
    }
}
