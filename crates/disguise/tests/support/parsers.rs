//! Every reader of user files, fed arbitrary bytes: shared by the fuzz targets (`fuzz/`,
//! which include this file) and the seeded short run and regression files in
//! `tests/api/fuzz_inputs.rs`, so both exercise exactly the same calls.
//!
//! The first byte of an input selects a variant (columns requested, format, schema, ground
//! set size); the rest is the file. [`feed`] returns whether the reader accepted the input,
//! and panics only if the library does.

// Each including target uses only some of it.
#![allow(dead_code)]

use disguise::apps::{TransactionFormat, Transactions, read_item_list};
use disguise::constraint::{Graphic, Matroid, Partition};
use disguise::data::{
    TablePlan, geographic, read_columns, read_columns_checked, read_points, read_scores,
    read_scores_from, read_table, read_table_with,
};
use disguise::histogram::{Discretized, DomainSource, Schema, Table};
use std::path::Path;
use std::sync::OnceLock;

/// The parsers, by the name of their fuzz target.
pub const TARGETS: &[&str] = &[
    "columns",
    "table",
    "schema",
    "histogram_table",
    "transactions",
    "item_list",
    "constraints",
    "points",
    "scores",
    "projected_table",
];

/// Feeds `data` to the parser `target`, through a file in `scratch` (the readers take paths).
/// `Ok` when the reader accepted the input, `Err` with its message when it refused it.
pub fn feed(target: &str, data: &[u8], scratch: &Path) -> Result<(), String> {
    let (selector, bytes) = match data.split_first() {
        Some((&first, rest)) => (first, rest),
        None => (0, data),
    };
    let write = |name: &str, bytes: &[u8]| {
        let path = scratch.join(name);
        std::fs::write(&path, bytes).expect("write the input file");
        path
    };
    let text = std::str::from_utf8(bytes).ok();
    let verdict = match target {
        "columns" => {
            let path = write("points.csv", bytes);
            // The requests the commands make: lat/lon and a name column (select, assign),
            // x/y, one column as both number and name, and a range check as on Lat/Lon.
            match selector % 4 {
                0 => read_columns(&path, &["lat", "lon"], Some("name")).map(drop),
                1 => read_columns(&path, &["x", "y"], None).map(drop),
                2 => read_columns(&path, &["a"], Some("a")).map(drop),
                _ => read_columns_checked(&path, &["lat", "lon"], None, |c, v| {
                    let limit = if c == 0 { 90.0 } else { 180.0 };
                    if v.abs() <= limit {
                        Ok(())
                    } else {
                        Err(format!("outside ±{limit}"))
                    }
                })
                .map(drop),
            }
        }
        "table" => {
            let path = write("table.csv", data);
            read_table(&path).map(|table| {
                for name in ["label", "a", "A", ""] {
                    let _ = table.find(name);
                }
            })
        }
        "schema" => {
            let path = write("schema.toml", data);
            let from_file = Schema::from_path(&path).map(drop);
            if let Ok(text) = std::str::from_utf8(data) {
                let _ = Schema::from_toml_str(text, "schema.toml");
            }
            from_file
        }
        "histogram_table" => {
            let schemas = schemas();
            let schema = &schemas[usize::from(selector) % schemas.len()];
            let source = if selector & 0x80 == 0 {
                DomainSource::Schema
            } else {
                DomainSource::Data
            };
            let path = write("table.data", bytes);
            Table::read(&[&path], schema, source).and_then(|t| Discretized::new(&t).map(drop))
        }
        "transactions" => {
            let format = if selector & 1 == 0 {
                TransactionFormat::Fimi
            } else {
                TransactionFormat::Csv {
                    id_column: "tid".into(),
                    item_column: "item".into(),
                }
            };
            let items: Vec<String> = ["1", "2", "3", "10", "a"].map(String::from).to_vec();
            let items = (selector & 2 != 0).then_some(items.as_slice());
            let path = write("transactions.dat", bytes);
            // Itemsets of size 1–3 on transactions cut to at most 8 items: bounded work.
            let size = 1 + usize::from(selector >> 2) % 3;
            let max_length = size + usize::from(selector >> 4) % 6;
            Transactions::read(&path, &format, items)
                .and_then(|t| t.count_itemsets(size, max_length).map(drop))
        }
        "item_list" => {
            let path = write("items.txt", data);
            read_item_list(&path).and_then(|items| {
                let fimi = write("fixed.dat", b"1 2 3\n2 3\n\n10 a 2\n");
                Transactions::read(&fimi, &TransactionFormat::Fimi, Some(&items)).map(drop)
            })
        }
        "constraints" => {
            let ground = usize::from(selector & 0x3f);
            let path = write("constraint.csv", bytes);
            match selector >> 6 {
                0 => {
                    if let Some(text) = text {
                        let _ = Partition::parse(text, "groups.csv", ground);
                    }
                    Partition::from_file(&path, ground).map(drop)
                }
                1 => {
                    if let Some(text) = text {
                        let _ = Graphic::parse(text, "edges.csv");
                    }
                    Graphic::from_file(&path).map(drop)
                }
                2 => match text {
                    // A spec as typed on the command line.
                    Some(text) => Matroid::from_spec(text, ground).map(drop),
                    None => Ok(()),
                },
                _ => {
                    // A spec naming the file just written (the kind by the parity of |V|).
                    let kind = if selector & 1 == 0 {
                        "partition"
                    } else {
                        "graphic"
                    };
                    Matroid::from_spec(&format!("{kind}:{}", path.display()), ground).map(drop)
                }
            }
        }
        "points" => {
            let path = write("points.csv", bytes);
            // As select, assign and demo read them: two coordinates straight into pairs, an
            // optional name column, the geographic check or none.
            let names = (selector & 1 != 0).then_some("name");
            let read = if selector & 2 == 0 {
                read_points(&path, ["lat", "lon"], names, geographic)
            } else {
                read_points(&path, ["x", "y"], names, |_, _| Ok(()))
            };
            read.map(|p| {
                // The name column is optional: absent from the file, no names.
                let named = p.names.as_ref().map_or(p.coords.len(), Vec::len);
                assert_eq!(named, p.coords.len());
                assert!(names.is_some() || p.names.is_none());
                assert!(p.coords.iter().flatten().all(|v| v.is_finite()));
            })
        }
        "scores" => {
            // A score file from disk or the same bytes from a stream (`--scores -`): the same
            // verdict and the same numbers.
            let path = write("scores.txt", data);
            let from_file = read_scores(&path);
            let from_stream = read_scores_from(
                std::io::Cursor::new(data.to_vec()),
                &path.display().to_string(),
            );
            match (&from_file, &from_stream) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("file and stream disagree: {from_file:?} vs {from_stream:?}"),
            }
            from_file.map(|s| assert!(!s.is_empty() && s.iter().all(|v| v.is_finite())))
        }
        "projected_table" => {
            // The selector picks, per column position (up to 8), whether it is kept, skipped or
            // binned over a public range, as features, histogram and hypothesis plan them.
            let path = write("table.csv", bytes);
            read_table_with(&path, |header| {
                let mut plan = TablePlan::none(header);
                for c in 0..header.names().len() {
                    match (usize::from(selector) >> (c % 8)) % 3 {
                        0 => {
                            plan.keep(c);
                        }
                        1 => {
                            plan.skip(c);
                        }
                        _ => {
                            let bins = 1 + u32::from(selector % 7);
                            plan.bin(c, "c", -10.0, 10.0, bins)?;
                        }
                    }
                }
                Ok::<_, disguise::Error>(plan)
            })
            .map(|table| {
                for c in 0..table.header().len() {
                    assert_eq!(table.column(c).codes().len(), table.rows());
                }
            })
        }
        other => panic!("no parser named {other:?}"),
    };
    let verdict = verdict.map_err(|e| e.to_string());
    if let Err(message) = &verdict {
        // Every refusal is one line, and never echoes more than a short quote of the input.
        assert!(
            !message.contains('\n'),
            "{target}: message on several lines: {message:?}"
        );
        // Counted in characters: a header of 400 invalid bytes reads back as 400
        // replacement characters of 3 bytes each.
        let chars = message.chars().count();
        assert!(
            chars <= 700,
            "{target}: message of {chars} characters: {message}"
        );
    }
    verdict
}

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

/// The shipped schemas and two small ones (header, missing values and aliases; a comment
/// character, another delimiter and a column whose domain comes only from the data).
fn schemas() -> &'static [Schema] {
    static SCHEMAS: OnceLock<Vec<Schema>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        [
            (include_str!("../../schemas/adult.schema.toml"), "adult"),
            (include_str!("../../schemas/iris.schema.toml"), "iris"),
            (include_str!("../../schemas/landsat.schema.toml"), "landsat"),
            (SMALL, "small"),
            (COMMENTED, "commented"),
        ]
        .into_iter()
        .map(|(text, name)| Schema::from_toml_str(text, name).expect("fixed schemas parse"))
        .collect()
    })
}
