//! `disguise demo`: the newcomer's first command. Runs on built-in synthetic data with no
//! file, prints picks and the guarantee, writes a PNG map to the current directory; with
//! `--data`/`--candidates` it uses real files. Errors are one line with exit code 2.

use crate::common;
use common::words;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn dir(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("demo-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn demo(cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("disguise")
        .unwrap()
        .current_dir(cwd)
        .arg("demo")
        .args(args)
        .output()
        .unwrap()
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn default_demo_prints_picks_guarantee_and_writes_a_map() {
    let d = dir("default");
    let out = demo(&d, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("choose 3 of 20 waiting spots to serve 10,000 pickups"),
        "{stdout}"
    );
    for line in ["  1  ", "  2  ", "  3  "] {
        assert!(
            stdout.contains(line),
            "pick row {line:?} missing:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("guarantee: (0.1, 1e-6)-differential privacy"),
        "{stdout}"
    );
    assert!(stdout.contains("non-private greedy"), "{stdout}");
    assert!(
        stdout.contains("map written to disguise-demo-map.png"),
        "{stdout}"
    );
    // An OS-keyed run has no warning on stderr.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h) = png_size(&d.join("disguise-demo-map.png"));
    assert!(w > 800 && h > 600, "{w}x{h}");
}

#[test]
fn json_is_consistent_and_seeded_runs_reproduce() {
    let d = dir("json");
    let args = ["--format", "json", "--seed", "5", "--no-map", "--k", "4"];
    let out = demo(&d, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The seeded run warns that it is not private.
    assert!(String::from_utf8_lossy(&out.stderr).contains("NOT private"));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["records"], 10_000);
    assert_eq!(doc["candidates"], 20);
    assert_eq!(doc["normalizer"], 0.266);
    assert_eq!(doc["secure_rng"], false);
    assert!(doc["map"].is_null());
    assert!(!d.join("disguise-demo-map.png").exists());
    // The release is the private picks; the exact utilities and the non-private greedy's
    // picks are diagnostics, which the demo shows (its data are public), under
    // `not_private`.
    assert!(doc.get("non_private").is_none(), "{doc}");
    assert!(
        doc["private"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p.get("utility_after").is_none()),
        "{doc}"
    );
    let exact = &doc["not_private"];
    for key in ["private", "non_private"] {
        let listed = if key == "private" { &doc } else { exact };
        let picks = listed[key].as_array().unwrap();
        assert_eq!(picks.len(), 4, "{key}");
        let mut idx: Vec<u64> = picks.iter().map(|p| p["index"].as_u64().unwrap()).collect();
        idx.sort_unstable();
        idx.dedup();
        assert_eq!(idx.len(), 4, "{key}: repeated pick");
        // f is monotone: the utility never decreases along the picks.
        let u: Vec<f64> = exact[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["utility_after"].as_f64().unwrap())
            .collect();
        assert_eq!(u.len(), 4, "{key}");
        assert!(u.windows(2).all(|w| w[0] <= w[1]), "{key}: {u:?}");
        assert!(u.iter().all(|x| (0.0..=1.0).contains(x)), "{key}: {u:?}");
    }
    let g = &doc["guarantee"];
    assert!(g["epsilon"].as_f64().unwrap() <= 0.1 && g["delta"].as_f64().unwrap() <= 1e-6);
    // The deterministic greedy starts at the synthetic data's centre of mass (the
    // library's synthetic-data tests pin this down).
    assert_eq!(exact["non_private"][0]["name"], "Empire State Building");
    assert_eq!(
        exact["private_utility"],
        exact["private"][3]["utility_after"]
    );
    let again = demo(&d, &args);
    assert_eq!(out.stdout, again.stdout, "same seed, same output");
}

#[test]
fn real_files_via_data_and_candidates() {
    let d = dir("files");
    // Two tight groups of pickups; one candidate sits on each group, one far away.
    let mut pickups = String::from("lat,lon\n");
    for i in 0..50 {
        let t = f64::from(i) * 1e-5;
        pickups.push_str(&format!("{},{}\n", 40.75 + t, -73.99 + t));
        pickups.push_str(&format!("{},{}\n", 40.80 + t, -73.95 + t));
    }
    std::fs::write(d.join("pickups.csv"), pickups).unwrap();
    std::fs::write(
        d.join("spots.csv"),
        "name,lat,lon\nSouth Spot,40.75,-73.99\nNorth Spot,40.80,-73.95\nFar Away,40.60,-74.20\n",
    )
    .unwrap();
    let args = "--data pickups.csv --candidates spots.csv --k 2 --epsilon 5 --seed 1 --format json \
                --map m.png";
    // On a user's data the demo shows what is not private: only as a diagnostic.
    let refused = demo(&d, &words(args));
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.lines().count() == 1 && stderr.contains("--diagnostics"),
        "{stderr}"
    );
    assert!(refused.stdout.is_empty() && !d.join("m.png").exists());
    let out = demo(&d, &words(&format!("{args} --diagnostics")));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["records"], 100);
    assert_eq!(doc["data"], "pickups.csv");
    let mut names: Vec<&str> = doc["not_private"]["non_private"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["North Spot", "South Spot"]);
    // The normaliser defaults to the candidates' bounding-box diagonal (L1, degrees).
    let expected = (40.80 - 40.60) + (-73.95 - -74.20);
    assert!((doc["normalizer"].as_f64().unwrap() - expected).abs() < 1e-9);
    png_size(&d.join("m.png"));
}

#[test]
fn errors_are_one_line_with_exit_code_2() {
    let d = dir("errors");
    for (args, needle) in [
        (
            vec!["--data", "missing.csv", "--diagnostics"],
            "missing.csv",
        ),
        (vec!["--data", "missing.csv"], "add --diagnostics"),
        (vec!["--epsilon", "0"], "psilon"),
        (vec!["--delta", "1"], "elta"),
        (vec!["--k", "0"], "--k must be at least 1"),
        (vec!["--k", "21"], "more than the 20 candidates"),
        (vec!["--normalizer", "-1"], "--normalizer"),
    ] {
        let out = demo(&d, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(needle),
            "{args:?}: {stderr}"
        );
    }
    assert!(
        !d.join("disguise-demo-map.png").exists(),
        "no map after an error"
    );
}
