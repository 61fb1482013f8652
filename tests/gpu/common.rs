//! Shared pieces of the GPU test tiers: trial registration, a seeded PRNG, exact host
//! references for every dtype, a tiny host n-d array and comparison helpers.

use cuarray::{DType, Device, DeviceArray, Element};
use half::{bf16, f16};
use libtest_mimic::{Failed, Trial};
use std::sync::{Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

/// What every trial returns.
pub type TResult = Result<(), Failed>;

/// Fails the trial with a formatted message unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {{
        let ok: bool = $cond;
        if !ok {
            return Err(libtest_mimic::Failed::from(format!($($fmt)+)));
        }
    }};
}
pub(crate) use ensure;

/// Calls `$f::<T>($args...)` once per element type (all 13).
macro_rules! each_dtype {
    ($f:ident ( $($args:expr),* )) => {{
        $f::<f32>($($args),*);
        $f::<f64>($($args),*);
        $f::<half::f16>($($args),*);
        $f::<half::bf16>($($args),*);
        $f::<i8>($($args),*);
        $f::<i16>($($args),*);
        $f::<i32>($($args),*);
        $f::<i64>($($args),*);
        $f::<u8>($($args),*);
        $f::<u16>($($args),*);
        $f::<u32>($($args),*);
        $f::<u64>($($args),*);
        $f::<bool>($($args),*);
    }};
}
pub(crate) use each_dtype;

/// Calls `$f::<T>($args...)` once per numeric element type (all but bool).
macro_rules! each_num_dtype {
    ($f:ident ( $($args:expr),* )) => {{
        $f::<f32>($($args),*);
        $f::<f64>($($args),*);
        $f::<half::f16>($($args),*);
        $f::<half::bf16>($($args),*);
        $f::<i8>($($args),*);
        $f::<i16>($($args),*);
        $f::<i32>($($args),*);
        $f::<i64>($($args),*);
        $f::<u8>($($args),*);
        $f::<u16>($($args),*);
        $f::<u32>($($args),*);
        $f::<u64>($($args),*);
    }};
}
pub(crate) use each_num_dtype;

// ---- the harness ---------------------------------------------------------------------

/// The device (or why there is none), computed once by `main`.
pub static GPU: OnceLock<Result<Device, String>> = OnceLock::new();

/// Trials take this shared; the few that measure device-wide counters take it exclusively.
static EXCLUSIVE: RwLock<()> = RwLock::new(());

fn gpu_state() -> &'static Result<Device, String> {
    GPU.get_or_init(cuarray::testing::gpu)
}

/// True when GPU trials are registered ignored (no GPU, and none required).
fn gpu_ignored() -> bool {
    gpu_state().is_err() && !cuarray::testing::gpu_required()
}

fn run_on_gpu(exclusive: bool, f: impl FnOnce(&Device) -> TResult) -> TResult {
    let dev = match gpu_state() {
        Ok(d) => d,
        Err(reason) => {
            return Err(format!("no usable GPU (CUARRAY_REQUIRE_GPU=1): {reason}").into())
        }
    };
    if exclusive {
        let _g = EXCLUSIVE.write().unwrap_or_else(|p| p.into_inner());
        f(dev)
    } else {
        let _g = EXCLUSIVE.read().unwrap_or_else(|p| p.into_inner());
        f(dev)
    }
}

/// The trials running now, with their start, for the watchdog.
static RUNNING: Mutex<Vec<(String, Instant)>> = Mutex::new(Vec::new());

