//! Matrix products: the pure plan (shapes, batch strides, which operands cuBLAS can read
//! in place through its transpose flags and leading dimensions), and the launch of the
//! small-product kernel.
//!
//! Products of at most [`SMALL_GEMM_FLOPS`] multiply-adds run as one kernel of ours
//! (`kernels/matmul.cuh`, any strides, no copy): there a cuBLAS call costs more host time
//! than the GPU spends on the arithmetic. Larger ones go to cuBLAS.
//!
//! cuBLAS is column-major; a row-major `C = A B` is computed as `Cᵀ = Bᵀ Aᵀ`, which reads
//! each row-major operand as it lies. An operand that is neither row- nor column-major
//! with a usable leading dimension (e.g. a view with steps on both axes, or negative
//! strides) is copied to a contiguous array first.

use super::Operand;
use crate::device::{Device, DeviceBuffer};
use crate::element::DType;
use crate::kernels::cache::kernel;
use crate::kernels::family::gemm::{GemmShape, GemmSpec};
use crate::kernels::family::reduce::{Acc, Identity};
use crate::kernels::IndexWidth;
use crate::kernels::Text;
use crate::libs::blas::{with_blas, GemmElement};
use crate::ops::catalogue::ReduceDef;
use crate::ops::catalogue::COPY_BODY;
use crate::ops::launch::grid_for;
use crate::ops::reduce::{plan_reduce, run_def_with};
use crate::shape::{broadcast_shapes, collapse, Layout};
use crate::{Error, Result};

use crate::tuning::small_gemm_limit;

/// The longest inner dimension the small-product kernel walks in one thread.
const SMALL_GEMM_MAX_K: usize = 1024;

/// The `GemmShape` of the small-product kernel (render_gemm's signature) for the plan `p`
/// and its batch loop `bl`.
fn small_shape(p: &GemmPlan, bl: &BatchLoop) -> GemmShape {
    let nb = p.batch.len();
    let (sa, sb) = (p.a.strides(), p.b.strides());
    [
        bl.count as i64,
        p.m as i64,
        p.n as i64,
        p.k as i64,
        bl.stride.0 as i64,
        sa[nb] as i64,
        sa[nb + 1] as i64,
        bl.stride.1 as i64,
        sb[nb] as i64,
        sb[nb + 1] as i64,
        bl.stride.2 as i64,
        p.n as i64,
        1,
    ]
}

