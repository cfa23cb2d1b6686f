//! Histogram tables: `histogram::Table::read` on arbitrary bytes with the shipped schemas and
//! two small ones (with a header, with missing values and aliases), domains from the schema
//! or from the data, then discretized as `histogram` does.
#![no_main]

use disguise::histogram::{Discretized, DomainSource, Schema, Table};
use disguise_fuzz::{split_selector, write_input};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const SMALL: &str = r#"
name = "small"
has_header = true
target = "y"
missing = "?"
[[columns]]
name = "y"
type = "categorical"
levels = ["no", "yes"]
aliases = { "n" = "no", "Y" = "yes" }
[[columns]]
name = "age"
type = "numeric"
bounds = [0, 120]
bins = 3
nullable = true
[[columns]]
name = "city"
type = "categorical"
levels = ["a", "b"]
"#;

const COMMENTED: &str = r#"
name = "commented"
has_header = false
delimiter = ";"
comment = "|"
target = "c"
[[columns]]
name = "x"
type = "numeric"
[[columns]]
name = "c"
type = "categorical"
levels = ["a", "b", "c"]
"#;

fn schemas() -> &'static [Schema] {
    static SCHEMAS: OnceLock<Vec<Schema>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        [
            (
                include_str!("../../crates/disguise/schemas/adult.schema.toml"),
                "adult",
            ),
            (
                include_str!("../../crates/disguise/schemas/iris.schema.toml"),
                "iris",
            ),
            (
                include_str!("../../crates/disguise/schemas/landsat.schema.toml"),
                "landsat",
            ),
            (SMALL, "small"),
            (COMMENTED, "commented"),
        ]
        .into_iter()
        .map(|(text, name)| Schema::from_toml_str(text, name).expect("fixed schemas parse"))
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let (selector, bytes) = split_selector(data);
    let schemas = schemas();
    let schema = &schemas[usize::from(selector) % schemas.len()];
    let source = if selector & 0x80 == 0 {
        DomainSource::Schema
    } else {
        DomainSource::Data
    };
    let path = write_input("table.data", bytes);
    if let Ok(table) = Table::read(&[&path], schema, source) {
        let _ = Discretized::new(&table);
    }
});
