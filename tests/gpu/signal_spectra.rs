//! Signal processing on the GPU, part two: the spectral estimates and the rest of the
//! toolbox (resampling, detrending, median, Savitzky-Golay and Wiener filters, peaks)
//! against SciPy's results for two fixed signals, f32 and f64, with axis 0 of 2-D inputs,
//! strided views and SciPy's error cases.

use crate::common::{ensure, gpu_trial, TResult};
use crate::signal::{check, host, up, Sig};
use cuarray::signal;
use cuarray::{Device, DeviceArray, Element};
use libtest_mimic::Trial;

#[rustfmt::skip] // embedded SciPy values, one constant a line
#[path = "signal_fixtures.rs"]
mod fixtures;

/// The two test signals of the spectral fixtures (the same formulas as the generator's).
fn xy(n: usize) -> (Vec<f64>, Vec<f64>) {
    let x = (0..n)
        .map(|i| {
            let i = i as f64;
            (0.3 * i).sin() + 0.5 * (0.0014 * i * i).cos() + 0.002 * i
        })
        .collect();
    let y = (0..n)
        .map(|i| {
            let i = i as f64;
            (0.21 * i).cos() + 0.3 * (0.05 * i).sin() - 0.001 * i
        })
        .collect();
    (x, y)
}

fn parts<C: cuarray::ComplexElement>(z: &DeviceArray<C>) -> cuarray::Result<Vec<f64>> {
    Ok(z.to_host()?
        .into_iter()
        .flat_map(|c| [Element::to_f64(c.re()), Element::to_f64(c.im())])
        .collect())
}

