//! Random numbers from a counter-based generator, Philox4x32-10, on the GPU
//! ([`Generator`]) and, with the same bits, on the CPU ([`HostGenerator`]).
//!
//! ```no_run
//! use cuarray::random::Generator;
//! let dev = cuarray::Device::new(0)?;
//! let mut rng = Generator::new(&dev, 42);          // like numpy.random.default_rng(42)
//! let u = rng.random::<f32>(&[1000])?;            // uniform in [0, 1)
//! let z = rng.standard_normal::<f64>(&[3, 4])?;
//! let k = rng.integers::<i64>(-5, 5, &[10])?;      // in [-5, 5)
//! let mask = rng.bernoulli(0.9, &[1000])?;        // DeviceArray<bool>
//! # Ok::<(), cuarray::Error>(())
//! ```
//!
//! # The stream
//! A generator is a seed `s` (a `u64`), a stream number (0 unless set) and a position: a
//! count of 32-bit words. Word `k` of the stream is word `k % 4` of the Philox4x32-10 block
//! ([`philox4x32_10`]) with
//! - counter = `[k / 4` low 32 bits, `k / 4` high 32 bits, stream low, stream high`]`,
//! - key = `[s` low 32 bits, `s` high 32 bits`]`.
//!
//! (The block index wraps at 2^64, so a stream repeats after 2^66 words.) Every value is a
//! function of the seed, the stream and its position only: not of the grid, the block size,
//! the GPU, the CUDA stream, or how the request was split into calls. [`HostGenerator`]
//! computes the same function on the CPU.
//!
//! # Words per value, and how the position advances
//! Each value takes `W` consecutive words: `W = 1` for `f32`, `f16`, `bf16` and `bool`,
//! `W = 2` for `f64`, and for integers `W = 1`, `2` or `4` by the range (below). A call for
//! `n` values first rounds the position up to a multiple of `W` (skipping at most `W - 1`
//! words), gives value `i` the words `start + W i .. start + W i + W`, and leaves the
//! position at `start + n W`. Hence the continuation property: for one distribution, one
//! element type and (for `integers`) one range class, `rng.random(n)` then `rng.random(m)`
//! equals the first `n + m` values of one `rng.random(n + m)` from a generator with the same
//! seed, for every `n` and `m`. Calls of different kinds never reuse a word.
//!
//! # Values from words
//! - **Uniform floats** in `[low, high)`: the integer `m` of the top 24 bits of one word
//!   (`f32`, `f16`, `bf16`) or the top 53 bits of two (`f64`: the first word is the low
//!   half), so that `u = m 2^-24` (or `m 2^-53`) is in `[0, 1)`; then
//!   `low + m s` by one fused multiply-add in `f32` (`f64` for `f64`), with the step
//!   `s = (high - low) 2^-24` (or `2^-53`) rounded once. That is `low + (high - low) u`
//!   with a single rounding whenever `s` is exact, which it is unless `high - low` is below
//!   2^-102 (2^-969 for `f64`). Rounding can carry the result up to `high`: such a result
//!   becomes the largest value below `high`, in the compute type and again after rounding
//!   to `f16` or `bf16` (round to nearest even). So a value is never `high` (cuRAND's
//!   uniform is `(0, 1]`; cuarray's is NumPy's `[0, 1)`).
//! - **Normals** by Box-Muller, every word used: values `2j` and `2j + 1` (counted from the
//!   start of the stream, so pairs do not depend on the call) are
//!   `mean + (std r) cos t` and `mean + (std r) sin t` (`std r` rounded once, then one
//!   fused multiply-add each; for mean 0 and std 1, `r cos t` and `r sin t` with one
//!   rounding each) with `r = sqrt(-2 ln u)`, `u = w 2^-32 + 2^-33` rounded to `f32`, in
//!   `(0, 1]`, from the pair's first `W` words (`f64`: the top 53 bits plus one, times
//!   2^-53), and the angle `t` from the next `W`: for `f64`, `2 pi w' / 2^64` of the 64
//!   bits; for the others, bits 7-29 of the word (rounded at bit 6) give an angle in
//!   `[-pi / 4, pi / 4)` in steps of `2 pi / 2^25` (finer than the values' own precision),
//!   bit 30 reflects it about the y axis (`pi - t`) and bit 31 about the diagonal
//!   (`pi / 2 - t`), so `t` is uniform over the circle. `u` is never 0, so there is no NaN
//!   or infinity; the largest magnitude is `sqrt(2 ln 2^33)` = 6.76 for 32-bit types and
//!   8.57 for `f64`. `ln`, `cos` and `sin` are cuarray's own (a table and polynomials,
//!   within a few units in the last place), identical on the host and the device, and
//!   the square root is the correctly rounded one.
//! - **Exponential**: `-ln(u) scale` with the same `u` in `(0, 1]`, which is `1 - u'` for a
//!   `u'` in `[0, 1)` (NumPy's `-log(1 - random())`); never infinite, `+0` rather than `-0`.
//! - **Integers** in `[low, high)`, `range = high - low`:
//!   - `W = 1` when `range` is at most 2^24 or a power of two up to 2^32: Lemire's
//!     multiply. For the value's word `x`, `m = x range`; the offset is `m >> 32`, accepted
//!     when `m mod 2^32` is at least `t = 2^32 mod range` (always, for powers of two).
//!     Accepted words give every offset exactly `floor(2^32 / range)` times. A rejected
//!     word (probability `t / 2^32`, below 2^-8) is replaced by 64 fresh bits `y`, words 0
//!     and 1 of the Philox block of the value's group of 4 (counter as above) under the key
//!     `s + (e + 1) 0x9E3779B97F4A7C15` (mod 2^64), `e` the value's slot in its group;
//!     the offset is then `floor(y range / 2^64)`.
//!   - `W = 2` for other ranges up to 2^32 and larger powers of two, `W = 4` for the rest
//!     (only 64-bit types have such ranges, up to the full `i64`/`u64` range `2^64 - 1`):
//!     `floor(x range / 2^(32 W))` for the value's `32 W` random bits `x`.
//!
//!   No loop: a value depends on its position only. Each map is exact for powers of two;
//!   otherwise every probability is within total variation of `1 / range`: below
//!   `(t / 2^32) (range / 2^64)` < 2^-48 for `W = 1` (only the rare fallback can be off),
//!   `range / 2^64` < 2^-32 for `W = 2` and `range / 2^128` < 2^-64 for `W = 4`; a test
//!   that could see a 2^-32 bias needs about 2^64 samples. There is no modulo bias
//!   concentrated on small values.
//! - **Bernoulli**: `w < round(p 2^32)`, so `P(true)` is `p` to within 2^-33, and exactly 0
//!   and 1 for `p = 0` and `p = 1`.
//!
//! # The same bits on the CPU
//! The kernels (`kernels/philox.cuh`) and [`HostGenerator`] (`src/random/host.rs`) run the
//! same IEEE operations in the same order: every floating-point step is a correctly rounded
//! add, multiply, divide, square root or fused multiply-add (written with the device's
//! `_rn` intrinsics, which the compiler never fuses or reorders), and `ln`, `cos` and
//! `sin` are cuarray's own polynomials over those (`f32`'s `ln` with a 16-entry table
//! that both sides hold; within 4 ulp of the true values for `ln`, 3e-7 and 3e-15
//! absolute for `cos`/`sin` in `f32`/`f64`). So every distribution,
//! normals and exponentials included, agrees bit for bit between the GPU and the CPU.
//!
//! # NumPy's distributions
//! Gamma, beta, chi-square, t, F, log-normal, Laplace, logistic, Gumbel, Weibull,
//! Rayleigh, Pareto, power, Cauchy, Wald, triangular, von Mises and truncated normal
//! (continuous, `::<T>` for any float type, parameters `f64`); Poisson, binomial, negative
//! binomial, geometric and hypergeometric (`i64`); Dirichlet and multinomial rows; `choice`
//! and `choice_from`; `multivariate_normal`. They use NumPy's algorithms (Marsaglia-Tsang
//! gammas, PTRS Poisson, BTPE binomial, Best-Fisher von Mises, ...), computed in `f64` and
//! rounded once to the element type (`f16` and `bf16` through `f32`).
//!
//! Rejection samplers need a varying number of uniforms, so each output element has its own
//! **substream**: element `i` of a call made at position `p` is element `j = p + i` (for
//! rows of `K`, element `k` of row `r` is `j = p + r K + k`), and block `b` of its substream
//! is Philox4x32-10 of the counter `[j` low, `j` high, stream low, stream high`]` under the key
//! `seed + (b + 1) 0xD1B54A32D192ED03` (mod 2^64); a sampler that needs two independent parts
//! (beta's two gammas, t's normal and gamma, F's two chi-squares, the negative binomial's
//! gamma and Poisson) starts the second at block 2^32. Uniforms are 53-bit (two words); a
//! call advances the position by its element count. So every value is a function of the
//! seed, the stream and `j` only: not of the launch, the shape of the request (a `[1000, 7]`
//! request is the `[7000]` one reshaped) or the order in which threads finish their loops.
//! The substream keys never equal the main stream's (the increment is odd) and differ from
//! the integer fallback keys.
//!
//! **Bit-exact on the host**: every sampler above except `multivariate_normal`. The kernels
//! (`kernels/distributions.cuh`) use no device math library: every step is a correctly
//! rounded add, multiply, divide, square root or FMA, or an exact `floor`/`ceil`/`rint`,
//! and `exp`, `ln`, `log1p`, `expm1`, `cos(pi t)`, `atan` (for von Mises' `acos`) and
//! NumPy's `loggam` are cuarray's own, the same on both sides. So a rejection decision can
//! not differ between the GPU and the CPU, and [`HostGenerator`] gives the same numbers
//! (the GPU tests compare them bit for bit). `choice` without replacement with `p` divides
//! exponentials by `p` on the device (IEEE division) and sorts, as the host does.
//! **In distribution only**: `multivariate_normal`, whose normals are the same but whose
//! Cholesky factor (cuSOLVER) and product (cuBLAS) round differently from the host's
//! `f64` loops (the values agree to about 1e-15 relative).
//!
//! The numbers are not NumPy's: NumPy's `Philox` bit generator uses the same block
//! function but derives its key from the seed through `SeedSequence`, and its
//! distributions (ziggurat normals, Lemire's integers with a rejection loop) consume the stream differently.

