//! Randomness (one seeded PRNG) and time, without reading the clock.

use super::*;

/// splitmix64: tiny, fast, and the same on every platform.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        let mut r = Rng(seed ^ 0x5DEE_CE66_D1CE_B00C);
        r.next();
        r
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    pub(crate) fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    pub(crate) fn word(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.below(xs.len() as u64) as usize]
    }
    /// Log-uniform in `lo..hi`.
    pub(crate) fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }
    /// Geometric-ish count with the given mean, at least 1, at most `max`.
    pub(crate) fn count(&mut self, mean: f64, max: u64) -> u64 {
        let p = 1.0 / mean.max(1.0);
        let mut n = 1;
        while n < max && !self.chance(p) {
            n += 1;
        }
        n
    }
    /// Pick an index by weight.
    pub(crate) fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w as u64 {
                return i;
            }
            x -= w as u64;
        }
        weights.len() - 1
    }
}

pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";
pub(crate) const B62: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub(crate) const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub(crate) fn uuid(r: &mut Rng) -> String {
    let (a, b) = (r.next(), r.next());
    let mut s = String::with_capacity(36);
    for i in 0..32 {
        let word = if i < 16 { a } else { b };
        let mut nib = ((word >> ((i % 16) * 4)) & 0xF) as usize;
        if i == 12 {
            nib = 4;
        } else if i == 16 {
            nib = 8 | (nib & 3);
        }
        if matches!(i, 8 | 12 | 16 | 20) {
            s.push('-');
        }
        s.push(HEX[nib] as char);
    }
    s
}

pub(crate) fn from_alphabet(r: &mut Rng, alphabet: &[u8], n: usize) -> String {
    (0..n)
        .map(|_| alphabet[r.below(alphabet.len() as u64) as usize] as char)
        .collect()
}

pub(crate) fn hex(r: &mut Rng, n: usize) -> String {
    from_alphabet(r, HEX, n)
}

// ---------------------------------------------------------------- time

pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

pub(crate) fn ms_at(y: i64, m: i64, d: i64) -> i64 {
    days_from_civil(y, m, d) * 86_400_000
}

/// `2026-01-31T07:22:13.117Z`
pub(crate) fn iso(l: &mut Vec<u8>, ms: i64) {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    pad(l, y as u64, 4);
    l.push(b'-');
    pad(l, mo as u64, 2);
    l.push(b'-');
    pad(l, d as u64, 2);
    l.push(b'T');
    pad(l, h as u64, 2);
    l.push(b':');
    pad(l, mi as u64, 2);
    l.push(b':');
    pad(l, s as u64, 2);
    l.push(b'.');
    pad(l, milli as u64, 3);
    l.push(b'Z');
}
