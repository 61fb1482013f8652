//! A port of CuPy's `examples/finance/black_scholes.py`: European call and put prices by
//! the Black-Scholes formula for 10^7 options in `f64` (stock price in [5, 30), strike in
//! [1, 100), years in [0.25, 10), risk-free rate 0.02, volatility 0.3), two ways, each
//! timed as the original times it: the naive version (the NumPy code, one operation at a
//! time) and CuPy's `ElementwiseKernel` (its strings unchanged, one kernel).
//!
//! Checks both against the formula computed on the host for 10000 options (relative
//! tolerance 1e-7, CuPy's `assert_allclose` default) and exits non-zero on a mismatch.
//! Prints `{"lib": "cuarray", "case": "cupy_example_black_scholes_naive", ...}` and
//! `..._black_scholes_kernel`.
//!
//! `cargo run --release --example cupy_black_scholes [-- --n-options 10000000]`

use cuarray::random::Generator;
use cuarray::{s, where_, Device, DeviceArray, ElementwiseKernel, Result};
use std::time::Instant;

type A = DeviceArray<f64>;

// CuPy's black_scholes_kernel, verbatim.
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

const A1: f64 = 0.31938153;
const A2: f64 = -0.356563782;
const A3: f64 = 1.781477937;
const A4: f64 = -1.821255978;
const A5: f64 = 1.330274429;
const RSQRT2PI: f64 = 0.398_942_280_401_432_7;
const W: f64 = 0.2316419;

fn arg<T: std::str::FromStr>(names: &[&str], default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| names.contains(&a.as_str()))
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let n_options = arg(&["--n-options", "-n"], 10_000_000usize);
    let dev = match Device::new(arg(&["--gpu-id", "-g"], 0usize)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cupy_black_scholes needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    match run(&dev, n_options) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// The original's `black_scholes(xp, ...)` on the GPU, operation by operation.
fn black_scholes(s: &A, x: &A, t: &A, r: f64, v: f64) -> Result<(A, A)> {
    let sqrt_t = t.sqrt()?;
    let d1 = s
        .div(x)?
        .log()?
        .add(t.mul(r + v * v / 2.0))?
        .div(sqrt_t.mul(v))?;
    let d2 = d1.sub(sqrt_t.mul(v))?;
    let cnd = |x: &A| -> Result<A> {
        let k = (1.0f64 / &x.abs()?.mul(W)?.add(1.0)?)?;
        let poly = k
            .mul(A5)?
            .add(A4)?
            .mul(&k)?
            .add(A3)?
            .mul(&k)?
            .add(A2)?
            .mul(&k)?
            .add(A1)?;
        let cnd = x
            .neg()?
            .mul(x)?
            .div(2.0)?
            .exp()?
            .mul(RSQRT2PI)?
            .mul(k.mul(&poly))?;
        where_(x.gt(0.0), (1.0f64 - &cnd)?, &cnd)
    };
    let cnd_d1 = cnd(&d1)?;
    let cnd_d2 = cnd(&d2)?;
    let exp_rt = t.mul(-r)?.exp()?;
    let call = s.mul(&cnd_d1)?.sub(x.mul(&exp_rt)?.mul(&cnd_d2))?;
    let put = x
        .mul(&exp_rt)?
        .mul((1.0f64 - &cnd_d2)?)?
        .sub(s.mul((1.0f64 - &cnd_d1)?))?;
    Ok((call, put))
}

fn host_black_scholes(s: f64, x: f64, t: f64, r: f64, v: f64) -> (f64, f64) {
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (r + v * v / 2.0) * t) / (v * sqrt_t);
    let d2 = d1 - v * sqrt_t;
    let cnd = |x: f64| {
        let k = 1.0 / (1.0 + W * x.abs());
        let c =
            RSQRT2PI * (-x * x / 2.0).exp() * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
        if x > 0.0 {
            1.0 - c
        } else {
            c
        }
    };
    let (c1, c2) = (cnd(d1), cnd(d2));
    let exp_rt = (-r * t).exp();
    (
        s * c1 - x * exp_rt * c2,
        x * exp_rt * (1.0 - c2) - s * (1.0 - c1),
    )
}