mod choice;
mod distributions;
mod host;
mod host_distributions;
mod launch;
mod philox;

pub use distributions::P_TOL;
pub use philox::philox4x32_10;
#[doc(hidden)]
pub use philox::KAT as PHILOX_KAT;

use crate::array::DeviceArray;
use crate::element::{DType, Element, FloatElement, IntElement};
use crate::{Device, Error, Result};
use host::{Dist, Span};

/// Seed, stream and position: the whole state of a generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct State {
    seed: u64,
    stream: u64,
    position: u128,
}

impl State {
    fn new(seed: u64) -> State {
        State {
            seed,
            stream: 0,
            position: 0,
        }
    }

    /// Where a call whose values take `words` words each starts.
    fn span(&self, words: u32) -> Span {
        let w = words as u128;
        Span {
            seed: self.seed,
            stream: self.stream,
            start: self.position.div_ceil(w) * w,
            words,
        }
    }

    fn advance(&mut self, span: Span, n: usize) {
        self.position = span.start + n as u128 * span.words as u128;
    }
}

// ---- checking arguments -------------------------------------------------------------

fn uniform_dist<T: FloatElement>(low: T, high: T) -> Result<Dist> {
    let (lo, hi) = (low.to_f64(), high.to_f64());
    if !(lo.is_finite() && hi.is_finite()) || lo >= hi {
        return Err(Error::invalid(
            "uniform",
            format!("needs finite low < high, got low = {lo}, high = {hi}"),
        ));
    }
    let width_finite = if T::DTYPE == DType::F64 {
        (hi - lo).is_finite()
    } else {
        (hi as f32 - lo as f32).is_finite()
    };
    if !width_finite {
        return Err(Error::invalid(
            "uniform",
            format!(
                "high - low overflows {} (low = {lo}, high = {hi})",
                T::DTYPE
            ),
        ));
    }
    Ok(Dist::Uniform { low: lo, high: hi })
}

