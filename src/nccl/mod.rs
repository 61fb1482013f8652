//! Collectives over several GPUs with NCCL: all-reduce, broadcast, reduce, all-gather,
//! reduce-scatter, all-to-all, gather, scatter, point-to-point send and receive, and a
//! barrier on [`DeviceArray`]s, within one process or across processes and hosts.
//!
//! - [`Comm::new_group`] makes one communicator per local device, from one thread; drive
//!   them all from that thread inside [`group`].
//! - [`init_from_env`] joins the communicator of a job started by `torchrun` (or any
//!   launcher setting `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`):
//!   rank 0 serves the NCCL id over TCP ([`rendezvous`]).
//! - [`Comm::from_id`] joins a communicator spanning processes or hosts: one rank makes
//!   an [`Id`] and hands it to every other one (as bytes or a hex string, through a file,
//!   an environment variable or any channel of yours).
//! - Each collective runs on the stream of its communicator's [`Device`] handle, ordered
//!   with the other work queued there; the host does not wait for it. An array written on
//!   another stream of the device is ordered as between any two streams (an event recorded
//!   there, [`Stream::wait`](crate::Stream::wait) on the communicator's stream).
//! - Arrays must be C-contiguous, on the communicator's device
//!   ([`Error::DeviceMismatch`] otherwise); the element types are those of
//!   [`NcclElement`].
//!
//! NCCL is found at run time (`libnccl.so.2`, as PyTorch's `nvidia-nccl-cu13` wheel,
//! the distribution's `libnccl2` package or `CUARRAY_CUDA_LIB_DIR` provide it); without
//! it every call returns [`Error::LibraryNotFound`] naming every place looked. NCCL's own
//! environment variables (`NCCL_DEBUG=INFO`, `NCCL_SOCKET_IFNAME`, `NCCL_IB_DISABLE`,
//! ...) apply as usual.
//!
//! ```no_run
//! use cuarray::nccl::{self, Comm, ReduceOp};
//! use cuarray::{Device, DeviceArray};
//! let devices = (0..cuarray::device_count()?)
//!     .map(Device::new)
//!     .collect::<cuarray::Result<Vec<_>>>()?;
//! let comms = Comm::new_group(&devices)?;
//! let mut grads = devices
//!     .iter()
//!     .map(|d| DeviceArray::<f32>::ones(d, &[1024]))
//!     .collect::<cuarray::Result<Vec<_>>>()?;
//! nccl::group(|| {
//!     for (comm, g) in comms.iter().zip(&mut grads) {
//!         comm.all_reduce(g, ReduceOp::Sum)?;
//!     }
//!     Ok(())
//! })?;
//! assert_eq!(grads[0].to_host()?[0], devices.len() as f32);
//! # Ok::<(), cuarray::Error>(())
//! ```

mod driver;
mod p2p;
pub mod rendezvous;

pub use rendezvous::init_from_env;

use crate::device::{Device, DeviceBuffer};
use crate::{bf16, f16, DeviceArray, Element, Error, Result};
use cudarc::nccl::sys::{ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclUniqueId};
use driver::{self as lib, Api};
use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// Bytes in an NCCL unique id ([`Id`]).
pub const ID_BYTES: usize = 128;

mod sealed {
    pub trait Sealed {}
}

/// Element types NCCL moves and reduces: `f16`, `bf16`, `f32`, `f64`, `i8`, `u8`, `i32`,
/// `u32`, `i64`, `u64` (NCCL has no bool, 16-bit integer or complex type).
pub trait NcclElement: Element + sealed::Sealed {
    /// NCCL's `ncclDataType_t` code.
    #[doc(hidden)]
    const NCCL_TYPE: c_int;
}

macro_rules! nccl_element {
    ($($t:ty => $code:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl NcclElement for $t {
            const NCCL_TYPE: c_int = ncclDataType_t::$code as c_int;
        }
    )*};
}

nccl_element!(
    i8 => ncclInt8,
    u8 => ncclUint8,
    i32 => ncclInt32,
    u32 => ncclUint32,
    i64 => ncclInt64,
    u64 => ncclUint64,
    f16 => ncclFloat16,
    f32 => ncclFloat32,
    f64 => ncclFloat64,
    bf16 => ncclBfloat16,
);

