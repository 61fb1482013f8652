//! A port of CuPy's `examples/finance/monte_carlo.py`: European call prices by Monte
//! Carlo simulation, 1000 options in `f64`, each priced by 100000 threads of 1000 samples
//! (10^8 paths per option) drawn with the xorshift128+ generator and `erfcinv` in CuPy's
//! `ElementwiseKernel` (its strings unchanged), then the mean over each option's threads.
//! The timed section is the original's: the kernel into the `(n_options,
//! n_threads_per_option)` array and the mean.
//!
//! Checks the prices against Black-Scholes (CuPy's `black_scholes_kernel`, as the
//! original): the standard deviation of the difference must be below 0.05 (the original
//! prints it as `Error`). Prints `{"lib": "cuarray", "case": "cupy_example_monte_carlo", ...}`.
//!
//! `cargo run --release --example cupy_monte_carlo [-- --n-options 1000 --n-samples-per-thread 1000 --n-threads-per-option 100000]`

use cuarray::random::Generator;
use cuarray::{s, Device, DeviceArray, ElementwiseKernel, Result};
use std::time::Instant;

type A = DeviceArray<f64>;

// CuPy's monte_carlo_kernel, verbatim.
const MC_IN: &str = "T s, T x, T t, T r, T v, int32 n_samples, int32 seed";
const MC_OUT: &str = "T call";
const MC_OP: &str = r#"
    // We can use special variables i and _ind to get the index of the thread.
    // In this case, we used an index as a seed of random sequence.
    uint64_t rand_state[2];
    init_state(rand_state, i, seed);

    T call_sum = 0;
    const T v_by_sqrt_t = v * sqrt(t);
    const T mu_by_t = (r - v * v / 2) * t;

    // compute the price of the call option with Monte Carlo method
    for (int i = 0; i < n_samples; ++i) {
        const T p = sample_normal(rand_state);
        call_sum += get_call_value(s, x, p, mu_by_t, v_by_sqrt_t);
    }
    // convert the future value of the call option to the present value
    const T discount_factor = exp(- r * t);
    call = discount_factor * call_sum / n_samples;
    "#;
const MC_NAME: &str = "monte_carlo_kernel";
const MC_PREAMBLE: &str = r#"
    typedef unsigned long long uint64_t;

    __device__
    inline T get_call_value(T s, T x, T p, T mu_by_t, T v_by_sqrt_t) {
        const T call_value = s * exp(mu_by_t + v_by_sqrt_t * p) - x;
        return (call_value > 0) ? call_value : 0;
    }

    // Initialize state
    __device__ inline void init_state(uint64_t* a, int i, int seed) {
        a[0] = i + 1;
        a[1] = 0x5c721fd808f616b6 + seed;
    }

    __device__ inline uint64_t xorshift128plus(uint64_t* x) {
        uint64_t s1 = x[0];
        uint64_t s0 = x[1];
        x[0] = s0;
        s1 = s1 ^ (s1 << 23);
        s1 = s1 ^ (s1 >> 17);
        s1 = s1 ^ s0;
        s1 = s1 ^ (s0 >> 26);
        x[1] = s1;
        return s0 + s1;
    }

    // Draw a sample from an uniform distribution in a range of [0, 1]
    __device__ inline T sample_uniform(uint64_t* state) {
        const uint64_t x = xorshift128plus(state);
        // 18446744073709551615 = 2^64 - 1
        return T(x) / T(18446744073709551615);
    }

    // Draw a sample from a normal distribution with N(0, 1)
    __device__ inline T sample_normal(uint64_t* state) {
        T x = sample_uniform(state);
        T s = T(-1.4142135623730950488016887242097);  // = -sqrt(2)
        if (x > 0.5) {
            x = 1 - x;
            s = -s;
        }
        T p = x + T(0.5);
        return s * erfcinv(2 * p);
    }
    "#;

// CuPy's black_scholes_kernel (examples/finance/black_scholes.py), verbatim.
const BS_IN: &str = "T s, T x, T t, T r, T v";
const BS_OUT: &str = "T call, T put";
const BS_OP: &str = r#"
    const T sqrt_t = sqrt(t);
    const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
    const T d2 = d1 - v * sqrt_t;

    const T cnd_d1 = get_cumulative_normal_distribution(d1);
    const T cnd_d2 = get_cumulative_normal_distribution(d2);

    const T exp_rt = exp(- r * t);
    call = s * cnd_d1 - x * exp_rt * cnd_d2;
    put = x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1);
    "#;
