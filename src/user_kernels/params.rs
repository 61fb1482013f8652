//! Host side of user kernels, pure: parameter lists (`"T x, T y, float32 a"`), the
//! binding of type placeholders to the arguments' dtypes, and the C++ that binds the
//! user's names to the generated ones (`const in0_t& x = in0;`), with `#line` directives
//! so that compiler messages give the user's own line numbers.

use crate::element::DType;
use crate::kernels::abi::MAX_ARGS;
use std::fmt::Write as _;

/// A parameter's declared type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamType {
    /// A concrete element type.
    Fixed(DType),
    /// A placeholder (`T`, `S`, ...) bound at the call to an argument's dtype.
    Placeholder(String),
}

/// One declared parameter: `[raw] TYPE NAME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The name the body uses.
    pub name: String,
    /// The declared type.
    pub ty: ParamType,
    /// Declared `raw` (the whole array, indexed by the body).
    pub raw: bool,
}

/// The dtype a type name means: NumPy's names (`float32`, `int64`, `bool`...), CUDA C's
/// (`float`, `double`, `int`, `unsigned int`, `long long`, `half`...) and Rust's (`f32`,
/// `i64`...). `None` for anything else.
///
/// ```
/// use cuarray::user_kernels::dtype_named;
/// use cuarray::DType;
/// assert_eq!(dtype_named("float32"), Some(DType::F32));
/// assert_eq!(dtype_named("float"), Some(DType::F32));
/// assert_eq!(dtype_named("unsigned  long long"), Some(DType::U64));
/// assert_eq!(dtype_named("T"), None);
/// ```
pub fn dtype_named(name: &str) -> Option<DType> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let name = words.join(" ");
    if let Some(d) = DType::ALL.iter().find(|d| d.name() == name) {
        return Some(*d);
    }
    Some(match name.as_str() {
        "float16" | "half" | "__half" | "cuarray_f16" => DType::F16,
        "bfloat16" | "__nv_bfloat16" | "cuarray_bf16" => DType::BF16,
        "float32" | "float" => DType::F32,
        "float64" | "double" => DType::F64,
        "int8" | "signed char" | "char" => DType::I8,
        "int16" | "short" | "short int" | "signed short" => DType::I16,
        "int32" | "int" | "signed int" | "signed" => DType::I32,
        "int64" | "long long" | "long long int" | "signed long long" | "long" | "ptrdiff_t" => {
            DType::I64
        }
        "uint8" | "unsigned char" => DType::U8,
        "uint16" | "unsigned short" | "unsigned short int" => DType::U16,
        "uint32" | "unsigned int" | "unsigned" => DType::U32,
        "uint64" | "unsigned long long" | "unsigned long long int" | "unsigned long" | "size_t" => {
            DType::U64
        }
        "bool_" => DType::Bool,
        // CuPy spells them `complex<float>` / `complex<double>` (thrust's).
        "complex64" | "cuarray_c64" | "complex<float>" => DType::C64,
        "complex128" | "cuarray_c128" | "complex<double>" => DType::C128,
        _ => return None,
    })
}

/// True for a C identifier.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// Names the generated code uses around a user's body, which parameters may not take.
fn reserved(name: &str) -> bool {
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
    };
    matches!(name, "i" | "n" | "I" | "acc_t")
        || name.starts_with("cuarray_")
        || name.starts_with("__")
        || [
            "in", "out", "s", "k", "p_in", "p_out", "v_in", "v_out", "t_in", "t_out",
        ]
        .iter()
        .any(|p| numbered(p))
}

/// Parses a parameter list: comma-separated `[raw] TYPE NAME`, where TYPE is a dtype name
/// ([`dtype_named`]) or a placeholder (an identifier starting with an upper-case letter,
/// such as `T`). An empty list has no parameters.
///
/// ```
/// use cuarray::user_kernels::{parse_params, ParamType};
/// use cuarray::DType;
/// let p = parse_params("T x, T y, float a").unwrap();
/// assert_eq!(p.len(), 3);
/// assert_eq!(p[0].ty, ParamType::Placeholder("T".into()));
/// assert_eq!((p[2].name.as_str(), &p[2].ty), ("a", &ParamType::Fixed(DType::F32)));
/// assert!(parse_params("flaot a").unwrap_err().contains("flaot"));
/// ```
///
/// # Errors
/// A message naming the parameter: an unknown type, a missing or reserved name, a name
/// used twice.
pub fn parse_params(list: &str) -> Result<Vec<Param>, String> {
    let mut out: Vec<Param> = Vec::new();
    if list.trim().is_empty() {
        return Ok(out);
    }
    for (k, item) in list.split(',').enumerate() {
        let mut words: Vec<&str> = item.split_whitespace().collect();
        let raw = words.first() == Some(&"raw");
        if raw {
            words.remove(0);
        }
        if words.len() < 2 {
            return Err(format!(
                "parameter {} (`{}`) needs a type and a name",
                k + 1,
                item.trim()
            ));
        }
        let name = words.pop().unwrap_or_default().to_string();
        let ty_name = words.join(" ");
        if !is_ident(&name) {
            return Err(format!("parameter `{name}`: not a C identifier"));
        }
        if reserved(&name) {
            return Err(format!(
                "parameter `{name}`: the name is reserved for the generated code (i, n, in0, out0, s0...)"
            ));
        }
        if out.iter().any(|p| p.name == name) {
            return Err(format!("parameter `{name}` is declared twice"));
        }
        let ty = match dtype_named(&ty_name) {
            Some(d) => ParamType::Fixed(d),
            None if words.len() == 1
                && is_ident(&ty_name)
                && ty_name.starts_with(|c: char| c.is_ascii_uppercase())
                && !reserved(&ty_name) =>
            {
                ParamType::Placeholder(ty_name)
            }
            None => {
                return Err(format!(
                    "parameter `{name}`: unknown type `{ty_name}` (use a NumPy dtype such as float32, a C type such as float, or a placeholder such as T)"
                ))
            }
        };
        out.push(Param { name, ty, raw });
    }
    Ok(out)
}

