//! NVRTC tier: every kernel spec the library uses compiles, for every dtype and layout
//! variant family (no GPU needed). The specs come from tests/support/specs.rs.

use crate::common::{ensure, nvrtc_trial, TResult};
use crate::specs;
use cuarray::testing::kernels::family::elementwise::Variant;
use cuarray::testing::kernels::family::gemm::GemmSpec;
use cuarray::testing::kernels::family::reduce::{self, ReduceSpec};
use cuarray::testing::kernels::family::scan;
use cuarray::testing::kernels::{nvrtc, IndexWidth, Render, TypeList};
use cuarray::testing::ops::elementwise::spec_for;
use cuarray::testing::ops::reduce::ReduceOp;
use cuarray::testing::ops::scan::scan_spec;
use cuarray::KernelSpec;
use cuarray::{DType, Error};
use libtest_mimic::Trial;

/// The architecture the tier compiles for (Hopper, as the H200 the GPU tier runs on).
const ARCH: (u32, u32) = (9, 0);

/// Compiles one spec; the error names the kernel and carries NVRTC's log.
fn compile(spec: &KernelSpec) -> TResult {
    let src = spec.source();
    let sym = spec.symbol();
    // `CUARRAY_DUMP_KERNELS=dir` keeps each source compiled here, as the library's cache does.
    if let Some(dir) = std::env::var_os("CUARRAY_DUMP_KERNELS") {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{sym}.cu")), &src);
    }
    ensure!(
        src.contains(&format!(" {sym}(")),
        "rendered source does not define {sym}"
    );
    match nvrtc::compile(&src, &sym, &nvrtc::options(ARCH)) {
        Ok(cubin) => {
            ensure!(
                cubin.starts_with(b"\x7fELF"),
                "{sym}: the CUBIN is not an ELF image"
            );
            Ok(())
        }
        Err(e) => {
            let mut msg = e.to_string();
            if msg.len() > 4000 {
                msg.truncate(4000);
                msg.push_str("...");
            }
            Err(format!("{sym} ({spec:?}) failed to compile: {msg}").into())
        }
    }
}

fn group<S: Into<KernelSpec>>(
    out: &mut Vec<Trial>,
    name: String,
    specs: impl FnOnce() -> Vec<S> + Send + 'static,
) {
    out.push(nvrtc_trial(name, move || {
        let specs: Vec<KernelSpec> = specs().into_iter().map(Into::into).collect();
        ensure!(!specs.is_empty(), "no specs");
        specs.iter().try_for_each(compile)
    }));
}

/// The output dtype of a reduction of `d` (enough for the kernel to compile: the Rust
/// API decides the real one).
fn reduce_out(op: ReduceOp, d: DType) -> DType {
    match op {
        ReduceOp::ArgMax | ReduceOp::ArgMin => DType::I64,
        ReduceOp::All | ReduceOp::Any => DType::Bool,
        ReduceOp::NanArgMax | ReduceOp::NanArgMin => DType::I64,
        ReduceOp::Mean
        | ReduceOp::Var
        | ReduceOp::Std
        | ReduceOp::NanMean
        | ReduceOp::NanVar
        | ReduceOp::NanStd => {
            if d.is_float() || d.is_complex() {
                d
            } else {
                DType::F64
            }
        }
        _ => d,
    }
}