/// Seconds from `CUARRAY_TEST_{name}` (`default` when unset or unreadable; 0: off).
fn env_secs(name: &str, default: u64) -> u64 {
    std::env::var(format!("CUARRAY_TEST_{name}"))
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Starts, once, a thread that names every trial still running after
/// `CUARRAY_TEST_WATCHDOG_S` seconds (default 120; 0: off) on stderr, once each, and, when
/// `CUARRAY_TEST_HANG_EXIT_S` is set, ends the process (exit code 3) once a trial has run
/// that long. A hung trial (a deadlock, a kernel that never ends) otherwise stops the
/// whole binary silently: the exclusive trials' lock then waits for it, and every trial
/// after it waits for that lock.
fn watchdog() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let (warn, exit) = (env_secs("WATCHDOG_S", 120), env_secs("HANG_EXIT_S", 0));
        if warn == 0 && exit == 0 {
            return;
        }
        std::thread::spawn(move || {
            let mut named = std::collections::HashSet::new();
            loop {
                std::thread::sleep(Duration::from_secs(5));
                let running = RUNNING.lock().unwrap_or_else(|p| p.into_inner()).clone();
                for (name, start) in &running {
                    let secs = start.elapsed().as_secs();
                    if warn > 0 && secs >= warn && named.insert(name.clone()) {
                        eprintln!("watchdog: trial still running after {secs} s: {name}");
                    }
                    if exit > 0 && secs >= exit {
                        eprintln!(
                            "watchdog: ending the process, {name} has run {secs} s \
                             (CUARRAY_TEST_HANG_EXIT_S={exit}); still running: {:?}",
                            running.iter().map(|(n, _)| n).collect::<Vec<_>>()
                        );
                        std::process::exit(3);
                    }
                }
            }
        });
    });
}

/// Runs `f` under the watchdog, printing its wall time to stderr when
/// `CUARRAY_TEST_TIMES` is set.
fn timed(name: &str, f: impl FnOnce() -> TResult) -> TResult {
    watchdog();
    let t = Instant::now();
    RUNNING
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((name.to_string(), t));
    struct Done<'a>(&'a str);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            let mut running = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = running.iter().position(|(n, _)| n == self.0) {
                running.swap_remove(i);
            }
        }
    }
    let done = Done(name);
    let r = f();
    drop(done);
    if std::env::var_os("CUARRAY_TEST_TIMES").is_some() {
        eprintln!("trial-time {:8.3} s  {name}", t.elapsed().as_secs_f64());
    }
    r
}

/// A trial that needs a device.
pub fn gpu_trial(
    name: impl Into<String>,
    f: impl FnOnce(&Device) -> TResult + Send + 'static,
) -> Trial {
    let name = name.into();
    let label = name.clone();
    Trial::test(name, move || timed(&label, || run_on_gpu(false, f)))
        .with_ignored_flag(gpu_ignored())
}

/// A trial that needs a device to itself (device-wide counters).
pub fn gpu_trial_exclusive(
    name: impl Into<String>,
    f: impl FnOnce(&Device) -> TResult + Send + 'static,
) -> Trial {
    let name = name.into();
    let label = name.clone();
    Trial::test(name, move || timed(&label, || run_on_gpu(true, f)))
        .with_ignored_flag(gpu_ignored())
}

/// Registers a GPU trial whose data is seeded by its name.
pub fn add_gpu(
    out: &mut Vec<Trial>,
    name: String,
    f: impl FnOnce(&Device, &mut Rng) -> TResult + Send + 'static,
) {
    let seed = name.clone();
    out.push(gpu_trial(name, move |dev| {
        f(dev, &mut Rng::for_name(&seed))
    }));
}

/// Registers a GPU trial whose data is seeded by its name and that runs with the device
/// to itself: for trials that provoke errors found on the device (reported at the next
/// wait, device-wide, so that a trial running beside them would see them).
pub fn add_gpu_exclusive(
    out: &mut Vec<Trial>,
    name: String,
    f: impl FnOnce(&Device, &mut Rng) -> TResult + Send + 'static,
) {
    let seed = name.clone();
    out.push(gpu_trial_exclusive(name, move |dev| {
        f(dev, &mut Rng::for_name(&seed))
    }));
}

