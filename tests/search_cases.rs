//! The search case table (`tests/search_cases.json`) against `ccwiki
//! search`. The browser suite runs the same table against the page script.

mod common;

#[test]
fn the_cli_ranks_as_the_case_table_says() {
    let cases = common::search_cases();
    assert!(cases.len() >= 6);
    for (query, top) in cases {
        let got = common::cli_search(&query);
        if top.is_empty() {
            assert!(got.is_empty(), "{query:?} should find nothing: {got:?}");
        } else {
            assert!(
                got.len() >= top.len() && got[..top.len()] == top[..],
                "{query:?}: expected {top:?} first, got {got:?}"
            );
        }
    }
}
