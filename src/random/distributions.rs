//! NumPy's `Generator` distributions on the Philox stream: continuous ones (generic over
//! the float type, parameters `f64`), discrete ones (`i64`), Dirichlet and multinomial rows.
//! Kernels: `kernels/distributions.cuh`; host twin: `host_distributions.rs`.
//!
//! Every value of these samplers is a function of the seed, the stream and its element's
//! index `j` only: element `i` of a call starting at word `p` of the generator's position
//! has `j = p + i` (rows of `K` values: element `k` of row `r` has `j = p + r K + k`), and
//! draws its uniforms from its own substream (see distributions.cuh), so rejection loops
//! never depend on the launch. A call advances the position by its element count.

use super::host_distributions::{self as hd, Par};
use super::{Generator, HostGenerator, State};
use crate::array::DeviceArray;
use crate::element::{DType, Element, FloatElement};
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::kernel;
use crate::kernels::family::random::{Distribution, RandomSpec, Sampler};
use crate::kernels::IndexWidth;
use crate::ops::launch::grid_for;
use crate::{Error, Result};
use half::{bf16, f16};

/// Tolerance of a probability vector's sum: `|sum(p) - 1| <= P_TOL` (NumPy's
/// `sqrt(eps)`).
pub const P_TOL: f64 = 1.4901161193847656e-8;

fn bad(op: &'static str, msg: String) -> Error {
    Error::invalid(op, msg)
}

fn positive(op: &'static str, name: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(bad(op, format!("{name} must be finite and > 0, got {v}")))
    }
}

fn nonneg(op: &'static str, name: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(bad(op, format!("{name} must be finite and >= 0, got {v}")))
    }
}

fn finite(op: &'static str, name: &str, v: f64) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(bad(op, format!("{name} must be finite, got {v}")))
    }
}

fn prob(op: &'static str, name: &str, v: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(bad(op, format!("{name} must be in [0, 1], got {v}")))
    }
}

fn count(op: &'static str, name: &str, v: u64) -> Result<f64> {
    if v <= 1 << 53 {
        Ok(v as f64)
    } else {
        Err(bad(op, format!("{name} must be at most 2^53, got {v}")))
    }
}

/// A checked probability vector: every entry in `[0, 1]` and the sum within [`P_TOL`] of 1.
pub(super) fn pvector(op: &'static str, p: &[f64]) -> Result<()> {
    if p.is_empty() {
        return Err(bad(op, "p must not be empty".into()));
    }
    if let Some((i, v)) = p
        .iter()
        .enumerate()
        .find(|(_, v)| !(0.0..=1.0).contains(*v))
    {
        return Err(bad(op, format!("p[{i}] = {v} is outside [0, 1]")));
    }
    let s: f64 = p.iter().sum();
    if (s - 1.0).abs() > P_TOL {
        return Err(bad(
            op,
            format!("p must sum to 1 (within {P_TOL:e}), its sum is {s}"),
        ));
    }
    Ok(())
}

/// The normalised CDF of `p` (checked), with every entry from the last positive one on
/// set to exactly 1, so that a `u` in `[0, 1)` never lands on a zero-probability index.
pub(super) fn cdf(op: &'static str, p: &[f64]) -> Result<Vec<f64>> {
    pvector(op, p)?;
    let total: f64 = p.iter().sum();
    let mut acc = 0.0;
    let mut c: Vec<f64> = p
        .iter()
        .map(|&v| {
            acc += v;
            acc / total
        })
        .collect();
    let last = p.iter().rposition(|&v| v > 0.0).unwrap_or(p.len() - 1);
    c[last..].iter_mut().for_each(|v| *v = 1.0);
    Ok(c)
}

fn elements(op: &'static str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| bad(op, format!("shape {shape:?} is too large")))
}

/// A float result as `T`, as the device's `rs_to`: `f64` as is, the others through `f32`
/// (rounded once to f32, then to f16 or bf16).
fn to_float<T: FloatElement>(x: f64) -> T {
    match T::DTYPE {
        DType::F64 => T::from_f64(x),
        DType::F16 => T::from_f64(f16::from_f32(x as f32).to_f64()),
        DType::BF16 => T::from_f64(bf16::from_f32(x as f32).to_f64()),
        _ => T::from_f64(x as f32 as f64),
    }
}

