//! Point-to-point transfers (`ncclSend`, `ncclRecv`) and the collectives NCCL builds from
//! them in one group, as its documentation describes: all-to-all, gather and scatter;
//! and a barrier.

use super::driver as lib;
use super::{check_rank, gathered_shape, group, scattered_shape, Comm, NcclElement, ReduceOp};
use crate::{DeviceArray, Error, Result};
use std::ffi::{c_int, c_void};

impl Comm {
    /// Queues `ncclSend` (`send`) or `ncclRecv` of elements `first .. first + n` of the
    /// array at `base` with `peer`.
    ///
    /// # Safety
    /// `base` is the address of the first element of a C-contiguous array of `T` on this
    /// communicator's device holding at least `first + n` elements, whose buffer stays
    /// alive until the transfer is queued on the stream (it came from [`Comm::ptr`],
    /// which keeps it for an open group; stream order does the rest).
    unsafe fn p2p<T: NcclElement>(
        &self,
        op: &'static str,
        send: bool,
        base: u64,
        first: usize,
        n: usize,
        peer: c_int,
    ) -> Result<()> {
        if n == 0 {
            // Both sides skip it alike: their arrays have the same size.
            return Ok(());
        }
        let api = lib::api()?;
        let ptr = base + (first * std::mem::size_of::<T>()) as u64;
        let (ty, comm, stream) = (T::NCCL_TYPE, self.raw, self.stream());
        // SAFETY: the caller's contract: `ptr` addresses `n` elements of `T` on this
        // communicator's device, alive until the transfer runs.
        let status = unsafe {
            if send {
                (api.send)(ptr as *const c_void, n, ty, peer, comm, stream)
            } else {
                (api.recv)(ptr as *mut c_void, n, ty, peer, comm, stream)
            }
        };
        lib::check(api, op, status, self.raw)
    }

