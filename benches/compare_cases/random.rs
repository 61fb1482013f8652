//! The random-number rows of the peer comparison (generators and distributions).

use super::*;

/// Random numbers (write-only: bytes = the output): uniform, standard normal and
/// exponential (scale 1) f32 and integers in [0, 1000) as i32, 2^28 of each; and the
/// wall time of a 1000-value uniform call (against `bare_cudarc_launch_add_1000`).
pub fn random_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let n = 1usize << 28;
    let mut rng = cuarray::random::Generator::new(dev, 1);
    if filter("uniform_f32_2^28") {
        cases.push(device_case(dev, "uniform_f32_2^28", (n * 4) as f64, || {
            rng.random::<f32>(&[n]).map(drop)
        }));
    }
    if filter("normal_f32_2^28") {
        cases.push(device_case(dev, "normal_f32_2^28", (n * 4) as f64, || {
            rng.standard_normal::<f32>(&[n]).map(drop)
        }));
    }
    if filter("exponential_f32_2^28") {
        cases.push(device_case(
            dev,
            "exponential_f32_2^28",
            (n * 4) as f64,
            || rng.exponential(1.0f32, &[n]).map(drop),
        ));
    }
    if filter("integers_i32_2^28") {
        cases.push(device_case(
            dev,
            "integers_i32_2^28",
            (n * 4) as f64,
            || rng.integers(0i32, 1000, &[n]).map(drop),
        ));
    }
    if filter("uniform_f32_1000_wall") {
        cases.push(wall_case(dev, "uniform_f32_1000_wall", || {
            rng.random::<f32>(&[1000]).map(drop)
        }));
    }
    distribution_cases(dev, filter, cases);
}

/// NumPy's distributions, 2^24 samples each (bytes = the output): gamma k = 2.5 f32,
/// poisson lam = 10 and binomial n = 100 p = 0.3 (i64), beta(2, 5) f32, choice of 2^24
/// from 1000 with p (i64), and choice of 2^20 of 2^24 without replacement (i64).
pub fn distribution_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let n = 1usize << 24;
    let mut rng = cuarray::random::Generator::new(dev, 3);
    if filter("gamma_f32_2^24") {
        cases.push(device_case(dev, "gamma_f32_2^24", (n * 4) as f64, || {
            rng.standard_gamma::<f32>(2.5, &[n]).map(drop)
        }));
    }
    if filter("poisson_i64_2^24") {
        cases.push(device_case(dev, "poisson_i64_2^24", (n * 8) as f64, || {
            rng.poisson(10.0, &[n]).map(drop)
        }));
    }
    if filter("binomial_i64_2^24") {
        cases.push(device_case(
            dev,
            "binomial_i64_2^24",
            (n * 8) as f64,
            || rng.binomial(100, 0.3, &[n]).map(drop),
        ));
    }
    if filter("beta_f32_2^24") {
        cases.push(device_case(dev, "beta_f32_2^24", (n * 4) as f64, || {
            rng.beta::<f32>(2.0, 5.0, &[n]).map(drop)
        }));
    }
    if filter("choice_p_i64_2^24_of_1000") {
        let w: Vec<f64> = (1..=1000).map(|i| i as f64).collect();
        let s: f64 = w.iter().sum();
        let p = DeviceArray::from_slice(dev, &w.iter().map(|v| v / s).collect::<Vec<_>>()).unwrap();
        cases.push(device_case(
            dev,
            "choice_p_i64_2^24_of_1000",
            (n * 8) as f64,
            || rng.choice(1000, &[n], true, Some(&p)).map(drop),
        ));
    }
    if filter("choice_noreplace_i64_2^20_of_2^24") {
        cases.push(device_case(
            dev,
            "choice_noreplace_i64_2^20_of_2^24",
            ((1usize << 20) * 8) as f64,
            || rng.choice(n, &[1 << 20], false, None).map(drop),
        ));
    }
}