/// One sampler call: the sampler, its parameters, the parameter vector.
pub(super) struct Call<'a> {
    pub(super) sampler: Sampler,
    pub(super) p: [f64; 4],
    pub(super) aux: &'a [f64],
}

impl Call<'_> {
    pub(super) fn new(sampler: Sampler, p: [f64; 4]) -> Call<'static> {
        Call {
            sampler,
            p,
            aux: &[],
        }
    }
}

// ---- the device side ------------------------------------------------------------------

impl Generator {
    /// Fills a fresh array of `shape` with `call` (rows of `aux.len()` for row samplers).
    pub(super) fn sample<T: Element>(
        &mut self,
        call: Call<'_>,
        shape: &[usize],
    ) -> Result<DeviceArray<T>> {
        let _range = crate::profile::range(call.sampler.name());
        let out = DeviceArray::<T>::alloc_uninit(&self.device, shape)?;
        let size = out.size();
        let j0 = self.state.position as u64;
        let rows = call.sampler.rows();
        let kdim = if rows || call.sampler == Sampler::ChoiceCdf {
            call.aux.len()
        } else {
            0
        };
        let n = if rows { size / kdim.max(1) } else { size };
        if n > 0 {
            let _queuing = self.device.check_capture("random")?;
            let aux = if call.aux.is_empty() {
                None
            } else {
                Some(DeviceArray::from_slice(&self.device, call.aux)?)
            };
            let aux_op = aux.as_ref().map(|a| a.operand()).transpose()?;
            let spec = RandomSpec {
                dist: Distribution::Sample(call.sampler),
                dtype: T::DTYPE,
                index: IndexWidth::I64,
            };
            let f = kernel(&self.device, &spec)?;
            let op = out.operand()?;
            let grid = grid_for(
                n,
                self.device.multiprocessor_count() * crate::tuning::random_blocks_per_sm(),
            );
            let mut args = KernelArgs::new();
            args.ptr(op.ptr())
                .i64(n as i64)
                .i64(j0 as i64)
                .i64(self.state.seed as i64)
                .i64(self.state.stream as i64);
            for v in call.p {
                args.push_f64(v);
            }
            args.ptr(aux_op.as_ref().map_or(0, |a| a.ptr()))
                .i64(kdim as i64);
            // SAFETY: the arguments follow the sampler wrapper's signature (output pointer,
            // n, j0, key, stream, four doubles, the parameter vector's pointer and length);
            // the kernel writes elements 0..size of `out`, a fresh C-contiguous array, and
            // reads aux[0..kdim) of a live array of that length (freed in stream order).
            unsafe { args.launch(&self.device, &f, grid)? };
        }
        self.state.position = self.state.position.wrapping_add(size as u128);
        Ok(out)
    }
}

// ---- the host side ----------------------------------------------------------------------

impl HostGenerator {
    fn sample_real<T: FloatElement>(&mut self, call: Call<'_>, shape: &[usize]) -> Result<Vec<T>> {
        let n = elements(call.sampler.name(), shape)?;
        let State { seed, stream, .. } = self.state;
        let j0 = self.state.position as u64;
        let par = Par {
            p: call.p,
            aux: call.aux,
        };
        let out = (0..n as u64)
            .map(|i| {
                to_float(hd::real(
                    call.sampler,
                    &par,
                    j0.wrapping_add(i),
                    seed,
                    stream,
                ))
            })
            .collect();
        self.state.position = self.state.position.wrapping_add(n as u128);
        Ok(out)
    }

    pub(super) fn sample_int(&mut self, call: Call<'_>, shape: &[usize]) -> Result<Vec<i64>> {
        let n = elements(call.sampler.name(), shape)?;
        let State { seed, stream, .. } = self.state;
        let j0 = self.state.position as u64;
        let par = Par {
            p: call.p,
            aux: call.aux,
        };
        let out = (0..n as u64)
            .map(|i| hd::int(call.sampler, &par, j0.wrapping_add(i), seed, stream))
            .collect();
        self.state.position = self.state.position.wrapping_add(n as u128);
        Ok(out)
    }
}

