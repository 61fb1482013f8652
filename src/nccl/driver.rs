//! NCCL: the library opened at run time and the table of the functions cuarray calls.
//!
//! cudarc's `nccl` module declares NCCL's types (the unique id, the communicator handle,
//! the data type and operation codes: used here), but its loader tries `libnccl.so` and
//! `libnccl.so.<CUDA major>`, never `libnccl.so.2`, the only name NCCL's wheels and most
//! distributions install; so cuarray finds the library with the same search as cuBLAS
//! (`device::probe`, which names every place looked when it is missing), opens it by
//! name and resolves each function once.
//!
//! Statuses and enums cross the boundary as C `int`s: a status a newer NCCL adds is then
//! a number in a message, never an invalid Rust enum value.

use crate::device::probe::{require, Lib, NCCL_NAMES};
use crate::{Error, Result};
use cudarc::nccl::sys::{ncclComm_t, ncclUniqueId};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

type Status = c_int;
type Stream = *mut c_void;

/// The NCCL functions cuarray uses (signatures from `nccl.h`, NCCL 2.x).
pub(crate) struct Api {
    pub(crate) get_version: unsafe extern "C" fn(*mut c_int) -> Status,
    pub(crate) get_unique_id: unsafe extern "C" fn(*mut ncclUniqueId) -> Status,
    pub(crate) comm_init_rank:
        unsafe extern "C" fn(*mut ncclComm_t, c_int, ncclUniqueId, c_int) -> Status,
    pub(crate) comm_init_all: unsafe extern "C" fn(*mut ncclComm_t, c_int, *const c_int) -> Status,
    pub(crate) comm_abort: unsafe extern "C" fn(ncclComm_t) -> Status,
    pub(crate) comm_get_async_error: unsafe extern "C" fn(ncclComm_t, *mut Status) -> Status,
    pub(crate) get_error_string: unsafe extern "C" fn(Status) -> *const c_char,
    /// Since NCCL 2.13.
    pub(crate) get_last_error: Option<unsafe extern "C" fn(ncclComm_t) -> *const c_char>,
    pub(crate) group_start: unsafe extern "C" fn() -> Status,
    pub(crate) group_end: unsafe extern "C" fn() -> Status,
    #[allow(clippy::type_complexity)]
    pub(crate) all_reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        ncclComm_t,
        Stream,
    ) -> Status,
    #[allow(clippy::type_complexity)]
    pub(crate) broadcast: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        ncclComm_t,
        Stream,
    ) -> Status,
    #[allow(clippy::type_complexity)]
    pub(crate) reduce: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        c_int,
        ncclComm_t,
        Stream,
    ) -> Status,
    #[allow(clippy::type_complexity)]
    pub(crate) all_gather: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        ncclComm_t,
        Stream,
    ) -> Status,
    #[allow(clippy::type_complexity)]
    pub(crate) reduce_scatter: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        usize,
        c_int,
        c_int,
        ncclComm_t,
        Stream,
    ) -> Status,
    /// Since NCCL 2.7.
    pub(crate) send:
        unsafe extern "C" fn(*const c_void, usize, c_int, c_int, ncclComm_t, Stream) -> Status,
    /// Since NCCL 2.7.
    pub(crate) recv:
        unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, ncclComm_t, Stream) -> Status,
}

/// `ncclSuccess`.
pub(crate) const SUCCESS: Status = 0;
/// `ncclInProgress` (only non-blocking communicators return it; cuarray's block).
const IN_PROGRESS: Status = 7;

/// NCCL's status names, by value (`ncclResult_t`).
pub(crate) fn status_name(status: Status) -> &'static str {
    match status {
        0 => "ncclSuccess",
        1 => "ncclUnhandledCudaError",
        2 => "ncclSystemError",
        3 => "ncclInternalError",
        4 => "ncclInvalidArgument",
        5 => "ncclInvalidUsage",
        6 => "ncclRemoteError",
        7 => "ncclInProgress",
        8 => "ncclTimeout",
        _ => "unknown NCCL status",
    }
}