/// Runs `C = A @ B` for the plan `p` whose batch axes collapse to one strided loop `bl`
/// (`bl.outer` empty): `a` and `b` the operands through the layouts `p.a` and `p.b`, `c`
/// a C-contiguous output of `p.out_shape`.
fn run_small(
    device: &Device,
    dtype: DType,
    p: &GemmPlan,
    bl: &BatchLoop,
    (a, b, c): (&Operand<'_>, &Operand<'_>, &Operand<'_>),
) -> Result<()> {
    debug_assert!(bl.outer.is_empty());
    let spec = GemmSpec {
        dtype,
        index: IndexWidth::I64,
    };
    let f = kernel(device, &spec)?;
    let shape = small_shape(p, bl);
    let total = bl.count * p.m * p.n;
    let grid = grid_for(total, device.multiprocessor_count() * f.blocks_per_sm);
    // SAFETY: `f` is `spec`'s kernel (just above), of `run`'s element type; `a` and `b`
    // are operands through the plan's layouts `p.a` and `p.b` (batch, m x k and k x n),
    // checked by `with_layout` to stay inside their buffers, and `small_shape` takes the
    // extents and strides from those layouts and from `bl`, the one strided loop their
    // batch axes collapse to; `c` is C-contiguous of `p.out_shape` (checked by `run`),
    // batch x m x n at the strides `bl.stride.2`, n and 1.
    unsafe { spec.launch(device, &f, grid, (c.ptr(), a.ptr(), b.ptr()), &shape) }
}

/// A C-contiguous copy of `src` in a new buffer.
fn contiguous_copy(device: &Device, src: &Operand<'_>) -> Result<DeviceBuffer> {
    let layout = Layout::contiguous(src.layout().shape());
    let buf = DeviceBuffer::alloc(device, layout.size() * src.dtype().size())?;
    let dst = Operand::new(&buf, std::borrow::Cow::Owned(layout), src.dtype())?;
    super::elementwise::run(
        device,
        "copy",
        COPY_BODY,
        &[dst],
        std::slice::from_ref(src),
        &[],
    )?;
    Ok(buf)
}

/// `out = a @ b` as planned by `p` (from `a`'s and `b`'s layouts) into the C-contiguous
/// `out` of `p.out_shape`: one kernel of ours for small products, else cuBLAS, after a
/// contiguous copy of an operand cuBLAS cannot read in place.
pub(crate) fn run<T: GemmElement>(
    device: &Device,
    p: &GemmPlan,
    a: &Operand<'_>,
    b: &Operand<'_>,
    out: &Operand<'_>,
) -> Result<()> {
    if !out.layout().is_c_contiguous() || out.layout().shape() != p.out_shape.as_slice() {
        return Err(Error::invalid(
            "matmul",
            format!("the output must be C-contiguous of shape {:?}", p.out_shape),
        ));
    }
    let (m, n, k) = (p.m, p.n, p.k);
    let nb = p.batch.len();
    let (pa, pb) = (a.with_layout(p.a.clone())?, b.with_layout(p.b.clone())?);
    let products: usize = p.batch.iter().product();
    // The small kernel gives each output element one thread, which walks `k`: a long `k`
    // over few outputs (a tall basis times a vector) would run serially in a handful of
    // threads, so it goes to cuBLAS or the matrix-vector reduction instead.
    if k <= SMALL_GEMM_MAX_K
        && products.saturating_mul(m * n).saturating_mul(k) <= small_gemm_limit()
    {
        let bl = batch_loop(p);
        if bl.outer.is_empty() {
            return run_small(device, T::DTYPE, p, &bl, (&pa, &pb, out));
        }
    }
    if nb == 0 && run_matvec(device, p, &pa, &pb, out)? {
        return Ok(());
    }
    // Operands cuBLAS cannot read in place are made contiguous (a device copy), then
    // re-planned.
    let view = |l: &Layout, r, c| mat_operand(r, c, l.strides()[nb], l.strides()[nb + 1]);
    let (a_copy, b_copy);
    let (mut pa, mut pb) = (pa, pb);
    if view(pa.layout(), m, k).is_none() {
        a_copy = contiguous_copy(device, a)?;
        let la = Layout::contiguous(a.layout().shape());
        let planned = plan_gemm(&la, b.layout())?.a;
        pa = Operand::new(&a_copy, std::borrow::Cow::Owned(planned), T::DTYPE)?;
    }
    if view(pb.layout(), k, n).is_none() {
        b_copy = contiguous_copy(device, b)?;
        let lb = Layout::contiguous(b.layout().shape());
        let planned = plan_gemm(a.layout(), &lb)?.b;
        pb = Operand::new(&b_copy, std::borrow::Cow::Owned(planned), T::DTYPE)?;
    }
    let (oa, ob) = match (view(pa.layout(), m, k), view(pb.layout(), k, n)) {
        (Some(x), Some(y)) => (x, y),
        _ => {
            return Err(Error::invalid(
                "matmul",
                "a contiguous operand is not readable in place",
            ))
        }
    };
    let bl = batch_loop(&GemmPlan {
        a: pa.layout().clone(),
        b: pb.layout().clone(),
        ..p.clone()
    });
    let size = std::mem::size_of::<T>() as isize;
    let (a0, b0, c0) = (pa.ptr() as isize, pb.ptr() as isize, out.ptr() as isize);
    let tf32 = device.tf32();
    let outer_total: usize = bl.outer.iter().map(|o| o.0).product();
    with_blas(device, |blas| {
        for flat in 0..outer_total {
            let (mut da, mut db, mut dc) = (0isize, 0isize, 0isize);
            let mut rem = flat;
            for &(ext, sa, sb, sc) in bl.outer.iter().rev() {
                let i = (rem % ext) as isize;
                rem /= ext;
                da += i * sa;
                db += i * sb;
                dc += i * sc;
            }
            // Cᵀ (n x m, ld n) = op(B) op(A) in cuBLAS's column-major view.
            // SAFETY: the plan checked every dimension, leading dimension and batch
            // stride against the operands' layouts, which stay inside their buffers
            // (checked by their `Operand`s); `out` holds batch * m * n elements.
            unsafe {
                blas.gemm::<T>(
                    tf32,
                    (ob.trans, oa.trans),
                    (n, m, k),
                    ((b0 + db * size) as u64, ob.ld, bl.stride.1),
                    ((a0 + da * size) as u64, oa.ld, bl.stride.0),
                    ((c0 + dc * size) as u64, n, bl.stride.2),
                    bl.count,
                )?;
            }
        }
        Ok(())
    })
}

/// The reduction that computes a matrix-vector product of real floating type `d`: each
/// output is the sum of a row (or column) of the matrix, `in0`, times the vector read along
/// the reduced axis, `r0`, accumulated in `f32` (`f64` for `f64`).
pub fn matvec_def(d: DType) -> ReduceDef {
    let acc = if d == DType::F64 { Acc::F64 } else { Acc::F32 };
    ReduceDef {
        acc,
        identity: acc.identity(Identity::Zero).into(),
        preamble: Text::EMPTY,
        pre: Text::Static("a = acc_t(in0) * acc_t(r0);"),
        combine: Text::Static("a + b"),
        combine_forward: Text::EMPTY,
        post: Text::Static("out0 = out0_t(a);"),
    }
}

/// A matrix-vector product `m x k @ k x 1` of a real floating type as one reduction of
/// ours over the matrix's rows, reading the vector along the reduced axis: it streams the
/// matrix once at the reduction's bandwidth, where cuBLAS's gemv is slower for a row-major
/// `A @ v` (8192 x 8192 f32: 4135 against 2957 GB/s). Returns `false` (nothing launched)
/// for the cases it does not take, which go to cuBLAS: complex or integer types, batches,
/// f64 (cuBLAS's gemv is as fast there), a vector with a stride other than one, and
/// `v @ A` (cuBLAS reads the columns faster than our column reduction: 3955 against 3608).
fn run_matvec(
    device: &Device,
    p: &GemmPlan,
    pa: &Operand<'_>,
    pb: &Operand<'_>,
    out: &Operand<'_>,
) -> Result<bool> {
    let d = pa.dtype();
    if !matches!(d, DType::F16 | DType::BF16 | DType::F32) || !p.batch.is_empty() || p.n != 1 {
        return Ok(false);
    }
    let k = p.k;
    // (the matrix, the axis it is reduced along, the vector, the vector's stride)
    let (matrix, axis, vector, step) = (pa, 1isize, pb, pb.layout().strides()[0]);
    if step != 1 && k > 1 {
        return Ok(false);
    }
    let off = vector.layout().offset();
    let vector = vector.with_layout(Layout::from_parts(vec![k], vec![1], off))?;
    let plan = plan_reduce(
        matrix.layout(),
        Some(&[axis]),
        false,
        true,
        device.multiprocessor_count(),
    )?;
    let out = out.with_layout(Layout::contiguous(&[plan.n_out]))?;
    run_def_with(
        device,
        &Text::Static("matvec"),
        &matvec_def(d),
        &plan,
        matrix,
        &[],
        Some(&vector),
        &out,
        None,
        &[],
    )?;
    Ok(true)
}

/// How cuBLAS reads one matrix operand in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MatOperand {
    /// Whether cuBLAS must transpose what it reads (`true` for a column-major operand,
    /// given the `Cᵀ = Bᵀ Aᵀ` formulation).
    pub(crate) trans: bool,
    /// Leading dimension.
    pub(crate) ld: usize,
}

