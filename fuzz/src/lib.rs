//! Helpers shared by the fuzz targets: the readers take paths, so each input is written to a
//! file first (in a folder of this process under the temporary directory; `run.sh` points
//! `TMPDIR` at a RAM disk when there is one).

use std::path::PathBuf;
use std::sync::OnceLock;

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

/// Splits `data` into a selector byte and the rest (0 and nothing for an empty input).
pub fn split_selector(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((&first, rest)) => (first, rest),
        None => (0, data),
    }
}