fn normal_dist<T: FloatElement>(mean: T, std: T) -> Result<Dist> {
    let (mean, std) = (mean.to_f64(), std.to_f64());
    if !mean.is_finite() || !std.is_finite() || std < 0.0 {
        return Err(Error::invalid(
            "normal",
            format!("needs a finite mean and a finite std >= 0, got mean = {mean}, std = {std}"),
        ));
    }
    Ok(Dist::Normal { mean, std })
}

fn exponential_dist<T: FloatElement>(scale: T) -> Result<Dist> {
    let scale = scale.to_f64();
    if !scale.is_finite() || scale < 0.0 {
        return Err(Error::invalid(
            "exponential",
            format!("needs a finite scale >= 0, got {scale}"),
        ));
    }
    Ok(Dist::Exponential { scale })
}

fn integers_dist<T: IntElement>(low: T, high: T) -> Result<Dist> {
    let wide = |v: T| -> i128 {
        let w = v.to_i64_wrapping();
        if T::DTYPE.is_signed_int() {
            w as i128
        } else {
            w as u64 as i128
        }
    };
    let (lo, hi) = (wide(low), wide(high));
    if lo >= hi {
        return Err(Error::invalid(
            "integers",
            format!("needs low < high, got low = {low}, high = {high}"),
        ));
    }
    let range = (hi - lo) as u128;
    let words = if (range.is_power_of_two() && range <= 1 << 32) || range <= 1 << 24 {
        1
    } else if range <= 1 << 32 || range.is_power_of_two() {
        2
    } else {
        4
    };
    Ok(Dist::Integers {
        low: lo as u64,
        range: range as u64,
        words,
    })
}

