//! The table of special functions: each op is one device function
//! `cuarray_special_<name>` of `kernels/special.cuh`, its kernel body generated from the
//! name, so adding a function is one line here and one function there.

use crate::element::DType;
use crate::kernels::{IndexWidth, KernelSpec};
use crate::ops::elementwise::{spec_for, Variant};

/// Where a function's device code comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// CUDA's math library (an NVRTC built-in), in the input's precision.
    CudaMath,
    /// A port of the Cephes algorithm as SciPy has it, evaluated in double (digamma: in
    /// float for `f32` and narrower inputs, within a few ulps), that iterates (series or
    /// continued fractions summed until they converge).
    Cephes,
    /// A port of a Cephes algorithm that sums a fixed number of terms (Chebyshev series:
    /// the exponentially scaled and the second-kind modified Bessel functions), evaluated
    /// in double (i0e: in float for `f32` and narrower inputs, within a few ulps).
    CephesSeries,
    /// A short formula written here (SciPy's definition), in the input's precision.
    Formula,
}

macro_rules! special_table {
    ($(#[$meta:meta])* $enum:ident, $arity:tt { $($(#[doc = $doc:literal])* $variant:ident => $name:literal, $src:ident),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $enum {
            $($(#[doc = $doc])* $variant),*
        }

        impl $enum {
            /// Every function of this table.
            pub const ALL: &'static [$enum] = &[$($enum::$variant),*];

            /// SciPy's name of the function (`cuarray_special_<name>` on the device).
            pub const fn name(self) -> &'static str {
                match self { $($enum::$variant => $name),* }
            }

            /// The op's name in kernel symbols (`special_<name>`).
            pub const fn op(self) -> &'static str {
                match self { $($enum::$variant => concat!("special_", $name)),* }
            }

            /// The kernel body applying the function to `in0` (and `in1`).
            pub const fn body(self) -> &'static str {
                match self { $($enum::$variant => special_table!(@body $arity $name $src)),* }
            }

            /// Where its device code comes from.
            pub const fn source(self) -> Source {
                match self { $($enum::$variant => Source::$src),* }
            }
        }
    };
    // An iterating Cephes port (series, continued fractions): its body is marked so that
    // the vector lanes of a kernel run it in a loop, not unrolled (emit::has_loop).
    (@body 1 $name:literal Cephes) => { concat!("out0 = cuarray_special_", $name, "(in0); /* iterative */") };
    (@body 2 $name:literal Cephes) => { concat!("out0 = cuarray_special_", $name, "(in0, in1); /* iterative */") };
    (@body 1 $name:literal $src:ident) => { concat!("out0 = cuarray_special_", $name, "(in0);") };
    (@body 2 $name:literal $src:ident) => { concat!("out0 = cuarray_special_", $name, "(in0, in1);") };
}

special_table! {
    /// The special functions of one array.
    SpecialOp, 1 {
        /// Error function.
        Erf => "erf", CudaMath,
        /// Complementary error function `1 - erf(x)`.
        Erfc => "erfc", CudaMath,
        /// Scaled complementary error function `exp(x²) erfc(x)`.
        Erfcx => "erfcx", CudaMath,
        /// Inverse error function.
        Erfinv => "erfinv", CudaMath,
        /// Inverse complementary error function.
        Erfcinv => "erfcinv", CudaMath,
        /// Gamma function.
        Gamma => "gamma", CudaMath,
        /// `ln|Γ(x)|`.
        Gammaln => "gammaln", CudaMath,
        /// Digamma `ψ(x) = Γ'(x)/Γ(x)`.
        Digamma => "digamma", Cephes,
        /// Logistic sigmoid `1 / (1 + e^-x)`.
        Expit => "expit", Formula,
        /// `ln(x / (1 - x))`, the inverse of expit.
        Logit => "logit", Formula,
        /// Standard normal CDF.
        Ndtr => "ndtr", CudaMath,
        /// Inverse of the standard normal CDF.
        Ndtri => "ndtri", CudaMath,
        /// Log of the standard normal CDF.
        LogNdtr => "log_ndtr", Formula,
        /// Bessel function of the first kind, order 0.
        J0 => "j0", CudaMath,
        /// Bessel function of the first kind, order 1.
        J1 => "j1", CudaMath,
        /// Bessel function of the second kind, order 0.
        Y0 => "y0", CudaMath,
        /// Bessel function of the second kind, order 1.
        Y1 => "y1", CudaMath,
        /// Modified Bessel function of the first kind, order 0.
        I0 => "i0", CudaMath,
        /// `exp(-|x|) i0(x)`.
        I0e => "i0e", CephesSeries,
        /// Modified Bessel function of the first kind, order 1.
        I1 => "i1", CudaMath,
        /// `exp(-|x|) i1(x)`.
        I1e => "i1e", CephesSeries,
        /// Modified Bessel function of the second kind, order 0.
        K0 => "k0", CephesSeries,
        /// `exp(x) k0(x)`.
        K0e => "k0e", CephesSeries,
        /// Modified Bessel function of the second kind, order 1.
        K1 => "k1", CephesSeries,
        /// `exp(x) k1(x)`.
        K1e => "k1e", CephesSeries,
        /// Elementwise entropy `-x ln x`.
        Entr => "entr", Formula,
        /// Normalized sinc `sin(πx) / (πx)` (NumPy's `sinc`).
        Sinc => "sinc", CudaMath,
    }
}

