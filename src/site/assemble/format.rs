//! Dates and durations as pages show them.

use chrono::{DateTime, Datelike, Timelike, Utc};
use std::fmt::Write;

// By hand, not with chrono's `format`, which reads its pattern anew at
// every call: a gigabyte's pages show hundreds of thousands of times, and
// formatting them was a fortieth of rendering. Years chrono writes with a
// sign (before 0, after 9999) are left to it.

pub(super) fn day(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| match four_digit_year(&t) {
        true => {
            let mut s = String::with_capacity(10);
            push_day(&mut s, &t);
            s
        }
        false => t.format("%Y-%m-%d").to_string(),
    })
}

pub(super) fn date_time(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| match four_digit_year(&t) {
        true => {
            let mut s = String::with_capacity(20);
            push_day(&mut s, &t);
            s.push(' ');
            push_clock(&mut s, &t);
            s.push_str(" UTC");
            s
        }
        false => t.format("%Y-%m-%d %H:%M UTC").to_string(),
    })
}

/// A turn's time of day, if it has one.
pub(super) fn clock(ts: Option<DateTime<Utc>>) -> Option<ClockText> {
    ts.as_ref().map(clock_text)
}

fn four_digit_year(t: &DateTime<Utc>) -> bool {
    (0..=9999).contains(&t.year())
}

/// `2026-11-26` (a year of four digits).
fn push_day(s: &mut String, t: &DateTime<Utc>) {
    let _ = write!(s, "{:04}-{:02}-{:02}", t.year(), t.month(), t.day());
}

/// `09:05`.
fn push_clock(s: &mut String, t: &DateTime<Utc>) {
    s.push_str(clock_text(t).as_str());
}

/// A time's `09:05`, held without allocating (a session page shows one
/// for each of its turns); a template gets it as a string.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ClockText([u8; 5]);

impl ClockText {
    /// `hour:minute`, each of two digits (taken modulo 100).
    pub fn new(hour: u32, minute: u32) -> ClockText {
        let digit = |n: u32| b'0' + (n % 10) as u8;
        ClockText([
            digit(hour / 10),
            digit(hour),
            b':',
            digit(minute / 10),
            digit(minute),
        ])
    }

    pub fn as_str(&self) -> &str {
        // Digits and a colon: always UTF-8.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::fmt::Debug for ClockText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for ClockText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

pub(super) fn clock_text(t: &DateTime<Utc>) -> ClockText {
    ClockText::new(t.hour(), t.minute())
}

/// A human duration: `45 s`, `12 min`, `2 h 05 min`.
pub fn duration(start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>) -> Option<String> {
    let secs = (end? - start?).num_seconds();
    if secs < 0 {
        return None;
    }
    Some(match secs {
        0..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min", secs / 60),
        _ => format!("{} h {:02} min", secs / 3600, (secs % 3600) / 60),
    })
}

pub(super) fn month_key(ts: DateTime<Utc>) -> String {
    format!("{:04}-{:02}", ts.year(), ts.month())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Days, times and clocks read as chrono's patterns write them,
        /// over every year chrono knows.
        #[test]
        fn written_as_chronos_patterns_write_them(secs in -8_000_000_000_000i64..8_000_000_000_000i64) {
            let t = DateTime::from_timestamp(secs, 0);
            proptest::prop_assume!(t.is_some());
            proptest::prop_assert_eq!(day(t), t.map(|t| t.format("%Y-%m-%d").to_string()));
            proptest::prop_assert_eq!(date_time(t), t.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()));
            let want = t.map(|t| t.format("%H:%M").to_string());
            let got = clock(t);
            proptest::prop_assert_eq!(got.as_ref().map(ClockText::as_str), want.as_deref());
        }
    }

    #[test]
    fn ordinary_and_far_dates() {
        let t = |s: &str| Some(DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc));
        assert_eq!(
            date_time(t("2026-01-05T09:07:00Z")).as_deref(),
            Some("2026-01-05 09:07 UTC")
        );
        assert_eq!(
            day(t("0042-12-31T23:59:59Z")).as_deref(),
            Some("0042-12-31")
        );
        assert_eq!(
            clock(t("2026-01-05T00:00:59Z"))
                .as_ref()
                .map(ClockText::as_str),
            Some("00:00")
        );
        let far = DateTime::from_timestamp(400_000_000_000, 0);
        assert_eq!(day(far), far.map(|t| t.format("%Y-%m-%d").to_string()));
        assert!(day(far).is_some_and(|d| d.starts_with('+')));
        assert_eq!(date_time(None), None);
    }

    #[test]
    fn durations() {
        let t = |s: &str| Some(DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc));
        assert_eq!(
            duration(t("2026-01-01T00:00:00Z"), t("2026-01-01T00:00:45Z")).as_deref(),
            Some("45 s")
        );
        assert_eq!(
            duration(t("2026-01-01T00:00:00Z"), t("2026-01-01T02:05:00Z")).as_deref(),
            Some("2 h 05 min")
        );
        assert_eq!(duration(t("2026-01-01T00:00:00Z"), None), None);
    }
}