fn bernoulli_dist(p: f64) -> Result<Dist> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::invalid(
            "bernoulli",
            format!("p must be in [0, 1], got {p}"),
        ));
    }
    Ok(Dist::Bernoulli {
        threshold: (p * 4_294_967_296.0).round() as u64,
    })
}

fn unit<T: FloatElement>() -> (T, T) {
    (T::ZERO, T::ONE)
}

// ---- the GPU generator --------------------------------------------------------------

/// A Philox4x32-10 generator whose numbers are made on the GPU, like NumPy's
/// `numpy.random.default_rng(seed)`: each call returns a fresh contiguous array and moves
/// the generator past the words it used (see the [module documentation](self) for the
/// layout and the formulas). Calls take `&mut self`: to share one generator between
/// threads, put it behind a `Mutex`.
///
/// The same seed gives the same numbers on every GPU, whatever the launch configuration,
/// and the same as [`HostGenerator`] on the CPU, bit for bit.
///
/// ```no_run
/// use cuarray::random::{Generator, HostGenerator};
/// let dev = cuarray::Device::new(0)?;
/// let mut rng = Generator::new(&dev, 7);
/// let a = rng.random::<f32>(&[3])?;
/// let b = rng.random::<f32>(&[5])?;       // continues the stream
/// let all = Generator::new(&dev, 7).random::<f32>(&[8])?;
/// let mut ab = a.to_host()?;
/// ab.extend(b.to_host()?);
/// assert_eq!(ab, all.to_host()?);
/// assert_eq!(all.to_host()?, HostGenerator::new(7).random::<f32>(&[8])?);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct Generator {
    device: Device,
    state: State,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator")
            .field("device", &self.device.ordinal())
            .field("seed", &self.state.seed)
            .field("stream", &self.state.stream)
            .field("position", &self.state.position)
            .finish()
    }
}

