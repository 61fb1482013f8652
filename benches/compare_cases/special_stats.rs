//! The special-function and statistics rows of the peer comparison (bench/peers.py `specials`, `statistics`).

use super::*;

/// `cuarray::special` on 2^26 f32 (values in [-0.5, 0.5), shifted into (0, 1) for ndtri),
/// softmax and logsumexp over the rows of 4096 x 4096 f32. Peers: cupyx.scipy.special and
/// torch.special / torch.softmax / torch.logsumexp.
pub fn special_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    use cuarray::special;
    let n = 1usize << 26;
    type SpecialFn = fn(&DeviceArray<f32>) -> cuarray::Result<DeviceArray<f32>>;
    let unary: [(&str, SpecialFn); 6] = [
        ("special_erf_f32_2^26", special::erf),
        ("special_erfinv_f32_2^26", special::erfinv),
        ("special_gammaln_f32_2^26", special::gammaln),
        ("special_digamma_f32_2^26", special::digamma),
        ("special_i0e_f32_2^26", special::i0e),
        ("special_ndtri_f32_2^26", special::ndtri),
    ];
    if unary.iter().any(|(name, _)| filter(name)) {
        let a = rand_matrix::<f32>(dev, &[n]);
        let p = (&a + 0.5f32).unwrap();
        for (name, f) in unary {
            if filter(name) {
                let x = if name.contains("ndtri") { &p } else { &a };
                cases.push(device_case(dev, name, (2 * n * 4) as f64, || {
                    f(x).map(drop)
                }));
            }
        }
    }
    if filter("special_softmax_rows_4096^2") || filter("special_logsumexp_rows_4096^2") {
        let m = rand_matrix::<f32>(dev, &[4096, 4096]);
        let bytes = (4096 * 4096 * 4) as f64;
        if filter("special_softmax_rows_4096^2") {
            cases.push(device_case(
                dev,
                "special_softmax_rows_4096^2",
                2.0 * bytes,
                || special::softmax(&m, -1).map(drop),
            ));
        }
        if filter("special_logsumexp_rows_4096^2") {
            cases.push(device_case(
                dev,
                "special_logsumexp_rows_4096^2",
                bytes,
                || special::logsumexp(&m, &[-1], false).map(drop),
            ));
        }
    }
}

/// Statistics on 2^26 f32 (values in [-0.5, 0.5)): the median, three percentiles (25, 50,
/// 75), nansum, digitize into 1000 increasing bins; the median along axis 1 of 4096 x 4096.
/// Peers: cupy.median / percentile / nansum / digitize, torch.median / quantile / nansum /
/// bucketize (torch.median returns the lower middle element, not NumPy's mean of the two).
pub fn stats_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    use cuarray::QuantileMethod;
    let n = 1usize << 26;
    let names = [
        "stats_median_f32_2^26",
        "stats_percentile3_f32_2^26",
        "stats_nansum_f32_2^26",
        "stats_digitize_f32_2^26_1000bins",
    ];
    if names.iter().any(|c| filter(c)) {
        let a = rand_matrix::<f32>(dev, &[n]);
        let bytes = (n * 4) as f64;
        if filter(names[0]) {
            cases.push(device_case(dev, names[0], bytes, || a.median().map(drop)));
        }
        if filter(names[1]) {
            cases.push(device_case(dev, names[1], bytes, || {
                cuarray::percentile(&a, &[25.0, 50.0, 75.0], None, false, QuantileMethod::Linear)
                    .map(drop)
            }));
        }
        if filter(names[2]) {
            cases.push(device_case(dev, names[2], bytes, || a.nansum().map(drop)));
        }
        if filter(names[3]) {
            let bins = DeviceArray::<f32>::linspace(dev, -0.5, 0.5, 1000).unwrap();
            cases.push(device_case(dev, names[3], bytes + (n * 8) as f64, || {
                cuarray::digitize(&a, &bins, false).map(drop)
            }));
        }
    }
    if filter("stats_histogram_f32_2^26_1000edges") || filter("stats_interp_f32_2^26_in_2^16") {
        let a = rand_matrix::<f32>(dev, &[n]);
        if filter("stats_histogram_f32_2^26_1000edges") {
            let edges = DeviceArray::<f32>::linspace(dev, -0.5, 0.5, 1000).unwrap();
            cases.push(device_case(
                dev,
                "stats_histogram_f32_2^26_1000edges",
                (n * 4) as f64,
                || cuarray::histogram_with(&a, &edges, None, false).map(drop),
            ));
        }
        if filter("stats_interp_f32_2^26_in_2^16") {
            let xp = DeviceArray::<f32>::linspace(dev, -0.5, 0.5, 1 << 16).unwrap();
            let fp = xp.sin().unwrap();
            cases.push(device_case(
                dev,
                "stats_interp_f32_2^26_in_2^16",
                (n * 8) as f64,
                || cuarray::interp(&a, &xp, &fp, None, None).map(drop),
            ));
        }
    }
    if filter("stats_cov_f32_256x65536") {
        let m = rand_matrix::<f32>(dev, &[256, 65536]);
        cases.push(device_case(
            dev,
            "stats_cov_f32_256x65536",
            (256 * 65536 * 4) as f64,
            || cuarray::cov(&m, true, None).map(drop),
        ));
    }
    if filter("stats_median_axis1_4096^2") {
        let m = rand_matrix::<f32>(dev, &[4096, 4096]);
        cases.push(device_case(
            dev,
            "stats_median_axis1_4096^2",
            (4096 * 4096 * 4) as f64,
            || m.median_axis(1).map(drop),
        ));
    }
}