/// The reduction of a collective ([`Comm::all_reduce`], [`Comm::reduce`],
/// [`Comm::reduce_scatter`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Element-wise sum.
    Sum,
    /// Element-wise product.
    Prod,
    /// Element-wise maximum.
    Max,
    /// Element-wise minimum.
    Min,
    /// Element-wise mean over the ranks (the sum divided by the number of ranks; for
    /// integers, NCCL's integer division).
    Avg,
}

impl ReduceOp {
    /// NCCL's `ncclRedOp_t` code.
    fn code(self) -> c_int {
        (match self {
            ReduceOp::Sum => ncclRedOp_t::ncclSum,
            ReduceOp::Prod => ncclRedOp_t::ncclProd,
            ReduceOp::Max => ncclRedOp_t::ncclMax,
            ReduceOp::Min => ncclRedOp_t::ncclMin,
            ReduceOp::Avg => ncclRedOp_t::ncclAvg,
        }) as c_int
    }

    /// The operation's name (`"sum"`, `"prod"`, `"max"`, `"min"`, `"avg"`).
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Avg => "avg",
        }
    }
}

/// An NCCL unique id: what the ranks of a communicator made by [`Comm::from_id`] share.
///
/// One rank makes it with [`Id::new`] and hands it to all the others; it travels as
/// [`ID_BYTES`] bytes ([`as_bytes`](Id::as_bytes) / [`from_bytes`](Id::from_bytes)) or
/// as a 256-character hex string ([`to_hex`](Id::to_hex) / [`from_hex`](Id::from_hex),
/// also `Display` and `FromStr`), e.g. through a shared file or an environment variable.
/// It holds the address rank 0's NCCL listens on, so it is meant for one communicator.
///
/// ```no_run
/// use cuarray::nccl::Id;
/// let id = Id::new()?;                         // on rank 0
/// std::fs::write("nccl.id", id.to_hex()).unwrap();
/// // on every rank, once the file is there:
/// let id: Id = std::fs::read_to_string("nccl.id").unwrap().trim().parse()?;
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Id {
    bytes: [u8; ID_BYTES],
}

impl Id {
    /// A new unique id (`ncclGetUniqueId`), made once, by one rank.
    ///
    /// # Errors
    /// [`Error::LibraryNotFound`] without NCCL; [`Error::Nccl`] when NCCL fails (e.g. no
    /// usable network interface).
    pub fn new() -> Result<Id> {
        let api = lib::api()?;
        let mut raw = ncclUniqueId {
            internal: [0; ID_BYTES],
        };
        // SAFETY: an out parameter of the right type.
        let status = unsafe { (api.get_unique_id)(&mut raw) };
        lib::check(api, "ncclGetUniqueId", status, std::ptr::null_mut())?;
        Ok(Id {
            bytes: raw.internal.map(|c| c as u8),
        })
    }

    /// The id from its [`ID_BYTES`] bytes (as [`as_bytes`](Id::as_bytes) gave them).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `bytes` is not exactly [`ID_BYTES`] long.
    pub fn from_bytes(bytes: &[u8]) -> Result<Id> {
        let bytes: [u8; ID_BYTES] = bytes.try_into().map_err(|_| {
            Error::invalid(
                "nccl::Id::from_bytes",
                format!("an NCCL id has {ID_BYTES} bytes, got {}", bytes.len()),
            )
        })?;
        Ok(Id { bytes })
    }

    /// The id's bytes.
    pub fn as_bytes(&self) -> &[u8; ID_BYTES] {
        &self.bytes
    }

    /// The id as 256 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        use std::fmt::Write;
        let mut s = String::with_capacity(2 * ID_BYTES);
        for b in self.bytes {
            let _ = write!(s, "{b:02x}");
        }
        s
    }

    /// The id from 256 hex digits (either case; surrounding whitespace is ignored).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another length or a character that is not a hex
    /// digit.
    pub fn from_hex(hex: &str) -> Result<Id> {
        const OP: &str = "nccl::Id::from_hex";
        let hex = hex.trim();
        if hex.len() != 2 * ID_BYTES || !hex.is_ascii() {
            return Err(Error::invalid(
                OP,
                format!(
                    "an NCCL id is {} hex digits, got {} characters",
                    2 * ID_BYTES,
                    hex.chars().count()
                ),
            ));
        }
        let mut bytes = [0u8; ID_BYTES];
        for (i, b) in bytes.iter_mut().enumerate() {
            let pair = &hex[2 * i..2 * i + 2];
            *b = u8::from_str_radix(pair, 16).map_err(|_| {
                Error::invalid(OP, format!("{pair:?} at offset {} is not hex", 2 * i))
            })?;
        }
        Ok(Id { bytes })
    }

    fn raw(&self) -> ncclUniqueId {
        ncclUniqueId {
            internal: self.bytes.map(|b| b as std::ffi::c_char),
        }
    }
}