fn reduce_spec(
    op: ReduceOp,
    d: DType,
    variant: reduce::Variant,
    partial_in: bool,
    partial_out: bool,
    finish: bool,
) -> ReduceSpec {
    let def = op.def(d);
    let stats = matches!(
        op,
        ReduceOp::Mean | ReduceOp::Var | ReduceOp::Std | ReduceOp::NanVar | ReduceOp::NanStd
    );
    let aux = if matches!(
        op,
        ReduceOp::Var | ReduceOp::Std | ReduceOp::NanVar | ReduceOp::NanStd
    ) && !partial_in
    {
        Some(if d == DType::F64 || !d.is_float() {
            DType::F64
        } else {
            DType::F32
        })
    } else {
        None
    };
    ReduceSpec {
        op: op.name().into(),
        preamble: def.preamble,
        pre: if partial_in {
            "a = in0;".into()
        } else {
            def.pre
        },
        input: d,
        extra: TypeList::new(&[]),
        output: reduce_out(op, d),
        scalars: TypeList::new(if stats { &[DType::F64] } else { &[] }),
        acc: def.acc,
        identity: def.identity,
        combine: def.combine,
        combine_forward: def.combine_forward,
        post: def.post,
        partial_in,
        partial_out,
        finish,
        aux,
        along: None,
        variant,
        index: IndexWidth::I64,
    }
}

fn reduce_specs(d: DType) -> Vec<ReduceSpec> {
    let ops: &[ReduceOp] = if d.is_complex() {
        &[
            ReduceOp::Sum,
            ReduceOp::Prod,
            ReduceOp::All,
            ReduceOp::Any,
            ReduceOp::Mean,
        ]
    } else if d == DType::Bool {
        &[
            ReduceOp::Sum,
            ReduceOp::Prod,
            ReduceOp::All,
            ReduceOp::Any,
            ReduceOp::Mean,
            ReduceOp::Var,
            ReduceOp::Std,
        ]
    } else {
        &[
            ReduceOp::Sum,
            ReduceOp::Prod,
            ReduceOp::Max,
            ReduceOp::Min,
            ReduceOp::ArgMax,
            ReduceOp::ArgMin,
            ReduceOp::All,
            ReduceOp::Any,
            ReduceOp::Mean,
            ReduceOp::Var,
            ReduceOp::Std,
        ]
    };
    reduce_specs_of(d, ops)
}

/// The NaN-skipping reductions of a real type `d` (integers take the plain ops' kernels
/// or a pre-map whose NaN test is always false), and the all-NaN test of `nanargmax`.
fn nan_reduce_specs(d: DType) -> Vec<ReduceSpec> {
    let ops = [
        ReduceOp::NanSum,
        ReduceOp::NanProd,
        ReduceOp::NanMax,
        ReduceOp::NanMin,
        ReduceOp::NanArgMax,
        ReduceOp::NanArgMin,
        ReduceOp::NanMean,
        ReduceOp::NanVar,
        ReduceOp::NanStd,
    ];
    let mut v = reduce_specs_of(d, &ops);
    let count = cuarray::testing::ops::reduce::not_nan_count_def();
    v.push(ReduceSpec {
        op: "notnan_count".into(),
        pre: count.pre,
        acc: count.acc,
        identity: count.identity,
        combine: count.combine,
        combine_forward: count.combine_forward,
        post: count.post,
        output: DType::I64,
        scalars: TypeList::new(&[]),
        aux: None,
        ..reduce_spec(
            ReduceOp::Sum,
            d,
            reduce::Variant::Rows {
                warp: false,
                vec: 1,
                nk: 1,
                nr: 1,
            },
            false,
            false,
            true,
        )
    });
    let def = cuarray::testing::ops::reduce::all_nan_def();
    v.push(ReduceSpec {
        op: "allnan".into(),
        pre: def.pre,
        acc: def.acc,
        identity: def.identity,
        combine: def.combine,
        combine_forward: def.combine_forward,
        post: def.post,
        output: DType::Bool,
        scalars: TypeList::new(&[]),
        aux: None,
        ..reduce_spec(
            ReduceOp::All,
            d,
            reduce::Variant::Rows {
                warp: true,
                vec: 1,
                nk: 1,
                nr: 1,
            },
            false,
            false,
            false,
        )
    });
    v
}

