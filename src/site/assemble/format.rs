//! Dates and durations as pages show them.

use chrono::{DateTime, Datelike, Utc};

pub(super) fn day(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| t.format("%Y-%m-%d").to_string())
}

pub(super) fn date_time(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
}

pub(super) fn clock(ts: Option<DateTime<Utc>>) -> Option<String> {
    ts.map(|t| t.format("%H:%M").to_string())
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
