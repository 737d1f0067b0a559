//! E-mail addresses and the names before them, planted at random places
//! in random shapes: none survives redaction.

use super::*;

/// A random address (of a random local part, domain and case, `@` or its
/// URL escape) and a random name, written the ways transcripts hold them,
/// at a random place of a text of code, prose and JSON: the address and
/// the name are gone, the text around stays.
#[test]
fn planted_addresses_never_survive() {
    let red = red();
    let mut seed = 0x853c49e6748fea9b_u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let filler = [
        "fn main() { println!(\"hi\"); }\n",
        "The build passed after the third try. ",
        "{\"type\":\"tool_result\",\"content\":\"ok\"}\n",
        "@decorator\nclass Foo: pass\n",
        "npm i @types/node pkg@1.2.3\n",
        "git push origin HEAD@{1}\n",
        "| name | value |\n|---|---|\n",
    ];
    let contexts: &[&str] = &[
        "mail {a} today.",
        "{\"email\":\"{a}\"}",
        "line\\n{a}\\n",
        "Author: {n} <{a}>\nDate:   Mon",
        "    12\t{n} <{a}>",
        "authors = [\"{n} <{a}>\"]",
        "From: \"{n}\" <{a}>",
        "<a href=\"mailto:{a}\">x</a>",
        "Co-authored-by: {n} <{a}>",
        "({a})",
        "'{a}',",
        "https://{a}/repo",
    ];
    for _ in 0..2_000 {
        let local = random_local(&mut next);
        let domain = random_domain(&mut next);
        let at = if next(5) == 0 { "%40" } else { "@" };
        let address = format!("{local}{at}{domain}");
        let name = random_name(&mut next);
        let context = contexts[next(contexts.len())]
            .replace("{a}", &address)
            .replace("{n}", &name);
        let mut text = String::new();
        let place = next(8);
        for i in 0..8 {
            if i == place {
                text.push_str(&context);
                text.push('\n');
            }
            text.push_str(filler[next(filler.len())]);
        }
        let out = red.redact(&text);
        assert!(
            !out.contains(&address) && !out.contains(&format!("{local}{at}")),
            "address left in {text:?} -> {out:?}"
        );
        if context.contains(&format!("{name} <")) || context.contains(&format!("\"{name}\"")) {
            assert!(!out.contains(&name), "name left in {text:?} -> {out:?}");
        }
        for f in filler {
            if text.contains(f) {
                assert!(out.contains(f), "{f:?} lost from {text:?} -> {out:?}");
            }
        }
    }
}

fn random_local(next: &mut impl FnMut(usize) -> usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-";
    let len = 6 + next(14);
    let mut s = String::from("q");
    while s.len() < len {
        s.push(CHARS[next(CHARS.len())] as char);
    }
    // No dot at the end, none twice (as a mail server takes them).
    while s.ends_with('.') || s.contains("..") {
        s = s.replace("..", ".").trim_end_matches('.').to_string() + "z";
    }
    s
}

fn random_domain(next: &mut impl FnMut(usize) -> usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-";
    let labels = 1 + next(3);
    let mut d = String::new();
    for _ in 0..labels {
        d.push((b'a' + next(26) as u8) as char);
        for _ in 0..next(10) {
            d.push(CHARS[next(CHARS.len())] as char);
        }
        d.push('.');
    }
    let tlds = [
        "com", "io", "CO", "org", "de", "tw", "dev", "Uk", "cn", "local",
    ];
    d + tlds[next(tlds.len())]
}

fn random_name(next: &mut impl FnMut(usize) -> usize) -> String {
    let words = [
        "Jane", "O'Brien", "Jason.lu", "Walter", "Élodie", "van", "Holt-Wu", "JL104",
    ];
    let n = 1 + next(3);
    (0..n)
        .map(|_| words[next(words.len())])
        .collect::<Vec<_>>()
        .join(" ")
}