impl std::fmt::Display for Id {
    /// The 256 hex digits of [`to_hex`](Id::to_hex).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl std::fmt::Debug for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Id({}...)", &self.to_hex()[..16])
    }
}

impl std::str::FromStr for Id {
    type Err = Error;
    fn from_str(s: &str) -> Result<Id> {
        Id::from_hex(s)
    }
}

/// The NCCL version `(major, minor, patch)`, e.g. `(2, 27, 5)`.
///
/// # Errors
/// [`Error::LibraryNotFound`] without NCCL.
pub fn version() -> Result<(u32, u32, u32)> {
    let api = lib::api()?;
    let mut code: c_int = 0;
    // SAFETY: an out parameter.
    let status = unsafe { (api.get_version)(&mut code) };
    lib::check(api, "ncclGetVersion", status, std::ptr::null_mut())?;
    Ok(lib::decode_version(code))
}

/// True when NCCL can be loaded. Never panics.
pub fn is_available() -> bool {
    lib::api().is_ok()
}

thread_local! {
    /// Open groups on this thread: their depth, and the buffers of the collectives queued
    /// in them (NCCL enqueues the work at the outermost group end; until then the memory
    /// must not go back to the pool).
    static GROUP: RefCell<(usize, Vec<Arc<DeviceBuffer>>)> = const { RefCell::new((0, Vec::new())) };
}

/// Runs `f` as one NCCL group (`ncclGroupStart` ... `ncclGroupEnd`): the collectives
/// called inside are queued together when `f` returns. Needed when one thread drives
/// several communicators (each GPU of a [`Comm::new_group`]): outside a group the first
/// rank's call could wait for the others, which the same thread has not called yet.
/// Groups nest; the outermost one queues the work.
///
/// Inside the group, queue only collectives: their work reaches the streams when the
/// group ends, so other work on their arrays (reading a result, writing an input) belongs
/// after `group` returns. Arrays dropped inside the group keep their memory until then.
///
/// # Errors
/// The first error of `f` (the group is still closed), else [`Error::Nccl`] when NCCL
/// fails to launch the group.
///
/// ```no_run
/// use cuarray::nccl::{self, Comm};
/// use cuarray::{Device, DeviceArray};
/// let devices = [Device::new(0)?, Device::new(1)?];
/// let comms = Comm::new_group(&devices)?;
/// let mut w = vec![
///     DeviceArray::<f32>::ones(&devices[0], &[256])?,
///     DeviceArray::<f32>::zeros(&devices[1], &[256])?,
/// ];
/// nccl::group(|| {
///     for (comm, w) in comms.iter().zip(&mut w) {
///         comm.broadcast(w, 0)?;              // rank 0's values everywhere
///     }
///     Ok(())
/// })?;
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn group<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    let api = lib::api()?;
    // SAFETY: no arguments; NCCL keeps the group state per thread.
    let status = unsafe { (api.group_start)() };
    lib::check(api, "ncclGroupStart", status, std::ptr::null_mut())?;
    GROUP.with(|g| g.borrow_mut().0 += 1);
    // Closes the group even when `f` panics.
    let mut open = OpenGroup { api, status: None };
    let out = f();
    let status = open.close();
    let out = out?;
    lib::check(api, "ncclGroupEnd", status, std::ptr::null_mut())?;
    Ok(out)
}

/// An open NCCL group on this thread, closed once (by `close`, or on drop).
struct OpenGroup {
    api: &'static Api,
    /// `ncclGroupEnd`'s status once closed.
    status: Option<c_int>,
}

impl OpenGroup {
    fn close(&mut self) -> c_int {
        if let Some(s) = self.status {
            return s;
        }
        // SAFETY: closes the group `group` opened, on the same thread.
        let status = unsafe { (self.api.group_end)() };
        self.status = Some(status);
        let kept = GROUP.with(|g| {
            let mut g = g.borrow_mut();
            g.0 -= 1;
            if g.0 == 0 {
                std::mem::take(&mut g.1)
            } else {
                Vec::new()
            }
        });
        // The work is queued on the streams now (or failed): stream order protects the
        // buffers from here on.
        drop(kept);
        status
    }
}

