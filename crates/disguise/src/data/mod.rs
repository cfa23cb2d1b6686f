//! Data loading: CSV columns with precise error messages (numeric columns, or a table read
//! as compact categorical columns), score files, and locating the real datasets.
//!
//! Every reader of a delimited user file goes through one streaming core: a UTF-8
//! byte-order mark is stripped, quoting and CRLF line ends are handled, blank lines skipped,
//! a header naming a column twice refused, and errors have one shape,
//! `file:line:column: column 'name': problem` with at most 60 characters of a cell quoted
//! ([`Position`], [`quote`]). Readers decode and store only the columns they are asked for.
//!
//! Real data lives outside the repository, in the folder named by the `DISGUISE_DATA`
//! environment variable (default `../shared/data` relative to the working directory). Nothing
//! here copies it; [`locate`] only finds it.

mod codes;
mod columns;
mod edges;
pub mod generate;
#[cfg(feature = "parquet")]
pub mod parquet;
mod parts;
pub(crate) mod reader;
mod scores;
pub mod synthetic;
mod table;
mod text;

pub(crate) use codes::{Code, with_slice};
pub use codes::{CodeColumn, Codes, Iter as CodesIter};
pub use columns::{
    Columns, Points, geographic, read_columns, read_columns_checked, read_columns_with_checks,
    read_points, read_points_where,
};
pub use edges::{Neighbourhoods, read_edge_list, read_edge_list_where};
pub use parts::Parts;
pub use scores::{read_scores, read_scores_from};
pub use synthetic::{ClusteredPoints, SyntheticLocations, manhattan_like};
pub use table::{
    CategoricalColumn, Header, Table, TableLayout, TablePlan, read_header, read_header_with_layout,
    read_table, read_table_with, read_table_with_layout,
};
pub use text::{BOM, MAX_LINE_BYTES, Position, QUOTE_LIMIT, quote, strip_bom, strip_bom_bytes};
pub(crate) use text::{for_each_line, open_input, read_text};

use crate::error::{Error, Result};
use std::path::PathBuf;

/// The root of the real datasets: the `DISGUISE_DATA` environment variable, else
/// `../shared/data` relative to the working directory (the layout the README's commands run
/// in). Nothing about where the library was built is baked in.
pub fn data_root() -> PathBuf {
    match std::env::var_os("DISGUISE_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from("../shared/data"),
    }
}

/// The path of a file of the real data (e.g. `uber_nyc_apr14/pickups_manhattan_10k.csv`), or an
/// error naming where it was looked for.
pub fn locate(relative: &str) -> Result<PathBuf> {
    let path = data_root().join(relative);
    if path.is_file() {
        Ok(path)
    } else {
        Err(Error::io(format!(
            "data file {} not found (set DISGUISE_DATA to the folder holding the real data)",
            path.display()
        )))
    }
}

/// For tests and benchmarks that need real data: `Ok(Some(path))` when the file is there,
/// `Ok(None)` when it is absent, and the "not found" error instead of `None` when the
/// `DISGUISE_REQUIRE_DATA` environment variable is set (as CI sets it), so that a missing
/// file fails there rather than being passed over.
///
/// Nothing is printed: the test harness reports a test whose data is absent as *ignored*
/// (see the testing section of ARCHITECTURE.md), and a benchmark says what it used instead.
pub fn locate_for_test(relative: &str) -> Result<Option<PathBuf>> {
    match locate(relative) {
        Ok(path) => Ok(Some(path)),
        Err(err) if std::env::var_os("DISGUISE_REQUIRE_DATA").is_some() => Err(err),
        Err(_) => Ok(None),
    }
}