impl Generator {
    /// A generator on `device` at the start of the stream of `seed`. Nothing runs on the
    /// GPU until the first call.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::random::Generator;
    /// let dev = Device::new(0)?;
    /// let mut rng = Generator::new(&dev, 42); // NumPy's np.random.default_rng(42)
    /// let a = rng.random::<f32>(&[3])?;
    /// let b = Generator::new(&dev, 42).random::<f32>(&[3])?; // the same seed, the same numbers
    /// assert_eq!(a.to_host()?, b.to_host()?);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn new(device: &Device, seed: u64) -> Generator {
        Generator {
            device: device.clone(),
            state: State::new(seed),
        }
    }

    /// A generator for `seed` on stream number `stream` (the counter's high 64 bits) at word
    /// `position`: for tests against published Philox vectors.
    #[doc(hidden)]
    pub fn with_counter(device: &Device, seed: u64, stream: u64, position: u128) -> Generator {
        Generator {
            device: device.clone(),
            state: State {
                seed,
                stream,
                position,
            },
        }
    }

    /// The seed.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::random::Generator;
    /// let dev = Device::new(0)?;
    /// assert_eq!(Generator::new(&dev, 7).seed(), 7);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn seed(&self) -> u64 {
        self.state.seed
    }

    /// How many 32-bit words of the stream have been used (or skipped) so far.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::random::Generator;
    /// let dev = Device::new(0)?;
    /// let mut rng = Generator::new(&dev, 0);
    /// rng.random::<f32>(&[10])?; // one 32-bit word per f32
    /// rng.random::<f64>(&[10])?; // two per f64
    /// assert_eq!(rng.position(), 30);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn position(&self) -> u128 {
        self.state.position
    }

    /// Moves to word `position` of the stream (forwards or backwards): the next call starts
    /// there (rounded up to its words per value).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::random::Generator;
    /// let dev = Device::new(0)?;
    /// let mut rng = Generator::new(&dev, 0);
    /// let first = rng.random::<f32>(&[4])?;
    /// rng.set_position(0); // back to the start: the same numbers again
    /// assert_eq!(rng.random::<f32>(&[4])?.to_host()?, first.to_host()?);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn set_position(&mut self, position: u128) {
        self.state.position = position;
    }

    fn fill<T: Element>(&mut self, dist: Dist, shape: &[usize]) -> Result<DeviceArray<T>> {
        let _range = crate::profile::range(dist.name());
        let span = self.state.span(dist.words(T::DTYPE));
        let out = DeviceArray::<T>::alloc_uninit(&self.device, shape)?;
        launch(&self.device, &out, dist, span)?;
        self.state.advance(span, out.size());
        Ok(out)
    }

    /// Uniform values in `[0, 1)` (never 1, also for `f16` and `bf16`).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the shape's element count or byte size passes `isize::MAX`;
    /// [`Error::OutOfMemory`] when the device is full; [`Error::Capture`] while a CUDA
    /// graph is being captured on the device (a replay would repeat the numbers).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let u = rng.random::<f32>(&[4, 4])?.to_host()?;
    /// assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn random<T: FloatElement>(&mut self, shape: &[usize]) -> Result<DeviceArray<T>> {
        let (lo, hi) = unit::<T>();
        self.fill(uniform_dist(lo, hi)?, shape)
    }

    /// Uniform values in `[low, high)`: never `high`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `low < high`, both finite, and `high - low` finite
    /// in the compute type (`f32`, or `f64` for `f64`).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let x = rng.uniform(-1.0f64, 1.0, &[1000])?.to_host()?;
    /// assert!(x.iter().all(|&v| (-1.0..1.0).contains(&v)));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn uniform<T: FloatElement>(
        &mut self,
        low: T,
        high: T,
        shape: &[usize],
    ) -> Result<DeviceArray<T>> {
        self.fill(uniform_dist(low, high)?, shape)
    }

    /// Standard normal values (mean 0, standard deviation 1), by Box-Muller.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the shape's element count or byte size passes `isize::MAX`;
    /// [`Error::OutOfMemory`] when the device is full; [`Error::Capture`] while a CUDA
    /// graph is being captured on the device (a replay would repeat the numbers).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let z = rng.standard_normal::<f32>(&[1 << 20])?;
    /// assert!(z.mean()?.to_scalar()?.abs() < 0.01);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn standard_normal<T: FloatElement>(&mut self, shape: &[usize]) -> Result<DeviceArray<T>> {
        let (zero, one) = unit::<T>();
        self.fill(normal_dist(zero, one)?, shape)
    }

    /// Normal values with mean `mean` and standard deviation `std`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `mean` is finite and `std` finite and `>= 0`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let w = rng.normal(0.0f32, 0.02, &[256, 256])?;   // weights
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn normal<T: FloatElement>(
        &mut self,
        mean: T,
        std: T,
        shape: &[usize],
    ) -> Result<DeviceArray<T>> {
        self.fill(normal_dist(mean, std)?, shape)
    }

    /// Integers in `[low, high)`, without modulo bias (see the [module
    /// documentation](self) for the exact bound).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `low >= high`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let dice = rng.integers(1u8, 7, &[100])?.to_host()?;
    /// assert!(dice.iter().all(|&d| (1..7).contains(&d)));
    /// let any = rng.integers(i64::MIN, i64::MAX, &[4])?;   // 2^64 - 1 values
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn integers<T: IntElement>(
        &mut self,
        low: T,
        high: T,
        shape: &[usize],
    ) -> Result<DeviceArray<T>> {
        self.fill(integers_dist(low, high)?, shape)
    }

    /// `true` with probability `p` (to within 2^-33).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `p` is not in `[0, 1]`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let keep = rng.bernoulli(0.9, &[1024])?;     // a dropout mask
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn bernoulli(&mut self, p: f64, shape: &[usize]) -> Result<DeviceArray<bool>> {
        self.fill(bernoulli_dist(p)?, shape)
    }

    /// Exponential values with scale `scale` (mean `scale`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `scale` is finite and `>= 0`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 1);
    /// let waits = rng.exponential(2.0f64, &[1000])?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn exponential<T: FloatElement>(
        &mut self,
        scale: T,
        shape: &[usize],
    ) -> Result<DeviceArray<T>> {
        self.fill(exponential_dist(scale)?, shape)
    }

    /// A random permutation of `0..n` (NumPy's `permutation(n)`): `n` random 64-bit keys
    /// (as [`integers`](Generator::integers) draws them), then their stable argsort. Two
    /// equal keys (probability about `n^2 / 2^65`) keep their index order.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when `n` elements pass `isize::MAX` bytes;
    /// [`Error::OutOfMemory`] when the device is full; [`Error::Capture`] while a CUDA
    /// graph is being captured on the device (a replay would repeat the numbers).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let mut rng = cuarray::random::Generator::new(&dev, 7);
    /// let mut p = rng.permutation(10)?.to_host()?;
    /// p.sort();
    /// assert_eq!(p, (0..10).collect::<Vec<i64>>());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn permutation(&mut self, n: usize) -> Result<DeviceArray<i64>> {
        let keys = self.integers::<u64>(0, u64::MAX, &[n])?;
        keys.argsort(0)
    }

    /// Shuffles `a` in place along its first axis (NumPy's `shuffle`): the rows are
    /// reordered by [`permutation`](Generator::permutation) (a gather into a new array,
    /// copied back).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::random::Generator;
    /// let dev = Device::new(0)?;
    /// let mut rng = Generator::new(&dev, 3);
    /// let mut a = DeviceArray::<i32>::arange(&dev, 0, 6, 1)?.reshape(&[3, 2])?;
    /// rng.shuffle(&mut a)?; // the rows [0, 1], [2, 3], [4, 5] in some order
    /// let rows = a.to_host()?;
    /// assert!(rows.chunks(2).all(|r| r[1] == r[0] + 1 && r[0] % 2 == 0));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a 0-d array, or a broadcast view (which cannot be
    /// written).
    pub fn shuffle<T: Element>(&mut self, a: &mut DeviceArray<T>) -> Result<()> {
        if a.ndim() == 0 {
            return Err(Error::invalid(
                "shuffle",
                "a 0-d array has no axis to shuffle",
            ));
        }
        crate::array::check_writable("shuffle", a.layout())?;
        let perm = self.permutation(a.shape()[0])?;
        let shuffled = a.take(&perm, Some(0))?;
        a.assign(&shuffled)
    }
}