impl Drop for OpenGroup {
    fn drop(&mut self) {
        self.close();
    }
}

/// How many groups are open on this thread.
fn group_depth() -> usize {
    GROUP.with(|g| g.borrow().0)
}

/// Keeps `buf` alive until the outermost open group on this thread ends (nothing to do
/// outside a group).
fn keep_for_group(buf: Arc<DeviceBuffer>) {
    GROUP.with(|g| {
        let mut g = g.borrow_mut();
        if g.0 > 0 {
            g.1.push(buf);
        }
    })
}

/// One rank of an NCCL communicator, bound to one device (and that [`Device`] handle's
/// stream, on which its collectives run).
///
/// A `Comm` can move to another thread (one thread per GPU is fine) but is used by one
/// thread at a time; as NCCL requires, two communicators of the same GPU are not driven
/// from two threads at once. Dropping it waits for the collectives queued on its stream, then
/// releases NCCL's resources (`ncclCommAbort`, which never waits for other ranks).
pub struct Comm {
    raw: ncclComm_t,
    device: Device,
    rank: usize,
    world: usize,
}

// SAFETY: an NCCL communicator may be used from any thread as long as one thread uses it
// at a time (NCCL's thread-safety rules); `Comm` is not `Sync`, and its methods take
// `&self` only from the thread that owns or borrows it.
unsafe impl Send for Comm {}

impl std::fmt::Debug for Comm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Comm(rank {} of {} on {:?})",
            self.rank, self.world, self.device
        )
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        // Collectives queued on the stream must finish before their communicator goes;
        // errors at teardown have nowhere to go.
        let _ = self.device.bind();
        let _ = self.device.cuda_stream().synchronize();
        if let Ok(api) = lib::api() {
            // SAFETY: `raw` came from NCCL's init and is released once, here.
            let _ = unsafe { (api.comm_abort)(self.raw) };
        }
    }
}

/// `root` checked against the communicator's size.
fn check_rank(op: &'static str, what: &str, rank: usize, world: usize) -> Result<c_int> {
    if rank >= world {
        return Err(Error::invalid(
            op,
            format!("{what} {rank} is out of range for a communicator of {world} rank(s)"),
        ));
    }
    c_int::try_from(rank).map_err(|_| Error::invalid(op, format!("{what} {rank} too large")))
}

/// The shape `all_gather` returns for an input of `shape` over `world` ranks: the inputs
/// concatenated along the first axis (a 0-d input gives shape `[world]`).
pub(crate) fn gathered_shape(shape: &[usize], world: usize) -> Vec<usize> {
    match shape.split_first() {
        None => vec![world],
        Some((&first, rest)) => {
            let mut s = vec![first.saturating_mul(world)];
            s.extend_from_slice(rest);
            s
        }
    }
}

/// The shape `reduce_scatter` returns for an input of `shape` over `world` ranks: the
/// first axis divided by `world` (each rank gets one block of rows).
pub(crate) fn scattered_shape(
    op: &'static str,
    shape: &[usize],
    world: usize,
) -> Result<Vec<usize>> {
    match shape.split_first() {
        Some((&first, rest)) if first.is_multiple_of(world) => {
            let mut s = vec![first / world];
            s.extend_from_slice(rest);
            Ok(s)
        }
        _ => Err(Error::ShapeMismatch {
            op,
            msg: format!(
                "the first axis must be a multiple of the number of ranks ({world}): each rank \
                 receives one block of rows"
            ),
            lhs: shape.to_vec(),
            rhs: vec![world],
        }),
    }
}