/// Continuous samplers, on the device and the host, from one table: name, check of the
/// arguments to the four kernel parameters, docs.
macro_rules! continuous {
    ($( $(#[$doc:meta])* $name:ident ( $($arg:ident),* ) => $sampler:ident, $check:expr, $example:literal; )*) => {
        impl Generator {
            $(
                $(#[$doc])*
                ///
                /// # Errors
                /// [`Error::InvalidArgument`] naming the parameter when one is out of its
                /// domain; [`Error::OutOfMemory`]; [`Error::Capture`] while a CUDA graph is
                /// being captured on the device.
                ///
                /// ```no_run
                /// let dev = cuarray::Device::new(0)?;
                /// let mut rng = cuarray::random::Generator::new(&dev, 1);
                #[doc = $example]
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                pub fn $name<T: FloatElement>(&mut self, $($arg: f64,)* shape: &[usize]) -> Result<DeviceArray<T>> {
                    let op = stringify!($name);
                    let check: &dyn Fn(&'static str) -> Result<[f64; 4]> = &$check;
                    let p = check(op)?;
                    self.sample(Call::new(Sampler::$sampler, p), shape)
                }
            )*
        }
        impl HostGenerator {
            $(
                #[doc = concat!("As [`Generator::", stringify!($name), "`], on the CPU.")]
                ///
                /// # Errors
                #[doc = concat!("As [`Generator::", stringify!($name), "`], or when the shape's element count overflows `usize`.")]
                pub fn $name<T: FloatElement>(&mut self, $($arg: f64,)* shape: &[usize]) -> Result<Vec<T>> {
                    let op = stringify!($name);
                    let check: &dyn Fn(&'static str) -> Result<[f64; 4]> = &$check;
                    let p = check(op)?;
                    self.sample_real(Call::new(Sampler::$sampler, p), shape)
                }
            )*
        }
    };
}

continuous! {
    /// Gamma values of shape `k` and scale 1 (Marsaglia and Tsang's method; for `k < 1`,
    /// `gamma(k + 1) U^(1/k)`). Mean `k`, variance `k`.
    standard_gamma(k) => Gamma, |op| Ok([positive(op, "shape k", k)?, 1.0, 0.0, 0.0]),
        "let g = rng.standard_gamma::<f32>(2.5, &[1 << 20])?;";
    /// Gamma values of shape `k` and scale `scale` (`scale` times
    /// [`standard_gamma`](Generator::standard_gamma)). Mean `k scale`.
    gamma(k, scale) => Gamma, |op| Ok([positive(op, "shape k", k)?, nonneg(op, "scale", scale)?, 0.0, 0.0]),
        "let g = rng.gamma::<f64>(2.0, 3.0, &[1000])?;";
    /// Beta values `X / (X + Y)` of gammas `X ~ Gamma(a)`, `Y ~ Gamma(b)` (computed from
    /// their logarithms, so small shapes do not give 0 / 0). Mean `a / (a + b)`.
    beta(a, b) => Beta, |op| Ok([positive(op, "a", a)?, positive(op, "b", b)?, 0.0, 0.0]),
        "let x = rng.beta::<f32>(2.0, 5.0, &[1000])?;";
    /// Chi-square values with `df` degrees of freedom (`2 gamma(df / 2)`).
    chisquare(df) => Chisquare, |op| Ok([positive(op, "df", df)?, 0.0, 0.0, 0.0]),
        "let x = rng.chisquare::<f64>(3.0, &[1000])?;";
    /// Student's t values with `df` degrees of freedom (`sqrt(df / 2) N / sqrt(gamma(df / 2))`).
    standard_t(df) => StandardT, |op| Ok([positive(op, "df", df)?, 0.0, 0.0, 0.0]),
        "let x = rng.standard_t::<f64>(5.0, &[1000])?;";
    /// Snedecor's F values: `(chi2(dfnum) / dfnum) / (chi2(dfden) / dfden)`.
    f(dfnum, dfden) => F, |op| Ok([positive(op, "dfnum", dfnum)?, positive(op, "dfden", dfden)?, 0.0, 0.0]),
        "let x = rng.f::<f64>(5.0, 10.0, &[1000])?;";
    /// Log-normal values `exp(mean + sigma N)`.
    lognormal(mean, sigma) => Lognormal, |op| Ok([finite(op, "mean", mean)?, nonneg(op, "sigma", sigma)?, 0.0, 0.0]),
        "let x = rng.lognormal::<f32>(0.0, 0.5, &[1000])?;";
    /// Laplace (double exponential) values with location `loc` and scale `scale`.
    laplace(loc, scale) => Laplace, |op| Ok([finite(op, "loc", loc)?, nonneg(op, "scale", scale)?, 0.0, 0.0]),
        "let x = rng.laplace::<f64>(0.0, 1.0, &[1000])?;";
    /// Logistic values `loc + scale ln(U / (1 - U))`.
    logistic(loc, scale) => Logistic, |op| Ok([finite(op, "loc", loc)?, nonneg(op, "scale", scale)?, 0.0, 0.0]),
        "let x = rng.logistic::<f64>(0.0, 1.0, &[1000])?;";
    /// Gumbel values `loc - scale ln(-ln U)`.
    gumbel(loc, scale) => Gumbel, |op| Ok([finite(op, "loc", loc)?, nonneg(op, "scale", scale)?, 0.0, 0.0]),
        "let x = rng.gumbel::<f32>(0.0, 1.0, &[1000])?;";
    /// Weibull values of shape `a` (`E^(1/a)` of a standard exponential `E`; 0 for `a = 0`).
    weibull(a) => Weibull, |op| Ok([nonneg(op, "a", a)?, 0.0, 0.0, 0.0]),
        "let x = rng.weibull::<f64>(1.5, &[1000])?;";
    /// Rayleigh values of scale `scale` (`scale sqrt(-2 ln U)`).
    rayleigh(scale) => Rayleigh, |op| Ok([nonneg(op, "scale", scale)?, 0.0, 0.0, 0.0]),
        "let x = rng.rayleigh::<f64>(2.0, &[1000])?;";
    /// Pareto II (Lomax) values of shape `a`, as NumPy: `exp(E / a) - 1`.
    pareto(a) => Pareto, |op| Ok([positive(op, "a", a)?, 0.0, 0.0, 0.0]),
        "let x = rng.pareto::<f64>(3.0, &[1000])?;";
    /// Power-function values in `[0, 1]` of exponent `a - 1` (`U^(1/a)`).
    power(a) => Power, |op| Ok([positive(op, "a", a)?, 0.0, 0.0, 0.0]),
        "let x = rng.power::<f64>(3.0, &[1000])?;";
    /// Standard Cauchy values (a ratio of two standard normals).
    standard_cauchy() => StandardCauchy, |_op| Ok([0.0; 4]),
        "let x = rng.standard_cauchy::<f64>(&[1000])?;";
    /// Wald (inverse Gaussian) values of mean `mean` and scale `scale`.
    wald(mean, scale) => Wald, |op| Ok([positive(op, "mean", mean)?, positive(op, "scale", scale)?, 0.0, 0.0]),
        "let x = rng.wald::<f64>(1.0, 2.0, &[1000])?;";
    /// Triangular values on `[left, right]` with mode `mode`.
    triangular(left, mode, right) => Triangular, |op| {
        let (l, m, r) = (finite(op, "left", left)?, finite(op, "mode", mode)?, finite(op, "right", right)?);
        if !(l <= m && m <= r && l < r) {
            return Err(bad(op, format!("needs left <= mode <= right and left < right, got left = {l}, mode = {m}, right = {r}")));
        }
        Ok([l, m, r, 0.0])
    }, "let x = rng.triangular::<f64>(0.0, 1.0, 3.0, &[1000])?;";
    /// Von Mises values on `[-pi, pi]` with mode `mu` and concentration `kappa` (Best and
    /// Fisher's rejection, as NumPy).
    vonmises(mu, kappa) => Vonmises, |op| Ok([finite(op, "mu", mu)?, nonneg(op, "kappa", kappa)?, 0.0, 0.0]),
        "let x = rng.vonmises::<f64>(0.5, 4.0, &[1000])?;";
    /// Normal values of mean `mean` and standard deviation `std` truncated to `[a, b]`
    /// (absolute bounds, as PyTorch's `trunc_normal_`; either may be infinite): Robert's
    /// rejection samplers (normal, exponential or uniform proposals by the interval).
    truncated_normal(mean, std, a, b) => TruncatedNormal, |op| {
        let (m, s) = (finite(op, "mean", mean)?, positive(op, "std", std)?);
        if a.partial_cmp(&b) != Some(std::cmp::Ordering::Less) {
            return Err(bad(op, format!("needs bounds a < b, got a = {a}, b = {b}")));
        }
        Ok([m, s, (a - m) / s, (b - m) / s])
    }, "let w = rng.truncated_normal::<f32>(0.0, 0.02, -0.04, 0.04, &[256, 256])?;";
}

/// Discrete samplers' checked parameters.
fn poisson_call(lam: f64) -> Result<Call<'static>> {
    let lam = nonneg("poisson", "lam", lam)?;
    if lam > 1e18 {
        return Err(bad(
            "poisson",
            format!("lam must be at most 1e18, got {lam}"),
        ));
    }
    Ok(Call::new(Sampler::Poisson, [lam, 0.0, 0.0, 0.0]))
}

fn binomial_call(n: u64, p: f64) -> Result<Call<'static>> {
    let op = "binomial";
    Ok(Call::new(
        Sampler::Binomial,
        [count(op, "n", n)?, prob(op, "p", p)?, 0.0, 0.0],
    ))
}

fn negative_binomial_call(n: f64, p: f64) -> Result<Call<'static>> {
    let op = "negative_binomial";
    let n = positive(op, "n", n)?;
    if !(p > 0.0 && p <= 1.0) {
        return Err(bad(op, format!("p must be in (0, 1], got {p}")));
    }
    Ok(Call::new(Sampler::NegativeBinomial, [n, p, 0.0, 0.0]))
}

fn geometric_call(p: f64) -> Result<Call<'static>> {
    if !(p > 0.0 && p <= 1.0) {
        return Err(bad("geometric", format!("p must be in (0, 1], got {p}")));
    }
    Ok(Call::new(Sampler::Geometric, [p, 0.0, 0.0, 0.0]))
}

fn hypergeometric_call(ngood: u64, nbad: u64, nsample: u64) -> Result<Call<'static>> {
    let op = "hypergeometric";
    let (g, b, s) = (
        count(op, "ngood", ngood)?,
        count(op, "nbad", nbad)?,
        count(op, "nsample", nsample)?,
    );
    if ngood
        .checked_add(nbad)
        .is_none_or(|t| nsample > t || t > 1 << 53)
    {
        return Err(bad(op, format!("needs nsample <= ngood + nbad <= 2^53, got ngood = {ngood}, nbad = {nbad}, nsample = {nsample}")));
    }
    Ok(Call::new(Sampler::Hypergeometric, [g, b, s, 0.0]))
}

