//! Embeds the kernel templates of `kernels/` into the crate. No CUDA toolchain is used:
//! kernels are compiled at run time by NVRTC.
//!
//! Lints each header (UTF-8, opens with its `// cuarray` convention comment, includes no
//! header of ours) and fails the build with a clear message otherwise.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("kernels/ folder is missing")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cuh"))
        .collect();
    files.sort();
    let mut out = String::from("pub(crate) static SOURCES: &[KernelSource] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(path).unwrap();
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|_| panic!("kernels/{name} is not valid UTF-8"));
        assert!(
            text.starts_with(&format!("// cuarray {name}")),
            "kernels/{name} must open with its convention comment `// cuarray {name}: ...`"
        );
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.trim_start().starts_with("#include \""),
                "kernels/{name}:{}: headers are concatenated by codegen; do not #include our own headers",
                n + 1
            );
        }
        writeln!(
            out,
            "    KernelSource {{ name: {name:?}, text: include_str!({:?}) }},",
            path.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("kernel_sources.rs");
    std::fs::write(dest, out).unwrap();
}