/// A trial that needs only libnvrtc.
pub fn nvrtc_trial(name: impl Into<String>, f: impl FnOnce() -> TResult + Send + 'static) -> Trial {
    let available = cuarray::testing::nvrtc_available();
    let ignored = !available && !cuarray::testing::gpu_required();
    let name = name.into();
    let label = name.clone();
    Trial::test(name, move || {
        if !cuarray::testing::nvrtc_available() {
            return Err("libnvrtc cannot be loaded (CUARRAY_REQUIRE_GPU=1)".into());
        }
        timed(&label, f)
    })
    .with_ignored_flag(ignored)
}

// ---- PRNG ----------------------------------------------------------------------------

pub use crate::rng::Rng;

impl Rng {
    /// `n` values of `T` from [`TElem::random`].
    pub fn vec<T: TElem>(&mut self, n: usize) -> Vec<T> {
        (0..n).map(|_| T::random(self)).collect()
    }
}

// ---- exact host references ------------------------------------------------------------

/// A host value, exact for every dtype: integers as i128, floats as f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Val {
    B(bool),
    I(i128),
    F(f64),
}

/// Rounds `x` to nearest-even at `mant` explicit mantissa bits, with normal exponents down
/// to `min_exp` (subnormals below) and `max` the largest finite value (inf above).
fn round_to(x: f64, mant: i32, min_exp: i32, max: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
    let e = (biased - 1023).max(min_exp);
    let ulp = 2f64.powi(e - mant);
    let r = (x / ulp).round_ties_even() * ulp;
    if r.abs() > max {
        f64::INFINITY.copysign(x)
    } else {
        r
    }
}

/// `x` rounded to the nearest f16 (ties to even), directly from f64 (half's `from_f64`
/// goes through f32 on x86 and may round twice).
pub fn f16_rne(x: f64) -> f16 {
    if x.is_nan() {
        return f16::NAN;
    }
    f16::from_f64(round_to(x, 10, -14, 65504.0))
}

/// `x` rounded to the nearest bf16 (ties to even), directly from f64.
pub fn bf16_rne(x: f64) -> bf16 {
    if x.is_nan() {
        return bf16::NAN;
    }
    bf16::from_f64(round_to(x, 7, -126, bf16::MAX.to_f64()))
}

/// The binary arithmetic ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

impl Op {
    pub const ALL: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Div];
    pub fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::Div => "div",
        }
    }
}

/// Host-side knowledge of an element type beyond [`Element`].
pub trait TElem: Element {
    /// The exact value.
    fn val(self) -> Val;
    /// C/NumPy conversion of `v` into this type, as the kernels do it: integers wrap,
    /// floats truncate toward zero into integers, anything is `!= 0` into bool, f64 rounds
    /// to f16 directly and to bf16 through f32.
    fn from_val(v: Val) -> Self;
    /// A pseudo-random value: integers half the time small (zeros, negatives), half the
    /// time over the whole range; floats mostly in (-100, 100), some small integers,
    /// zeros and tiny values.
    fn random(rng: &mut Rng) -> Self;
    /// Relative tolerance for computed (not converted) values.
    const REL_TOL: f64;
    /// Integer width in bits and signedness (None for floats and bool).
    const INT: Option<(u32, bool)>;
}

macro_rules! impl_int_telem {
    ($($t:ty: $bits:expr, $signed:expr, $small_lo:expr, $small_hi:expr);* $(;)?) => {$(
        impl TElem for $t {
            fn val(self) -> Val { Val::I(self as i128) }
            fn from_val(v: Val) -> Self {
                match v {
                    Val::B(b) => b as $t,
                    Val::I(i) => i as $t,
                    Val::F(f) => f as $t,
                }
            }
            fn random(rng: &mut Rng) -> Self {
                if rng.bit() {
                    rng.int($small_lo, $small_hi) as $t
                } else {
                    rng.next_u64() as $t
                }
            }
            const REL_TOL: f64 = 0.0;
            const INT: Option<(u32, bool)> = Some(($bits, $signed));
        }
    )*};
}
impl_int_telem!(
    i8: 8, true, -9, 9;
    i16: 16, true, -9, 9;
    i32: 32, true, -9, 9;
    i64: 64, true, -9, 9;
    u8: 8, false, 0, 18;
    u16: 16, false, 0, 18;
    u32: 32, false, 0, 18;
    u64: 64, false, 0, 18;
);