fn load() -> std::result::Result<Api, String> {
    let lib = NCCL_NAMES
        .iter()
        // SAFETY: loading NCCL runs its initialisers, as any program linking it does.
        .find_map(|&n| unsafe { libloading::Library::new(n) }.ok())
        .ok_or_else(|| format!("none of {NCCL_NAMES:?} could be opened"))?;
    // The library stays loaded for the life of the process (the table points into it).
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol is NCCL's function of that name, whose C signature is the
            // field's type (nccl.h); enums are C ints.
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| format!("{}: {e}", $name))?
        };
    }
    Ok(Api {
        get_version: sym!("ncclGetVersion"),
        get_unique_id: sym!("ncclGetUniqueId"),
        comm_init_rank: sym!("ncclCommInitRank"),
        comm_init_all: sym!("ncclCommInitAll"),
        comm_abort: sym!("ncclCommAbort"),
        comm_get_async_error: sym!("ncclCommGetAsyncError"),
        get_error_string: sym!("ncclGetErrorString"),
        // SAFETY: as in `sym!`; absent before NCCL 2.13.
        get_last_error: unsafe { lib.get(b"ncclGetLastError\0") }.ok().map(|s| *s),
        group_start: sym!("ncclGroupStart"),
        group_end: sym!("ncclGroupEnd"),
        all_reduce: sym!("ncclAllReduce"),
        broadcast: sym!("ncclBroadcast"),
        reduce: sym!("ncclReduce"),
        all_gather: sym!("ncclAllGather"),
        reduce_scatter: sym!("ncclReduceScatter"),
        send: sym!("ncclSend"),
        recv: sym!("ncclRecv"),
    })
}

/// The NCCL table, loading the library on first use.
///
/// # Errors
/// [`Error::LibraryNotFound`] naming every place looked when NCCL is missing;
/// [`Error::Nccl`] when it lacks a function cuarray calls (an NCCL older than 2.10).
pub(crate) fn api() -> Result<&'static Api> {
    static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();
    require(Lib::Nccl)?;
    match API.get_or_init(load) {
        Ok(api) => Ok(api),
        Err(msg) => Err(Error::Nccl {
            op: "loading NCCL",
            msg: format!("{msg} (cuarray needs NCCL 2.10 or newer)"),
        }),
    }
}

/// NCCL's message for `status` on `comm` (null: none): the status name, NCCL's
/// description and its last error message.
fn message(api: &Api, status: Status, comm: ncclComm_t) -> String {
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: NCCL returns a NUL-terminated static or per-thread string.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    // SAFETY: takes any status value.
    let desc = text(unsafe { (api.get_error_string)(status) });
    let last = api
        .get_last_error
        // SAFETY: takes any communicator handle or null (NCCL ignores the argument).
        .map(|f| text(unsafe { f(comm) }))
        .unwrap_or_default();
    let mut msg = format!("{} ({status})", status_name(status));
    if !desc.is_empty() {
        msg.push_str(": ");
        msg.push_str(&desc);
    }
    if !last.is_empty() && last != desc {
        msg.push_str(" (last error: ");
        msg.push_str(last.trim_end());
        msg.push(')');
    }
    msg
}

/// `Ok` for success (and `ncclInProgress`), else [`Error::Nccl`] for `op`.
pub(crate) fn check(api: &Api, op: &'static str, status: Status, comm: ncclComm_t) -> Result<()> {
    if status == SUCCESS || status == IN_PROGRESS {
        return Ok(());
    }
    Err(Error::Nccl {
        op,
        msg: message(api, status, comm),
    })
}

/// The NCCL version `(major, minor, patch)` from `ncclGetVersion`'s code
/// (`major * 10000 + minor * 100 + patch` since 2.9; `major * 1000 + minor * 100 + patch`
/// before).
pub(crate) fn decode_version(code: c_int) -> (u32, u32, u32) {
    let code = code.max(0) as u32;
    if code >= 20900 {
        (code / 10000, code / 100 % 100, code % 100)
    } else {
        (code / 1000, code / 100 % 10, code % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_decode_in_both_schemes() {
        assert_eq!(decode_version(22704), (2, 27, 4));
        assert_eq!(decode_version(23003), (2, 30, 3));
        assert_eq!(decode_version(2804), (2, 8, 4));
    }

    #[test]
    fn status_names_follow_nccl_h() {
        assert_eq!(status_name(SUCCESS), "ncclSuccess");
        assert_eq!(status_name(4), "ncclInvalidArgument");
        assert_eq!(status_name(IN_PROGRESS), "ncclInProgress");
        assert_eq!(status_name(99), "unknown NCCL status");
    }
}