fn rand_range(rng: &mut Generator, n: usize, lo: f64, hi: f64) -> Result<A> {
    rng.random::<f64>(&[n])?.mul(hi - lo)?.add(lo)
}

fn json(case: &str, secs: f64) {
    println!(
        "{{\"lib\": \"cuarray\", \"case\": \"{case}\", \"kind\": \"wall\", \"us\": {:.1}}}",
        secs * 1e6
    );
}

fn run(dev: &Device, n_options: usize) -> Result<bool> {
    println!("initializing...");
    let mut rng = Generator::new(dev, 0);
    let stock_price = rand_range(&mut rng, n_options, 5.0, 30.0)?;
    let option_strike = rand_range(&mut rng, n_options, 1.0, 100.0)?;
    let option_years = rand_range(&mut rng, n_options, 0.25, 10.0)?;
    let (risk_free, volatility) = (0.02, 0.3);
    let kernel = ElementwiseKernel::with_preamble(BS_IN, BS_OUT, BS_OP, BS_NAME, BS_PREAMBLE)?;
    let bs_kernel =
        |s: &A, x: &A, t: &A| -> Result<(A, A)> { kernel.call((s, x, t, risk_free, volatility)) };

    // Compiles or loads the kernels on a small slice, not timed.
    {
        let w = |a: &A| a.slice(s![..1024]);
        black_scholes(
            &w(&stock_price)?,
            &w(&option_strike)?,
            &w(&option_years)?,
            risk_free,
            volatility,
        )?;
        bs_kernel(&w(&stock_price)?, &w(&option_strike)?, &w(&option_years)?)?;
    }

    println!("start computation");
    dev.synchronize()?;
    let t = Instant::now();
    let (call1, put1) = black_scholes(
        &stock_price,
        &option_strike,
        &option_years,
        risk_free,
        volatility,
    )?;
    dev.synchronize()?;
    let naive = t.elapsed().as_secs_f64();
    println!(" GPU (cuarray, Naive implementation):\t{naive:.6} sec");

    dev.synchronize()?;
    let t = Instant::now();
    let (call2, put2) = bs_kernel(&stock_price, &option_strike, &option_years)?;
    dev.synchronize()?;
    let fused = t.elapsed().as_secs_f64();
    println!(" GPU (cuarray, Elementwise kernel):\t{fused:.6} sec");

    // The host formula on a sample of 10000 options spread over the array.
    let step = (n_options / 10_000).max(1) as isize;
    let sample = |a: &A| a.slice(s![..;step])?.to_host();
    let (s_h, x_h, t_h) = (
        sample(&stock_price)?,
        sample(&option_strike)?,
        sample(&option_years)?,
    );
    let mut ok = true;
    for (name, call, put) in [("naive", &call1, &put1), ("kernel", &call2, &put2)] {
        let (c, p) = (sample(call)?, sample(put)?);
        let mut worst = 0f64;
        for k in 0..s_h.len() {
            let (hc, hp) = host_black_scholes(s_h[k], x_h[k], t_h[k], risk_free, volatility);
            for (got, want) in [(c[k], hc), (p[k], hp)] {
                // assert_allclose: |got - want| <= 1e-7 |want| (plus a tiny atol for zeros)
                let excess = (got - want).abs() / (1e-7 * want.abs() + 1e-12);
                worst = worst.max(excess);
            }
        }
        println!("{name}: worst |GPU - host| / tolerance = {worst:.3}");
        if worst.is_nan() || worst > 1.0 {
            eprintln!("wrong result: the {name} prices differ from the host formula");
            ok = false;
        }
    }
    json("cupy_example_black_scholes_naive", naive);
    json("cupy_example_black_scholes_kernel", fused);
    Ok(ok)
}
