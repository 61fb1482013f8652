//! Filtering an image in the frequency domain: a synthetic test image (two sinusoidal
//! patterns plus Gaussian noise, made on the GPU with the random generator), its `rfft2`, a
//! circular low-pass mask and its complement (high-pass), back with `irfft2`. Both results
//! are written as PNG beside the input, and the energy each keeps is printed and checked:
//! the two parts add up to the image and their energies to its energy (Parseval), and the
//! low-pass keeps the patterns while the high-pass keeps the noise.
//!
//! `cargo run --release --example image_filter [-- OUT_DIR]` (default `image_filter_out`);
//! exits with status 1 when a check fails.

use cuarray::fft::{self, Norm};
use cuarray::random::Generator;
use cuarray::{Complex32, Device, DeviceArray, Result};
use std::path::{Path, PathBuf};

const N: usize = 512;
/// Radius of the low-pass disk, in cycles per pixel.
const CUTOFF: f64 = 0.05;

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "image_filter_out".into()),
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

/// The test image: `sin(2π 6 x / N) + cos(2π 9 y / N)` plus noise of standard deviation 0.5.
fn test_image(dev: &Device) -> Result<DeviceArray<f32>> {
    let t = DeviceArray::<f32>::arange(dev, 0.0, N as f32, 1.0)?;
    let w = 2.0 * std::f32::consts::PI / N as f32;
    let cols = (&t * (6.0 * w))?.sin()?.reshape(&[1, N])?;
    let rows = (&t * (9.0 * w))?.cos()?.reshape(&[N, 1])?;
    let noise = Generator::new(dev, 7).standard_normal::<f32>(&[N, N])?;
    ((&rows + &cols)? + (&noise * 0.5)?)?.contiguous()
}

fn energy(a: &DeviceArray<f32>) -> Result<f64> {
    Ok((a * a)?.sum()?.to_scalar()? as f64)
}

fn run(dev: &Device, dir: &Path) -> Result<bool> {
    let img = test_image(dev)?;
    let spectrum = fft::rfft2(&img, None, &[-2, -1], Norm::Backward)?; // (N, N/2 + 1)

    // |f| <= CUTOFF on the rfft2 grid: fftfreq along rows, rfftfreq along columns.
    let fy = fft::fftfreq(dev, N, 1.0)?.reshape(&[N, 1])?;
    let fx = fft::rfftfreq(dev, N, 1.0)?.reshape(&[1, N / 2 + 1])?;
    let r2 = ((&fy * &fy)? + (&fx * &fx)?)?;
    let low_mask = r2
        .le(CUTOFF * CUTOFF)?
        .astype::<f32>()?
        .astype::<Complex32>()?;

    let low_spec = (&spectrum * &low_mask)?;
    let high_spec = (&spectrum - &low_spec)?;
    let s = Some(&[N, N][..]);
    let low = fft::irfft2(&low_spec, s, &[-2, -1], Norm::Backward)?;
    let high = fft::irfft2(&high_spec, s, &[-2, -1], Norm::Backward)?;

    let (e, el, eh) = (energy(&img)?, energy(&low)?, energy(&high)?);
    let rebuilt = ((&low + &high)? - &img)?.abs()?.max()?.to_scalar()?;
    println!("image {N}x{N}: energy {e:.1}");
    println!(
        "low-pass  (|f| <= {CUTOFF}): energy {el:.1} ({:.1} % kept)",
        100.0 * el / e
    );
    println!(
        "high-pass (|f| >  {CUTOFF}): energy {eh:.1} ({:.1} % kept)",
        100.0 * eh / e
    );
    println!("low + high - image: largest difference {rebuilt:.2e}");

    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    for (name, a) in [("input", &img), ("lowpass", &low), ("highpass", &high)] {
        let path = dir.join(format!("{name}.png"));
        write_png(&path, &a.to_host()?)?;
        println!("wrote {}", path.display());
    }

    // The patterns carry 1 per pixel of energy, the noise 0.25: the low-pass keeps about
    // 80 %, the high-pass the rest of the noise.
    let checks = [
        (
            "energies add up (Parseval)",
            ((el + eh) / e - 1.0).abs() < 1e-3,
        ),
        ("low + high rebuild the image", rebuilt < 1e-3),
        ("low-pass keeps the patterns", el / e > 0.7 && el / e < 0.9),
        ("high-pass keeps the noise", eh / e > 0.1 && eh / e < 0.3),
    ];
    let mut ok = true;
    for (what, pass) in checks {
        if !pass {
            eprintln!("check failed: {what}");
            ok = false;
        }
    }
    Ok(ok)
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> cuarray::Error {
    cuarray::Error::InvalidArgument {
        op: "image_filter",
        msg: format!("{}: {e}", path.display()),
    }
}

/// Writes `pixels` (N x N, any range) as an 8-bit grayscale PNG scaled from min to max.
fn write_png(path: &Path, pixels: &[f32]) -> Result<()> {
    let (lo, hi) = pixels
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let span = (hi - lo).max(f32::MIN_POSITIVE);
    let bytes: Vec<u8> = pixels
        .iter()
        .map(|&v| ((v - lo) / span * 255.0).round() as u8)
        .collect();
    let file = std::fs::File::create(path).map_err(|e| io_err(path, e))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), N as u32, N as u32);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| io_err(path, e))?;
    w.write_image_data(&bytes).map_err(|e| io_err(path, e))?;
    Ok(())
}
