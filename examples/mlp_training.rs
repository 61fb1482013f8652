//! A two-layer perceptron trained on the GPU with hand-written gradients: a synthetic
//! classification set (made with `cuarray::random::Generator`: 32 Gaussian clusters in 16
//! dimensions, 8 per class, so that no linear boundary separates the classes), matrix
//! products on cuBLAS, and everything between them fused:
//! bias + ReLU, the softmax's statistics and gradient, the ReLU's gradient, the loss, the
//! accuracy and the Adam updates are one kernel each. Prints the loss and the accuracy
//! per epoch and the time per step; exits with an error unless the test accuracy ends
//! above 95%.
//!
//! `cargo run --release --example mlp_training`

use cuarray::{fuse, lit, s, select, Device, DeviceArray, Expr, Result};
use std::time::Instant;

const D: usize = 16; // inputs
const H: usize = 256; // hidden units
const C: usize = 4; // classes
const CLUSTERS: usize = 32; // Gaussian clusters, 8 per class
const N_TRAIN: usize = 32768;
const N_TEST: usize = 8192;
const BATCH: usize = 512;
const EPOCHS: usize = 12;
const LR: f32 = 2e-3;

fn main() {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("mlp_training needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    match run(&dev) {
        Ok(acc) if acc >= 0.95 => println!("test accuracy {:.2}%: converged", 100.0 * acc),
        Ok(acc) => {
            eprintln!(
                "test accuracy {:.2}% is below 95%: did not converge",
                100.0 * acc
            );
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// Inputs, labels (i64) and one-hot targets (f32) of `n` examples: each is a point of one
/// of `CLUSTERS` Gaussian clusters (unit noise around random centres), and its class is
/// the cluster's number modulo `C`, so that every class is a union of clusters scattered
/// in space: no linear boundary separates them, a hidden layer does.
fn dataset(
    rng: &mut cuarray::random::Generator,
    centres: &DeviceArray<f32>,
    n: usize,
) -> Result<(DeviceArray<f32>, DeviceArray<i64>, DeviceArray<f32>)> {
    let dev = centres.device();
    let k = rng.integers::<i64>(0, CLUSTERS as i64, &[n])?;
    let which = DeviceArray::<i64>::arange(dev, 0, CLUSTERS as i64, 1)?;
    let member = k.reshape(&[n as isize, 1])?.eq(&which)?.astype::<f32>()?;
    let x = (&member.matmul(centres)? + &rng.standard_normal::<f32>(&[n, D])?)?;
    let labels = (&k % C as i64)?;
    let classes = DeviceArray::<i64>::arange(dev, 0, C as i64, 1)?;
    let onehot = labels
        .reshape(&[n as isize, 1])?
        .eq(&classes)?
        .astype::<f32>()?;
    Ok((x, labels, onehot))
}

/// A parameter with its Adam moments.
struct Param {
    w: DeviceArray<f32>,
    m: DeviceArray<f32>,
    v: DeviceArray<f32>,
}

impl Param {
    fn new(w: DeviceArray<f32>) -> Result<Param> {
        Ok(Param {
            m: cuarray::zeros_like(&w)?,
            v: cuarray::zeros_like(&w)?,
            w,
        })
    }
}

fn run(dev: &Device) -> Result<f32> {
    let mut rng = cuarray::random::Generator::new(dev, 2024);
    // Cluster centres: far enough apart that the classes are separable, with margin.
    let centres = (&rng.standard_normal::<f32>(&[CLUSTERS, D])? * 2.0f32)?;
    let (x_train, y_train, t_train) = dataset(&mut rng, &centres, N_TRAIN)?;
    let (x_test, y_test, _) = dataset(&mut rng, &centres, N_TEST)?;

    let w1 = Param::new((&rng.standard_normal::<f32>(&[D, H])? * (2.0 / D as f32).sqrt())?)?;
    let b1 = Param::new(DeviceArray::zeros(dev, &[H])?)?;
    let w2 = Param::new((&rng.standard_normal::<f32>(&[H, C])? * (1.0 / H as f32).sqrt())?)?;
    let b2 = Param::new(DeviceArray::zeros(dev, &[C])?)?;

    // Fused pieces: each one kernel.
    let bias_relu = fuse(|z: Expr<f32>, b: Expr<f32>| (z + b).relu());
    let row_max = fuse(|l: Expr<f32>, b: Expr<f32>| (l + b).max_keepdim(1));
    let row_sum_exp =
        fuse(|l: Expr<f32>, b: Expr<f32>, m: Expr<f32>| (l + b - m).exp().sum_keepdim(1));
    // d loss / d logits = (softmax - onehot) / batch.
    let softmax_grad = fuse(
        |l: Expr<f32>, b: Expr<f32>, m: Expr<f32>, s: Expr<f32>, y: Expr<f32>, inv: Expr<f32>| {
            ((l + b - m).exp() / s - y) * inv
        },
    );
    // Cross-entropy summed over the batch: -sum(onehot * log softmax).
    let xent = fuse(
        |l: Expr<f32>, b: Expr<f32>, m: Expr<f32>, s: Expr<f32>, y: Expr<f32>| {
            (-(y * (l + b - m - s.log()))).sum()
        },
    );
    let relu_grad =
        fuse(|dh: Expr<f32>, z: Expr<f32>, b: Expr<f32>| select((z + b).gt(0.0), dh, 0.0));
    let accuracy = fuse(|pred: Expr<i64>, y: Expr<i64>| pred.eq(y).astype::<f32>().mean());
    // Adam with the bias correction computed from the step count `t` (a scalar).
    let adam = fuse(
        |w: Expr<f32>, m: Expr<f32>, v: Expr<f32>, g: Expr<f32>, t: Expr<f32>| {
            let m2 = m * 0.9 + g * 0.1;
            let v2 = v * 0.999 + g * g * 0.001;
            let lr_t = (1.0 - lit(0.999f32).pow(t)).sqrt() * LR / (1.0 - lit(0.9f32).pow(t));
            (w - m2 * lr_t / (v2.sqrt() + 1e-8), m2, v2)
        },
    );
    let update = |p: &Param, g: &DeviceArray<f32>, t: f32| -> Result<()> {
        adam.call_into((&p.w, &p.m, &p.v), &p.w, &p.m, &p.v, g, t)
    };

    let predict = |x: &DeviceArray<f32>,
                   w1: &Param,
                   b1: &Param,
                   w2: &Param,
                   b2: &Param|
     -> Result<DeviceArray<i64>> {
        let h = bias_relu.call(&x.matmul(&w1.w)?, &b1.w)?;
        (&h.matmul(&w2.w)? + &b2.w)?.argmax_axis(1)
    };

    println!(
        "two-layer MLP {D} -> {H} (ReLU) -> {C} (softmax), {N_TRAIN} training and {N_TEST} test examples, batches of {BATCH}, Adam"
    );
    println!(
        "{:>5} {:>10} {:>10} {:>10} {:>12}",
        "epoch", "loss", "train acc", "test acc", "per step"
    );
    let steps = N_TRAIN / BATCH;
    let inv = 1.0 / BATCH as f32;
    let mut t = 0.0f32;
    let mut test_acc = 0.0;
    let mut first_loss = None;
    let mut last_loss = 0.0;
    for epoch in 1..=EPOCHS {
        let loss_sum = DeviceArray::<f32>::zeros(dev, [0usize; 0])?;
        dev.synchronize()?;
        let start = Instant::now();
        for k in 0..steps {
            let rows = s![k * BATCH..(k + 1) * BATCH, ..];
            let (x, y) = (x_train.slice(rows)?, t_train.slice(rows)?);
            // Forward.
            let z1 = x.matmul(&w1.w)?;
            let h = bias_relu.call(&z1, &b1.w)?;
            let logits = h.matmul(&w2.w)?;
            let m = row_max.call(&logits, &b2.w)?;
            let se = row_sum_exp.call(&logits, &b2.w, &m)?;
            loss_sum.add_assign(xent.call(&logits, &b2.w, &m, &se, &y)?)?;
            // Backward.
            let dl = softmax_grad.call(&logits, &b2.w, &m, &se, &y, inv)?;
            let dw2 = h.t().matmul(&dl)?;
            let db2 = dl.sum_axis(0)?;
            let dh = dl.matmul(&w2.w.t())?;
            let dz = relu_grad.call(&dh, &z1, &b1.w)?;
            let dw1 = x.t().matmul(&dz)?;
            let db1 = dz.sum_axis(0)?;
            // Update.
            t += 1.0;
            update(&w1, &dw1, t)?;
            update(&b1, &db1, t)?;
            update(&w2, &dw2, t)?;
            update(&b2, &db2, t)?;
        }
        dev.synchronize()?;
        let per_step = start.elapsed().as_secs_f64() * 1e6 / steps as f64;
        let loss = loss_sum.to_scalar()? / N_TRAIN as f32;
        let train_acc = accuracy
            .call(&predict(&x_train, &w1, &b1, &w2, &b2)?, &y_train)?
            .to_scalar()?;
        test_acc = accuracy
            .call(&predict(&x_test, &w1, &b1, &w2, &b2)?, &y_test)?
            .to_scalar()?;
        first_loss.get_or_insert(loss);
        last_loss = loss;
        println!(
            "{epoch:>5} {loss:>10.4} {:>9.2}% {:>9.2}% {per_step:>9.1} us",
            100.0 * train_acc,
            100.0 * test_acc
        );
    }
    if let Some(first) = first_loss {
        if last_loss >= first || last_loss.is_nan() {
            eprintln!("the loss did not go down: {first} -> {last_loss}");
            return Ok(0.0);
        }
    }
    Ok(test_acc)
}
