//! Finding the CUDA libraries without ever panicking.
//!
//! cudarc loads `libcuda`, `libnvrtc` and `libcublas` by name on first use and panics when
//! one is missing. Every cuarray entry point goes through [`require`] first, which checks
//! the library is loadable and returns [`Error::LibraryNotFound`] otherwise.
//!
//! NVRTC, cuBLAS, cuFFT, cuSOLVER and NCCL are searched beyond the loader's path: when
//! `libnvrtc.so.13` (say) cannot be loaded by name, the directories below are tried in
//! order and the first hit is loaded by its full path; cudarc's later load by name then finds it already in the process (the
//! dynamic loader matches loaded libraries by their soname).
//!
//! 1. `CUARRAY_CUDA_LIB_DIR` (one or more directories, `:`-separated);
//! 2. `$CUDA_PATH/lib64`, `$CUDA_HOME/lib64`, `/usr/local/cuda/lib64`;
//! 3. the `nvidia/cu13/lib` folder of PyPI's `nvidia-cuda-nvrtc` / `nvidia-cublas` /
//!    `nvidia-cufft` / `nvidia-cusolver` wheels in
//!    `$VIRTUAL_ENV`, the user's `~/.local` and the system's Python
//!    `site-packages`/`dist-packages`; for NCCL, the `nvidia/nccl/lib` folder of the
//!    `nvidia-nccl-cu13` / `nvidia-nccl-cu12` wheels (the one PyTorch installs) first.
//!
//! NCCL is the exception to the load-by-name scheme: its file is `libnccl.so.2`, a name
//! cudarc does not try, so cuarray opens it itself and calls it through its own table of
//! functions (`libs::nccl`).

use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A CUDA library cuarray needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lib {
    Driver,
    Nvrtc,
    Cublas,
    Cufft,
    Cusolver,
    Cusparse,
    Nccl,
}