fn random_float(rng: &mut Rng) -> f64 {
    match rng.below(16) {
        0 => 0.0,
        1 => rng.int(-8, 8) as f64,
        2 => rng.range(-1.0, 1.0) * 1e-3,
        3 => rng.int(-64, 64) as f64 * 0.25,
        _ => rng.range(-100.0, 100.0),
    }
}

impl TElem for f32 {
    fn val(self) -> Val {
        Val::F(self as f64)
    }
    fn from_val(v: Val) -> Self {
        match v {
            Val::B(b) => b as u8 as f32,
            Val::I(i) => i as f32,
            Val::F(f) => f as f32,
        }
    }
    fn random(rng: &mut Rng) -> Self {
        random_float(rng) as f32
    }
    const REL_TOL: f64 = 1e-6;
    const INT: Option<(u32, bool)> = None;
}

impl TElem for f64 {
    fn val(self) -> Val {
        Val::F(self)
    }
    fn from_val(v: Val) -> Self {
        match v {
            Val::B(b) => b as u8 as f64,
            Val::I(i) => i as f64,
            Val::F(f) => f,
        }
    }
    fn random(rng: &mut Rng) -> Self {
        random_float(rng)
    }
    const REL_TOL: f64 = 1e-12;
    const INT: Option<(u32, bool)> = None;
}

impl TElem for f16 {
    fn val(self) -> Val {
        Val::F(self.to_f64())
    }
    fn from_val(v: Val) -> Self {
        match v {
            Val::B(b) => f16_rne(b as u8 as f64),
            // The kernel converts integers to float first (exact below 2^24; above, both
            // roundings overflow f16).
            Val::I(i) => f16_rne((i as f32) as f64),
            Val::F(f) => f16_rne(f),
        }
    }
    fn random(rng: &mut Rng) -> Self {
        f16_rne(random_float(rng))
    }
    const REL_TOL: f64 = 2e-3;
    const INT: Option<(u32, bool)> = None;
}

impl TElem for bf16 {
    fn val(self) -> Val {
        Val::F(self.to_f64())
    }
    fn from_val(v: Val) -> Self {
        match v {
            Val::B(b) => bf16_rne(b as u8 as f64),
            Val::I(i) => bf16_rne((i as f32) as f64),
            // The kernel rounds f64 to f32 first, then to bf16.
            Val::F(f) => bf16_rne((f as f32) as f64),
        }
    }
    fn random(rng: &mut Rng) -> Self {
        bf16_rne(random_float(rng))
    }
    const REL_TOL: f64 = 1e-2;
    const INT: Option<(u32, bool)> = None;
}

impl TElem for bool {
    fn val(self) -> Val {
        Val::B(self)
    }
    fn from_val(v: Val) -> Self {
        match v {
            Val::B(b) => b,
            Val::I(i) => i != 0,
            Val::F(f) => f != 0.0,
        }
    }
    fn random(rng: &mut Rng) -> Self {
        rng.bit()
    }
    const REL_TOL: f64 = 0.0;
    const INT: Option<(u32, bool)> = None;
}

