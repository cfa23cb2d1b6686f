//! Constraint files and specs (`--constraint`): partition files and edge lists parsed from
//! text and read from files, and `KIND:ARG` specs, over ground sets of 0–63 elements.
#![no_main]

use disguise::constraint::{Graphic, Matroid, Partition};
use disguise_fuzz::{split_selector, write_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (selector, bytes) = split_selector(data);
    let ground = usize::from(selector & 0x3f);
    let path = write_input("constraint.csv", bytes);
    match selector >> 6 {
        0 => {
            let _ = Partition::from_file(&path, ground);
            if let Ok(text) = std::str::from_utf8(bytes) {
                let _ = Partition::parse(text, "groups.csv", ground);
            }
        }
        1 => {
            let _ = Graphic::from_file(&path);
            if let Ok(text) = std::str::from_utf8(bytes) {
                let _ = Graphic::parse(text, "edges.csv");
            }
        }
        _ => {
            // A spec naming the file just written, or one typed by the user.
            let kind = if selector & 0x40 == 0 {
                "partition"
            } else {
                "graphic"
            };
            let _ = Matroid::from_spec(&format!("{kind}:{}", path.display()), ground);
            if let Ok(text) = std::str::from_utf8(bytes) {
                let _ = Matroid::from_spec(text, ground);
            }
        }
    }
});
