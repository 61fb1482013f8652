//! The random family (`kernels/philox.cuh`): a kernel per (distribution, element type)
//! that fills a fresh contiguous array from the Philox4x32-10 stream (see
//! [`crate::random`] for the counter layout).
//!
//! Kernel arguments, in order: `out0_t* p_out0, long long n, unsigned long long group0,
//! long long head, unsigned long long key, unsigned long long stream, unsigned long long a,
//! unsigned long long b` (see `philox_fill` in philox.cuh). Block: 256 threads; grid:
//! `ceil((n + head) / 4 / G)` threads (G groups of 4 values each), rounded up to blocks
//! and capped at a few waves (`ops::random`); the grid-stride loop does the rest. Threads
//! count groups in 32-bit `int` when the group count plus one trip of the grid fits
//! (`IndexWidth::I32`), else in `long long`.

use crate::element::DType;
use crate::kernels::emit;
use crate::kernels::{Family, IndexWidth, KernelSpec, BLOCK};
use std::fmt::Write as _;

/// The distribution a random kernel draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Distribution {
    /// Uniform floats in `[a, b)`.
    Uniform,
    /// Normal floats (Box-Muller), mean `a`, standard deviation `b`.
    Normal,
    /// Standard normal floats (mean 0, standard deviation 1): `r cos t`, `r sin t` with one
    /// rounding each, three instructions a pair fewer than [`Distribution::Normal`].
    StandardNormal,
    /// Exponential floats of scale `a`.
    Exponential,
    /// Integers `a + floor(x * b / 2^(32 words))` from `words` (1, 2 or 4) words each.
    Integers {
        /// 32-bit words per value.
        words: u8,
    },
    /// `true` when the word is below `a`.
    Bernoulli,
    /// One of NumPy's distributions from per-element substreams (`kernels/distributions.cuh`).
    Sample(Sampler),
}

/// The samplers of `kernels/distributions.cuh`, by their number there: continuous ones
/// (results computed in `f64`, then rounded to the element type), discrete ones (`i64`),
/// and the row samplers (`K` values a row from a parameter vector).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Sampler {
    Gamma = 0,
    Beta = 1,
    Chisquare = 2,
    StandardT = 3,
    F = 4,
    Lognormal = 5,
    Laplace = 6,
    Logistic = 7,
    Gumbel = 8,
    Weibull = 9,
    Rayleigh = 10,
    Pareto = 11,
    Power = 12,
    StandardCauchy = 13,
    Wald = 14,
    Triangular = 15,
    Vonmises = 16,
    TruncatedNormal = 17,
    Poisson = 20,
    Binomial = 21,
    NegativeBinomial = 22,
    Geometric = 23,
    Hypergeometric = 24,
    ChoiceCdf = 25,
    Dirichlet = 30,
    Multinomial = 31,
}

impl Sampler {
    /// The continuous samplers (a float result per element).
    pub(crate) const REAL: [Sampler; 18] = [
        Sampler::Gamma,
        Sampler::Beta,
        Sampler::Chisquare,
        Sampler::StandardT,
        Sampler::F,
        Sampler::Lognormal,
        Sampler::Laplace,
        Sampler::Logistic,
        Sampler::Gumbel,
        Sampler::Weibull,
        Sampler::Rayleigh,
        Sampler::Pareto,
        Sampler::Power,
        Sampler::StandardCauchy,
        Sampler::Wald,
        Sampler::Triangular,
        Sampler::Vonmises,
        Sampler::TruncatedNormal,
    ];
    /// The discrete samplers (an `i64` per element).
    pub(crate) const INT: [Sampler; 6] = [
        Sampler::Poisson,
        Sampler::Binomial,
        Sampler::NegativeBinomial,
        Sampler::Geometric,
        Sampler::Hypergeometric,
        Sampler::ChoiceCdf,
    ];

    /// The sampler's name (symbols, errors, profiler ranges).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Sampler::Gamma => "gamma",
            Sampler::Beta => "beta",
            Sampler::Chisquare => "chisquare",
            Sampler::StandardT => "standard_t",
            Sampler::F => "f",
            Sampler::Lognormal => "lognormal",
            Sampler::Laplace => "laplace",
            Sampler::Logistic => "logistic",
            Sampler::Gumbel => "gumbel",
            Sampler::Weibull => "weibull",
            Sampler::Rayleigh => "rayleigh",
            Sampler::Pareto => "pareto",
            Sampler::Power => "power",
            Sampler::StandardCauchy => "standard_cauchy",
            Sampler::Wald => "wald",
            Sampler::Triangular => "triangular",
            Sampler::Vonmises => "vonmises",
            Sampler::TruncatedNormal => "truncated_normal",
            Sampler::Poisson => "poisson",
            Sampler::Binomial => "binomial",
            Sampler::NegativeBinomial => "negative_binomial",
            Sampler::Geometric => "geometric",
            Sampler::Hypergeometric => "hypergeometric",
            Sampler::ChoiceCdf => "choice",
            Sampler::Dirichlet => "dirichlet",
            Sampler::Multinomial => "multinomial",
        }
    }

    /// Whether each thread writes a row of `K` values.
    pub(crate) fn rows(self) -> bool {
        matches!(self, Sampler::Dirichlet | Sampler::Multinomial)
    }
}