fn reduce_specs_of(d: DType, ops: &[ReduceOp]) -> Vec<ReduceSpec> {
    let vec = (16 / d.size()) as u8;
    let mut v = Vec::new();
    for &op in ops {
        for variant in [
            reduce::Variant::Rows {
                warp: false,
                vec,
                nk: 1,
                nr: 1,
            },
            reduce::Variant::Rows {
                warp: true,
                vec: 1,
                nk: 2,
                nr: 3,
            },
            reduce::Variant::Cols { vec, nk: 1, nr: 2 },
            reduce::Variant::Cols {
                vec: 1,
                nk: 3,
                nr: 1,
            },
        ] {
            v.push(reduce_spec(op, d, variant, false, false, false));
            v.push(reduce_spec(op, d, variant, false, true, false));
            if matches!(variant, reduce::Variant::Rows { .. }) {
                v.push(reduce_spec(op, d, variant, false, false, true));
            }
            // Arg accumulators carry a 32-bit index in 32-bit kernels.
            if matches!(
                op,
                ReduceOp::ArgMax | ReduceOp::ArgMin | ReduceOp::NanArgMax | ReduceOp::NanArgMin
            ) {
                let finish = matches!(variant, reduce::Variant::Rows { .. });
                v.push(ReduceSpec {
                    index: IndexWidth::I32,
                    ..reduce_spec(op, d, variant, false, false, finish)
                });
            }
        }
        v.push(reduce_spec(
            op,
            d,
            reduce::Variant::Rows {
                warp: false,
                vec: 1,
                nk: 1,
                nr: 1,
            },
            true,
            false,
            false,
        ));
        // The last pass over column partials, and the passes that combine them into
        // fewer partials first.
        for partial_out in [false, true] {
            v.push(reduce_spec(
                op,
                d,
                reduce::Variant::Cols {
                    vec: 1,
                    nk: 1,
                    nr: 1,
                },
                true,
                partial_out,
                false,
            ));
        }
    }
    v
}

/// The matrix-vector reduction of a real float `d` (the vector read along the reduced
/// axis) in every variant the launch picks: a block per row, warps per row,
/// columns, pieces finished in place and partials.
fn matvec_specs(d: DType) -> Vec<ReduceSpec> {
    let vec = (16 / d.size()) as u8;
    let mut v = Vec::new();
    for variant in [
        reduce::Variant::Rows {
            warp: false,
            vec,
            nk: 1,
            nr: 1,
        },
        reduce::Variant::Rows {
            warp: true,
            vec: 1,
            nk: 2,
            nr: 1,
        },
        reduce::Variant::Cols { vec, nk: 1, nr: 1 },
        reduce::Variant::Cols {
            vec: 1,
            nk: 1,
            nr: 2,
        },
    ] {
        for (partial_out, finish) in [(false, false), (true, false), (false, true)] {
            let def = cuarray::testing::ops::matmul::matvec_def(d);
            v.push(ReduceSpec {
                op: "matvec".into(),
                preamble: def.preamble,
                pre: def.pre,
                input: d,
                extra: TypeList::new(&[]),
                output: d,
                scalars: TypeList::new(&[]),
                acc: def.acc,
                identity: def.identity,
                combine: def.combine,
                combine_forward: def.combine_forward,
                post: def.post,
                partial_in: false,
                partial_out,
                finish,
                aux: None,
                along: Some(d),
                variant,
                index: IndexWidth::I32,
            });
        }
    }
    v
}

/// cumsum and cumprod of `d` into its sum type, tiled (vector and scalar) and serial.
fn scan_specs(d: DType) -> Vec<scan::ScanSpec> {
    let out = match d {
        DType::Bool | DType::I8 | DType::I16 | DType::I32 | DType::I64 => DType::I64,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => DType::U64,
        other => other,
    };
    let mut v = Vec::new();
    let ops: &[ReduceOp] = if d.is_complex() || d == DType::Bool {
        &[ReduceOp::Sum, ReduceOp::Prod]
    } else {
        &[
            ReduceOp::Sum,
            ReduceOp::Prod,
            ReduceOp::NanSum,
            ReduceOp::NanProd,
        ]
    };
    for &op in ops {
        for variant in [
            scan::Variant::Tiles {
                vec: (16 / d.size().max(out.size())) as u8,
                nk: 1,
            },
            scan::Variant::Tiles { vec: 1, nk: 2 },
            scan::Variant::Serial { nk: 1 },
        ] {
            v.push(scan_spec(op, d, out, variant, IndexWidth::I32));
        }
    }
    v
}