/// Launches the kernel of `dist` for `out` (fresh, contiguous) over `span`.
fn launch<T: Element>(device: &Device, out: &DeviceArray<T>, dist: Dist, span: Span) -> Result<()> {
    let (group0, head) = span.group0_head();
    let (a, b) = dist.params();
    launch::run(
        device,
        &out.operand()?,
        &dist.kernel(T::DTYPE),
        launch::Stream {
            group0,
            head,
            key: span.seed,
            stream: span.stream,
        },
        (a, b),
    )
}

// ---- the CPU generator --------------------------------------------------------------

/// The same generator as [`Generator`], computed on the CPU: the same seed gives the same
/// numbers, bit for bit, and the same continuation. For tests, and for the numbers of a GPU
/// run without a GPU. Results are `Vec`s in row-major order of `shape`.
///
/// ```
/// use cuarray::random::HostGenerator;
/// let mut rng = HostGenerator::new(7);
/// let mut ab = rng.random::<f32>(&[3])?;
/// ab.extend(rng.random::<f32>(&[5])?);         // continues the stream
/// assert_eq!(ab, HostGenerator::new(7).random::<f32>(&[8])?);
/// assert!(ab.iter().all(|&x| (0.0..1.0).contains(&x)));
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostGenerator {
    state: State,
}

