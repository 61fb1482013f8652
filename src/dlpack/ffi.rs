//! The DLPack 1.x ABI: six `#[repr(C)]` structs and their constants, as in `dlpack.h`.

use std::ffi::c_void;

/// The DLPack version cuarray produces (and the major version it accepts).
pub const DLPACK_VERSION: DLPackVersion = DLPackVersion { major: 1, minor: 1 };

/// `kDLCPU`: host memory.
pub const DL_CPU: i32 = 1;
/// `kDLCUDA`: CUDA device memory.
pub const DL_CUDA: i32 = 2;
/// `kDLCUDAHost`: page-locked host memory (`cudaMallocHost`).
pub const DL_CUDA_HOST: i32 = 3;
/// `kDLCUDAManaged`: CUDA managed (unified) memory.
pub const DL_CUDA_MANAGED: i32 = 13;

/// `kDLInt`: signed integers.
pub const DL_INT: u8 = 0;
/// `kDLUInt`: unsigned integers.
pub const DL_UINT: u8 = 1;
/// `kDLFloat`: IEEE floats.
pub const DL_FLOAT: u8 = 2;
/// `kDLBfloat`: bfloat16.
pub const DL_BFLOAT: u8 = 4;
/// `kDLComplex`: complex numbers (bits count both parts).
pub const DL_COMPLEX: u8 = 5;
/// `kDLBool`: booleans, 8 bits each.
pub const DL_BOOL: u8 = 6;

/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write into the tensor.
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1 << 0;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made a copy for this exchange.
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;
/// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED`: sub-byte elements are padded to a byte.
pub const DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// `DLPackVersion`: the ABI version of a [`DLManagedTensorVersioned`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Major version: a consumer refuses a major version it does not know.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `DLDevice`: where the memory is.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType`: [`DL_CUDA`], [`DL_CPU`], ...
    pub device_type: i32,
    /// The device ordinal (0 for host memory).
    pub device_id: i32,
}

/// `DLDataType`: the element type.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    /// `DLDataTypeCode`: [`DL_INT`], [`DL_UINT`], [`DL_FLOAT`], [`DL_BFLOAT`],
    /// [`DL_COMPLEX`], [`DL_BOOL`].
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Lanes per element (1 for every type cuarray knows).
    pub lanes: u16,
}

/// `DLTensor`: a borrowed n-dimensional view of memory.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    /// The base address (a device pointer for CUDA memory).
    pub data: *mut c_void,
    /// Where the memory is.
    pub device: DLDevice,
    /// The rank.
    pub ndim: i32,
    /// The element type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for a C-contiguous tensor.
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLManagedTensor`: the legacy (DLPack 0.x) managed tensor, still what a `"dltensor"`
/// capsule holds.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context, for the deleter.
    pub manager_ctx: *mut c_void,
    /// Called by the consumer once it no longer needs the memory (may be null).
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned`: the DLPack 1.x managed tensor, with its version and flags
/// (a `"dltensor_versioned"` capsule).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The ABI version.
    pub version: DLPackVersion,
    /// The producer's context, for the deleter.
    pub manager_ctx: *mut c_void,
    /// Called by the consumer once it no longer needs the memory (may be null).
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `DLPACK_FLAG_BITMASK_*` bits.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}
