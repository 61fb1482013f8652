//! Counting and measuring cells in a synthetic microscope image with `cuarray::ndimage`:
//! 60 bright disks (some with a dark nucleus, a hole once thresholded) on a noisy
//! background, blurred with a Gaussian, thresholded, their holes filled, labelled, and
//! measured (area, mean brightness, centre of mass). The labels are written as a PGM image
//! (one grey level a cell) beside the blurred image, and the results are checked: every
//! disk is found once, its area is close to the disk's, and its centre close to the
//! disk's centre.
//!
//! `cargo run --release --example cells [-- OUT_DIR]` (default `cells_out`); exits with
//! status 1 when a check fails.

use cuarray::ndimage::{self, Mode};
use cuarray::{Device, DeviceArray, Result};
use std::path::{Path, PathBuf};

const N: usize = 512;
const CELLS: usize = 60;
const RADIUS: f64 = 14.0;

/// Disks on a grid with jitter, so that none touch: (row, column, has a nucleus).
fn disks() -> Vec<(f64, f64, bool)> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let per_row = 8;
    let step = N as f64 / per_row as f64;
    (0..CELLS)
        .map(|k| {
            let (r, c) = ((k / per_row) as f64, (k % per_row) as f64);
            let jr = (unit() - 0.5) * (step - 2.0 * RADIUS - 8.0);
            let jc = (unit() - 0.5) * (step - 2.0 * RADIUS - 8.0);
            ((r + 0.5) * step + jr, (c + 0.5) * step + jc, k % 3 == 0)
        })
        .collect()
}

/// The image on the host: 200 inside a disk (40 in a nucleus of a third of the radius),
/// 20 outside, plus noise of amplitude 30.
fn image(cells: &[(f64, f64, bool)]) -> Vec<f32> {
    let mut noise = 0x9e37_79b9u32;
    (0..N * N)
        .map(|t| {
            let (y, x) = ((t / N) as f64, (t % N) as f64);
            let mut v = 20.0;
            for &(r, c, nucleus) in cells {
                let d = ((y - r).powi(2) + (x - c).powi(2)).sqrt();
                if d <= RADIUS {
                    v = if nucleus && d <= RADIUS / 3.0 {
                        40.0
                    } else {
                        200.0
                    };
                }
            }
            noise = noise.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (v + 30.0 * ((noise >> 8) as f64 / (1u32 << 24) as f64 - 0.5)) as f32
        })
        .collect()
}

/// Writes `values` (row-major, N x N, 0..=255) as a binary PGM.
fn write_pgm(path: &Path, values: &[u8]) -> std::io::Result<()> {
    let mut bytes = format!("P5\n{N} {N}\n255\n").into_bytes();
    bytes.extend_from_slice(values);
    std::fs::write(path, bytes)
}

fn run(dev: &Device, dir: &Path) -> Result<bool> {
    let cells = disks();
    let img = DeviceArray::from_host(dev, &image(&cells), [N, N])?;
    // Blur, threshold half-way between background and cells, fill the nuclei.
    let blurred = ndimage::gaussian_filter(&img, &[2.0], &[0], Mode::Reflect, 4.0)?;
    let mask = blurred.gt(110.0f32)?;
    let filled = ndimage::binary_fill_holes(&mask, None)?;
    let (labels, count) = ndimage::label(&filled, None)?;
    let index: Vec<i32> = (1..=count as i32).collect();
    let ones = DeviceArray::<f32>::ones(dev, [N, N])?;
    let area = ndimage::sum_labels(&ones, &labels, &index)?.to_host()?;
    let brightness = ndimage::mean(&img, &labels, &index)?.to_host()?;
    let centres = ndimage::center_of_mass(&ones, &labels, &index)?.to_host()?;
    println!("{count} cells (expected {CELLS})");
    for k in 0..count.min(5) {
        println!(
            "  cell {}: area {:.0} px, mean brightness {:.1}, centre ({:.1}, {:.1})",
            k + 1,
            area[k],
            brightness[k],
            centres[2 * k],
            centres[2 * k + 1]
        );
    }
    // Every disk found once, of about its area, centred where it was drawn.
    let disk_area = std::f64::consts::PI * RADIUS * RADIUS;
    let mut ok = count == CELLS;
    for &(r, c, _) in &cells {
        let found = (0..count)
            .filter(|&k| (centres[2 * k] - r).abs() < 2.0 && (centres[2 * k + 1] - c).abs() < 2.0);
        let found: Vec<usize> = found.collect();
        if found.len() != 1 || (area[found[0]] - disk_area).abs() > 0.15 * disk_area {
            println!("disk at ({r:.1}, {c:.1}): matched {found:?}");
            ok = false;
        }
    }
    let io = |e: std::io::Error| cuarray::Error::InvalidArgument {
        op: "cells",
        msg: format!("writing to {}: {e}", dir.display()),
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let lab = labels.to_host()?;
    let grey: Vec<u8> = lab
        .iter()
        .map(|&l| {
            if l == 0 {
                0
            } else {
                (40 + (l as usize * 37) % 216) as u8
            }
        })
        .collect();
    let blur: Vec<u8> = blurred
        .to_host()?
        .iter()
        .map(|&v| v.clamp(0.0, 255.0) as u8)
        .collect();
    write_pgm(&dir.join("labels.pgm"), &grey).map_err(io)?;
    write_pgm(&dir.join("blurred.pgm"), &blur).map_err(io)?;
    println!(
        "wrote {} and {}",
        dir.join("labels.pgm").display(),
        dir.join("blurred.pgm").display()
    );
    if !ok {
        println!("check failed");
    }
    Ok(ok)
}

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "cells_out".into()),
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