impl Lib {
    fn label(self) -> &'static str {
        match self {
            Lib::Driver => "CUDA driver (libcuda.so)",
            Lib::Nvrtc => "NVRTC (libnvrtc.so.13)",
            Lib::Cublas => "cuBLAS (libcublas.so.13)",
            Lib::Cufft => "cuFFT (libcufft.so.12)",
            Lib::Cusolver => "cuSOLVER (libcusolver.so.12)",
            Lib::Cusparse => "cuSPARSE (libcusparse.so.12)",
            Lib::Nccl => "NCCL (libnccl.so.2)",
        }
    }
    fn hint(self) -> &'static str {
        match self {
            Lib::Driver => "install the NVIDIA driver (no GPU driver is loaded on this machine)",
            Lib::Nvrtc => {
                "install a CUDA 13 toolkit or `pip install nvidia-cuda-nvrtc`, and point \
                 CUARRAY_CUDA_LIB_DIR or LD_LIBRARY_PATH at its lib folder"
            }
            Lib::Cublas => {
                "install a CUDA 13 toolkit or `pip install nvidia-cublas`, and point \
                 CUARRAY_CUDA_LIB_DIR or LD_LIBRARY_PATH at its lib folder"
            }
            Lib::Cufft => {
                "install a CUDA 13 toolkit or `pip install nvidia-cufft`, and point \
                 CUARRAY_CUDA_LIB_DIR or LD_LIBRARY_PATH at its lib folder"
            }
            Lib::Cusolver => {
                "the linear algebra functions need cuSOLVER: install a CUDA 13 toolkit or \
                 `pip install nvidia-cusolver nvidia-cusparse nvidia-nvjitlink nvidia-cublas` \
                 (libcusolver.so.12 loads libcusparse.so.12, libnvJitLink.so.13 and cuBLAS \
                 from its own folder), and point CUARRAY_CUDA_LIB_DIR or LD_LIBRARY_PATH at \
                 that lib folder"
            }
            Lib::Cusparse => {
                "the sparse matrices of cuarray::sparse need cuSPARSE: install a CUDA 13 \
                 toolkit or `pip install nvidia-cusparse nvidia-nvjitlink`, and point \
                 CUARRAY_CUDA_LIB_DIR or LD_LIBRARY_PATH at its lib folder"
            }
            Lib::Nccl => {
                "the collectives of cuarray::nccl need NCCL 2: `pip install nvidia-nccl-cu13` \
                 (PyTorch's wheels bring it too), or the distribution's libnccl2 package, and \
                 point CUARRAY_CUDA_LIB_DIR or LD_LIBRARY_PATH at the folder holding \
                 libnccl.so.2 if it is not found"
            }
        }
    }
    /// Libraries to load from the same folder, dependencies first.
    fn files(self) -> &'static [&'static str] {
        match self {
            Lib::Driver => &["libcuda.so.1"],
            Lib::Nvrtc => &["libnvrtc.so.13"],
            Lib::Cublas => &["libcublasLt.so.13", "libcublas.so.13"],
            Lib::Cufft => &["libcufft.so.12"],
            Lib::Cusolver => &[
                "libnvJitLink.so.13",
                "libcusparse.so.12",
                "libcublasLt.so.13",
                "libcublas.so.13",
                "libcusolver.so.12",
            ],
            Lib::Cusparse => &["libnvJitLink.so.13", "libcusparse.so.12"],
            Lib::Nccl => &["libnccl.so.2"],
        }
    }
    fn present(self) -> bool {
        // SAFETY: these functions only try to dlopen candidate names and drop the handle.
        unsafe {
            match self {
                Lib::Driver => cudarc::driver::sys::is_culib_present(),
                Lib::Nvrtc => cudarc::nvrtc::sys::is_culib_present(),
                Lib::Cublas => cudarc::cublas::sys::is_culib_present(),
                Lib::Cufft => cudarc::cufft::sys::is_culib_present(),
                Lib::Cusolver => cudarc::cusolver::sys::is_culib_present(),
                Lib::Cusparse => cudarc::cusparse::sys::is_culib_present(),
                Lib::Nccl => NCCL_NAMES
                    .iter()
                    .any(|&n| libloading::Library::new(n).is_ok()),
            }
        }
    }
}

/// The names NCCL is opened by (through the loader's path, or already loaded by its full
/// path: the loader matches a loaded library by its soname, `libnccl.so.2`).
pub(crate) const NCCL_NAMES: [&str; 2] = ["libnccl.so.2", "libnccl.so"];

/// The folders of PyPI wheels, under a Python `site-packages`, that may hold `lib`.
fn wheel_dirs(lib: Lib) -> &'static [&'static str] {
    match lib {
        Lib::Nccl => &["nvidia/nccl/lib", "nvidia/cu13/lib"],
        _ => &["nvidia/cu13/lib"],
    }
}

/// Folders searched for `lib` beyond the loader's path, in order (see the module docs).
pub(crate) fn search_dirs(lib: Lib) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    dirs.extend(crate::tuning::cuda_lib_dirs());
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(v) = std::env::var_os(var) {
            dirs.push(Path::new(&v).join("lib64"));
        }
    }
    dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(v) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(Path::new(&v).join("lib"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(Path::new(&home).join(".local/lib"));
    }
    roots.push(PathBuf::from("/usr/local/lib"));
    roots.push(PathBuf::from("/usr/lib"));
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut pys: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("python3"))
            })
            .collect();
        pys.sort();
        for py in pys {
            for pkgs in ["site-packages", "dist-packages"] {
                for wheel in wheel_dirs(lib) {
                    dirs.push(py.join(pkgs).join(wheel));
                }
            }
        }
    }
    dirs
}

