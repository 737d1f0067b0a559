//! Crossing a JSON string 64 bytes at a time: compares give one bit a
//! byte for quotes, backslashes, control characters and the letters of
//! common escapes, and bit arithmetic finds which bytes the backslashes
//! escape.
//!
//! The compares use 16-byte vectors, which every x86-64 and ARM64 CPU
//! has, or, where the CPU has AVX-512BW (chosen at run time), one 64-byte
//! compare a mask, which gives the block's mask as it is: a cold build of
//! 1 GB took 5 % less time with it on an Intel Xeon (user time 1.73 →
//! 1.62 s over four alternating runs). 32-byte AVX2 compares made the skim
//! a third fewer instructions but the build 7 % more CPU time on the same
//! kind of machine (two 32-bit masks have to be joined into one), so they
//! are not used.

use super::Refused;
use wide::u8x16;

/// Past the string whose body starts at `at` (just after its opening
/// quote): where it ends (just after its closing quote), and whether it
/// holds an escape. Every escape is checked as serde_json checks it (a
/// `\u` needs four hex digits), and a control character refuses the
/// string.
pub(super) fn end(bytes: &[u8], at: usize) -> Result<(usize, bool), Refused> {
    if let Some(end) = short_end(bytes, at) {
        return Ok((end, false));
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU has AVX-512BW, as just checked.
        return unsafe { end_avx512(bytes, at) };
    }
    end_with(bytes, at, Block::at)
}

/// The end of a string whose body starts at `at` when its closing quote
/// is among the next 32 bytes with no backslash or control character
/// before it, else None. Most strings of a transcript are that short and
/// plain (keys, ids, times: 5.5 of the 8 million strings of 1 GB of
/// transcripts end within 32 bytes), and for them a block of 64 bytes
/// cost more than its bytes: a call that cannot be inlined (the AVX-512
/// one), the CPU's features checked, the escapes' arithmetic. Looking
/// here first made a cold build of 1 GB 2 % faster (six alternating runs);
/// looking at 64 bytes was no faster than at 32.
#[inline(always)]
fn short_end(bytes: &[u8], at: usize) -> Option<usize> {
    let chunk = bytes.get(at..at + 32)?;
    let (mut quotes, mut stops) = (0u32, 0u32);
    for (k, lane) in chunk.chunks_exact(16).enumerate() {
        let [quote, slash, control] = classes(u8x16::new(lane.try_into().ok()?));
        let bits = |m: u8x16| m.to_bitmask() << (16 * k);
        quotes |= bits(quote);
        stops |= bits(slash | control);
    }
    let quote = quotes.trailing_zeros();
    (quote < stops.trailing_zeros()).then(|| at + quote as usize + 1)
}

/// A lane's quotes, backslashes and control characters: a compare mask
/// each (all ones where the byte is one).
#[inline(always)]
fn classes(v: u8x16) -> [u8x16; 3] {
    let splat = u8x16::splat;
    let control = v.min(splat(0x1f)).simd_eq(v);
    [v.simd_eq(splat(b'"')), v.simd_eq(splat(b'\\')), control]
}

/// [`end`] with 64-byte compares.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
pub(super) fn end_avx512(bytes: &[u8], at: usize) -> Result<(usize, bool), Refused> {
    end_with(bytes, at, |b, a| Block::at_avx512(b, a))
}

/// [`end`], the masks of each block from `block_at`.
#[inline(always)]
pub(super) fn end_with(
    bytes: &[u8],
    mut at: usize,
    block_at: impl Fn(&[u8], usize) -> Block,
) -> Result<(usize, bool), Refused> {
    // 1 when the block's first byte is escaped by the block before.
    let mut carry = 0u64;
    let mut escaped = false;
    while at < bytes.len() {
        let block = block_at(bytes, at);
        let (followers, next_carry) = escaped_bytes(block.slashes, carry);
        let quote = (block.quotes & !followers).trailing_zeros();
        let before = match quote {
            64 => u64::MAX,
            q => (1 << q) - 1,
        };
        if block.controls & before != 0 {
            return Err(Refused);
        }
        let followers = followers & before;
        escaped |= block.slashes & before != 0;
        // What follows a backslash: `"`, `\`, `n`, `t` and `r` are read
        // in the masks; the rest (`/`, `b`, `f`, `\u` and four hex
        // digits) byte by byte.
        let mut odd = followers & !block.common_escapes;
        while odd != 0 {
            let i = at + odd.trailing_zeros() as usize;
            match bytes.get(i) {
                Some(b'/' | b'b' | b'f') => {}
                Some(b'u') if bytes.get(i + 1..i + 5).is_some_and(all_hex) => {}
                _ => return Err(Refused),
            }
            odd &= odd - 1;
        }
        if quote < 64 {
            return Ok((at + quote as usize + 1, escaped));
        }
        carry = next_carry;
        at += 64;
    }
    Err(Refused)
}