const BS_NAME: &str = "black_scholes_kernel";
const BS_PREAMBLE: &str = r#"
    __device__
    inline T get_cumulative_normal_distribution(T x) {
        const T A1 = 0.31938153;
        const T A2 = -0.356563782;
        const T A3 = 1.781477937;
        const T A4 = -1.821255978;
        const T A5 = 1.330274429;
        const T RSQRT2PI = 0.39894228040143267793994605993438;
        const T W = 0.2316419;

        const T k = 1 / (1 + W * abs(x));
        T cnd = RSQRT2PI * exp(- x * x / 2) *
            (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
        if (x > 0) {
            cnd = 1 - cnd;
        }
        return cnd;
    }
    "#;

fn arg<T: std::str::FromStr>(names: &[&str], default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| names.contains(&a.as_str()))
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let n_options = arg(&["--n-options"], 1000usize);
    let n_samples_per_thread = arg(&["--n-samples-per-thread"], 1000usize);
    let n_threads_per_option = arg(&["--n-threads-per-option"], 100_000usize);
    let dev = match Device::new(arg(&["--gpu-id", "-g"], 0usize)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cupy_monte_carlo needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    match run(&dev, n_options, n_samples_per_thread, n_threads_per_option) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn compute_option_prices(
    kernel: &ElementwiseKernel,
    stock_price: &A,
    option_strike: &A,
    option_years: &A,
    risk_free: f64,
    volatility: f64,
    n_threads_per_option: usize,
    n_samples_per_thread: usize,
    seed: i32,
) -> Result<A> {
    let n_options = stock_price.shape()[0];
    let call_prices = A::empty(stock_price.device(), &[n_options, n_threads_per_option])?;
    // Broadcasting launches n_options * n_threads_per_option threads, one per element of
    // call_prices.
    kernel.call_into(
        (
            &stock_price.slice(s![.., None])?,
            &option_strike.slice(s![.., None])?,
            &option_years.slice(s![.., None])?,
            risk_free,
            volatility,
            n_samples_per_thread as i32,
            seed,
        ),
        (&call_prices,),
    )?;
    call_prices.mean_axis(1)
}

fn rand_range(rng: &mut Generator, n: usize, lo: f64, hi: f64) -> Result<A> {
    rng.random::<f64>(&[n])?.mul(hi - lo)?.add(lo)
}

fn run(dev: &Device, n_options: usize, n_samples: usize, n_threads: usize) -> Result<bool> {
    println!("initializing...");
    let mut rng = Generator::new(dev, 0);
    let stock_price = rand_range(&mut rng, n_options, 5.0, 30.0)?;
    let option_strike = rand_range(&mut rng, n_options, 1.0, 100.0)?;
    let option_years = rand_range(&mut rng, n_options, 0.25, 10.0)?;
    let (risk_free, volatility) = (0.02, 0.3);
    let mc = ElementwiseKernel::with_preamble(MC_IN, MC_OUT, MC_OP, MC_NAME, MC_PREAMBLE)?;
    let bs = ElementwiseKernel::with_preamble(BS_IN, BS_OUT, BS_OP, BS_NAME, BS_PREAMBLE)?;

    // Compiles or loads the kernel on a small problem, not timed.
    compute_option_prices(
        &mc,
        &stock_price,
        &option_strike,
        &option_years,
        risk_free,
        volatility,
        4,
        4,
        0,
    )?;

    println!("start computation");
    println!("    # of options: {n_options}");
    println!("    # of samples per option: {}", n_samples * n_threads);
    dev.synchronize()?;
    let t = Instant::now();
    let call_mc = compute_option_prices(
        &mc,
        &stock_price,
        &option_strike,
        &option_years,
        risk_free,
        volatility,
        n_threads,
        n_samples,
        0,
    )?;
    dev.synchronize()?;
    let secs = t.elapsed().as_secs_f64();
    println!("GPU (cuarray, Monte Carlo method):\t{secs:.6} sec");

    let (call_bs, _put): (A, A) = bs.call((
        &stock_price,
        &option_strike,
        &option_years,
        risk_free,
        volatility,
    ))?;
    let error = call_mc.sub(&call_bs)?.std(0)?.to_scalar()?;
    println!("Error: {error:.6}");
    let ok = error < 0.05;
    if !ok {
        eprintln!("wrong result: std(call_mc - call_bs) = {error}");
    }
    println!(
        "{{\"lib\": \"cuarray\", \"case\": \"cupy_example_monte_carlo\", \"kind\": \"wall\", \"us\": {:.1}}}",
        secs * 1e6
    );
    Ok(ok)
}
