//! Texts mixed from fragments at random, and long texts: the screen
//! never hides a match, and rounds are idempotent.

use super::*;

/// Random mixes of fragments that stress the rules' edges: no panic
/// (char boundaries), idempotence, and the trigger never hides a match.
#[test]
fn random_mixes() {
    fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
        std::env::var(name).ok()?.parse().ok()
    }
    check_mixes(
        env("MIX_SEED").unwrap_or(0x9e3779b97f4a7c15),
        env("MIX_ROUNDS").unwrap_or(4000),
        env("MIX_LEN").unwrap_or(12),
        |_| true,
    );
}

/// The same on long texts (a tool's output up to the redactor's window):
/// the screen decides for them too.
#[test]
fn random_long_mixes() {
    check_mixes(0x2545f4914f6cdd1d, 150, 900, |_| true);
}

/// The same with no home under a drive letter (no `users`): the home and
/// name rule is then tried where the screen found its literals, which a
/// long text gives in no order (walked in pieces side by side).
#[test]
fn random_long_mixes_without_drive_homes() {
    check_mixes(0x94d049bb133111eb, 300, 400, |f| {
        !f.to_lowercase().replace('ſ', "s").contains("users")
    });
}

/// `rounds` texts of 1 to `len` fragments, of those `keep` keeps.
fn check_mixes(mut seed: u64, rounds: usize, len: u64, keep: fn(&str) -> bool) {
    let homes = vec!["/home/dana".to_string(), "C:\\Users\\Élodie".to_string()];
    let red = Redactor::new(&RedactConfig {
        home_dirs: homes.clone(),
        ..cfg()
    })
    .unwrap();
    // The same rules compiled in two steps, as a build does.
    let owner = crate::knowledge::redact::Owner {
        home_dirs: homes,
        ..Default::default()
    };
    let ahead = Redactor::for_owner(Redactor::prepare(&[]).unwrap(), owner).unwrap();
    assert_eq!(ahead.fingerprint(), red.fingerprint());
    let gh = "ghp_".to_string() + &"a1B2".repeat(9);
    let sk = "sk-".to_string() + "ant-" + &alnum(30);
    let frags: Vec<String> = vec![
        "password".into(),
        "token".into(),
        "Token".into(),
        "_PASS".into(),
        "secret".into(),
        "api_key".into(),
        "Api-Key".into(),
        "--access_key ".into(),
        "PWD>".into(),
        "<pwd>".into(),
        "auth".into(),
        "=".into(),
        ": ".into(),
        ":".into(),
        "\"".into(),
        "\\\"".into(),
        "'".into(),
        "\\n".into(),
        "\n".into(),
        " ".into(),
        "é".into(),
        "’".into(),
        "日本".into(),
        "dana".into(),
        "Dana".into(),
        "élodie".into(),
        "/home/dana".into(),
        "C:\\Users\\Élodie".into(),
        // the home and name rule tried where the screen found its
        // literals: dashed homes, others' homes, names glued to more
        "-home-dana".into(),
        "/home/".into(),
        "/Users/".into(),
        "/var".into(),
        "s-MacBook".into(),
        "2".into(),
        "/".into(),
        "\\".into(),
        "hunter2".into(),
        "$X".into(),
        "https://".into(),
        "u:p@h".into(),
        "@".into(),
        "-----BEGIN PRIVATE KEY-----".into(),
        "-----END PRIVATE KEY-----".into(),
        "MIIEvQ".into(),
        "[REDACTED:x]".into(),
        "[".into(),
        "]".into(),
        gh.clone(),
        sk.clone(),
        "eyJ".into(),
        "abc.".into(),
        "Bearer ".into(),
        "--token ".into(),
        "<password>".into(),
        "</password>".into(),
        "&".into(),
        "x=1".into(),
        "curl -u ".into(),
        "(".into(),
        "Foo".into(),
        ",".into(),
        "_".into(),
        "-".into(),
        // homes under a drive letter (the people screen) and tokens after
        // a left context (the token screens)
        "Users".into(),
        "D:\\Users\\eve".into(),
        "/c/Users/bob".into(),
        "c:/uſers/".into(),
        // a home whose backslashes a shell ate, glued to what follows
        "C:UsersÉlodie".into(),
        "c:uſersélodie".into(),
        "Élodie".into(),
        "uſers".into(),
        "USERS".into(),
        "c:".into(),
        "/c/".into(),
        "/mnt".into(),
        "\u{212A}".into(),
        "ſ".into(),
        "123456789:AA".to_string() + &alnum(33),
        "hf_".to_string() + &alnum(30),
        "%3D".into(),
        "%2F".into(),
        "%5c".into(),
        "AIza".to_string() + &alnum(35),
        "-b ".into(),
        "-B\t".into(),
        "--Cookie ".into(),
        "_Key".into(),
        "PWD =".into(),
        // e-mail addresses, and names before them
        "dana@acme.io".into(),
        "%40".into(),
        "acme.io".into(),
        ".com".into(),
        "<".into(),
        ">".into(),
        "noreply".into(),
        "Jane Doe ".into(),
        "Author: ".into(),
        "example.com".into(),
    ];
    let frags: Vec<String> = frags.into_iter().filter(|f| keep(f)).collect();
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..rounds {
        let n = 1 + (next() % len) as usize;
        let text: String = (0..n)
            .map(|_| frags[(next() % frags.len() as u64) as usize].as_str())
            .collect();
        assert_eq!(
            red.pipeline(&text, true, &mut Tally::default()),
            red.pipeline(&text, false, &mut Tally::default()),
            "trigger hid a match in {text:?}"
        );
        let once = red.redact(&text).into_owned();
        assert_eq!(ahead.redact(&text), once, "compiled ahead: {text:?}");
        let twice = red.redact(&once).into_owned();
        assert_eq!(once, twice, "not idempotent: {text:?}");
        assert!(
            !once.contains(&gh) && !once.contains(&sk),
            "{text:?} -> {once:?}"
        );
        // An address stands whole after a boundary only where a rule took
        // part of it first (then no `@acme.io` is left either).
        assert!(!once.contains(" dana@acme.io "), "{text:?} -> {once:?}");
    }
}

/// A long text is screened in pieces side by side, which find the home
/// and name rule's literals in no order: the rule, tried at each place
/// found, still replaces every home in the order a search would.
#[test]
fn homes_in_every_piece_of_a_long_text_are_replaced() {
    let red = Redactor::new(&RedactConfig {
        home_dirs: vec!["/home/dana".into()],
        ..cfg()
    })
    .unwrap();
    let text = format!(
        "{} /home/dana/a {} /home/dana/b {} dana {}",
        "x".repeat(60),
        "y".repeat(50),
        "z".repeat(100),
        "w".repeat(200)
    );
    let screened = red.pipeline(&text, true, &mut Tally::default());
    assert_eq!(screened, red.pipeline(&text, false, &mut Tally::default()));
    assert!(screened.contains(" ~/a ") && screened.contains(" ~/b ") && !screened.contains("dana"));
}