fn compile_error() -> TResult {
    let spec = spec_for(
        "broken",
        "out0 = in0 +* ; cuarray_no_such_function(in0);",
        &[DType::F32],
        &[DType::F32],
        &[],
        Variant::Contiguous,
        IndexWidth::I32,
    );
    let src = spec.source();
    match nvrtc::compile(&src, &spec.symbol(), &nvrtc::options(ARCH)) {
        Ok(_) => Err("a broken body compiled".into()),
        Err(Error::Compile {
            kernel,
            options,
            log,
        }) => {
            ensure!(
                kernel == spec.symbol(),
                "Compile error names kernel {kernel}, expected {}",
                spec.symbol()
            );
            ensure!(
                options.iter().any(|o| o.contains("sm_90")),
                "Compile error lists options {options:?}"
            );
            ensure!(
                log.contains("error"),
                "the NVRTC log does not mention an error:\n{log}"
            );
            ensure!(
                log.contains("cuarray_no_such_function") || log.contains("expected an expression"),
                "the NVRTC log does not point at the broken body:\n{log}"
            );
            let msg = Error::Compile {
                kernel,
                options,
                log,
            }
            .to_string();
            ensure!(
                msg.contains(&spec.symbol()),
                "the message does not name the kernel: {msg}"
            );
            Ok(())
        }
        Err(e) => Err(format!("expected Error::Compile, got {e:?}").into()),
    }
}

fn version_and_common_specs() -> TResult {
    let (major, minor) = nvrtc::version()?;
    ensure!(major >= 12, "NVRTC {major}.{minor} is older than CUDA 12");
    cuarray::common_specs().iter().try_for_each(compile)
}

