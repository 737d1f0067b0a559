//! Where a private key's PEM block ends: at its `-----END … PRIVATE
//! KEY-----` line, or, for a block a preview or a tool cut short, after
//! the base64 lines that follow its header.

use super::engine::is_b64;
use memchr::memmem;

/// End of the PEM block whose header ends at `from`: the end of its
/// `-----END ...-----` line, or for a truncated block the end of the base64
/// lines after the header. None when nothing key-like follows the header
/// (e.g. code that merely mentions the header string).
pub(super) fn block_end(b: &[u8], from: usize) -> Option<usize> {
    const WINDOW: usize = 64 * 1024;
    let lim = (from + WINDOW).min(b.len());
    let win = &b[from..lim];
    if let Some(i) = memmem::find(win, b"-----END ") {
        let body = &win[..i];
        let clean = !body
            .iter()
            .any(|c| matches!(c, b'"' | b'\'' | b'`' | b'{' | b'}' | b';'))
            && memmem::find(body, b"-----BEGIN").is_none();
        if clean {
            if let Some(n) = end_line(&win[i..]) {
                return Some(from + i + n);
            }
        }
    }
    // Truncated block: base64 runs separated by (escaped) line breaks, and
    // separated from the header: `-----BEGIN ...-----MIIE` is no PEM body.
    let mut i = from;
    let mut end = None;
    let mut first = true;
    loop {
        // separators
        let mut j = i;
        loop {
            if j < b.len() && matches!(b[j], b' ' | b'\t' | b'\r' | b'\n') {
                j += 1;
            } else if j + 1 < b.len() && b[j] == b'\\' {
                let mut k = j;
                while k < b.len() && b[k] == b'\\' && k - j < 3 {
                    k += 1;
                }
                if k < b.len() && matches!(b[k], b'n' | b'r' | b't') {
                    j = k + 1;
                } else {
                    break;
                }
            } else {
                break;
            }
        }
        if first && j == i {
            return None;
        }
        first = false;
        // PEM headers of encrypted keys: "Proc-Type: 4,ENCRYPTED", "DEK-Info: ..."
        let rest = &b[j..];
        if rest.starts_with(b"Proc-Type:") || rest.starts_with(b"DEK-Info:") {
            let mut k = j;
            while k < b.len() && b[k] != b'\n' && b[k] != b'\\' {
                k += 1;
            }
            end = Some(k);
            i = k;
            continue;
        }
        let mut k = j;
        while k < b.len() && is_b64(b[k]) {
            k += 1;
        }
        if k == j {
            break;
        }
        let run = k - j;
        let after = b.get(k).copied();
        // A short word must end a line (or the quoted text, or a "...");
        // followed by a space (prose) or anything else it is no key material.
        let ok = run >= 20
            || matches!(
                after,
                None | Some(b'\n' | b'\r' | b'\\' | b'"' | b'\'' | b'`' | b'.')
            );
        if !ok {
            break;
        }
        end = Some(k);
        i = k;
        if run < 20 && !matches!(after, None | Some(b'\n' | b'\r' | b'\\')) {
            break;
        }
    }
    end
}

/// Length of `-----END <WORDS> PRIVATE KEY[ BLOCK]-----` at the start of `b`.
fn end_line(b: &[u8]) -> Option<usize> {
    let mut i = b"-----END ".len();
    let start = i;
    while i < b.len()
        && i - start <= 40
        && (b[i].is_ascii_uppercase() || b[i].is_ascii_digit() || b[i] == b' ')
    {
        i += 1;
    }
    let words = &b[start..i];
    if !(words.ends_with(b"PRIVATE KEY") || words.ends_with(b"PRIVATE KEY BLOCK")) {
        return None;
    }
    b[i..].starts_with(b"-----").then_some(i + 5)
}