/// The dtypes bound to placeholders so far, in order of first binding.
#[derive(Debug, Clone)]
pub(crate) struct Binding<'p> {
    /// (placeholder, its dtype, the parameter that bound it), inline: a call allocates
    /// nothing to check its arguments.
    bound: [Option<(&'p str, DType, &'p str)>; MAX_ARGS],
}

impl Default for Binding<'_> {
    fn default() -> Self {
        Binding {
            bound: [None; MAX_ARGS],
        }
    }
}

impl<'p> Binding<'p> {
    /// Checks that an argument of `actual` fits `param` (binding its placeholder if
    /// unbound); `what` describes the argument for the message.
    pub(crate) fn bind(
        &mut self,
        param: &'p Param,
        actual: DType,
        what: impl std::fmt::Display,
    ) -> Result<(), String> {
        match &param.ty {
            ParamType::Fixed(d) if *d == actual => Ok(()),
            ParamType::Fixed(d) => Err(format!(
                "parameter `{}` is {}, got {what} of {actual}",
                param.name,
                d.name()
            )),
            ParamType::Placeholder(t) => {
                let found = self.bound.iter().flatten().find(|b| b.0 == t.as_str());
                match found {
                    Some((_, d, by)) if *d != actual => Err(format!(
                        "parameter `{}` is {t}, which `{by}` bound to {d}; got {what} of {actual}",
                        param.name
                    )),
                    Some(_) => Ok(()),
                    None => {
                        let slot = self
                            .bound
                            .iter_mut()
                            .find(|b| b.is_none())
                            .ok_or_else(|| format!("more than {MAX_ARGS} placeholders"))?;
                        *slot = Some((t.as_str(), actual, param.name.as_str()));
                        Ok(())
                    }
                }
            }
        }
    }

    /// The dtype bound to placeholder `t`.
    #[cfg(test)]
    pub(crate) fn get(&self, t: &str) -> Option<DType> {
        self.bound.iter().flatten().find(|b| b.0 == t).map(|b| b.1)
    }
}

/// True when the identifier `name` occurs in the C++ `code` (outside comments).
pub(crate) fn mentions(code: &str, name: &str) -> bool {
    idents(&strip_comments(code)).any(|w| w == name)
}

/// The identifiers of `code`.
pub(crate) fn idents(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| is_ident(w))
}

/// `code` with its comments replaced by spaces (line breaks kept, so line numbers hold).
pub(crate) fn strip_comments(code: &str) -> String {
    let b: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut k = 0;
    let mut quote: Option<char> = None;
    while k < b.len() {
        let c = b[k];
        let next = b.get(k + 1).copied();
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                if let Some(n) = next {
                    out.push(n);
                    k += 1;
                }
            } else if c == q {
                quote = None;
            }
        } else if c == '"' || c == '\'' {
            quote = Some(c);
            out.push(c);
        } else if c == '/' && next == Some('/') {
            while k < b.len() && b[k] != '\n' {
                k += 1;
            }
            continue;
        } else if c == '/' && next == Some('*') {
            k += 2;
            while k < b.len() && !(b[k] == '*' && b.get(k + 1) == Some(&'/')) {
                out.push(if b[k] == '\n' { '\n' } else { ' ' });
                k += 1;
            }
            k += 2;
            out.push(' ');
            continue;
        } else {
            out.push(c);
        }
        k += 1;
    }
    out
}

/// `#line 1 "<file>"`, then `code`, each on lines of their own.
pub(crate) fn with_line(src: &mut String, file: &str, code: &str) {
    let _ = write!(src, "\n#line 1 \"{file}\"\n{code}\n");
}