impl HostGenerator {
    /// A generator at the start of the stream of `seed`.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let a = HostGenerator::new(42).random::<f32>(&[3])?;
    /// assert_eq!(a, HostGenerator::new(42).random::<f32>(&[3])?); // and as `Generator::new(&dev, 42)`
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn new(seed: u64) -> HostGenerator {
        HostGenerator {
            state: State::new(seed),
        }
    }

    /// As [`Generator::with_counter`].
    #[doc(hidden)]
    pub fn with_counter(seed: u64, stream: u64, position: u128) -> HostGenerator {
        HostGenerator {
            state: State {
                seed,
                stream,
                position,
            },
        }
    }

    /// The seed.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// assert_eq!(HostGenerator::new(7).seed(), 7);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn seed(&self) -> u64 {
        self.state.seed
    }

    /// How many 32-bit words of the stream have been used (or skipped) so far.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let mut rng = HostGenerator::new(0);
    /// rng.random::<f32>(&[10])?; // one 32-bit word per f32
    /// rng.random::<f64>(&[10])?; // two per f64
    /// assert_eq!(rng.position(), 30);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn position(&self) -> u128 {
        self.state.position
    }

    /// Moves to word `position` of the stream, as [`Generator::set_position`].
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let mut rng = HostGenerator::new(0);
    /// let first = rng.random::<f32>(&[4])?;
    /// rng.set_position(0);
    /// assert_eq!(rng.random::<f32>(&[4])?, first);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn set_position(&mut self, position: u128) {
        self.state.position = position;
    }

    fn fill<T: Element>(
        &mut self,
        dist: Dist,
        shape: &[usize],
        narrow: impl Fn(u64) -> T,
    ) -> Result<Vec<T>> {
        let n = shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .ok_or_else(|| Error::invalid(dist.name(), format!("shape {shape:?} is too large")))?;
        let span = self.state.span(dist.words(T::DTYPE));
        let v = host::fill(span, dist, n, narrow);
        self.state.advance(span, n);
        Ok(v)
    }

    fn fill_float<T: FloatElement>(&mut self, dist: Dist, shape: &[usize]) -> Result<Vec<T>> {
        self.fill(dist, shape, |_| T::ZERO)
    }

    /// As [`Generator::random`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the shape's element count overflows `usize`.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let u = HostGenerator::new(1).random::<f64>(&[2, 500])?;
    /// assert_eq!(u.len(), 1000);
    /// assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn random<T: FloatElement>(&mut self, shape: &[usize]) -> Result<Vec<T>> {
        let (lo, hi) = unit::<T>();
        self.fill_float(uniform_dist(lo, hi)?, shape)
    }

    /// As [`Generator::uniform`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] as [`Generator::uniform`], or when the shape's element
    /// count overflows `usize`.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let u = HostGenerator::new(1).uniform::<f32>(-1.0, 1.0, &[100])?;
    /// assert!(u.iter().all(|&x| (-1.0..1.0).contains(&x)));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn uniform<T: FloatElement>(&mut self, low: T, high: T, shape: &[usize]) -> Result<Vec<T>> {
        self.fill_float(uniform_dist(low, high)?, shape)
    }

    /// As [`Generator::standard_normal`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the shape's element count overflows `usize`.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let z = HostGenerator::new(1).standard_normal::<f64>(&[1000])?;
    /// assert!(z.iter().all(|x| x.is_finite() && x.abs() < 8.6));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn standard_normal<T: FloatElement>(&mut self, shape: &[usize]) -> Result<Vec<T>> {
        let (zero, one) = unit::<T>();
        self.fill_float(normal_dist(zero, one)?, shape)
    }

    /// As [`Generator::normal`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] as [`Generator::normal`], or when the shape's element
    /// count overflows `usize`.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let x = HostGenerator::new(1).normal::<f32>(10.0, 0.5, &[1000])?;
    /// let mean = x.iter().sum::<f32>() / 1000.0;
    /// assert!((mean - 10.0).abs() < 0.1);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn normal<T: FloatElement>(&mut self, mean: T, std: T, shape: &[usize]) -> Result<Vec<T>> {
        self.fill_float(normal_dist(mean, std)?, shape)
    }

    /// As [`Generator::integers`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] as [`Generator::integers`], or when the shape's element
    /// count overflows `usize`.
    ///
    /// ```
    /// let mut rng = cuarray::random::HostGenerator::new(3);
    /// let v = rng.integers(-3i16, 4, &[1000])?;
    /// assert!(v.iter().all(|&x| (-3..4).contains(&x)));
    /// assert!(rng.integers(5u32, 5, &[1]).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn integers<T: IntElement>(&mut self, low: T, high: T, shape: &[usize]) -> Result<Vec<T>> {
        self.fill(integers_dist(low, high)?, shape, T::from_u64_wrapping)
    }

    /// As [`Generator::bernoulli`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] as [`Generator::bernoulli`], or when the shape's element
    /// count overflows `usize`.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let m = HostGenerator::new(1).bernoulli(0.0, &[8])?;
    /// assert_eq!(m, vec![false; 8]); // p = 0: never true
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn bernoulli(&mut self, p: f64, shape: &[usize]) -> Result<Vec<bool>> {
        self.fill(bernoulli_dist(p)?, shape, |v| v != 0)
    }

    /// As [`Generator::exponential`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] as [`Generator::exponential`], or when the shape's
    /// element count overflows `usize`.
    ///
    /// ```
    /// use cuarray::random::HostGenerator;
    /// let x = HostGenerator::new(1).exponential::<f64>(2.0, &[1000])?;
    /// assert!(x.iter().all(|&v| v >= 0.0 && v.is_finite()));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn exponential<T: FloatElement>(&mut self, scale: T, shape: &[usize]) -> Result<Vec<T>> {
        self.fill_float(exponential_dist(scale)?, shape)
    }
}

#[cfg(test)]
mod tests;