fn dirichlet_check(alpha: &[f64]) -> Result<()> {
    if alpha.is_empty() {
        return Err(bad("dirichlet", "alpha must not be empty".into()));
    }
    for (i, &a) in alpha.iter().enumerate() {
        positive("dirichlet", &format!("alpha[{i}]"), a)?;
    }
    Ok(())
}

fn multinomial_check(n: u64, pvals: &[f64]) -> Result<f64> {
    let op = "multinomial";
    let n = count(op, "n", n)?;
    if pvals.is_empty() {
        return Err(bad(op, "pvals must not be empty".into()));
    }
    if let Some((i, v)) = pvals
        .iter()
        .enumerate()
        .find(|(_, v)| !(0.0..=1.0).contains(*v))
    {
        return Err(bad(op, format!("pvals[{i}] = {v} is outside [0, 1]")));
    }
    let s: f64 = pvals[..pvals.len() - 1].iter().sum();
    if s > 1.0 + P_TOL {
        return Err(bad(op, format!("sum(pvals[:-1]) = {s} exceeds 1")));
    }
    Ok(n)
}

fn with_k(size: &[usize], k: usize) -> Vec<usize> {
    let mut s = size.to_vec();
    s.push(k);
    s
}

impl Generator {
    /// Poisson counts of mean `lam` (NumPy's algorithms: multiplication of uniforms for
    /// `lam < 10`, Hörmann's PTRS transformed rejection above).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `lam` is negative, not finite or above 1e18.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let k = rng.poisson(10.0, &[1000])?;
    /// assert!(rng.poisson(-1.0, &[1]).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn poisson(&mut self, lam: f64, shape: &[usize]) -> Result<DeviceArray<i64>> {
        self.sample(poisson_call(lam)?, shape)
    }

    /// Binomial counts of `n` trials of probability `p` (NumPy's algorithms: inversion
    /// when `n min(p, 1 - p) <= 30`, BTPE above).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `p` is outside `[0, 1]` or `n` above 2^53.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let k = rng.binomial(100, 0.3, &[1000])?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn binomial(&mut self, n: u64, p: f64, shape: &[usize]) -> Result<DeviceArray<i64>> {
        self.sample(binomial_call(n, p)?, shape)
    }

    /// Negative binomial counts (failures before the `n`-th success, `n > 0` real): a
    /// Poisson of a gamma mixture, `poisson(gamma(n) (1 - p) / p)`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `n > 0` and `p` in `(0, 1]`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let k = rng.negative_binomial(2.5, 0.4, &[1000])?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn negative_binomial(
        &mut self,
        n: f64,
        p: f64,
        shape: &[usize],
    ) -> Result<DeviceArray<i64>> {
        self.sample(negative_binomial_call(n, p)?, shape)
    }

    /// Geometric counts: trials up to and including the first success (`>= 1`), by
    /// inversion, `ceil(ln U / ln(1 - p))`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `p` is in `(0, 1]`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let k = rng.geometric(0.2, &[1000])?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn geometric(&mut self, p: f64, shape: &[usize]) -> Result<DeviceArray<i64>> {
        self.sample(geometric_call(p)?, shape)
    }

    /// Hypergeometric counts: good items among `nsample` drawn without replacement from
    /// `ngood` good and `nbad` bad ones. Inversion, searching outwards from the mode (the
    /// mode's probability from log-gamma; about one step per standard deviation).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `nsample <= ngood + nbad <= 2^53`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let k = rng.hypergeometric(100, 200, 50, &[1000])?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn hypergeometric(
        &mut self,
        ngood: u64,
        nbad: u64,
        nsample: u64,
        shape: &[usize],
    ) -> Result<DeviceArray<i64>> {
        self.sample(hypergeometric_call(ngood, nbad, nsample)?, shape)
    }

    /// Dirichlet vectors: shape `size + [K]` for `K = alpha.len()`, each row
    /// `g_k / sum(g)` of gammas `g_k ~ Gamma(alpha_k)` (normalised in logs, so small
    /// `alpha` do not underflow to 0 / 0).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `alpha` is empty or an entry is not finite and `> 0`
    /// (the message names it).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let d = rng.dirichlet::<f64>(&[1.0, 2.0, 3.0], &[100])?;
    /// assert_eq!(d.shape(), &[100, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn dirichlet<T: FloatElement>(
        &mut self,
        alpha: &[f64],
        size: &[usize],
    ) -> Result<DeviceArray<T>> {
        dirichlet_check(alpha)?;
        let call = Call {
            sampler: Sampler::Dirichlet,
            p: [0.0; 4],
            aux: alpha,
        };
        self.sample(call, &with_k(size, alpha.len()))
    }

    /// Multinomial counts: shape `size + [K]` for `K = pvals.len()`, each row the counts
    /// of `n` trials over the categories (conditional binomials; the last category takes
    /// what is left, as NumPy).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `pvals` is empty, an entry is outside `[0, 1]`, or
    /// `sum(pvals[..K-1])` exceeds 1 by more than [`P_TOL`].
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let c = rng.multinomial(20, &[0.2, 0.3, 0.5], &[10])?;
    /// assert_eq!(c.shape(), &[10, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn multinomial(
        &mut self,
        n: u64,
        pvals: &[f64],
        size: &[usize],
    ) -> Result<DeviceArray<i64>> {
        let n = multinomial_check(n, pvals)?;
        let call = Call {
            sampler: Sampler::Multinomial,
            p: [n, 0.0, 0.0, 0.0],
            aux: pvals,
        };
        self.sample(call, &with_k(size, pvals.len()))
    }
}

