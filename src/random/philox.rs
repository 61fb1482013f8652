//! Philox4x32-10 on the host: the same function as `philox4x32_10` in `kernels/philox.cuh`.

/// Random123's multipliers.
const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
/// Random123's Weyl key increments (golden ratio and sqrt(3) - 1).
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2,
/// 3", SC'11): the 128-bit output block for counter `ctr` under key `key`, with Random123's
/// constants (its `philox4x32(ctr, key)` with 10 rounds).
///
/// ```
/// use cuarray::random::philox4x32_10;
/// // Random123's known-answer vector for an all-zero counter and key.
/// assert_eq!(
///     philox4x32_10([0; 4], [0; 2]),
///     [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
/// );
/// ```
#[inline]
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = ctr;
    let (mut k0, mut k1) = (key[0], key[1]);
    for _ in 0..10 {
        let p0 = M0 as u64 * c[0] as u64;
        let p1 = M1 as u64 * c[2] as u64;
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0];
        k0 = k0.wrapping_add(W0);
        k1 = k1.wrapping_add(W1);
    }
    c
}

/// The output block number `block` of the stream `(key, stream)`: counter words 0-1 are
/// the block index, words 2-3 the stream, key words 0-1 the seed (low word first).
#[inline]
pub(crate) fn block(seed: u64, stream: u64, block: u64) -> [u32; 4] {
    philox4x32_10(
        [
            block as u32,
            (block >> 32) as u32,
            stream as u32,
            (stream >> 32) as u32,
        ],
        [seed as u32, (seed >> 32) as u32],
    )
}

/// Random123's `kat_vectors` for philox4x32 with 10 rounds: counter, key, output.
#[doc(hidden)]
pub const KAT: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
    (
        [0, 0, 0, 0],
        [0, 0],
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
    ),
    (
        [0xffffffff; 4],
        [0xffffffff; 2],
        [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
    ),
    (
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answers() {
        for (ctr, key, want) in KAT {
            assert_eq!(
                philox4x32_10(ctr, key),
                want,
                "ctr {ctr:08x?} key {key:08x?}"
            );
        }
    }

    #[test]
    fn block_layout_is_counter_then_stream_then_key() {
        let (ctr, key, want) = KAT[2];
        let seed = (key[1] as u64) << 32 | key[0] as u64;
        let blk = (ctr[1] as u64) << 32 | ctr[0] as u64;
        let stream = (ctr[3] as u64) << 32 | ctr[2] as u64;
        assert_eq!(block(seed, stream, blk), want);
        assert_eq!(block(u64::MAX, u64::MAX, u64::MAX), KAT[1].2);
    }

    #[test]
    fn neighbouring_counters_and_keys_differ_in_about_half_the_bits() {
        let base = block(1, 0, 0);
        for (s, b) in [(1, 1), (2, 0), (1 << 32, 0)] {
            let other = block(s, 0, b);
            let diff: u32 = base
                .iter()
                .zip(&other)
                .map(|(x, y)| (x ^ y).count_ones())
                .sum();
            assert!((40..=88).contains(&diff), "{diff} bits differ");
        }
    }
}
