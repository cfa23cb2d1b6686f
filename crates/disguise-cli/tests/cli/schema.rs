//! `disguise schema`: a draft from the header row only, which does not parse until filled in.

use crate::common;

use common::{StdoutOk, dir_with, disguise, fails_with, words};

#[test]
fn a_draft_from_the_header_only_becomes_a_working_schema_once_filled_in() {
    // The values are never read: a record that is not even numeric does not matter.
    let csv = "diagnosis,radius\nM,not-read\n";
    let dir = dir_with("draft", &[("d.csv", csv)]);
    let out = disguise(&dir)
        .args(words(
            "schema --data d.csv --target diagnosis --categorical diagnosis",
        ))
        .stdout_ok();
    let draft = String::from_utf8(out).unwrap();
    assert!(draft.contains("has_header = true"), "{draft}");
    assert!(draft.contains("target = \"diagnosis\""), "{draft}");
    assert!(
        draft.contains("name = \"radius\"\ntype = \"numeric\""),
        "{draft}"
    );
    assert!(
        !draft.contains("not-read") && !draft.contains('M'),
        "{draft}"
    );
    // Unfilled, it is refused with its position; filled, features runs on it.
    std::fs::write(dir.join("s.toml"), &draft).unwrap();
    std::fs::write(
        dir.join("data.csv"),
        "diagnosis,radius\nM,20\nB,10\nM,22\nB,9\n",
    )
    .unwrap();
    let run = "features --data data.csv --schema s.toml --k 1 --epsilon 1";
    fails_with(&dir, &words(run), "s.toml:");
    let filled = draft
        .replace(
            "levels = [] # FILL IN: every possible value",
            "levels = [\"B\", \"M\"]",
        )
        .replace("bounds = [] # FILL IN: [min, max]", "bounds = [0, 40]");
    std::fs::write(dir.join("s.toml"), filled).unwrap();
    disguise(&dir).args(words(run)).assert().success();
}

#[test]
fn a_headerless_file_gets_its_names_from_the_command_line() {
    let dir = dir_with("columns", &[]);
    let out = disguise(&dir)
        .args(words(
            "schema --columns a,b,class --categorical class --target class",
        ))
        .stdout_ok();
    let draft = String::from_utf8(out).unwrap();
    assert!(draft.contains("has_header = false"), "{draft}");
    assert_eq!(draft.matches("[[columns]]").count(), 3, "{draft}");
    fails_with(
        &dir,
        &words("schema --columns a,b --target c"),
        "no column \"c\"",
    );
}

#[test]
fn schema_takes_the_header_options_its_errors_suggest() {
    // A headerless, semicolon-separated file: the reader's error suggests --no-header, which
    // `schema` takes like every other command; the draft records the layout.
    let dir = dir_with(
        "layout",
        &[("c.csv", "1,2,3\n4,5,6\n"), ("s.csv", "1;2;3\n4;5;6\n")],
    );
    fails_with(&dir, &words("schema --data c.csv"), "--no-header");
    let out = disguise(&dir)
        .args(words("schema --data c.csv --no-header"))
        .stdout_ok();
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("has_header = false\ndelimiter = \",\"")
    );
    let out = disguise(&dir)
        .args([
            "schema",
            "--data",
            "s.csv",
            "--no-header",
            "--delimiter",
            ";",
        ])
        .stdout_ok();
    let draft = String::from_utf8(out).unwrap();
    assert!(
        draft.contains("has_header = false\ndelimiter = \";\""),
        "{draft}"
    );
    for name in ["c1", "c2", "c3"] {
        assert!(draft.contains(&format!("name = \"{name}\"")), "{draft}");
    }
    // Filled in, the draft reads the file as drafted.
    let filled = draft.replace("bounds = [] # FILL IN: [min, max]", "bounds = [0, 10]");
    std::fs::write(dir.join("s.toml"), filled).unwrap();
    disguise(&dir)
        .args(words(
            "synth --data s.csv --schema s.toml --epsilon 1 --out h.csv -q",
        ))
        .assert()
        .success();
}