impl HostGenerator {
    /// As [`Generator::poisson`], on the CPU.
    ///
    /// # Errors
    /// As [`Generator::poisson`].
    ///
    /// ```
    /// let k = cuarray::random::HostGenerator::new(1).poisson(4.0, &[10000])?;
    /// let mean = k.iter().sum::<i64>() as f64 / 1e4;
    /// assert!((mean - 4.0).abs() < 0.1);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn poisson(&mut self, lam: f64, shape: &[usize]) -> Result<Vec<i64>> {
        self.sample_int(poisson_call(lam)?, shape)
    }

    /// As [`Generator::binomial`], on the CPU.
    ///
    /// # Errors
    /// As [`Generator::binomial`].
    pub fn binomial(&mut self, n: u64, p: f64, shape: &[usize]) -> Result<Vec<i64>> {
        self.sample_int(binomial_call(n, p)?, shape)
    }

    /// As [`Generator::negative_binomial`], on the CPU.
    ///
    /// # Errors
    /// As [`Generator::negative_binomial`].
    pub fn negative_binomial(&mut self, n: f64, p: f64, shape: &[usize]) -> Result<Vec<i64>> {
        self.sample_int(negative_binomial_call(n, p)?, shape)
    }

    /// As [`Generator::geometric`], on the CPU.
    ///
    /// # Errors
    /// As [`Generator::geometric`].
    pub fn geometric(&mut self, p: f64, shape: &[usize]) -> Result<Vec<i64>> {
        self.sample_int(geometric_call(p)?, shape)
    }

    /// As [`Generator::hypergeometric`], on the CPU.
    ///
    /// # Errors
    /// As [`Generator::hypergeometric`].
    pub fn hypergeometric(
        &mut self,
        ngood: u64,
        nbad: u64,
        nsample: u64,
        shape: &[usize],
    ) -> Result<Vec<i64>> {
        self.sample_int(hypergeometric_call(ngood, nbad, nsample)?, shape)
    }

    /// As [`Generator::dirichlet`], on the CPU: rows of `alpha.len()`, row-major.
    ///
    /// # Errors
    /// As [`Generator::dirichlet`].
    ///
    /// ```
    /// let d = cuarray::random::HostGenerator::new(1).dirichlet::<f64>(&[0.5, 0.5], &[4])?;
    /// assert!(d.chunks(2).all(|r| (r[0] + r[1] - 1.0).abs() < 1e-12));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn dirichlet<T: FloatElement>(&mut self, alpha: &[f64], size: &[usize]) -> Result<Vec<T>> {
        dirichlet_check(alpha)?;
        let k = alpha.len();
        let rows = elements("dirichlet", &with_k(size, k))? / k;
        let State { seed, stream, .. } = self.state;
        let j0 = self.state.position as u64;
        let mut vals = Vec::with_capacity(rows * k);
        for r in 0..rows as u64 {
            hd::dirichlet_row(
                alpha,
                j0.wrapping_add(r * k as u64),
                seed,
                stream,
                &mut vals,
            );
        }
        self.state.position = self.state.position.wrapping_add((rows * k) as u128);
        Ok(vals.into_iter().map(to_float).collect())
    }

    /// As [`Generator::multinomial`], on the CPU: rows of `pvals.len()`, row-major.
    ///
    /// # Errors
    /// As [`Generator::multinomial`].
    pub fn multinomial(&mut self, n: u64, pvals: &[f64], size: &[usize]) -> Result<Vec<i64>> {
        let nf = multinomial_check(n, pvals)?;
        let k = pvals.len();
        let rows = elements("multinomial", &with_k(size, k))? / k;
        let State { seed, stream, .. } = self.state;
        let j0 = self.state.position as u64;
        let mut vals = Vec::with_capacity(rows * k);
        for r in 0..rows as u64 {
            hd::multinomial_row(
                nf,
                pvals,
                j0.wrapping_add(r * k as u64),
                seed,
                stream,
                &mut vals,
            );
        }
        self.state.position = self.state.position.wrapping_add((rows * k) as u128);
        Ok(vals)
    }
}