pub fn trials(out: &mut Vec<Trial>) {
    for d in specs::NUMERIC {
        for op in specs::ARITH {
            group(
                out,
                format!("nvrtc/{}/{}/variants", op.name(), d.name()),
                move || specs::binary_specs(op, d),
            );
        }
    }
    for d in specs::COMPLEX {
        for op in specs::ARITH.into_iter().filter(|op| op.complex_ok()) {
            group(
                out,
                format!("nvrtc/{}/{}/variants", op.name(), d.name()),
                move || specs::binary_specs(op, d),
            );
        }
        group(
            out,
            format!("nvrtc/complex/{}/from_parts", d.name()),
            move || specs::complex_specs(d),
        );
    }
    for d in DType::ALL {
        let n = d.name();
        group(out, format!("nvrtc/unary/{n}/all_ops"), move || {
            specs::unary_specs(d)
        });
        if !specs::catalogue_specs(d).is_empty() {
            group(out, format!("nvrtc/catalogue/{n}/all_ops"), move || {
                specs::catalogue_specs(d)
            });
        }
        group(
            out,
            format!("nvrtc/compare_logical/{n}/all_ops"),
            move || specs::predicate_specs(d),
        );
        group(out, format!("nvrtc/where_clip/{n}/variants"), move || {
            specs::select_specs(d)
        });
        group(out, format!("nvrtc/cast/{n}/to_all"), move || {
            specs::cast_specs(d)
        });
        group(out, format!("nvrtc/copy/{n}/all_variants"), move || {
            specs::copy_specs(d)
        });
        group(
            out,
            format!("nvrtc/create/{n}/full_eye_arange_linspace"),
            move || specs::create_specs(d),
        );
    }
    group(out, "nvrtc/fft/scale_freq".to_string(), specs::fft_specs);
    // Every operand column-major: the tile edge drops to 32 so that the staged tiles fit
    // the 48 KiB of static shared memory.
    for d in DType::ALL {
        if !specs::large_tiled_specs(d).is_empty() {
            let name = format!("nvrtc/tiled_all_staged/{}/tile32", d.name());
            group(out, name, move || specs::large_tiled_specs(d));
        }
    }
    for d in DType::ALL {
        group(
            out,
            format!("nvrtc/reduce/{}/all_ops_variants", d.name()),
            move || reduce_specs(d),
        );
        group(
            out,
            format!("nvrtc/scan/{}/cumsum_cumprod_variants", d.name()),
            move || scan_specs(d),
        );
        if !d.is_complex() && d != DType::Bool {
            group(
                out,
                format!("nvrtc/reduce/{}/nan_ops_variants", d.name()),
                move || nan_reduce_specs(d),
            );
        }
    }
    for d in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        group(
            out,
            format!("nvrtc/reduce/{}/matvec_variants", d.name()),
            move || matvec_specs(d),
        );
    }
    for d in [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::C64,
        DType::C128,
    ] {
        group(out, format!("nvrtc/gemm/{}/small", d.name()), move || {
            vec![GemmSpec {
                dtype: d,
                index: IndexWidth::I64,
            }]
        });
    }
    for d in [DType::F32, DType::F64] {
        group(
            out,
            format!("nvrtc/signal/{}/conv_iir", d.name()),
            move || cuarray::testing::kernels::family::signal::specs_for(d),
        );
    }
    // No distribution draws complex numbers.
    for d in DType::ALL.into_iter().filter(|d| !d.is_complex()) {
        group(
            out,
            format!("nvrtc/random/{}/all_distributions", d.name()),
            move || cuarray::testing::kernels::family::random::specs_for(d),
        );
    }
    // Sorting, selection and gathers take the real types and bool.
    for d in DType::ALL.into_iter().filter(|d| !d.is_complex()) {
        group(
            out,
            format!("nvrtc/sort/{}/rows_passes_search", d.name()),
            move || cuarray::testing::kernels::family::sort::specs_for(d),
        );
        group(
            out,
            format!("nvrtc/select/{}/count_write_coords_unique", d.name()),
            move || cuarray::testing::kernels::family::select::specs_for(d),
        );
        group(
            out,
            format!("nvrtc/gather/{}/gather_scatter_counts", d.name()),
            move || cuarray::testing::kernels::family::gather::specs_for(d),
        );
    }
    // Image filters, measurements and resampling take the real types; labels and binary
    // morphology take bool.
    for d in DType::ALL.into_iter().filter(|d| !d.is_complex()) {
        group(
            out,
            format!("nvrtc/ndimage/{}/all_kernels", d.name()),
            move || cuarray::testing::kernels::family::ndimage::specs_for(d),
        );
    }
    // Complex: moves of 16-byte words under the c128 dtype, and the atomic adds of both.
    for d in [DType::C64, DType::C128] {
        group(
            out,
            format!("nvrtc/gather/{}/moves_and_adds", d.name()),
            move || cuarray::testing::kernels::family::gather::specs_for(d),
        );
    }
    group(
        out,
        "nvrtc/array/i64/unravel_ravel_sets".to_string(),
        cuarray::testing::array::kernel_specs,
    );
    group(
        out,
        "nvrtc/linalg/all/triu_eyes_eig_vectors".to_string(),
        cuarray::testing::linalg::kernel_specs,
    );
    out.push(nvrtc_trial(
        "nvrtc/errors/f32/broken_body_gives_compile_error",
        compile_error,
    ));
    out.push(nvrtc_trial(
        "nvrtc/version/all/common_specs",
        version_and_common_specs,
    ));
}