fn spectral<T: Sig>(dev: &Device) -> TResult
where
    <T as cuarray::fft::FftFloat>::Complex: cuarray::signal::SignalComplex<Part = T>,
{
    use cuarray::signal::{Scaling, Window};
    use fixtures::*;
    let name = T::DTYPE.name();
    let tol = T::TOL * 100.0;
    let (hx, hy) = xy(200);
    let x = up::<T>(dev, &hx, &[200])?;
    let y = up::<T>(dev, &hy, &[200])?;
    let (f, p) = signal::welch(&x, 10.0, Window::Hann, Some(64), None, -1)?;
    check(&format!("signal/welch/{name}/f"), &f, WELCH_F, 1e-12)?;
    check(
        &format!("signal/welch/{name}/hann64"),
        &host(&p)?,
        WELCH,
        tol,
    )?;
    let (_, p) = signal::welch(&x, 1.0, Window::Hamming, Some(50), Some(20), -1)?;
    check(
        &format!("signal/welch/{name}/hamming50_20"),
        &host(&p)?,
        WELCH_50_20,
        tol,
    )?;
    // Axis 0 of a (200, 2) array whose columns are x and y: column 0 is x's estimate.
    let both: Vec<f64> = hx.iter().zip(&hy).flat_map(|(a, b)| [*a, *b]).collect();
    let xy2 = up::<T>(dev, &both, &[200, 2])?;
    let (_, p) = signal::welch(&xy2, 1.0, Window::Hamming, Some(50), Some(20), 0)?;
    ensure!(p.shape() == [26, 2], "welch axis 0 shape {:?}", p.shape());
    let col: Vec<f64> = host(&p)?.chunks(2).map(|c| c[0]).collect();
    check(
        &format!("signal/welch/{name}/axis0"),
        &col,
        WELCH_50_20,
        tol,
    )?;
    // A strided (every other element of a longer array) signal: the same estimate.
    let pad: Vec<f64> = hx.iter().flat_map(|v| [*v, 99.0]).collect();
    let strided = up::<T>(dev, &pad, &[400])?.slice(cuarray::s![..;2])?;
    let (_, p) = signal::welch(&strided, 10.0, Window::Hann, Some(64), None, -1)?;
    check(
        &format!("signal/welch/{name}/strided"),
        &host(&p)?,
        WELCH,
        tol,
    )?;
    let (_, p) = signal::periodogram(
        &x.slice(cuarray::s![..101])?,
        2.0,
        Window::Hamming,
        Scaling::Density,
        -1,
    )?;
    check(
        &format!("signal/periodogram/{name}/odd_density"),
        &host(&p)?,
        PERIODOGRAM_101,
        tol,
    )?;
    let (_, p) = signal::periodogram(&x, 1.0, Window::Boxcar, Scaling::Spectrum, -1)?;
    check(
        &format!("signal/periodogram/{name}/spectrum"),
        &host(&p)?,
        PERIODOGRAM_SPECTRUM,
        tol,
    )?;
    let (_, p) = signal::csd(&x, &y, 1.0, Window::Hann, Some(32), None, -1)?;
    check(&format!("signal/csd/{name}"), &parts(&p)?, CSD, tol)?;
    let (_, c) = signal::coherence(&x, &y, 1.0, Window::Hann, Some(32), None, -1)?;
    check(
        &format!("signal/coherence/{name}"),
        &host(&c)?,
        COHERENCE,
        tol * 10.0,
    )?;
    let (_, t, s) = signal::spectrogram(&x, 1.0, Window::Tukey(0.25), Some(40), None, -1)?;
    ensure!(
        s.shape() == SPECTROGRAM_SHAPE,
        "spectrogram shape {:?}",
        s.shape()
    );
    check(
        &format!("signal/spectrogram/{name}/t"),
        &t,
        SPECTROGRAM_T,
        1e-12,
    )?;
    check(
        &format!("signal/spectrogram/{name}"),
        &host(&s)?,
        SPECTROGRAM,
        tol,
    )?;
    let (_, t, z) = signal::stft(&x, 1.0, Window::Hann, Some(32), None)?;
    ensure!(z.shape() == STFT_SHAPE, "stft shape {:?}", z.shape());
    check(&format!("signal/stft/{name}/t"), &t, STFT_T, 1e-12)?;
    check(&format!("signal/stft/{name}"), &parts(&z)?, STFT, tol)?;
    let (_, back) = signal::istft(&z, 1.0, Window::Hann, Some(32), None)?;
    check(
        &format!("signal/istft/{name}/round_trip"),
        &host(&back)?[..200],
        &hx,
        tol,
    )?;
    let x150 = x.slice(cuarray::s![..150])?;
    let (_, _, z) = signal::stft(&x150, 1.0, Window::Hann, Some(30), Some(20))?;
    ensure!(
        z.shape() == STFT_ODD_SHAPE,
        "stft 30/20 shape {:?}",
        z.shape()
    );
    check(
        &format!("signal/stft/{name}/30_20"),
        &parts(&z)?,
        STFT_ODD,
        tol,
    )?;
    let (_, back) = signal::istft(&z, 1.0, Window::Hann, Some(30), Some(20))?;
    check(
        &format!("signal/istft/{name}/30_20"),
        &host(&back)?,
        &hx[..150],
        tol,
    )?;
    // Errors and edge cases as SciPy: noverlap >= nperseg, nperseg 0, empty input.
    ensure!(
        signal::welch(&x, 1.0, Window::Hann, Some(16), Some(16), -1).is_err(),
        "noverlap >= nperseg"
    );
    ensure!(
        signal::welch(&x, 1.0, Window::Hann, Some(0), None, -1).is_err(),
        "nperseg 0"
    );
    let e = DeviceArray::<T>::zeros(dev, &[0])?;
    let (f, p) = signal::welch(&e, 1.0, Window::Hann, None, None, -1)?;
    ensure!(f.is_empty() && p.size() == 0, "welch of an empty signal");
    // nperseg longer than the signal: the signal's length, as SciPy.
    let (f, _) = signal::welch(
        &x.slice(cuarray::s![..40])?,
        1.0,
        Window::Hann,
        Some(256),
        None,
        -1,
    )?;
    ensure!(
        f.len() == 21,
        "nperseg clipped to 40: {} frequencies",
        f.len()
    );
    Ok(())
}

