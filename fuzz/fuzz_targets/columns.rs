//! Points/candidates CSV: `read_columns` and `read_columns_checked` on arbitrary bytes.
#![no_main]

use disguise::data::{read_columns, read_columns_checked};
use disguise_fuzz::{split_selector, write_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (selector, bytes) = split_selector(data);
    let path = write_input("points.csv", bytes);
    // The column requests the commands make: lat/lon with a name column (select, assign),
    // x/y, and a single column with a range check (as `select --points` checks Lat/Lon).
    let _ = match selector % 4 {
        0 => read_columns(&path, &["lat", "lon"], Some("name")),
        1 => read_columns(&path, &["x", "y"], None),
        2 => read_columns(&path, &["a"], Some("a")),
        _ => read_columns_checked(&path, &["lat", "lon"], None, |c, v| {
            let limit = if c == 0 { 90.0 } else { 180.0 };
            if v.abs() <= limit {
                Ok(())
            } else {
                Err(format!("outside ±{limit}"))
            }
        }),
    };
});