/// `a op b` as the kernels compute it: integers in wide arithmetic then wrapped (floor
/// division, 0 for a division by zero); f32 and f64 in IEEE arithmetic of their own
/// width; f16 and bf16 in f32, then rounded.
pub fn arith<T: TElem>(op: Op, a: T, b: T) -> T {
    match (a.val(), b.val()) {
        (Val::I(x), Val::I(y)) => {
            let r = match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x.wrapping_mul(y),
                Op::Div => {
                    if y == 0 {
                        0
                    } else {
                        let q = x / y;
                        if x % y != 0 && ((x < 0) != (y < 0)) {
                            q - 1
                        } else {
                            q
                        }
                    }
                }
            };
            T::from_val(Val::I(r))
        }
        (Val::F(x), Val::F(y)) => {
            let r = match T::DTYPE {
                DType::F64 => match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    Op::Div => x / y,
                },
                _ => {
                    let (x, y) = (x as f32, y as f32);
                    (match op {
                        Op::Add => x + y,
                        Op::Sub => x - y,
                        Op::Mul => x * y,
                        Op::Div => x / y,
                    }) as f64
                }
            };
            T::from_val(Val::F(r))
        }
        _ => panic!("arith on {}", T::DTYPE),
    }
}

/// True when `got` matches `want` within `rel` (NaN matches NaN, infinities match exactly).
pub fn close<T: TElem>(got: T, want: T, rel: f64) -> bool {
    match (got.val(), want.val()) {
        (Val::F(g), Val::F(w)) => {
            if g.is_nan() || w.is_nan() {
                return g.is_nan() && w.is_nan();
            }
            if g.is_infinite() || w.is_infinite() || rel == 0.0 {
                return g == w;
            }
            approx::relative_eq!(g, w, epsilon = 1e-300, max_relative = rel)
        }
        (g, w) => g == w,
    }
}

/// Compares element by element with `rel` tolerance for floats (exact for integers and
/// bool), reporting the first mismatches with their index.
pub fn check_rel<T: TElem>(what: &str, got: &[T], want: &[T], rel: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what} ({}): got {} elements, expected {}",
        T::DTYPE,
        got.len(),
        want.len()
    );
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| !close(got[i], want[i], rel))
        .collect();
    if let Some(&i) = bad.first() {
        let more: Vec<String> = bad
            .iter()
            .skip(1)
            .take(4)
            .map(|&j| format!("[{j}] got {} expected {}", got[j], want[j]))
            .collect();
        return Err(format!(
            "{what} ({}): {} of {} elements differ; first at index {i}: got {}, expected {}{}{}",
            T::DTYPE,
            bad.len(),
            got.len(),
            got[i],
            want[i],
            if more.is_empty() { "" } else { "; then " },
            more.join(", ")
        )
        .into());
    }
    Ok(())
}

/// Exact comparison (bitwise-equal values; NaN matches NaN).
pub fn check_eq<T: TElem>(what: &str, got: &[T], want: &[T]) -> TResult {
    check_rel(what, got, want, 0.0)
}

/// Comparison of computed values with the dtype's tolerance.
pub fn check_close<T: TElem>(what: &str, got: &[T], want: &[T]) -> TResult {
    check_rel(what, got, want, T::REL_TOL)
}

/// Checks shape and contents of a device array against a host array.
pub fn check_array<T: TElem>(
    what: &str,
    got: &DeviceArray<T>,
    want: &HostNd<T>,
    rel: f64,
) -> TResult {
    ensure!(
        got.shape() == want.shape.as_slice(),
        "{what}: shape {:?}, expected {:?}",
        got.shape(),
        want.shape
    );
    let host = got.to_host()?;
    check_rel(what, &host, &want.data, rel)
}

// ---- a tiny host n-d array ------------------------------------------------------------

pub use crate::numpy::{indices, np_broadcast, py_slice};

/// A row-major host array used to compute expected results independently of cuarray's
/// own layout code.
#[derive(Debug, Clone, PartialEq)]
pub struct HostNd<T> {
    pub data: Vec<T>,
    pub shape: Vec<usize>,
}

impl<T: Copy> HostNd<T> {
    pub fn new(data: Vec<T>, shape: &[usize]) -> HostNd<T> {
        assert_eq!(data.len(), shape.iter().product::<usize>());
        HostNd {
            data,
            shape: shape.to_vec(),
        }
    }

    pub fn random(rng: &mut Rng, shape: &[usize]) -> HostNd<T>
    where
        T: TElem,
    {
        HostNd::new(rng.vec(shape.iter().product()), shape)
    }

