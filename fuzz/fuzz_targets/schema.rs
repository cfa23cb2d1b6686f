//! Histogram schema files (TOML): `Schema::from_path` on arbitrary bytes (UTF-8 or not) and
//! `Schema::from_toml_str` on their text.
#![no_main]

use disguise::histogram::Schema;
use disguise_fuzz::write_input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = write_input("schema.toml", data);
    let _ = Schema::from_path(&path);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Schema::from_toml_str(text, "schema.toml");
    }
});
