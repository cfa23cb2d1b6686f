//! Helpers shared by the fuzz targets: the readers take paths, so each input is written to a
//! file first (in a folder of this process under the temporary directory; `run.sh` points
//! `TMPDIR` at a RAM disk when there is one).

use std::path::PathBuf;
use std::sync::OnceLock;

/// The calls shared with the test suite's seeded run (`crates/disguise/tests/api/fuzz_inputs.rs`).
#[path = "../../crates/disguise/tests/support/parsers.rs"]
pub mod parsers;

/// Feeds `data` to the parser `target` (see [`parsers::feed`]).
pub fn feed(target: &str, data: &[u8]) {
    let _ = parsers::feed(target, data, scratch());
}

/// This process's scratch folder, created once.
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("disguise-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder for fuzz inputs");
        dir
    })
}

/// Writes `bytes` to the scratch file `name` (overwriting the previous input) and returns
/// its path.
pub fn write_input(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    std::fs::write(&path, bytes).expect("write the fuzz input");
    path
}