/// One random kernel: a distribution for an element type, counting groups in one index
/// width.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RandomSpec {
    /// The distribution.
    pub(crate) dist: Distribution,
    /// The element type written.
    pub(crate) dtype: DType,
    /// The type threads count groups of 4 values in.
    pub(crate) index: IndexWidth,
}

impl From<RandomSpec> for KernelSpec {
    fn from(spec: RandomSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

impl RandomSpec {
    /// Words of the stream per value: the one table host and device agree on (the device
    /// asserts it against each distribution's `W`).
    pub(crate) fn words(&self) -> u32 {
        match self.dist {
            Distribution::Integers { words } => words as u32,
            Distribution::Bernoulli | Distribution::Sample(_) => 1,
            Distribution::Uniform
            | Distribution::Normal
            | Distribution::StandardNormal
            | Distribution::Exponential => {
                if self.dtype == DType::F64 {
                    2
                } else {
                    1
                }
            }
        }
    }

    /// Groups of 4 values each thread computes per trip (independent Philox chains in
    /// flight): 4 words' worth of Philox calls.
    pub(crate) fn groups_per_thread(&self) -> u32 {
        (4 / self.words()).max(1)
    }

    /// The distribution's name in the symbol.
    fn name(&self) -> &'static str {
        match self.dist {
            Distribution::Uniform => "uniform",
            Distribution::Normal => "normal",
            Distribution::StandardNormal => "stdnormal",
            Distribution::Exponential => "exponential",
            Distribution::Integers { words: 1 } => "int1",
            Distribution::Integers { words: 2 } => "int2",
            Distribution::Integers { .. } => "int4",
            Distribution::Bernoulli => "bernoulli",
            Distribution::Sample(s) => s.name(),
        }
    }
}

/// Every random kernel the library can launch for `dtype`, in both index widths: uniform,
/// normal, standard normal and exponential for float types; the integer kernels for integer types (one word
/// per value for ranges up to 2^24 and power-of-two ranges up to 2^32, two for other
/// ranges up to 2^32 and larger powers of two, four for the rest, which only 64-bit types
/// have); bernoulli for bool. Then the samplers of `kernels/distributions.cuh` (one index
/// width: they count elements in `long long`): every continuous one and Dirichlet for
/// float types, every discrete one and multinomial for `i64`.
pub fn specs_for(dtype: DType) -> Vec<RandomSpec> {
    let ints = |n: u8| (0..n).map(|k| Distribution::Integers { words: 1 << k });
    let dists: Vec<Distribution> = match dtype {
        DType::Bool => vec![Distribution::Bernoulli],
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => vec![
            Distribution::Uniform,
            Distribution::Normal,
            Distribution::StandardNormal,
            Distribution::Exponential,
        ],
        DType::I64 | DType::U64 => ints(3).collect(),
        DType::I8 | DType::I16 | DType::I32 | DType::U8 | DType::U16 | DType::U32 => {
            ints(2).collect()
        }
        // No distribution draws complex numbers (NumPy's Generator has none either).
        DType::C64 | DType::C128 => vec![],
    };
    let samplers: Vec<Sampler> = match dtype {
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Sampler::REAL
            .into_iter()
            .chain([Sampler::Dirichlet])
            .collect(),
        DType::I64 => Sampler::INT
            .into_iter()
            .chain([Sampler::Multinomial])
            .collect(),
        _ => vec![],
    };
    dists
        .into_iter()
        .flat_map(|dist| {
            [IndexWidth::I32, IndexWidth::I64].map(|index| RandomSpec { dist, dtype, index })
        })
        .chain(samplers.into_iter().map(|s| RandomSpec {
            dist: Distribution::Sample(s),
            dtype,
            index: IndexWidth::I64,
        }))
        .collect()
}

impl Family for RandomSpec {
    fn headers(&self) -> &'static [&'static str] {
        match self.dist {
            Distribution::Sample(_) => &["philox.cuh", "distributions.cuh"],
            _ => &["philox.cuh"],
        }
    }

    fn symbol(&self) -> String {
        emit::symbol(
            "rand",
            self.name(),
            &[],
            &[self.dtype],
            &[],
            "c",
            self.index,
        )
    }