/// How to read an `r x c` matrix with strides `(sr, sc)` in place, or `None` when it needs
/// a copy first.
pub(crate) fn mat_operand(r: usize, c: usize, sr: isize, sc: isize) -> Option<MatOperand> {
    if r <= 1 && c <= 1 {
        return Some(MatOperand {
            trans: false,
            ld: c.max(1),
        });
    }
    // Row-major: unit steps along a row, and rows at least a row apart.
    if (c == 1 || sc == 1) && (r == 1 || sr >= c.max(1) as isize) {
        let ld = if r == 1 { c.max(1) } else { sr as usize };
        return Some(MatOperand { trans: false, ld });
    }
    // Column-major.
    if (r == 1 || sr == 1) && (c == 1 || sc >= r.max(1) as isize) {
        let ld = if c == 1 { r.max(1) } else { sc as usize };
        return Some(MatOperand { trans: true, ld });
    }
    None
}

/// The plan of `a @ b` (NumPy's `matmul` rules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GemmPlan {
    /// Rows of each product.
    pub(crate) m: usize,
    /// Columns of each product.
    pub(crate) n: usize,
    /// Inner dimension.
    pub(crate) k: usize,
    /// Shape of the result.
    pub(crate) out_shape: Vec<usize>,
    /// Broadcast batch shape (empty for a single product).
    pub(crate) batch: Vec<usize>,
    /// `a` as an `(m, k)` matrix stack, broadcast over `batch`.
    pub(crate) a: Layout,
    /// `b` as a `(k, n)` matrix stack, broadcast over `batch`.
    pub(crate) b: Layout,
}