fn misc<T: Sig>(dev: &Device) -> TResult {
    use fixtures::*;
    use signal::Detrend;
    let name = T::DTYPE.name();
    let tol = T::TOL * 100.0;
    let (hx, _) = xy(200);
    let x = up::<T>(dev, &hx, &[200])?;
    let z = signal::hilbert(&x.slice(cuarray::s![..101])?, -1)?;
    check(
        &format!("signal/hilbert/{name}/odd"),
        &parts(&z)?,
        HILBERT_101,
        tol,
    )?;
    for (num, want) in [(77, RESAMPLE_77), (310, RESAMPLE_310), (100, RESAMPLE_100)] {
        check(
            &format!("signal/resample/{name}/{num}"),
            &host(&signal::resample(&x, num, -1)?)?,
            want,
            tol,
        )?;
    }
    let h = up::<T>(dev, UPFIRDN_H, &[5])?;
    check(
        &format!("signal/upfirdn/{name}/3_2"),
        &host(&signal::upfirdn(&h, &x, 3, 2, -1)?)?,
        UPFIRDN_3_2,
        tol,
    )?;
    check(
        &format!("signal/upfirdn/{name}/1_4"),
        &host(&signal::upfirdn(&h, &x, 1, 4, -1)?)?,
        UPFIRDN_1_4,
        tol,
    )?;
    check(
        &format!("signal/resample_poly/{name}/3_2"),
        &host(&signal::resample_poly(&x, 3, 2, -1)?)?,
        RESAMPLE_POLY_3_2,
        tol,
    )?;
    check(
        &format!("signal/resample_poly/{name}/2_5"),
        &host(&signal::resample_poly(&x, 2, 5, -1)?)?,
        RESAMPLE_POLY_2_5,
        tol,
    )?;
    check(
        &format!("signal/decimate/{name}/4"),
        &host(&signal::decimate(&x, 4, -1)?)?,
        DECIMATE_4,
        tol * 10.0,
    )?;
    check(
        &format!("signal/detrend/{name}/linear"),
        &host(&signal::detrend(&x, -1, Detrend::Linear)?)?,
        DETREND_LINEAR,
        tol,
    )?;
    let mean = hx.iter().sum::<f64>() / 200.0;
    let want: Vec<f64> = hx.iter().map(|v| v - mean).collect();
    check(
        &format!("signal/detrend/{name}/constant"),
        &host(&signal::detrend(&x, 0, Detrend::Constant)?)?,
        &want,
        tol,
    )?;
    check(
        &format!("signal/medfilt/{name}/5"),
        &host(&signal::medfilt(&x, &[5])?)?,
        MEDFILT_5,
        tol,
    )?;
    let img = x.slice(cuarray::s![..150])?.reshape(&[10, 15])?;
    check(
        &format!("signal/medfilt2d/{name}/3x5"),
        &host(&signal::medfilt2d(&img, &[3, 5])?)?,
        MEDFILT2D_3X5,
        tol,
    )?;
    check(
        &format!("signal/wiener/{name}/5"),
        &host(&signal::wiener(&x, &[5], None)?)?,
        WIENER_5,
        tol * 10.0,
    )?;
    check(
        &format!("signal/wiener/{name}/2d"),
        &host(&signal::wiener(&img, &[3, 3], Some(0.1))?)?,
        WIENER_2D,
        tol * 10.0,
    )?;
    check(
        &format!("signal/savgol_filter/{name}/11_3"),
        &host(&signal::savgol_filter(&x, 11, 3, 0, -1)?)?,
        SAVGOL_11_3,
        tol,
    )?;
    check(
        &format!("signal/savgol_filter/{name}/9_2_d1"),
        &host(&signal::savgol_filter(&x, 9, 2, 1, -1)?)?,
        SAVGOL_9_2_D1,
        tol,
    )?;
    // Along axis 0 of a (200, 2) array: the same as each column alone.
    let both: Vec<f64> = hx.iter().flat_map(|a| [*a, -*a]).collect();
    let x2 = up::<T>(dev, &both, &[200, 2])?;
    let col: Vec<f64> = host(&signal::savgol_filter(&x2, 11, 3, 0, 0)?)?
        .chunks(2)
        .map(|c| c[0])
        .collect();
    check(
        &format!("signal/savgol_filter/{name}/axis0"),
        &col,
        SAVGOL_11_3,
        tol,
    )?;
    let col: Vec<f64> = host(&signal::resample_poly(&x2, 3, 2, 0)?)?
        .chunks(2)
        .map(|c| c[0])
        .collect();
    check(
        &format!("signal/resample_poly/{name}/axis0"),
        &col,
        RESAMPLE_POLY_3_2,
        tol,
    )?;
    // Errors as SciPy.
    ensure!(signal::medfilt(&x, &[4]).is_err(), "medfilt even kernel");
    ensure!(
        signal::savgol_filter(&x, 5, 5, 0, -1).is_err(),
        "polyorder >= window"
    );
    ensure!(
        signal::savgol_filter(&x.slice(cuarray::s![..4])?, 5, 2, 0, -1).is_err(),
        "window > n"
    );
    ensure!(
        signal::find_peaks(&x, None, Some(0), None).is_err(),
        "distance 0"
    );
    ensure!(signal::resample(&x, 0, -1).is_err(), "num 0");
    ensure!(signal::upfirdn(&h, &x, 0, 1, -1).is_err(), "up 0");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial(
        "signal/misc/f32/resample_filters_peaks",
        misc::<f32>,
    ));
    out.push(gpu_trial(
        "signal/misc/f64/resample_filters_peaks",
        misc::<f64>,
    ));
    out.push(gpu_trial(
        "signal/welch/f32/spectral_family",
        spectral::<f32>,
    ));
    out.push(gpu_trial(
        "signal/welch/f64/spectral_family",
        spectral::<f64>,
    ));
}