fn try_load_from_dirs(lib: Lib) -> std::result::Result<(), String> {
    let dirs = search_dirs(lib);
    for dir in &dirs {
        let paths: Vec<PathBuf> = lib.files().iter().map(|f| dir.join(f)).collect();
        if !paths.iter().all(|p| p.exists()) {
            continue;
        }
        for p in &paths {
            // SAFETY: loading a CUDA library runs its initialisers, which is what cudarc
            // would do on first use anyway. The handle is leaked on purpose: the library
            // must stay loaded for the life of the process.
            match unsafe { libloading::Library::new(p) } {
                Ok(l) => std::mem::forget(l),
                Err(e) => return Err(format!("{} (failed to load: {e})", p.display())),
            }
        }
        if lib.present() {
            return Ok(());
        }
    }
    let list: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(format!(
        "the loader's path (LD_LIBRARY_PATH, ldconfig) and {}",
        list.join(", ")
    ))
}

fn check(lib: Lib) -> std::result::Result<(), String> {
    if lib.present() {
        return Ok(());
    }
    if lib == Lib::Driver {
        return Err("the loader's path (LD_LIBRARY_PATH, ldconfig)".to_string());
    }
    try_load_from_dirs(lib)
}

/// Ensures `lib` can be loaded; the answer is computed once per process.
pub(crate) fn require(lib: Lib) -> Result<()> {
    static DRIVER: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    static NVRTC: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    static CUBLAS: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    static CUFFT: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    static CUSOLVER: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    static CUSPARSE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    static NCCL: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    let cell = match lib {
        Lib::Driver => &DRIVER,
        Lib::Nvrtc => &NVRTC,
        Lib::Cublas => &CUBLAS,
        Lib::Cufft => &CUFFT,
        Lib::Cusolver => &CUSOLVER,
        Lib::Cusparse => &CUSPARSE,
        Lib::Nccl => &NCCL,
    };
    match cell.get_or_init(|| check(lib)) {
        Ok(()) => Ok(()),
        Err(looked) => Err(Error::LibraryNotFound {
            library: lib.label(),
            looked_for: looked.clone(),
            hint: lib.hint(),
        }),
    }
}

/// Number of CUDA devices, or the reason there are none.
pub(crate) fn device_count() -> Result<usize> {
    require(Lib::Driver)?;
    let n = cudarc::driver::CudaContext::device_count().map_err(|e| Error::NoDevice {
        reason: format!("the driver failed to initialise: {e}"),
    })?;
    Ok(n.max(0) as usize)
}

/// True when a CUDA driver is loadable and reports at least one device. Never panics.
///
/// ```
/// if !cuarray::is_available() {
///     eprintln!("no GPU here");
/// }
/// ```
pub fn is_available() -> bool {
    matches!(device_count(), Ok(n) if n > 0)
}

/// Why the GPU cannot be used, or `None` when it can: the driver, a device and NVRTC are
/// all present. Used by test harnesses and examples to print one clear line.
///
/// ```
/// if let Some(why) = cuarray::unavailable_reason() {
///     eprintln!("running on the CPU only: {why}");
/// }
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn unavailable_reason() -> Option<String> {
    match device_count() {
        Err(e) => return Some(e.to_string()),
        Ok(0) => return Some("no CUDA device found: the driver reports 0 devices".into()),
        Ok(_) => {}
    }
    require(Lib::Nvrtc).err().map(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nccl_is_searched_in_its_wheel_folder_first() {
        assert_eq!(
            wheel_dirs(Lib::Nccl),
            &["nvidia/nccl/lib", "nvidia/cu13/lib"]
        );
        assert_eq!(wheel_dirs(Lib::Cublas), &["nvidia/cu13/lib"]);
        let dirs = search_dirs(Lib::Nccl);
        for (i, d) in dirs.iter().enumerate() {
            if d.ends_with("nvidia/cu13/lib") && d.components().count() > 4 {
                let site = d.parent().and_then(Path::parent).and_then(Path::parent);
                let want = site.map(|s| s.join("nvidia/nccl/lib"));
                assert_eq!(i.checked_sub(1).map(|j| dirs[j].clone()), want, "{dirs:?}");
            }
        }
        assert!(Lib::Nccl.files() == ["libnccl.so.2"]);
        assert!(Lib::Nccl.label().contains("libnccl.so.2"));
    }
}