/// Plans `a @ b` for layouts `a` and `b`: 1-D operands are promoted to matrices (and the
/// added axis dropped from the result), batch dimensions broadcast.
///
/// # Errors
/// [`Error::ShapeMismatch`] naming both shapes for a 0-d operand, inner dimensions that
/// differ, or batch dimensions that do not broadcast.
pub(crate) fn plan_gemm(a: &Layout, b: &Layout) -> Result<GemmPlan> {
    let err = |msg: &str| Error::ShapeMismatch {
        op: "matmul",
        msg: msg.into(),
        lhs: a.shape().to_vec(),
        rhs: b.shape().to_vec(),
    };
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(err(
            "matmul needs arrays of at least one dimension (use mul for scalars)",
        ));
    }
    let a2 = if a.ndim() == 1 {
        a.expand_dims(0)?
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.expand_dims(-1)?
    } else {
        b.clone()
    };
    let (m, k) = (a2.shape()[a2.ndim() - 2], a2.shape()[a2.ndim() - 1]);
    let (k2, n) = (b2.shape()[b2.ndim() - 2], b2.shape()[b2.ndim() - 1]);
    if k != k2 {
        return Err(err(&format!("inner dimensions differ ({k} and {k2})")));
    }
    let batch = broadcast_shapes(
        "matmul",
        &a2.shape()[..a2.ndim() - 2],
        &b2.shape()[..b2.ndim() - 2],
    )
    .map_err(|_| err("batch dimensions do not broadcast"))?;
    let full = |l: &Layout, r: usize, c: usize| {
        let mut s = batch.clone();
        s.extend([r, c]);
        l.broadcast_to(&s)
    };
    let (a_full, b_full) = (full(&a2, m, k)?, full(&b2, k, n)?);
    let mut out_shape = batch.clone();
    if a.ndim() > 1 {
        out_shape.push(m);
    }
    if b.ndim() > 1 {
        out_shape.push(n);
    }
    Ok(GemmPlan {
        m,
        n,
        k,
        out_shape,
        batch,
        a: a_full,
        b: b_full,
    })
}

/// The batch loop of a plan: strides (elements) of each product in `a`, `b` and the
/// contiguous output, after merging batch axes. `outer` lists the leading batch extents
/// that still need a host loop (empty when one strided-batched call covers all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BatchLoop {
    /// Host-loop extents and per-operand strides `(a, b, c)` for each.
    pub(crate) outer: Vec<(usize, isize, isize, isize)>,
    /// Products per strided-batched call.
    pub(crate) count: usize,
    /// Strides between consecutive products in one call.
    pub(crate) stride: (isize, isize, isize),
}

