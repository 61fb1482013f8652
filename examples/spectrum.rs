//! A noisy chirp, cleaned and analysed with `cuarray::signal`: a linear chirp sweeping
//! 50 Hz to 400 Hz over 4 s, sampled at 2 kHz, plus a 700 Hz hum and white noise (made on
//! the GPU); a Butterworth low-pass (order 6, 500 Hz, as second-order sections) applied
//! forward and backward with `sosfiltfilt`; then the spectrogram of the raw and the
//! filtered signal (written as PGM images, time across, frequency up, in dB) and their
//! Welch estimates (written as CSV). Checks: the hum is strong in the raw Welch estimate and
//! at least 40 dB down after the filter, and the spectrogram's ridge follows the chirp.
//!
//! `cargo run --release --example spectrum [-- OUT_DIR]` (default `spectrum_out`); exits
//! with status 1 when a check fails.

use cuarray::random::Generator;
use cuarray::signal::{self, BType, Window};
use cuarray::{Device, DeviceArray, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

const FS: f64 = 2000.0;
const SECONDS: f64 = 4.0;
const F0: f64 = 50.0;
const F1: f64 = 400.0;
const HUM: f64 = 700.0;

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "spectrum_out".into()),
    );
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no GPU ({e}): nothing to do");
            return;
        }
    };
    match run(&dev, &dir) {
        Ok(true) => println!("all checks passed"),
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// Writes `rows` x `cols` values (row 0 at the top) as an 8-bit PGM, scaled from the
/// range [max - 80 dB, max].
fn write_pgm(path: &Path, db: &[f64], rows: usize, cols: usize) -> std::io::Result<()> {
    let top = db.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut f = std::fs::File::create(path)?;
    write!(f, "P5\n{cols} {rows}\n255\n")?;
    let bytes: Vec<u8> = db
        .iter()
        .map(|&v| (((v - top + 80.0) / 80.0).clamp(0.0, 1.0) * 255.0) as u8)
        .collect();
    f.write_all(&bytes)
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> cuarray::Error {
    cuarray::Error::InvalidArgument {
        op: "spectrum",
        msg: format!("{}: {e}", path.display()),
    }
}

fn db(v: f64) -> f64 {
    10.0 * v.max(1e-30).log10()
}

fn run(dev: &Device, dir: &Path) -> Result<bool> {
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let n = (FS * SECONDS) as usize;
    // x(t) = sin(2 pi (f0 t + (f1 - f0) t^2 / (2 T))) + 0.5 sin(2 pi hum t) + noise
    let t = DeviceArray::<f64>::arange(dev, 0.0, n as f64, 1.0)?.mul(1.0 / FS)?;
    let k = (F1 - F0) / (2.0 * SECONDS);
    let phase = t
        .mul(F0)?
        .add(&t.mul(&t)?.mul(k)?)?
        .mul(2.0 * std::f64::consts::PI)?;
    let hum = t.mul(2.0 * std::f64::consts::PI * HUM)?.sin()?.mul(0.5)?;
    let noise = Generator::new(dev, 11)
        .standard_normal::<f64>(&[n])?
        .mul(0.3)?;
    let x = phase.sin()?.add(&hum)?.add(&noise)?;

    let sos = signal::butter(6, &[500.0], BType::Lowpass, Some(FS))?;
    let sos = DeviceArray::from_host(dev, &sos.concat(), &[sos.len(), 6])?;
    let y = signal::sosfiltfilt(&sos, &x, -1)?;

    let mut ok = true;
    let (f, p_raw) = signal::welch(&x, FS, Window::Hann, Some(512), None, -1)?;
    let (_, p_filt) = signal::welch(&y, FS, Window::Hann, Some(512), None, -1)?;
    let (p_raw, p_filt) = (p_raw.to_host()?, p_filt.to_host()?);
    let mut csv = String::from("frequency_hz,raw_psd,filtered_psd\n");
    for i in 0..f.len() {
        csv.push_str(&format!("{},{},{}\n", f[i], p_raw[i], p_filt[i]));
    }
    let path = dir.join("welch.csv");
    std::fs::write(&path, csv).map_err(|e| io_err(&path, e))?;
    let bin = |hz: f64| (hz / (FS / 512.0)).round() as usize;
    let drop = db(p_raw[bin(HUM)]) - db(p_filt[bin(HUM)]);
    println!(
        "hum at {HUM} Hz: {:.1} dB before, {:.1} dB after the filter",
        db(p_raw[bin(HUM)]),
        db(p_filt[bin(HUM)])
    );
    if drop < 40.0 {
        eprintln!("check failed: the hum dropped by only {drop:.1} dB");
        ok = false;
    }

    for (name, sig) in [("raw", &x), ("filtered", &y)] {
        let (f, times, s) = signal::spectrogram(sig, FS, Window::Hann, Some(256), Some(192), -1)?;
        let (nf, nt) = (f.len(), times.len());
        let s = s.to_host()?; // (nf, nt)
                              // Flip so that high frequencies are at the top of the image.
        let mut img = Vec::with_capacity(nf * nt);
        for r in (0..nf).rev() {
            img.extend(s[r * nt..(r + 1) * nt].iter().map(|&v| db(v)));
        }
        let path = dir.join(format!("spectrogram_{name}.pgm"));
        write_pgm(&path, &img, nf, nt).map_err(|e| io_err(&path, e))?;
        if name == "filtered" {
            // The ridge: the loudest frequency of each segment follows f0 + (f1 - f0) t / T.
            let mut worst = 0.0f64;
            for (j, &tj) in times.iter().enumerate() {
                let peak = (0..nf)
                    .max_by(|&a, &b| s[a * nt + j].total_cmp(&s[b * nt + j]))
                    .unwrap_or(0);
                let expect = F0 + (F1 - F0) * tj / SECONDS;
                worst = worst.max((f[peak] - expect).abs());
            }
            println!("chirp ridge: largest distance from the expected frequency {worst:.1} Hz");
            if worst > 30.0 {
                eprintln!("check failed: the spectrogram's ridge does not follow the chirp");
                ok = false;
            }
        }
    }
    println!("wrote {}", dir.display());
    Ok(ok)
}
