//! Compiling kernel source with NVRTC to CUBIN for one architecture.
//!
//! CUBIN (not PTX) is what gets loaded and cached: it skips the driver's JIT and cannot
//! fail to load because NVRTC is newer than the driver, as PTX can.

use crate::device::require_nvrtc;
use crate::{Error, Result};
use cudarc::nvrtc::{result, sys};
use std::ffi::CString;

/// NVRTC's `(major, minor)` version.
///
/// # Errors
/// [`Error::LibraryNotFound`] when libnvrtc cannot be loaded.
pub fn version() -> Result<(i32, i32)> {
    require_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: plain out-parameters.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| Error::invalid("nvrtc", format!("nvrtcVersion failed: {e:?}")))?;
    Ok((major, minor))
}

/// The options cuarray compiles every kernel with, for compute capability `arch`.
pub fn options(arch: (u32, u32)) -> Vec<String> {
    vec![
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "--std=c++17".to_string(),
    ]
}

/// Owns an `nvrtcProgram` and destroys it on drop.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by `create_program` and destroyed only here.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

fn c_chars_to_string(v: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = v
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Compiles `source` to CUBIN with `options`; `kernel` names the kernel in errors.
///
/// # Errors
/// [`Error::Compile`] with NVRTC's log when the source does not compile;
/// [`Error::LibraryNotFound`] without libnvrtc.
pub fn compile(source: &str, kernel: &str, options: &[String]) -> Result<Vec<u8>> {
    require_nvrtc()?;
    let fail = |log: String| Error::Compile {
        kernel: kernel.to_string(),
        options: options.to_vec(),
        log,
    };
    let src = CString::new(source).map_err(|_| fail("source contains a NUL byte".into()))?;
    let name = CString::new(format!("{kernel}.cu")).map_err(|_| fail("bad kernel name".into()))?;
    let prog = Program(
        result::create_program(&src, Some(name.as_c_str()))
            .map_err(|e| fail(format!("nvrtcCreateProgram failed: {e:?}")))?,
    );
    // SAFETY: `prog` is a live program; `src` and `name`, which it may point into, are
    // declared before it and so dropped after it.
    let compiled = unsafe { result::compile_program(prog.0, options) };
    if let Err(e) = compiled {
        // SAFETY: `prog` is live.
        let log = unsafe { result::get_program_log(prog.0) }
            .map(|l| c_chars_to_string(&l))
            .unwrap_or_default();
        return Err(fail(format!("{e:?}\n{log}")));
    }
    let mut size = 0usize;
    // SAFETY: `prog` compiled successfully; size is an out-parameter.
    unsafe { sys::nvrtcGetCUBINSize(prog.0, &mut size) }
        .result()
        .map_err(|e| fail(format!("nvrtcGetCUBINSize failed: {e:?}")))?;
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` has exactly the size NVRTC reported.
    unsafe { sys::nvrtcGetCUBIN(prog.0, cubin.as_mut_ptr() as *mut std::ffi::c_char) }
        .result()
        .map_err(|e| fail(format!("nvrtcGetCUBIN failed: {e:?}")))?;
    if cubin.is_empty() {
        return Err(fail(
            "NVRTC produced no CUBIN (is the architecture a real sm_XY?)".into(),
        ));
    }
    Ok(cubin)
}
