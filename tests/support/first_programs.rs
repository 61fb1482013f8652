//! The first things a NumPy user types, as small programs: each one must compile (that is
//! most of the test) and give NumPy's answer on a GPU. Shared by tests/first_programs.rs
//! (which runs them when a GPU is present) and the GPU tier (tests/gpu/main.rs), included
//! with `#[path]`.

#![allow(dead_code)]

use cuarray::{s, Device, DeviceArray};

/// What a program returns: an error from cuarray or a wrong value.
pub type Outcome = Result<(), Box<dyn std::error::Error>>;

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Outcome {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}").into())
    }
}

fn run(f: impl FnOnce() -> Result<Outcome, Box<dyn std::error::Error>>) -> Outcome {
    f()?
}

/// `x.reshape(&[n, d])` with `usize` values.
pub fn reshape_usize(dev: &Device) -> Outcome {
    run(|| {
        let (n, d) = (2usize, 3usize);
        let x = DeviceArray::<f32>::arange(dev, 0.0, 6.0, 1.0)?;
        Ok(check("shape", x.reshape(&[n, d])?.shape(), &[2, 3][..]))
    })
}

/// `x.reshape(y.shape())`.
pub fn reshape_like(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::<f32>::arange(dev, 0.0, 6.0, 1.0)?;
        let y = DeviceArray::<f32>::zeros(dev, &[3, 2])?;
        Ok(check("shape", x.reshape(y.shape())?.shape(), y.shape()))
    })
}

/// NumPy's `x.mean(0)` is `x.mean_axis(0)`.
pub fn mean_axis(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::from_host(dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
        Ok(check("mean", x.mean_axis(0)?.to_host()?, vec![2.0, 3.0]))
    })
}

/// NumPy's `x.sum(-1, keepdims=True)` is `x.sum_keepdim(-1)` or `x.sum_axes(-1, true)`.
pub fn sum_keepdims(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::from_host(dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
        let a = x.sum_keepdim(-1)?;
        let b = x.sum_axes(-1, true)?;
        check("shape", a.shape(), &[2, 1][..])?;
        check("axes form", b.to_host()?, a.to_host()?)?;
        Ok(check("sum", a.to_host()?, vec![3.0, 7.0]))
    })
}

/// `(a + b) * 2.0` needs a `?` on the `Result`: `(&a + &b)? * 2.0`.
pub fn result_times_scalar(dev: &Device) -> Outcome {
    run(|| {
        let a = DeviceArray::from_slice(dev, &[1.0f32, 2.0])?;
        let b = DeviceArray::from_slice(dev, &[3.0f32, 4.0])?;
        let c = ((&a + &b)? * 2.0)?;
        Ok(check("values", c.to_host()?, vec![8.0, 12.0]))
    })
}

/// `2.0 * (a + b)` is `2.0 * (&a + &b)?`.
pub fn scalar_times_result(dev: &Device) -> Outcome {
    run(|| {
        let a = DeviceArray::from_slice(dev, &[1.0f32, 2.0])?;
        let b = DeviceArray::from_slice(dev, &[3.0f32, 4.0])?;
        let c = (2.0 * (&a + &b)?)?;
        Ok(check("values", c.to_host()?, vec![8.0, 12.0]))
    })
}

/// `*w -= g` on a `&mut DeviceArray`.
pub fn sub_assign_through_mut(dev: &Device) -> Outcome {
    fn step(w: &mut DeviceArray<f32>, g: DeviceArray<f32>) {
        *w -= g;
    }
    run(|| {
        let mut w = DeviceArray::from_slice(dev, &[1.0f32, 2.0])?;
        step(&mut w, DeviceArray::from_slice(dev, &[0.5f32, 0.5])?);
        Ok(check("values", w.to_host()?, vec![0.5, 1.5]))
    })
}

/// `w -= &g * lr`: an SGD step, in place.
pub fn sgd_step(dev: &Device) -> Outcome {
    run(|| {
        let mut w = DeviceArray::from_slice(dev, &[1.0f32, 2.0])?;
        let g = DeviceArray::from_slice(dev, &[10.0f32, 20.0])?;
        let before = w.clone();
        w -= &g * 0.5;
        check("in place", w.shares_memory_with(&before), true)?;
        Ok(check("values", before.to_host()?, vec![-4.0, -8.0]))
    })
}

/// `x *= 2.0` and `x += 1.0`.
pub fn scalar_assign_ops(dev: &Device) -> Outcome {
    run(|| {
        let mut x = DeviceArray::from_slice(dev, &[1i32, 2, 3])?;
        x *= 2;
        x += 1;
        x.rem_assign(4)?;
        Ok(check("values", x.to_host()?, vec![3, 1, 3]))
    })
}

/// `x.gt(0.0)`.
pub fn compare_scalar(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::from_slice(dev, &[-1.0f32, 0.0, 2.0])?;
        Ok(check("gt", x.gt(0.0)?.to_host()?, vec![false, false, true]))
    })
}

/// `x.pow(2.0)`.
pub fn pow_scalar(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::from_slice(dev, &[-1.0f32, 3.0])?;
        Ok(check("pow", x.pow(2.0)?.to_host()?, vec![1.0, 9.0]))
    })
}