impl Comm {
    /// One communicator per device of `devices`, all in this process (`ncclCommInitAll`):
    /// rank `i` is `devices[i]`, and its collectives run on that handle's stream.
    /// One device is a valid group (its collectives copy or keep the data).
    ///
    /// Drive the communicators from one thread inside [`group`], or move each to a
    /// thread of its own.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty list or a device listed twice (NCCL allows
    /// one rank per GPU); [`Error::LibraryNotFound`] without NCCL; [`Error::Nccl`] when
    /// NCCL fails.
    ///
    /// ```no_run
    /// use cuarray::{nccl::Comm, Device};
    /// let comms = Comm::new_group(&[Device::new(0)?, Device::new(1)?])?;
    /// assert_eq!((comms[1].rank(), comms[1].world_size()), (1, 2));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn new_group(devices: &[Device]) -> Result<Vec<Comm>> {
        const OP: &str = "nccl::Comm::new_group";
        if devices.is_empty() {
            return Err(Error::invalid(OP, "no devices given"));
        }
        let ordinals = devices
            .iter()
            .map(|d| c_int::try_from(d.ordinal()))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| Error::invalid(OP, "device ordinal too large"))?;
        for (i, o) in ordinals.iter().enumerate() {
            if ordinals[..i].contains(o) {
                return Err(Error::invalid(
                    OP,
                    format!("cuda:{o} is listed twice; NCCL allows one rank per GPU"),
                ));
            }
        }
        let api = lib::api()?;
        let n =
            c_int::try_from(devices.len()).map_err(|_| Error::invalid(OP, "too many devices"))?;
        let mut raw: Vec<ncclComm_t> = vec![std::ptr::null_mut(); devices.len()];
        devices[0].bind()?;
        // SAFETY: `raw` has room for `n` handles; `ordinals` holds `n` device ordinals.
        let status = unsafe { (api.comm_init_all)(raw.as_mut_ptr(), n, ordinals.as_ptr()) };
        lib::check(api, "ncclCommInitAll", status, std::ptr::null_mut())?;
        let world = devices.len();
        Ok(raw
            .into_iter()
            .zip(devices)
            .enumerate()
            .map(|(rank, (raw, device))| Comm {
                raw,
                device: device.clone(),
                rank,
                world,
            })
            .collect())
    }

    /// Rank `rank` of a communicator of `world` ranks (`ncclCommInitRank`), on `device`
    /// (its collectives run on that handle's stream). Every rank calls it with the same
    /// [`Id`] (made once by one rank) and `world`; the call returns when all `world`
    /// ranks have joined. Ranks may be threads, processes or hosts.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `rank >= world`; [`Error::LibraryNotFound`]
    /// without NCCL; [`Error::Nccl`] when NCCL fails (unreachable peers, a mismatched
    /// `world`...).
    ///
    /// ```no_run
    /// use cuarray::nccl::{Comm, Id};
    /// use cuarray::Device;
    /// // Each process: its rank and the world size from the launcher, the id from rank 0.
    /// let rank: usize = std::env::var("RANK").unwrap().parse().unwrap();
    /// let world: usize = std::env::var("WORLD_SIZE").unwrap().parse().unwrap();
    /// let id: Id = std::env::var("CUARRAY_NCCL_ID").unwrap().parse()?;
    /// let dev = Device::new(rank % cuarray::device_count()?)?;
    /// let comm = Comm::from_id(&id, rank, world, &dev)?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn from_id(id: &Id, rank: usize, world: usize, device: &Device) -> Result<Comm> {
        const OP: &str = "nccl::Comm::from_id";
        let nranks =
            c_int::try_from(world).map_err(|_| Error::invalid(OP, "world size too large"))?;
        let r = check_rank(OP, "rank", rank, world)?;
        let api = lib::api()?;
        let mut raw: ncclComm_t = std::ptr::null_mut();
        // NCCL takes the device from the calling thread's current context.
        device.bind()?;
        // SAFETY: an out parameter; the id is passed by value as nccl.h declares.
        let status = unsafe { (api.comm_init_rank)(&mut raw, nranks, id.raw(), r) };
        lib::check(api, "ncclCommInitRank", status, std::ptr::null_mut())?;
        Ok(Comm {
            raw,
            device: device.clone(),
            rank,
            world,
        })
    }

    /// This communicator's rank, from 0.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn world_size(&self) -> usize {
        self.world
    }

    /// The device (and stream) the collectives of this rank run on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// An error NCCL met after a call returned (a peer that failed, a network error),
    /// as `ncclCommGetAsyncError` reports it; `Ok` when there is none.
    ///
    /// # Errors
    /// [`Error::Nccl`] with NCCL's status.
    pub fn check_async_error(&self) -> Result<()> {
        let api = lib::api()?;
        let mut status: c_int = lib::SUCCESS;
        // SAFETY: a live communicator and an out parameter.
        let r = unsafe { (api.comm_get_async_error)(self.raw, &mut status) };
        lib::check(api, "ncclCommGetAsyncError", r, self.raw)?;
        lib::check(api, "asynchronous NCCL error", status, self.raw)
    }

    fn stream(&self) -> *mut c_void {
        self.device.cu_stream() as *mut c_void
    }

    /// The pointer of `a` for `op` on this rank's stream (checks, keeps the buffer for an
    /// open group).
    fn ptr<T: NcclElement>(&self, op: &'static str, a: &DeviceArray<T>) -> Result<u64> {
        let (ptr, buf) = a.library_ptr(op, &self.device)?;
        keep_for_group(buf);
        Ok(ptr)
    }

    /// One collective `op` on this rank's stream: `call` gets the API table, the send
    /// and receive pointers (`src`'s, and `dst`'s or again `src`'s for an in-place call;
    /// both checked to be C-contiguous arrays of this device and kept for an open group),
    /// the communicator and the stream, makes the NCCL call and returns its status.
    fn collective<T: NcclElement>(
        &self,
        op: &'static str,
        src: &DeviceArray<T>,
        dst: Option<&DeviceArray<T>>,
        call: impl FnOnce(&Api, *const c_void, *mut c_void, ncclComm_t, *mut c_void) -> c_int,
    ) -> Result<()> {
        let api = lib::api()?;
        let send = self.ptr(op, src)?;
        let recv = match dst {
            Some(d) => self.ptr(op, d)?,
            None => send,
        };
        self.device.bind()?;
        let status = call(
            api,
            send as *const c_void,
            recv as *mut c_void,
            self.raw,
            self.stream(),
        );
        lib::check(api, op, status, self.raw)
    }

    /// Reduces `a` over all ranks with `op`, in place: afterwards every rank's `a`
    /// holds the element-wise reduction of all ranks' arrays (`ncclAllReduce`). Every
    /// rank passes an array of the same shape and type.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] when `a` is on another device than the communicator;
    /// [`Error::InvalidArgument`] when `a` is not C-contiguous; [`Error::Nccl`] when
    /// NCCL fails.
    ///
    /// ```no_run
    /// use cuarray::nccl::{Comm, ReduceOp};
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let mut g = DeviceArray::<f32>::ones(&dev, &[3])?;
    /// comm.all_reduce(&mut g, ReduceOp::Avg)?;   // one rank: unchanged
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn all_reduce<T: NcclElement>(&self, a: &mut DeviceArray<T>, op: ReduceOp) -> Result<()> {
        let n = a.size();
        self.collective(
            "nccl all_reduce",
            a,
            None,
            |api, send, recv, comm, stream| {
                // SAFETY: `send` = `recv` addresses `n` contiguous elements of type `T` on
                // this communicator's device, kept alive by stream order (or the open group).
                unsafe { (api.all_reduce)(send, recv, n, T::NCCL_TYPE, op.code(), comm, stream) }
            },
        )
    }

    /// Copies rank `root`'s `a` into every other rank's `a` (`ncclBroadcast`, in
    /// place). Every rank passes an array of the same shape and type.
    ///
    /// # Errors
    /// As [`all_reduce`](Comm::all_reduce); [`Error::InvalidArgument`] when `root` is
    /// not a rank.
    ///
    /// ```no_run
    /// use cuarray::nccl::Comm;
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let mut w = DeviceArray::<f32>::zeros(&dev, &[10])?;
    /// comm.broadcast(&mut w, 0)?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn broadcast<T: NcclElement>(&self, a: &mut DeviceArray<T>, root: usize) -> Result<()> {
        const OP: &str = "nccl broadcast";
        let root = check_rank(OP, "root", root, self.world)?;
        let n = a.size();
        self.collective(OP, a, None, |api, send, recv, comm, stream| {
            // SAFETY: as in `all_reduce`.
            unsafe { (api.broadcast)(send, recv, n, T::NCCL_TYPE, root, comm, stream) }
        })
    }

    /// Reduces `a` over all ranks with `op` into rank `root`'s `a` (`ncclReduce`, in
    /// place); the other ranks' arrays are only read.
    ///
    /// # Errors
    /// As [`broadcast`](Comm::broadcast).
    ///
    /// ```no_run
    /// use cuarray::nccl::{Comm, ReduceOp};
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let mut loss = DeviceArray::<f64>::full(&dev, &[], 0.25)?;
    /// comm.reduce(&mut loss, ReduceOp::Sum, 0)?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn reduce<T: NcclElement>(
        &self,
        a: &mut DeviceArray<T>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        const OP: &str = "nccl reduce";
        let root = check_rank(OP, "root", root, self.world)?;
        let n = a.size();
        self.collective(OP, a, None, |api, send, recv, comm, stream| {
            // SAFETY: as in `all_reduce`.
            unsafe { (api.reduce)(send, recv, n, T::NCCL_TYPE, op.code(), root, comm, stream) }
        })
    }

    /// Every rank's `a`, concatenated in rank order along the first axis, on every rank
    /// (`ncclAllGather`): an input of shape `(n, ...)` gives `(world * n, ...)`, a 0-d
    /// input gives `(world,)`. Every rank passes an array of the same shape and type.
    ///
    /// # Errors
    /// As [`all_reduce`](Comm::all_reduce).
    ///
    /// ```no_run
    /// use cuarray::nccl::Comm;
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let shard = DeviceArray::<f32>::ones(&dev, &[4, 3])?;
    /// let all = comm.all_gather(&shard)?;
    /// assert_eq!(all.shape(), &[4 * comm.world_size(), 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn all_gather<T: NcclElement>(&self, a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        let shape = gathered_shape(a.shape(), self.world);
        let mut out = DeviceArray::<T>::alloc_for("nccl all_gather", &self.device, &shape)?;
        self.all_gather_into(a, &mut out)?;
        Ok(out)
    }

    /// [`all_gather`](Comm::all_gather) into `out`, which holds `world * a.size()`
    /// elements (any shape).
    ///
    /// # Errors
    /// As [`all_gather`](Comm::all_gather); [`Error::ShapeMismatch`] when `out` has
    /// another size.
    pub fn all_gather_into<T: NcclElement>(
        &self,
        a: &DeviceArray<T>,
        out: &mut DeviceArray<T>,
    ) -> Result<()> {
        const OP: &str = "nccl all_gather";
        if out.size() != a.size().saturating_mul(self.world) {
            return Err(Error::ShapeMismatch {
                op: OP,
                msg: format!(
                    "the output must hold the {} ranks' inputs ({} elements)",
                    self.world,
                    a.size().saturating_mul(self.world)
                ),
                lhs: a.shape().to_vec(),
                rhs: out.shape().to_vec(),
            });
        }
        let n = a.size();
        self.collective(OP, a, Some(out), |api, send, recv, comm, stream| {
            // SAFETY: `send` addresses `n` contiguous elements and `recv` `world * n`
            // (checked above), both on this communicator's device.
            unsafe { (api.all_gather)(send, recv, n, T::NCCL_TYPE, comm, stream) }
        })
    }

    /// Reduces `a` over all ranks with `op` and gives rank `r` block `r` of the result
    /// along the first axis (`ncclReduceScatter`): an input of shape `(world * n, ...)`
    /// gives `(n, ...)`. Every rank passes an array of the same shape and type.
    ///
    /// # Errors
    /// As [`all_reduce`](Comm::all_reduce); [`Error::ShapeMismatch`] when the first axis
    /// is not a multiple of the number of ranks (or `a` is 0-d).
    ///
    /// ```no_run
    /// use cuarray::nccl::{Comm, ReduceOp};
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let g = DeviceArray::<f32>::ones(&dev, &[8 * comm.world_size(), 16])?;
    /// let mine = comm.reduce_scatter(&g, ReduceOp::Sum)?;
    /// assert_eq!(mine.shape(), &[8, 16]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn reduce_scatter<T: NcclElement>(
        &self,
        a: &DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<DeviceArray<T>> {
        const OP: &str = "nccl reduce_scatter";
        let shape = scattered_shape(OP, a.shape(), self.world)?;
        let mut out = DeviceArray::<T>::alloc_for(OP, &self.device, &shape)?;
        self.reduce_scatter_into(a, &mut out, op)?;
        Ok(out)
    }

    /// [`reduce_scatter`](Comm::reduce_scatter) into `out`, which holds
    /// `a.size() / world` elements (any shape).
    ///
    /// # Errors
    /// As [`reduce_scatter`](Comm::reduce_scatter); [`Error::ShapeMismatch`] when `out`
    /// has another size or `a.size()` is not a multiple of the number of ranks.
    pub fn reduce_scatter_into<T: NcclElement>(
        &self,
        a: &DeviceArray<T>,
        out: &mut DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<()> {
        const OP: &str = "nccl reduce_scatter";
        if !a.size().is_multiple_of(self.world) || out.size() != a.size() / self.world {
            return Err(Error::ShapeMismatch {
                op: OP,
                msg: format!(
                    "the input must hold {} blocks of the output's size",
                    self.world
                ),
                lhs: a.shape().to_vec(),
                rhs: out.shape().to_vec(),
            });
        }
        let n = out.size();
        self.collective(OP, a, Some(out), |api, send, recv, comm, stream| {
            // SAFETY: `send` addresses `world * n` contiguous elements and `recv` `n`
            // (checked above), both on this communicator's device.
            unsafe { (api.reduce_scatter)(send, recv, n, T::NCCL_TYPE, op.code(), comm, stream) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_bytes_and_hex() {
        let mut bytes = [0u8; ID_BYTES];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 37 % 256) as u8;
        }
        let id = Id::from_bytes(&bytes).unwrap();
        assert_eq!(id.as_bytes(), &bytes);
        let hex = id.to_hex();
        assert_eq!(hex.len(), 256);
        assert!(hex.starts_with("00254a6f"));
        assert_eq!(Id::from_hex(&hex).unwrap(), id);
        assert_eq!(
            Id::from_hex(&format!("  {}\n", hex.to_uppercase())).unwrap(),
            id
        );
        assert_eq!(id.to_string().parse::<Id>().unwrap(), id);
        assert_eq!(format!("{id:?}"), "Id(00254a6f94b9de03...)");
        // Raw bytes survive the trip through NCCL's `char` array.
        assert_eq!(
            Id::from_bytes(&id.raw().internal.map(|c| c as u8)).unwrap(),
            id
        );
    }

    #[test]
    fn bad_ids_are_errors() {
        assert!(Id::from_bytes(&[0; 127]).is_err());
        assert!(Id::from_hex("00").is_err());
        let mut hex = "0".repeat(256);
        hex.replace_range(10..12, "zz");
        let e = Id::from_hex(&hex).unwrap_err().to_string();
        assert!(e.contains("\"zz\" at offset 10"), "{e}");
        assert!(Id::from_hex(&"é".repeat(128)).is_err());
    }

    #[test]
    fn ops_and_types_map_to_nccl_codes() {
        assert_eq!(ReduceOp::Sum.code(), 0);
        assert_eq!(ReduceOp::Prod.code(), 1);
        assert_eq!(ReduceOp::Max.code(), 2);
        assert_eq!(ReduceOp::Min.code(), 3);
        assert_eq!(ReduceOp::Avg.code(), 4);
        assert_eq!(ReduceOp::Avg.name(), "avg");
        assert_eq!(<i8 as NcclElement>::NCCL_TYPE, 0);
        assert_eq!(<u8 as NcclElement>::NCCL_TYPE, 1);
        assert_eq!(<i32 as NcclElement>::NCCL_TYPE, 2);
        assert_eq!(<u32 as NcclElement>::NCCL_TYPE, 3);
        assert_eq!(<i64 as NcclElement>::NCCL_TYPE, 4);
        assert_eq!(<u64 as NcclElement>::NCCL_TYPE, 5);
        assert_eq!(<f16 as NcclElement>::NCCL_TYPE, 6);
        assert_eq!(<f32 as NcclElement>::NCCL_TYPE, 7);
        assert_eq!(<f64 as NcclElement>::NCCL_TYPE, 8);
        assert_eq!(<bf16 as NcclElement>::NCCL_TYPE, 9);
    }

    #[test]
    fn gather_and_scatter_shapes() {
        assert_eq!(gathered_shape(&[], 3), vec![3]);
        assert_eq!(gathered_shape(&[4, 5], 2), vec![8, 5]);
        assert_eq!(gathered_shape(&[1003], 1), vec![1003]);
        assert_eq!(scattered_shape("t", &[8, 5], 2).unwrap(), vec![4, 5]);
        assert_eq!(scattered_shape("t", &[1003], 1).unwrap(), vec![1003]);
        assert!(matches!(
            scattered_shape("t", &[7, 5], 2),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(scattered_shape("t", &[], 1).is_err());
    }

    #[test]
    fn ranks_are_checked() {
        assert_eq!(check_rank("t", "root", 1, 2).unwrap(), 1);
        let e = check_rank("t", "root", 2, 2).unwrap_err().to_string();
        assert!(
            e.contains("root 2 is out of range for a communicator of 2 rank(s)"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_nccl_is_a_clear_error() {
        // Holds on a machine without NCCL; with NCCL present there is nothing to check.
        if let Err(e) = version() {
            let msg = e.to_string();
            assert!(matches!(e, Error::LibraryNotFound { .. }), "{msg}");
            assert!(msg.contains("libnccl.so.2"), "{msg}");
            assert!(msg.contains("LD_LIBRARY_PATH"), "{msg}");
            assert!(!is_available());
        }
    }
}
