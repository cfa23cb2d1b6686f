//! Tests on the real datasets in `$DISGUISE_DATA` (default `../shared/data`). Each test says
//! "skipped" on stderr when the data is absent, and fails instead when `DISGUISE_REQUIRE_DATA`
//! is set (as `.ci/run` does).

use disguise::data::{locate_for_test, read_columns};

#[test]
fn uber_files_load_with_expected_row_counts() {
    let Some(sample) = locate_for_test("uber_nyc_apr14/pickups_manhattan_10k.csv").unwrap() else {
        return;
    };
    let cols = read_columns(&sample, &["lat", "lon"], None).unwrap();
    assert_eq!(cols.rows(), 10_000);
    assert!(
        cols.numeric[0]
            .iter()
            .all(|&lat| (40.70..=40.88).contains(&lat))
    );

    let full = locate_for_test("uber_nyc_apr14/uber-raw-data-apr14.csv")
        .unwrap()
        .expect("the full file sits next to the sample");
    let cols = read_columns(&full, &["Lat", "Lon"], None).unwrap();
    assert_eq!(cols.rows(), 564_516);
}

#[test]
fn candidate_files_load_with_names() {
    let Some(path) = locate_for_test("manhattan_candidates/landmarks_33.csv").unwrap() else {
        return;
    };
    let cols = read_columns(&path, &["lat", "lon"], Some("name")).unwrap();
    assert_eq!(cols.rows(), 33);
    assert_eq!(cols.text.unwrap()[0], "Empire State Building");
}
