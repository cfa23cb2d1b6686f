//! Categorical tables (`features`, `hypothesis`): `read_table` on arbitrary bytes, then
//! every column looked up by name as the commands do.
#![no_main]

use disguise::data::read_table;
use disguise_fuzz::write_input;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = write_input("table.csv", data);
    if let Ok(table) = read_table(&path) {
        for name in ["label", "a", "A", ""] {
            let _ = table.find(name);
        }
    }
});