fn all_hex(digits: &[u8]) -> bool {
    digits.iter().all(u8::is_ascii_hexdigit)
}

/// Where 64 bytes of a string hold quotes, backslashes, control
/// characters and the letters of common escapes, one bit a byte.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Block {
    pub quotes: u64,
    pub slashes: u64,
    pub controls: u64,
    /// `"`, `\\`, `n`, `t`, `r`: what nearly every escape is.
    pub common_escapes: u64,
}

impl Block {
    /// The masks of the 64 bytes of `bytes` from `at` (bytes past the end
    /// read as spaces).
    pub(super) fn at(bytes: &[u8], at: usize) -> Block {
        match bytes
            .get(at..at + 64)
            .and_then(|c| <&[u8; 64]>::try_from(c).ok())
        {
            Some(chunk) => Block::of(chunk),
            None => {
                let mut padded = [b' '; 64];
                let rest = &bytes[at.min(bytes.len())..];
                padded[..rest.len()].copy_from_slice(rest);
                Block::of(&padded)
            }
        }
    }

    /// [`Block::at`] with 64-byte compares.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw")]
    pub(super) fn at_avx512(bytes: &[u8], at: usize) -> Block {
        use std::arch::x86_64::*;
        let v = match bytes.get(at..at + 64) {
            // SAFETY: 64 bytes are there to read.
            Some(chunk) => unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) },
            None => {
                let mut padded = [b' '; 64];
                let rest = &bytes[at.min(bytes.len())..];
                padded[..rest.len()].copy_from_slice(rest);
                // SAFETY: 64 bytes are there to read.
                unsafe { _mm512_loadu_si512(padded.as_ptr().cast()) }
            }
        };
        let eq = |c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
        let quotes = eq(b'"');
        let slashes = eq(b'\\');
        Block {
            quotes,
            slashes,
            controls: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
            common_escapes: quotes | slashes | eq(b'n') | eq(b't') | eq(b'r'),
        }
    }

    /// The masks of `chunk`.
    pub(super) fn of(chunk: &[u8; 64]) -> Block {
        let splat = u8x16::splat;
        let mut block = Block {
            quotes: 0,
            slashes: 0,
            controls: 0,
            common_escapes: 0,
        };
        for (k, lane) in chunk.chunks_exact(16).enumerate() {
            let v = u8x16::new(lane.try_into().unwrap_or([b' '; 16]));
            let bits = |m: u8x16| u64::from(m.to_bitmask()) << (16 * k);
            let [quotes, slashes, controls] = classes(v);
            let letters = v.simd_eq(splat(b'n')) | v.simd_eq(splat(b't')) | v.simd_eq(splat(b'r'));
            block.quotes |= bits(quotes);
            block.slashes |= bits(slashes);
            block.controls |= bits(controls);
            block.common_escapes |= bits(quotes | slashes | letters);
        }
        block
    }
}

/// The bytes other than backslashes that a backslash escapes, in a block
/// whose backslashes are `slashes` (`carry`: 1 when its first byte is
/// escaped by the block before), and the carry for the next block.
///
/// In a run of backslashes each escapes the next, so the byte after the
/// run is escaped when the run's length is odd. Adding 1 at a run's first
/// bit carries through the run to the bit just past it; the run's length is
/// odd when that bit's parity differs from the first's.
pub(super) fn escaped_bytes(slashes: u64, carry: u64) -> (u64, u64) {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    // A first byte escaped is no backslash that escapes.
    let first = carry & !slashes;
    let slashes = slashes & !carry;
    let starts = slashes & !(slashes << 1);
    let past_even = slashes.wrapping_add(starts & EVEN) & !slashes;
    let (sum, overflow) = slashes.overflowing_add(starts & !EVEN);
    let past_odd = sum & !slashes;
    let odd_runs_end = (past_even & !EVEN) | (past_odd & EVEN);
    (odd_runs_end | first, u64::from(overflow))
}
