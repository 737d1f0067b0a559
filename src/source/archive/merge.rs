//! One JSONL file from several copies of it: every line once (by its
//! `uuid`, else by its bytes), in time order.

use serde::Deserialize;
use std::collections::HashSet;

/// The fields a line is known and ordered by.
#[derive(Deserialize, Default)]
struct Keys {
    uuid: Option<String>,
    timestamp: Option<Stamp>,
}

/// A time as transcripts (RFC 3339) or history (milliseconds) write it.
#[derive(Deserialize)]
#[serde(untagged)]
enum Stamp {
    Text(String),
    Millis(i64),
}

impl Stamp {
    fn millis(&self) -> Option<i64> {
        match self {
            Stamp::Millis(m) => Some(*m),
            Stamp::Text(t) => chrono::DateTime::parse_from_rfc3339(t)
                .ok()
                .map(|d| d.timestamp_millis()),
        }
    }
}

/// The lines of every copy, each once: the longest copy's in its order,
/// then what the others add, all in time order (a line without a time
/// stays after the line before it).
pub fn merge(mut copies: Vec<Vec<u8>>) -> Vec<u8> {
    copies.sort_by_key(|c| std::cmp::Reverse(c.len()));
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut lines: Vec<(i64, usize, &[u8])> = Vec::new();
    let mut last_time = i64::MIN;
    for copy in &copies {
        for line in copy.split(|b| *b == b'\n') {
            let trimmed = line.strip_suffix(b"\r").unwrap_or(line);
            if trimmed.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let keys: Keys = serde_json::from_slice(trimmed).unwrap_or_default();
            let key = match &keys.uuid {
                Some(u) => [b"u:".as_slice(), u.as_bytes()].concat(),
                None => [b"l:".as_slice(), trimmed].concat(),
            };
            if !seen.insert(key) {
                continue;
            }
            if let Some(t) = keys.timestamp.as_ref().and_then(Stamp::millis) {
                last_time = t;
            }
            lines.push((last_time, lines.len(), line));
        }
        last_time = i64::MIN;
    }
    lines.sort_by_key(|(t, i, _)| (*t, *i));
    let mut out = Vec::with_capacity(copies.first().map_or(0, Vec::len));
    for (_, _, line) in lines {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_seen_in_two_copies_are_kept_once_in_time_order() {
        let a = b"{\"uuid\":\"1\",\"timestamp\":\"2026-01-01T10:00:00Z\"}\n\
                  {\"type\":\"summary\",\"summary\":\"s\"}\n\
                  {\"uuid\":\"3\",\"timestamp\":\"2026-01-01T10:02:00Z\"}\n"
            .to_vec();
        let b = b"{\"uuid\":\"1\",\"timestamp\":\"2026-01-01T10:00:00Z\"}\n\
                  {\"uuid\":\"2\",\"timestamp\":\"2026-01-01T10:01:00Z\"}\n\
                  {\"type\":\"summary\",\"summary\":\"s\"}\n"
            .to_vec();
        let merged = String::from_utf8(merge(vec![a, b])).unwrap();
        let ids: Vec<&str> = merged
            .lines()
            .map(|l| l.split('"').nth(3).unwrap_or(""))
            .collect();
        assert_eq!(ids, ["1", "summary", "2", "3"]);
    }

    #[test]
    fn history_lines_without_ids_are_merged_by_their_bytes() {
        let a =
            b"{\"display\":\"a\",\"timestamp\":1}\n{\"display\":\"b\",\"timestamp\":2}\n".to_vec();
        let b =
            b"{\"display\":\"b\",\"timestamp\":2}\n{\"display\":\"c\",\"timestamp\":3}\n".to_vec();
        let merged = String::from_utf8(merge(vec![a, b])).unwrap();
        assert_eq!(merged.lines().count(), 3);
        assert!(merged.ends_with("\"c\",\"timestamp\":3}\n"));
    }
}