    fn render(&self, src: &mut String) {
        if let Distribution::Sample(s) = self.dist {
            emit::typedef(src, self.dtype.cuda_type(), "out0_t");
            let params = [
                "out0_t* p_out0",
                "const long long n",
                "const unsigned long long j0",
                "const unsigned long long key",
                "const unsigned long long stream",
                "const double p0",
                "const double p1",
                "const double p2",
                "const double p3",
                "const double* aux",
                "const long long kdim",
            ]
            .map(String::from);
            emit::open(src, BLOCK, &self.symbol(), &params);
            let _ = writeln!(
                src,
                "    const rs_par P = {{p0, p1, p2, p3, aux, kdim}};\n    rand_sample_fill<{}, out0_t>(p_out0, n, j0, key, stream, P);\n}}",
                s as u8
            );
            return;
        }
        let w = self.words();
        let dist = match self.dist {
            Distribution::Uniform => "rand_uniform<out0_t>".to_string(),
            Distribution::Normal => "rand_normal<out0_t, false>".to_string(),
            Distribution::StandardNormal => "rand_normal<out0_t, true>".to_string(),
            Distribution::Exponential => "rand_exponential<out0_t>".to_string(),
            Distribution::Bernoulli => "rand_bernoulli".to_string(),
            Distribution::Integers { .. } => format!("rand_int<out0_t, {w}>"),
            Distribution::Sample(_) => unreachable!("rendered above"),
        };
        emit::typedef(src, self.dtype.cuda_type(), "out0_t");
        let params = [
            "out0_t* p_out0",
            "const long long n",
            "const unsigned long long group0",
            "const long long head",
            "const unsigned long long key",
            "const unsigned long long stream",
            "const unsigned long long a",
            "const unsigned long long b",
        ]
        .map(String::from);
        emit::open(src, BLOCK, &self.symbol(), &params);
        let _ = writeln!(
            src,
            "    philox_fill<{w}, {}, {}>(p_out0, n, group0, head, key, stream, {dist}(a, b));\n}}",
            self.groups_per_thread(),
            self.index.cuda_type()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::source;

    #[test]
    fn every_spec_renders_a_well_formed_wrapper() {
        let mut symbols = std::collections::HashSet::new();
        for d in DType::ALL {
            for spec in specs_for(d) {
                let src = source(&spec);
                if let Distribution::Sample(s) = spec.dist {
                    let sym = spec.symbol();
                    assert!(src.contains(&format!(" {sym}(")), "{sym}");
                    assert!(src.contains("rs_real"), "{sym}: header missing");
                    assert!(src.contains(&format!("rand_sample_fill<{}, out0_t>", s as u8)));
                    assert_eq!(src.matches('{').count(), src.matches('}').count(), "{sym}");
                    assert!(symbols.insert(sym));
                    continue;
                }
                let sym = spec.symbol();
                assert!(sym.starts_with("cuarray_rand_"), "{sym}");
                assert!(src.contains(&format!(" {sym}(")), "{sym}");
                assert!(src.contains("philox4x32_10"), "{sym}: header missing");
                assert!(src.contains(&format!("typedef {} out0_t;", d.cuda_type())));
                let fill = format!(
                    "philox_fill<{}, {}, {}>",
                    spec.words(),
                    spec.groups_per_thread(),
                    spec.index.cuda_type()
                );
                assert!(src.contains(&fill), "{sym}");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{sym}");
                assert!(symbols.insert(sym));
            }
        }
        assert_eq!(symbols.len(), 2 * (4 * 4 + 6 * 2 + 2 * 3 + 1) + 4 * 19 + 7);
    }

    #[test]
    fn words_per_value() {
        let w = |dist, dtype| {
            RandomSpec {
                dist,
                dtype,
                index: IndexWidth::I64,
            }
            .words()
        };
        assert_eq!(w(Distribution::Uniform, DType::F64), 2);
        assert_eq!(w(Distribution::Normal, DType::F16), 1);
        assert_eq!(w(Distribution::Integers { words: 4 }, DType::I64), 4);
        assert_eq!(w(Distribution::Bernoulli, DType::Bool), 1);
    }

    #[test]
    fn specs_for_example() {
        use crate::kernels::family::random::specs_for;
        use crate::kernels::Render;
        use crate::DType;
        assert_eq!(specs_for(DType::F32).len(), 2 * 4 + 19);
        assert_eq!(specs_for(DType::I32).len(), 2 * 2);
        assert_eq!(specs_for(DType::U64).len(), 2 * 3);
        assert_eq!(specs_for(DType::I64).len(), 2 * 3 + 7);
        assert_eq!(
            Render::symbol(&specs_for(DType::Bool)[0]),
            "cuarray_rand_bernoulli__bool_c_i32"
        );
    }
}
