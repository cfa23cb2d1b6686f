//! The readers of user files on hostile input, in the normal test suite:
//!
//! * every input that once crashed a fuzz target (`fuzz/`) is kept in
//!   `tests/fuzz_regressions/<target>/` and run through the same parser; its file name says
//!   what the parser must answer (`ok-…` accepted, `err-…` refused) — never a panic;
//! * a seeded short run: a few hundred arbitrary byte strings and a few hundred mutations
//!   of the valid files in `fuzz/seeds/<target>/` per parser, asserting no panic (the long
//!   runs are `fuzz/run.sh`; see RELIABILITY.md).
//!
//! The parsers are called exactly as the fuzz targets call them (`support/parsers.rs`).

use crate::support;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use support::parsers::{TARGETS, feed};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch folder for one test's input files.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("fuzz-inputs")
        .join(test);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The files of a folder, sorted (none if it does not exist).
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    files.retain(|p| p.is_file());
    files.sort();
    files
}

#[test]
fn regression_inputs_give_their_recorded_answer() {
    let root = manifest().join("tests/fuzz_regressions");
    let scratch = scratch("regressions");
    let mut seen = 0;
    for target in TARGETS {
        for file in files_in(&root.join(target)) {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&file).unwrap();
            let verdict = feed(target, &bytes, &scratch);
            match name.split('-').next() {
                Some("ok") => assert!(verdict.is_ok(), "{target}/{name}: {verdict:?}"),
                Some("err") => assert!(verdict.is_err(), "{target}/{name}: accepted"),
                _ => panic!("{target}/{name}: name it ok-… or err-…"),
            }
            seen += 1;
        }
    }
    // Folders of targets that never crashed do not exist; at least one input is kept.
    assert!(
        seen > 0,
        "no regression inputs found under {}",
        root.display()
    );
}

/// Bytes that matter to the readers, spliced into valid files.
const TOKENS: &[&[u8]] = &[
    b",",
    b"\"",
    b"\n",
    b"\r\n",
    b"\r",
    "\u{feff}".as_bytes(),
    b"1e308",
    b"-1e308",
    b"NaN",
    b"inf",
    b"-0",
    b"18446744073709551616",
    b"4294967296",
    b"99999999999",
    b"#",
    b"|",
    b";",
    b"?",
    b"=",
    b"[",
    b"]",
    b"\0",
    b"\xff",
    b" ",
    b"\t",
];

/// One edit of a file: flip, insert, delete, splice a token, or duplicate a stretch.
#[derive(Debug, Clone)]
struct Edit {
    op: u8,
    at: usize,
    byte: u8,
    len: usize,
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let at = if bytes.is_empty() {
            0
        } else {
            e.at % (bytes.len() + 1)
        };
        match e.op % 5 {
            0 if at < bytes.len() => bytes[at] ^= e.byte.max(1),
            1 => bytes.insert(at, e.byte),
            2 if at < bytes.len() => {
                let end = (at + e.len % 8 + 1).min(bytes.len());
                bytes.drain(at..end);
            }
            3 => {
                let token = TOKENS[usize::from(e.byte) % TOKENS.len()];
                bytes.splice(at..at, token.iter().copied());
            }
            _ => {
                let end = (at + e.len % 64).min(bytes.len());
                let stretch = bytes[at..end].to_vec();
                bytes.splice(at..at, stretch);
            }
        }
    }
    bytes
}

fn runner(seed: u8, cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// 300 arbitrary byte strings per parser (the first byte is the variant selector).
#[test]
fn seeded_run_arbitrary_bytes_never_panics() {
    let scratch = scratch("arbitrary");
    for (i, target) in TARGETS.iter().enumerate() {
        let mut runner = runner(i as u8, 300);
        let result = runner.run(&prop::collection::vec(any::<u8>(), 0..400), |bytes| {
            let _ = feed(target, &bytes, &scratch);
            Ok(())
        });
        if let Err(e) = result {
            panic!("{target}: {e}");
        }
    }
}

/// 300 mutations of the valid seed files per parser (`fuzz/seeds/<target>/`, and the
/// shipped schemas for `schema`).
#[test]
fn seeded_run_mutated_valid_files_never_panics() {
    let seeds_root = manifest().join("../../fuzz/seeds");
    let scratch = scratch("mutated");
    let edit = (any::<u8>(), any::<usize>(), any::<u8>(), any::<usize>())
        .prop_map(|(op, at, byte, len)| Edit { op, at, byte, len });
    for (i, target) in TARGETS.iter().enumerate() {
        let mut seeds: Vec<Vec<u8>> = files_in(&seeds_root.join(target))
            .iter()
            .map(|p| std::fs::read(p).unwrap())
            .collect();
        if *target == "schema" {
            let schemas = files_in(&manifest().join("schemas"));
            seeds.extend(schemas.iter().map(|p| std::fs::read(p).unwrap()));
        }
        assert!(!seeds.is_empty(), "{target}: no seed files");
        let strategy = (0..seeds.len(), prop::collection::vec(edit.clone(), 1..6));
        let mut runner = runner(100 + i as u8, 300);
        let result = runner.run(&strategy, |(which, edits)| {
            let bytes = apply(seeds[which].clone(), &edits);
            let _ = feed(target, &bytes, &scratch);
            Ok(())
        });
        if let Err(e) = result {
            panic!("{target}: {e}");
        }
    }
}

/// The seed files themselves are accepted: the mutations start from valid input.
#[test]
fn seed_files_are_valid_inputs() {
    let seeds_root = manifest().join("../../fuzz/seeds");
    let scratch = scratch("seeds");
    for target in TARGETS {
        for file in files_in(&seeds_root.join(target)) {
            let bytes = std::fs::read(&file).unwrap();
            let verdict = feed(target, &bytes, &scratch);
            assert!(verdict.is_ok(), "{}: {verdict:?}", file.display());
        }
    }
}
