//! Memory sized by user input, checked before it is allocated: a count a user types (trials,
//! steps, sampled bases) is refused with a message instead of ending in an allocation failure
//! or an out-of-memory kill.

use crate::error::{Error, Result};

/// The memory the operating system reports as available to a new allocation
/// (`MemAvailable` of /proc/meminfo), or `None` where it cannot be read.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// An error unless `needed` bytes — what `what` would hold in memory, estimated before
/// anything is allocated — fit in the memory available now; `advice` says what to do
/// instead. Where the available memory is unknown only sizes beyond the address space are
/// refused (the allocation itself should then use `try_reserve`).
///
/// # Errors
/// [`Error::Memory`] with the estimate and the memory available.
///
/// ```
/// use disguise::memory::check;
/// assert!(check("a few bytes", 16, "less").is_ok());
/// let err = check("--trials 1e30", u128::MAX, "use fewer trials").unwrap_err().to_string();
/// assert!(err.starts_with("--trials 1e30 would need about"), "{err}");
/// ```
pub fn check(what: &str, needed: u128, advice: &str) -> Result<()> {
    let available = available();
    let limit = available.map_or(isize::MAX as u128, u128::from);
    if needed > limit {
        return Err(Error::Memory {
            what: what.to_string(),
            needed,
            available,
            advice: advice.to_string(),
        });
    }
    Ok(())
}