    fn flat(&self, idx: &[usize]) -> usize {
        let mut f = 0;
        for (&i, &d) in idx.iter().zip(&self.shape) {
            assert!(i < d);
            f = f * d + i;
        }
        f
    }

    pub fn get(&self, idx: &[usize]) -> T {
        self.data[self.flat(idx)]
    }

    /// `result[j0, j1, ...] = self[lists[0][j0], lists[1][j1], ...]`.
    pub fn select(&self, lists: &[Vec<usize>]) -> HostNd<T> {
        assert_eq!(lists.len(), self.shape.len());
        let shape: Vec<usize> = lists.iter().map(|l| l.len()).collect();
        let data = indices(&shape)
            .iter()
            .map(|j| {
                let src: Vec<usize> = j.iter().zip(lists).map(|(&k, l)| l[k]).collect();
                self.get(&src)
            })
            .collect();
        HostNd { data, shape }
    }

    /// Python slicing with one `(start, stop, step)` per axis.
    pub fn slice(&self, spec: &[(Option<isize>, Option<isize>, isize)]) -> HostNd<T> {
        let lists: Vec<Vec<usize>> = spec
            .iter()
            .zip(&self.shape)
            .map(|(&(a, b, s), &d)| py_slice(a, b, s, d))
            .collect();
        self.select(&lists)
    }

    /// Axis `i` of the result is axis `perm[i]` of `self`.
    pub fn permute(&self, perm: &[usize]) -> HostNd<T> {
        let shape: Vec<usize> = perm.iter().map(|&p| self.shape[p]).collect();
        let data = indices(&shape)
            .iter()
            .map(|j| {
                let mut src = vec![0; perm.len()];
                for (k, &p) in perm.iter().enumerate() {
                    src[p] = j[k];
                }
                self.get(&src)
            })
            .collect();
        HostNd { data, shape }
    }

    pub fn t(&self) -> HostNd<T> {
        let perm: Vec<usize> = (0..self.shape.len()).rev().collect();
        self.permute(&perm)
    }

    pub fn reshape(&self, shape: &[usize]) -> HostNd<T> {
        HostNd::new(self.data.clone(), shape)
    }

    /// NumPy broadcasting to `shape` (materialised).
    pub fn broadcast_to(&self, shape: &[usize]) -> HostNd<T> {
        let lead = shape.len() - self.shape.len();
        let data = indices(shape)
            .iter()
            .map(|j| {
                let src: Vec<usize> = self
                    .shape
                    .iter()
                    .enumerate()
                    .map(|(k, &d)| if d == 1 { 0 } else { j[lead + k] })
                    .collect();
                self.get(&src)
            })
            .collect();
        HostNd {
            data,
            shape: shape.to_vec(),
        }
    }

    pub fn map<U>(&self, f: impl Fn(T) -> U) -> HostNd<U> {
        HostNd {
            data: self.data.iter().map(|&x| f(x)).collect(),
            shape: self.shape.clone(),
        }
    }

    pub fn upload(&self, dev: &Device) -> cuarray::Result<DeviceArray<T>>
    where
        T: Element,
    {
        DeviceArray::from_host(dev, &self.data, &self.shape)
    }
}

/// `op(a, b)` elementwise with broadcasting, on the host.
pub fn host_binary<T: TElem>(op: Op, a: &HostNd<T>, b: &HostNd<T>) -> HostNd<T> {
    let shape = np_broadcast(&a.shape, &b.shape).expect("shapes broadcast");
    let (a, b) = (a.broadcast_to(&shape), b.broadcast_to(&shape));
    HostNd {
        data: a
            .data
            .iter()
            .zip(&b.data)
            .map(|(&x, &y)| arith(op, x, y))
            .collect(),
        shape,
    }
}

/// The dtype's short name, for trial names.
pub fn dname<T: Element>() -> &'static str {
    T::DTYPE.name()
}
