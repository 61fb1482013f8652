//! An Adam update step three ways, on 1000 and on 10^8 parameters: eager (one kernel and
//! one temporary per operation), fused (`cuarray::fuse`: one kernel reads p, m, v, g and
//! writes p, m, v in place), and the fused step captured in a CUDA graph (one driver call
//! per step; the step count lives on the GPU, so the bias correction needs no host
//! value). The three must agree; each is timed.
//!
//! `cargo run --release --example fused_update`

use cuarray::{fuse, lit, Device, DeviceArray, Expr, Result};
use std::time::Instant;

const B1: f32 = 0.9;
const B2: f32 = 0.999;
const EPS: f32 = 1e-8;
const LR: f32 = 1e-3;

fn main() {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("fused_update needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = run(&dev) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// Parameters, moments, gradient and the step count (a 0-d array on the device).
struct State {
    p: DeviceArray<f32>,
    m: DeviceArray<f32>,
    v: DeviceArray<f32>,
    g: DeviceArray<f32>,
    t: DeviceArray<f32>,
}

impl State {
    fn new(dev: &Device, n: usize) -> Result<State> {
        let mut rng = cuarray::random::Generator::new(dev, 42);
        Ok(State {
            p: rng.standard_normal::<f32>(&[n])?,
            m: DeviceArray::zeros(dev, &[n])?,
            v: DeviceArray::zeros(dev, &[n])?,
            g: (&rng.standard_normal::<f32>(&[n])? * 0.1f32)?,
            t: DeviceArray::zeros(dev, [0usize; 0])?,
        })
    }
}

/// One eager step: every operation its own kernel, with its own temporary.
fn eager(s: &State) -> Result<()> {
    s.t.add_assign(1.0)?;
    s.m.mul_assign(B1)?;
    s.m.add_assign(&s.g * (1.0 - B1))?;
    s.v.mul_assign(B2)?;
    s.v.add_assign((&s.g * &s.g)? * (1.0 - B2))?;
    // lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t), on the device from the step count.
    let bc2 = (1.0f32 - DeviceArray::full(s.t.device(), [0usize; 0], B2)?.pow(&s.t)?)?;
    let bc1 = (1.0f32 - DeviceArray::full(s.t.device(), [0usize; 0], B1)?.pow(&s.t)?)?;
    let lr_t = ((bc2.sqrt()? * LR)? / &bc1)?;
    let step = ((&s.m * &lr_t)? / (s.v.sqrt()? + EPS)?)?;
    s.p.sub_assign(&step)
}

fn run(dev: &Device) -> Result<()> {
    // The whole step in one kernel: three outputs, written over three of the inputs.
    let adam = fuse(
        |p: Expr<f32>, m: Expr<f32>, v: Expr<f32>, g: Expr<f32>, t: Expr<f32>| {
            let m2 = m * B1 + g * (1.0 - B1);
            let v2 = v * B2 + g * g * (1.0 - B2);
            let bc2 = 1.0 - lit(B2).pow(t);
            let bc1 = 1.0 - lit(B1).pow(t);
            let lr_t = bc2.sqrt() * LR / bc1;
            (p - m2 * lr_t / (v2.sqrt() + EPS), m2, v2)
        },
    );
    let tick = fuse(|t: Expr<f32>| t + 1.0);
    let fused = |s: &State| -> Result<()> {
        tick.call_into(&s.t, &s.t)?;
        adam.call_into((&s.p, &s.m, &s.v), &s.p, &s.m, &s.v, &s.g, &s.t)
    };

    println!("Adam step, f32: eager (one kernel per operation), fused (one kernel), fused in a CUDA graph");
    println!(
        "{:>12} {:>14} {:>14} {:>14} {:>10} {:>10}",
        "parameters", "eager", "fused", "graph", "fused x", "graph x"
    );
    for (n, steps) in [(1000usize, 2000usize), (100_000_000, 20)] {
        let (a, b, c) = (
            State::new(dev, n)?,
            State::new(dev, n)?,
            State::new(dev, n)?,
        );
        // Warm up (compiles the kernels), then capture c's step.
        eager(&a)?;
        fused(&b)?;
        fused(&c)?;
        let graph = dev.capture(|| fused(&c))?;
        dev.synchronize()?;
        let time = |f: &mut dyn FnMut() -> Result<()>| -> Result<f64> {
            dev.synchronize()?;
            let t0 = Instant::now();
            for _ in 0..steps {
                f()?;
            }
            dev.synchronize()?;
            Ok(t0.elapsed().as_secs_f64() * 1e6 / steps as f64)
        };
        let t_eager = time(&mut || eager(&a))?;
        let t_fused = time(&mut || fused(&b))?;
        let t_graph = time(&mut || graph.launch())?;
        // The three took the same number of steps: their parameters agree.
        let worst = |x: &DeviceArray<f32>, y: &DeviceArray<f32>| -> Result<f32> {
            (x - y)?.abs()?.max()?.to_scalar()
        };
        let (d1, d2) = (worst(&a.p, &b.p)?, worst(&b.p, &c.p)?);
        let steps_done = (a.t.to_scalar()?, b.t.to_scalar()?, c.t.to_scalar()?);
        if steps_done.0 != steps_done.1 || steps_done.1 != steps_done.2 {
            return Err(cuarray::Error::Fusion {
                msg: format!("step counts differ: {steps_done:?}"),
            });
        }
        if d1 != 0.0 || d2 != 0.0 {
            eprintln!("results differ: eager vs fused {d1:e}, fused vs graph {d2:e}");
            std::process::exit(1);
        }
        let unit = |us: f64| {
            if us >= 1000.0 {
                format!("{:.2} ms", us / 1000.0)
            } else {
                format!("{us:.2} us")
            }
        };
        println!(
            "{:>12} {:>14} {:>14} {:>14} {:>9.1}x {:>9.1}x",
            n,
            unit(t_eager),
            unit(t_fused),
            unit(t_graph),
            t_eager / t_fused,
            t_eager / t_graph
        );
        if n > 1_000_000 {
            // The fused step reads p, m, v, g and writes p, m, v: 7 arrays of f32.
            let gbs = 7.0 * 4.0 * n as f64 / (t_fused * 1e3);
            println!(
                "{:>12} fused step moves {:.0} GB/s (7 arrays of f32 per step)",
                "", gbs
            );
        }
        println!(
            "{:>12} after {} steps the three give the same parameters, bit for bit ({d1:e}, {d2:e})",
            "", steps_done.0 as usize
        );
    }
    Ok(())
}