/// `x[:, None]` is `x.slice(s![.., None])`.
pub fn new_axis(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::from_slice(dev, &[1, 2, 3])?;
        let col = x.slice(s![.., None])?;
        check("shape", col.shape(), &[3, 1][..])?;
        let table = (&col * &x)?;
        Ok(check(
            "outer by broadcasting",
            table.to_host()?,
            vec![1, 2, 3, 2, 4, 6, 3, 6, 9],
        ))
    })
}

/// `zeros_like(x)`.
pub fn zeros_like(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::<f64>::ones(dev, &[2, 2])?;
        let z = cuarray::zeros_like(&x)?;
        check("shape", z.shape(), x.shape())?;
        Ok(check("values", z.to_host()?, vec![0.0; 4]))
    })
}

/// `DeviceArray::from_vec(&dev, vec, shape)`.
pub fn from_vec(dev: &Device) -> Outcome {
    run(|| {
        let a = DeviceArray::from_vec(dev, vec![1u8, 2, 3, 4, 5, 6], (2, 3))?;
        Ok(check(
            "shaped",
            a.to_host_shaped()?,
            (vec![1, 2, 3, 4, 5, 6], vec![2, 3]),
        ))
    })
}

/// ReLU as NumPy's `np.where(x > 0, x, 0)`.
pub fn where_scalar(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::from_slice(dev, &[-2.0f32, 3.0])?;
        let y = cuarray::where_(x.gt(0.0), &x, 0.0)?;
        Ok(check("values", y.to_host()?, vec![0.0, 3.0]))
    })
}

/// A softmax over the last axis, as written in NumPy.
pub fn softmax(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::from_host(dev, &[1.0f32, 2.0, 3.0, 1.0, 1.0, 1.0], &[2, 3])?;
        let e = (&x - x.max_keepdim(-1)?)?.exp()?;
        let p = (&e / e.sum_keepdim(-1)?)?;
        let want: Vec<f32> = {
            let z = 1.0 + (-1.0f32).exp() + (-2.0f32).exp();
            vec![
                (-2.0f32).exp() / z,
                (-1.0f32).exp() / z,
                1.0 / z,
                1.0 / 3.0,
                1.0 / 3.0,
                1.0 / 3.0,
            ]
        };
        let got = p.to_host()?;
        let ok = got.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-6);
        Ok(check("close", ok, true))
    })
}

/// `np.allclose(a, b)` and `np.array_equal(a, b)`.
pub fn allclose(dev: &Device) -> Outcome {
    run(|| {
        let a = DeviceArray::from_slice(dev, &[1.0f64, 2.0])?;
        let b = (&a + 1e-12)?;
        check("allclose", cuarray::allclose(&a, &b, 1e-9, 0.0)?, true)?;
        Ok(check("array_equal", cuarray::array_equal(&a, &b)?, false))
    })
}

/// f16 arrays through cuarray's re-export of `half`.
pub fn half_floats(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::from_slice(dev, &[cuarray::f16::from_f32(1.5); 4])?;
        let s = x.sum()?.to_scalar()?;
        Ok(check("sum", s, cuarray::half::f16::from_f32(6.0)))
    })
}

/// `x.transpose(-1, 0)`-style axes: `permute` takes negative axes.
pub fn permute_negative(dev: &Device) -> Outcome {
    run(|| {
        let x = DeviceArray::<f32>::zeros(dev, (2, 3, 4))?;
        Ok(check(
            "shape",
            x.permute(&[-1, 0, 1])?.shape(),
            &[4, 2, 3][..],
        ))
    })
}

/// `fn main() -> cuarray::Result<()>` prints the message of an error, not a struct dump
/// (no GPU needed).
pub fn error_debug_is_readable() -> Outcome {
    let e = cuarray::shape::new_shape("zeros", &[2, -1]).unwrap_err();
    let shown = format!("Error: {e:?}");
    if shown.contains('{') || !shown.starts_with("Error: zeros: negative extent -1") {
        return Err(format!("Debug of an error is not its message: {shown}").into());
    }
    Ok(())
}

/// A program that needs a GPU.
pub type Program = fn(&Device) -> Outcome;

/// Every program that needs a GPU, by name.
pub const PROGRAMS: [(&str, Program); 19] = [
    ("reshape_usize", reshape_usize),
    ("reshape_like", reshape_like),
    ("mean_axis", mean_axis),
    ("sum_keepdims", sum_keepdims),
    ("result_times_scalar", result_times_scalar),
    ("scalar_times_result", scalar_times_result),
    ("sub_assign_through_mut", sub_assign_through_mut),
    ("sgd_step", sgd_step),
    ("scalar_assign_ops", scalar_assign_ops),
    ("compare_scalar", compare_scalar),
    ("pow_scalar", pow_scalar),
    ("new_axis", new_axis),
    ("zeros_like", zeros_like),
    ("from_vec", from_vec),
    ("where_scalar", where_scalar),
    ("softmax", softmax),
    ("allclose", allclose),
    ("half_floats", half_floats),
    ("permute_negative", permute_negative),
];
