//! The linear model the data-parallel examples train (least squares by gradient
//! descent): the synthetic data, and one shard of samples with its copy of the weights.

use cuarray::{Device, DeviceArray, Result};

pub const SAMPLES: usize = 10_007;
pub const FEATURES: usize = 32;
pub const STEPS: usize = 20;
pub const LR: f32 = 0.1;

/// Synthetic data from a fixed seed: `y = x·w_true + noise`, x uniform in [-1, 1).
pub fn make_data() -> (Vec<f32>, Vec<f32>) {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let w_true: Vec<f32> = (0..FEATURES).map(|_| uniform()).collect();
    let x: Vec<f32> = (0..SAMPLES * FEATURES).map(|_| uniform()).collect();
    let y = x
        .chunks(FEATURES)
        .map(|row| row.iter().zip(&w_true).map(|(a, b)| a * b).sum::<f32>() + 0.01 * uniform())
        .collect();
    (x, y)
}

/// The rows of shard `i` of `n`: contiguous, as even as the sample count allows.
pub fn shard_rows(i: usize, n: usize) -> std::ops::Range<usize> {
    i * SAMPLES / n..(i + 1) * SAMPLES / n
}

/// One shard on one GPU: its samples, its copy of the weights.
pub struct Shard {
    pub x: DeviceArray<f32>,
    pub y: DeviceArray<f32>,
    pub w: DeviceArray<f32>,
}

impl Shard {
    /// Rows `rows` of the data `(x, y)` on `dev`, with zero weights.
    pub fn new(
        dev: &Device,
        (x, y): (&[f32], &[f32]),
        rows: std::ops::Range<usize>,
    ) -> Result<Shard> {
        Ok(Shard {
            x: DeviceArray::from_host(
                dev,
                &x[rows.start * FEATURES..rows.end * FEATURES],
                &[rows.len(), FEATURES],
            )?,
            y: DeviceArray::from_slice(dev, &y[rows])?,
            w: DeviceArray::zeros(dev, &[FEATURES])?,
        })
    }

    /// The shard's gradient sum `xᵀ(x·w − y)` and squared-error sum (0-d).
    pub fn local(&self) -> Result<(DeviceArray<f32>, DeviceArray<f32>)> {
        let r = (self.x.matmul(&self.w)? - &self.y)?;
        Ok((self.x.t().matmul(&r)?, (&r * &r)?.sum()?))
    }

    /// `w -= lr · 2/N · g` (the mean squared error's gradient from the summed one).
    pub fn update(&mut self, g: &DeviceArray<f32>) -> Result<()> {
        self.w.sub_assign(&(g * (LR * 2.0 / SAMPLES as f32))?)
    }
}
