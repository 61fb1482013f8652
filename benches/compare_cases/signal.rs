//! The signal-processing rows of the peer comparison (cupyx.scipy.signal / PyTorch in
//! bench/peers.py `signals`): f32 signals of uniform values; bytes = the input read once
//! and the output written once.

use super::{device_case, rand_matrix, Case};
use cuarray::signal::{self, Boundary, Method, Mode, Window};
use cuarray::{Device, DeviceArray};

/// `sig_fftconvolve_f32_2^22x2^12`, `sig_oaconvolve_f32_2^22x2^12`,
/// `sig_convolve_f32_2^22x63` (direct), `sig_convolve2d_f32_4096^2x5x5`,
/// `sig_lfilter_o2_f32_256x16384`, `sig_sosfilt_4sec_f32_256x16384`,
/// `sig_medfilt_f32_2^22_k7`, `sig_welch_f32_2^22_nperseg4096`,
/// `sig_stft_f32_2^22_nperseg1024`.
pub fn signal_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let n = 1usize << 22;
    let long = || rand_matrix::<f32>(dev, &[n]);
    if filter("sig_fftconvolve_f32_2^22x2^12") || filter("sig_oaconvolve_f32_2^22x2^12") {
        let (a, v) = (long(), rand_matrix::<f32>(dev, &[1 << 12]));
        let bytes = ((2 * n + (1 << 12)) * 4) as f64;
        if filter("sig_fftconvolve_f32_2^22x2^12") {
            cases.push(device_case(
                dev,
                "sig_fftconvolve_f32_2^22x2^12",
                bytes,
                || signal::fftconvolve(&a, &v, Mode::Full, None).map(drop),
            ));
        }
        if filter("sig_oaconvolve_f32_2^22x2^12") {
            cases.push(device_case(
                dev,
                "sig_oaconvolve_f32_2^22x2^12",
                bytes,
                || signal::oaconvolve(&a, &v, Mode::Full, None).map(drop),
            ));
        }
    }
    if filter("sig_convolve_f32_2^22x63") {
        let (a, v) = (long(), rand_matrix::<f32>(dev, &[63]));
        cases.push(device_case(
            dev,
            "sig_convolve_f32_2^22x63",
            (2 * n * 4) as f64,
            || signal::convolve(&a, &v, Mode::Full, Method::Direct).map(drop),
        ));
    }
    if filter("sig_convolve2d_f32_4096^2x5x5") {
        let (a, k) = (
            rand_matrix::<f32>(dev, &[4096, 4096]),
            rand_matrix::<f32>(dev, &[5, 5]),
        );
        cases.push(device_case(
            dev,
            "sig_convolve2d_f32_4096^2x5x5",
            (2 * 4096 * 4096 * 4) as f64,
            || signal::convolve2d(&a, &k, Mode::Same, Boundary::Fill(0.0)).map(drop),
        ));
    }
    let (rows, len) = (256usize, 16384usize);
    let bytes = (2 * rows * len * 4) as f64;
    if filter("sig_lfilter_o2_f32_256x16384") {
        let x = rand_matrix::<f32>(dev, &[rows, len]);
        let b = DeviceArray::from_slice(dev, &[0.2f32, 0.4, 0.2]).unwrap();
        let a = DeviceArray::from_slice(dev, &[1.0f32, -0.5, 0.25]).unwrap();
        cases.push(device_case(
            dev,
            "sig_lfilter_o2_f32_256x16384",
            bytes,
            || signal::lfilter(&b, &a, &x, -1, None).map(drop),
        ));
    }
    if filter("sig_sosfilt_4sec_f32_256x16384") {
        let x = rand_matrix::<f32>(dev, &[rows, len]);
        let sos: Vec<f32> = signal::butter(8, &[0.2], signal::BType::Lowpass, None)
            .unwrap()
            .concat()
            .into_iter()
            .map(|v| v as f32)
            .collect();
        let sos = DeviceArray::from_host(dev, &sos, &[4, 6]).unwrap();
        cases.push(device_case(
            dev,
            "sig_sosfilt_4sec_f32_256x16384",
            bytes,
            || signal::sosfilt(&sos, &x, -1, None).map(drop),
        ));
    }
    if filter("sig_medfilt_f32_2^22_k7") {
        let a = long();
        cases.push(device_case(
            dev,
            "sig_medfilt_f32_2^22_k7",
            (2 * n * 4) as f64,
            || signal::medfilt(&a, &[7]).map(drop),
        ));
    }
    if filter("sig_welch_f32_2^22_nperseg4096") {
        let a = long();
        cases.push(device_case(
            dev,
            "sig_welch_f32_2^22_nperseg4096",
            (n * 4) as f64,
            || signal::welch(&a, 1.0, Window::Hann, Some(4096), None, -1).map(drop),
        ));
    }
    if filter("sig_stft_f32_2^22_nperseg1024") {
        let a = long();
        cases.push(device_case(
            dev,
            "sig_stft_f32_2^22_nperseg1024",
            (3 * n * 4) as f64,
            || signal::stft(&a, 1.0, Window::Hann, Some(1024), None).map(drop),
        ));
    }
}