/// Where a parameter's value lives in the generated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Array input `k` (`in{k}`, of type `in{k}_t`).
    In(usize),
    /// Output `k` (`out{k}`).
    Out(usize),
    /// Scalar `k` (`s{k}`).
    Scalar(usize),
    /// The input of a reduction (`in0`, of the input's dtype even in the pass that reads
    /// partial accumulators: `cuarray_in0_elem_t`).
    ReduceInput,
}

impl Slot {
    /// The generated variable's name and type name.
    fn names(self) -> (String, String) {
        let (v, k) = match self {
            Slot::In(k) => ("in", k),
            Slot::Out(k) => ("out", k),
            Slot::Scalar(k) => ("s", k),
            Slot::ReduceInput => ("in", 0),
        };
        (format!("{v}{k}"), format!("{v}{k}_t"))
    }
}

/// `typedef <slot type> T;` for each placeholder, from the first parameter declaring it,
/// then the user's preamble under `#line`.
pub(crate) fn preamble(params: &[(&Param, Slot)], user: &str, file: &str) -> String {
    let mut src = String::new();
    let mut seen: Vec<&str> = Vec::new();
    for (p, slot) in params {
        if let ParamType::Placeholder(t) = &p.ty {
            if !seen.contains(&t.as_str()) {
                seen.push(t);
                let ty = match slot {
                    Slot::ReduceInput => "cuarray_in0_elem_t".to_string(),
                    _ => slot.names().1,
                };
                let _ = writeln!(src, "typedef {ty} {t};");
            }
        }
    }
    if !user.trim().is_empty() {
        with_line(&mut src, file, user);
    }
    src
}

/// The user's names bound to the generated ones: `const in0_t& x = in0;` for inputs and
/// scalars, `out0_t& z = out0;` for outputs, one line.
pub(crate) fn aliases(params: &[(&Param, Slot)]) -> String {
    let mut src = String::new();
    for (p, slot) in params {
        let (var, ty) = slot.names();
        let konst = if matches!(slot, Slot::Out(_)) {
            ""
        } else {
            "const "
        };
        let _ = write!(src, "{konst}{ty}& {} = {var}; ", p.name);
    }
    for (p, _) in params {
        let _ = write!(src, "(void){}; ", p.name);
    }
    src
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cupy_style_lists() {
        let p = parse_params("T x, raw T y, unsigned long long n2, float64 a").unwrap();
        assert_eq!(
            p.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["x", "y", "n2", "a"]
        );
        assert!(p[1].raw && !p[0].raw);
        assert_eq!(p[2].ty, ParamType::Fixed(DType::U64));
        assert_eq!(p[3].ty, ParamType::Fixed(DType::F64));
        assert!(parse_params("").unwrap().is_empty());
        assert!(parse_params("  ").unwrap().is_empty());
        for (bad, needle) in [
            ("T", "needs a type and a name"),
            ("T x, T x", "declared twice"),
            ("T i", "reserved"),
            ("T in0", "reserved"),
            ("foo x", "unknown type `foo`"),
            ("T 1x", "not a C identifier"),
            ("T x,", "needs a type"),
        ] {
            let e = parse_params(bad).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn binds_placeholders_once() {
        let p = parse_params("T x, T y, S z").unwrap();
        let mut b = Binding::default();
        b.bind(&p[0], DType::F32, "an array").unwrap();
        let e = b.bind(&p[1], DType::F64, "an array").unwrap_err();
        assert!(e.contains("`y`") && e.contains("`x` bound to f32"), "{e}");
        b.bind(&p[2], DType::I8, "a scalar").unwrap();
        assert_eq!(b.get("S"), Some(DType::I8));
        let f = parse_params("float a").unwrap();
        let e = b.bind(&f[0], DType::F64, "a scalar").unwrap_err();
        assert!(
            e.contains("parameter `a` is f32, got a scalar of f64"),
            "{e}"
        );
    }

    #[test]
    fn generated_bindings() {
        let p = parse_params("T x, float a, T z").unwrap();
        let slots = [
            (&p[0], Slot::In(0)),
            (&p[1], Slot::Scalar(0)),
            (&p[2], Slot::Out(0)),
        ];
        let a = aliases(&slots);
        assert!(a.contains("const in0_t& x = in0;"));
        assert!(a.contains("const s0_t& a = s0;"));
        assert!(a.contains("out0_t& z = out0;"));
        let pre = preamble(
            &slots,
            "__device__ T twice(T v) { return v + v; }",
            "k.preamble",
        );
        assert!(pre.starts_with("typedef in0_t T;\n\n#line 1 \"k.preamble\"\n__device__"));
        assert_eq!(preamble(&slots[1..2], " ", "f"), "");
    }

    #[test]
    fn finds_identifiers_outside_comments() {
        assert!(mentions("z = x[n - 1];", "n"));
        assert!(!mentions("z = x; // n is unused", "n"));
        assert!(!mentions("z = nx; /* n */", "n"));
        assert_eq!(strip_comments("a /* b\nc */ d").replace(' ', ""), "a\nd");
        assert_eq!(strip_comments("s = \"//\"; // µs"), "s = \"//\"; ");
    }
}