special_table! {
    /// The special functions of two arrays (NumPy broadcasting).
    SpecialBinaryOp, 2 {
        /// Beta function `Γ(a)Γ(b)/Γ(a+b)`.
        Beta => "beta", Cephes,
        /// `ln|B(a, b)|`.
        Betaln => "betaln", Cephes,
        /// Regularized lower incomplete gamma `P(a, x)`.
        Gammainc => "gammainc", Cephes,
        /// Regularized upper incomplete gamma `Q(a, x)`.
        Gammaincc => "gammaincc", Cephes,
        /// `x ln y`, 0 where `x == 0`.
        Xlogy => "xlogy", Formula,
        /// `x ln(1 + y)`, 0 where `x == 0`.
        Xlog1py => "xlog1py", Formula,
        /// Hurwitz zeta `ζ(x, q)`.
        Zeta => "zeta", Cephes,
        /// `x ln(x/y) - x + y`.
        KlDiv => "kl_div", Formula,
        /// `x ln(x/y)`.
        RelEntr => "rel_entr", Formula,
    }
}

/// Body of `polygamma(n, x)` (`s0` = n).
pub(crate) const POLYGAMMA_BODY: &str =
    "out0 = cuarray_special_polygamma(s0, in0); /* iterative */";

/// Every elementwise kernel of `cuarray::special` for input dtype `d` (aligned contiguous
/// layouts, 16-byte vectors, 32-bit indices): the functions of both tables, polygamma and
/// the elementwise halves of softmax and log_softmax. For tests that compile them with
/// NVRTC.
pub fn kernel_specs(d: DType) -> Vec<KernelSpec> {
    let v = Variant::Vectorized {
        vec: (16 / d.size()) as u8,
    };
    let i = IndexWidth::I32;
    let mut specs: Vec<KernelSpec> = Vec::new();
    for op in SpecialOp::ALL {
        specs.push(spec_for(op.op(), op.body(), &[d], &[d], &[], v, i).into());
    }
    for op in SpecialBinaryOp::ALL {
        specs.push(spec_for(op.op(), op.body(), &[d, d], &[d], &[], v, i).into());
    }
    specs.push(
        spec_for(
            "special_polygamma",
            POLYGAMMA_BODY,
            &[d],
            &[d],
            &[DType::F64],
            v,
            i,
        )
        .into(),
    );
    let w = super::softmax::work_dtype(d);
    specs.push(
        spec_for(
            "special_softmax",
            super::softmax::SOFTMAX_BODY,
            &[d, w, w],
            &[d],
            &[],
            v,
            i,
        )
        .into(),
    );
    specs.push(
        spec_for(
            "special_log_softmax",
            super::softmax::LOG_SOFTMAX_BODY,
            &[d, w, w],
            &[d],
            &[],
            v,
            i,
        )
        .into(),
    );
    specs.push(
        spec_for(
            "special_logsumexp",
            super::softmax::LSE_FINISH_BODY,
            &[w, w],
            &[d],
            &[],
            v,
            i,
        )
        .into(),
    );
    specs.extend(super::softmax::reduce_specs(d));
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_and_names() {
        assert_eq!(SpecialOp::Erf.body(), "out0 = cuarray_special_erf(in0);");
        assert_eq!(SpecialOp::LogNdtr.op(), "special_log_ndtr");
        assert_eq!(
            SpecialBinaryOp::KlDiv.body(),
            "out0 = cuarray_special_kl_div(in0, in1);"
        );
        assert_eq!(SpecialOp::ALL.len(), 27);
        assert_eq!(SpecialBinaryOp::ALL.len(), 9);
        // Names are unique and every one has its device function in special.cuh.
        let header = crate::kernels::sources::get("special.cuh");
        let mut names: Vec<&str> = SpecialOp::ALL.iter().map(|o| o.name()).collect();
        names.extend(SpecialBinaryOp::ALL.iter().map(|o| o.name()));
        names.push("polygamma");
        for n in &names {
            assert!(
                header.contains(&format!("({n},"))
                    || header.contains(&format!("cuarray_special_{n}(")),
                "no device function for {n}"
            );
        }
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
    }
}