/// Merges the batch axes of `p` for strided-batched calls.
pub(crate) fn batch_loop(p: &GemmPlan) -> BatchLoop {
    let nb = p.batch.len();
    let c_strides = crate::shape::c_strides(&{
        let mut s = p.batch.clone();
        s.extend([p.m, p.n]);
        s
    });
    let c = collapse(
        &p.batch,
        &[&p.a.strides()[..nb], &p.b.strides()[..nb], &c_strides[..nb]],
    );
    let d = c.shape.len();
    if d == 0 {
        return BatchLoop {
            outer: vec![],
            count: 1,
            stride: (0, 0, 0),
        };
    }
    let outer = (0..d - 1)
        .map(|i| {
            (
                c.shape[i],
                c.strides[0][i],
                c.strides[1][i],
                c.strides[2][i],
            )
        })
        .collect();
    BatchLoop {
        outer,
        count: c.shape[d - 1],
        stride: (
            c.strides[0][d - 1],
            c.strides[1][d - 1],
            c.strides[2][d - 1],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_product_arguments() {
        // A batch of 3 products (5x4 @ 4x6): 3 pointers and one 13-integer GemmShape.
        let p = plan_gemm(
            &Layout::contiguous(&[3, 5, 4]),
            &Layout::contiguous(&[3, 4, 6]),
        )
        .unwrap();
        let bl = batch_loop(&p);
        assert!(bl.outer.is_empty() && bl.count == 3);
        let args = GemmSpec::args((0x3000, 0x1000, 0x2000), &small_shape(&p, &bl));
        assert_eq!(args.extent(), (4, 3 * 8 + 13 * 8));
    }

    #[test]
    fn shapes() {
        let l = Layout::contiguous;
        assert_eq!(
            plan_gemm(&l(&[4]), &l(&[4])).unwrap().out_shape,
            Vec::<usize>::new()
        );
        assert_eq!(plan_gemm(&l(&[4]), &l(&[4, 5])).unwrap().out_shape, vec![5]);
        assert_eq!(plan_gemm(&l(&[3, 4]), &l(&[4])).unwrap().out_shape, vec![3]);
        assert_eq!(
            plan_gemm(&l(&[7, 3, 4]), &l(&[4])).unwrap().out_shape,
            vec![7, 3]
        );
        assert_eq!(plan_gemm(&l(&[3, 0]), &l(&[0, 5])).unwrap().k, 0);
        let e = plan_gemm(&l(&[2, 3, 4]), &l(&[3, 4, 5]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("[2, 3, 4]") && e.contains("[3, 4, 5]"), "{e}");
        assert!(plan_gemm(&l(&[]), &l(&[3])).is_err());
    }

    #[test]
    fn operands() {
        // Transposed view of a (5, 3) matrix: (3, 5) with strides (1, 3): column-major.
        assert_eq!(
            mat_operand(3, 5, 1, 3),
            Some(MatOperand { trans: true, ld: 3 })
        );
        // A row slice of a wider matrix keeps its leading dimension.
        assert_eq!(
            mat_operand(3, 4, 10, 1),
            Some(MatOperand {
                trans: false,
                ld: 10
            })
        );
        // Negative strides need a copy.
        assert_eq!(mat_operand(3, 4, -4, 1), None);
        // Vectors as matrices.
        assert_eq!(
            mat_operand(1, 4, 0, 1),
            Some(MatOperand {
                trans: false,
                ld: 4
            })
        );
        assert_eq!(
            mat_operand(4, 1, 1, 0),
            Some(MatOperand {
                trans: false,
                ld: 1
            })
        );
        assert_eq!(
            mat_operand(4, 1, 3, 0),
            Some(MatOperand {
                trans: false,
                ld: 3
            })
        );
    }

    #[test]
    fn batches() {
        let l = Layout::contiguous;
        // (2,1,3,4) @ (5,4,6): batch (2,5); a broadcast along 5, b along 2.
        let p = plan_gemm(&l(&[2, 1, 3, 4]), &l(&[5, 4, 6])).unwrap();
        let bl = batch_loop(&p);
        assert_eq!(bl.outer, vec![(2, 12, 0, 90)]);
        assert_eq!((bl.count, bl.stride), (5, (0, 24, 18)));
        // Plain 3-D batch: one call.
        let p = plan_gemm(&l(&[8, 3, 4]), &l(&[8, 4, 6])).unwrap();
        let bl = batch_loop(&p);
        assert!(bl.outer.is_empty());
        assert_eq!((bl.count, bl.stride), (8, (12, 24, 18)));
    }

    #[test]
    fn matvec_def_example() {
        use crate::{ops::matmul::matvec_def, DType};
        assert!(matvec_def(DType::F16).pre.as_str().contains("r0"));
    }

    #[test]
    fn mat_operand_example() {
        use crate::ops::matmul::{mat_operand, MatOperand};
        assert_eq!(
            mat_operand(3, 4, 4, 1),
            Some(MatOperand {
                trans: false,
                ld: 4
            })
        ); // C order
        assert_eq!(
            mat_operand(3, 4, 1, 3),
            Some(MatOperand { trans: true, ld: 3 })
        ); // F order
        assert_eq!(mat_operand(3, 4, 8, 2), None); // stepped
    }

    #[test]
    fn plan_gemm_example() {
        use crate::ops::matmul::plan_gemm;
        use crate::shape::Layout;
        let p = plan_gemm(
            &Layout::contiguous(&[2, 1, 3, 4]),
            &Layout::contiguous(&[5, 4, 6]),
        )
        .unwrap();
        assert_eq!((p.m, p.n, p.k), (3, 6, 4));
        assert_eq!(p.out_shape, vec![2, 5, 3, 6]);
        assert!(plan_gemm(&Layout::contiguous(&[3, 4]), &Layout::contiguous(&[5, 6])).is_err());
    }
}