    /// Sends `a` to rank `peer` (`ncclSend`), which calls [`recv`](Comm::recv) with an
    /// array of the same size and type. The transfer is queued on this rank's stream,
    /// ordered with the other work there; the host does not wait for it.
    ///
    /// A rank that sends to a peer and also receives from it (an exchange, a ring) puts
    /// both calls in one [`group`]: outside a group each call may wait for
    /// its peer's matching call, and two ranks that both send first would wait for each
    /// other.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `peer` is not a rank or `a` is not C-contiguous;
    /// [`Error::DeviceMismatch`] when `a` is on another device than the communicator;
    /// [`Error::Nccl`] when NCCL fails.
    ///
    /// ```no_run
    /// use cuarray::nccl::{self, Comm};
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let a = DeviceArray::<f32>::ones(&dev, &[5])?;
    /// let mut b = DeviceArray::<f32>::zeros(&dev, &[5])?;
    /// nccl::group(|| {
    ///     comm.send(&a, 0)?; // one rank: to itself
    ///     comm.recv(&mut b, 0)
    /// })?;
    /// assert_eq!(b.to_host()?, vec![1.0; 5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn send<T: NcclElement>(&self, a: &DeviceArray<T>, peer: usize) -> Result<()> {
        const OP: &str = "nccl send";
        let peer = check_rank(OP, "peer", peer, self.world)?;
        let base = self.ptr(OP, a)?;
        self.device.bind()?;
        // SAFETY: `base` is `a`'s first element, `a` C-contiguous with `a.size()`
        // elements on this device (checked by `ptr`), kept for an open group.
        unsafe { self.p2p::<T>(OP, true, base, 0, a.size(), peer) }
    }

    /// Receives into `a` what rank `peer` sends with [`send`](Comm::send) (an array of
    /// the same size and type), in place (`ncclRecv`). See [`send`](Comm::send) for when
    /// a [`group`] is needed.
    ///
    /// # Errors
    /// As [`send`](Comm::send).
    ///
    /// ```no_run
    /// # cuarray::testing::single_rank_env(); // alone: a job of one rank
    /// use cuarray::nccl;
    /// use cuarray::DeviceArray;
    /// let comm = nccl::init_from_env()?;
    /// let (me, world) = (comm.rank(), comm.world_size());
    /// let mine = DeviceArray::<f32>::full(comm.device(), &[8], me as f32)?;
    /// let mut left = DeviceArray::<f32>::zeros(comm.device(), &[8])?;
    /// nccl::group(|| {
    ///     comm.send(&mine, (me + 1) % world)?;          // a ring: to the right,
    ///     comm.recv(&mut left, (me + world - 1) % world) // from the left
    /// })?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn recv<T: NcclElement>(&self, a: &mut DeviceArray<T>, peer: usize) -> Result<()> {
        const OP: &str = "nccl recv";
        let peer = check_rank(OP, "peer", peer, self.world)?;
        let base = self.ptr(OP, a)?;
        self.device.bind()?;
        // SAFETY: as in `send`.
        unsafe { self.p2p::<T>(OP, false, base, 0, a.size(), peer) }
    }

    /// Block `j` of `a` along the first axis goes to rank `j`, and block `i` of the
    /// result comes from rank `i` (a transpose of blocks across ranks, as MPI's
    /// `Alltoall`): the result has the shape of `a`. Every rank passes an array of the
    /// same shape and type, whose first axis is a multiple of the number of ranks. One
    /// group of sends and receives.
    ///
    /// # Errors
    /// As [`send`](Comm::send); [`Error::ShapeMismatch`] when the first axis is not a
    /// multiple of the number of ranks (or `a` is 0-d).
    ///
    /// ```no_run
    /// use cuarray::nccl::Comm;
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let a = DeviceArray::<f32>::arange(&dev, 0.0, 6.0, 1.0)?.reshape(&[3, 2])?;
    /// let b = comm.all_to_all(&a)?; // one rank: a copy
    /// assert_eq!(b.shape(), &[3, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn all_to_all<T: NcclElement>(&self, a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        const OP: &str = "nccl all_to_all";
        scattered_shape(OP, a.shape(), self.world)?;
        let out = DeviceArray::<T>::alloc_for(OP, &self.device, a.shape())?;
        let n = a.size() / self.world;
        let src = self.ptr(OP, a)?;
        let dst = self.ptr(OP, &out)?;
        self.device.bind()?;
        group(|| {
            for r in 0..self.world {
                let peer = r as c_int; // below `world`, which fits a C int
                                       // SAFETY: `src` and `dst` are C-contiguous arrays of `world * n` elements
                                       // of this device (checked by `ptr`), so block `r` lies within each.
                unsafe {
                    self.p2p::<T>(OP, true, src, r * n, n, peer)?;
                    self.p2p::<T>(OP, false, dst, r * n, n, peer)?;
                }
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Every rank's `a`, concatenated in rank order along the first axis, on rank `root`
    /// (`Some`; the other ranks get `None`): an input of shape `(n, ...)` gives
    /// `(world * n, ...)`, a 0-d input gives `(world,)`. Every rank passes an array of
    /// the same shape and type. One group of sends and receives.
    ///
    /// # Errors
    /// As [`send`](Comm::send); [`Error::InvalidArgument`] when `root` is not a rank.
    ///
    /// ```no_run
    /// use cuarray::nccl::Comm;
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let part = DeviceArray::<f64>::ones(&dev, &[2, 3])?;
    /// if let Some(all) = comm.gather(&part, 0)? {
    ///     assert_eq!(all.shape(), &[2 * comm.world_size(), 3]);
    /// }
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn gather<T: NcclElement>(
        &self,
        a: &DeviceArray<T>,
        root: usize,
    ) -> Result<Option<DeviceArray<T>>> {
        const OP: &str = "nccl gather";
        let root_c = check_rank(OP, "root", root, self.world)?;
        let n = a.size();
        let src = self.ptr(OP, a)?;
        let out = if self.rank == root {
            let shape = gathered_shape(a.shape(), self.world);
            Some(DeviceArray::<T>::alloc_for(OP, &self.device, &shape)?)
        } else {
            None
        };
        let dst = out.as_ref().map(|o| self.ptr(OP, o)).transpose()?;
        self.device.bind()?;
        group(|| {
            if let Some(dst) = dst {
                for r in 0..self.world {
                    // SAFETY: `dst` holds `world * n` elements of this device (allocated
                    // above), so block `r` lies within it.
                    unsafe { self.p2p::<T>(OP, false, dst, r * n, n, r as c_int)? };
                }
            }
            // SAFETY: `src` is `a`'s first element, `a` C-contiguous with `n` elements.
            unsafe { self.p2p::<T>(OP, true, src, 0, n, root_c) }
        })?;
        Ok(out)
    }

    /// Block `r` of rank `root`'s `a` along the first axis, on each rank `r`: an input of
    /// shape `(world * n, ...)` gives `(n, ...)`. Every rank passes an array of the same
    /// shape and type; only the root's is read (the others give the result's shape).
    /// One group of sends and receives.
    ///
    /// # Errors
    /// As [`gather`](Comm::gather); [`Error::ShapeMismatch`] when the first axis is not a
    /// multiple of the number of ranks (or `a` is 0-d).
    ///
    /// ```no_run
    /// use cuarray::nccl::Comm;
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let comm = Comm::new_group(&[dev.clone()])?.remove(0);
    /// let all = DeviceArray::<i32>::arange(&dev, 0, 12, 1)?.reshape(&[4, 3])?;
    /// let mine = comm.scatter(&all, 0)?;
    /// assert_eq!(mine.shape(), &[4 / comm.world_size(), 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn scatter<T: NcclElement>(
        &self,
        a: &DeviceArray<T>,
        root: usize,
    ) -> Result<DeviceArray<T>> {
        const OP: &str = "nccl scatter";
        let root_c = check_rank(OP, "root", root, self.world)?;
        let shape = scattered_shape(OP, a.shape(), self.world)?;
        let out = DeviceArray::<T>::alloc_for(OP, &self.device, &shape)?;
        let n = out.size();
        let dst = self.ptr(OP, &out)?;
        let src = if self.rank == root {
            Some(self.ptr(OP, a)?)
        } else {
            None
        };
        self.device.bind()?;
        group(|| {
            if let Some(src) = src {
                for r in 0..self.world {
                    // SAFETY: `src` is the root's `a`, C-contiguous with `world * n`
                    // elements of this device (checked by `ptr` and `scattered_shape`).
                    unsafe { self.p2p::<T>(OP, true, src, r * n, n, r as c_int)? };
                }
            }
            // SAFETY: `dst` holds `n` elements of this device (allocated above).
            unsafe { self.p2p::<T>(OP, false, dst, 0, n, root_c) }
        })?;
        Ok(out)
    }

    /// Waits until every rank has called `barrier`: an all-reduce of one element on this
    /// rank's stream, then the host waits for that stream (so for the work queued before
    /// it too). For communicators driven one per thread or process; it cannot be called
    /// inside a [`group`], where nothing runs until the group ends (with
    /// [`Comm::new_group`] driven from one thread, synchronize each device after the
    /// group instead).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] inside a group; [`Error::Nccl`] when NCCL fails; as
    /// [`Device::synchronize`](crate::Device::synchronize) otherwise.
    ///
    /// ```no_run
    /// # cuarray::testing::single_rank_env(); // alone: a job of one rank
    /// let comm = cuarray::nccl::init_from_env()?;
    /// if comm.rank() == 0 {
    ///     // write a checkpoint
    /// }
    /// comm.barrier()?; // the others wait for it
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn barrier(&self) -> Result<()> {
        const OP: &str = "nccl barrier";
        if super::group_depth() > 0 {
            return Err(Error::invalid(
                OP,
                "cannot wait inside nccl::group: the group's work starts when it ends",
            ));
        }
        // Its value is never read: only the meeting matters.
        let mut token = DeviceArray::<u8>::alloc_for(OP, &self.device, &[])?;
        self.all_reduce(&mut token, ReduceOp::Max)?;
        self.device.synchronize()
    }
}
