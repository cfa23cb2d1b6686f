//! The multi-base positional bijection enc: V₁ × … × V_d → [0, m) (Vinterbo 2012,
//! Section 2.1, "Efficient construction and representation").

use crate::data::{Codes, with_slice};
use crate::error::{Error, Result};
use serde::Serialize;

/// A mixed-radix number system: the point (x₁, …, x_d) with xᵢ < vᵢ has the code
/// Σᵢ xᵢ·sᵢ with strides s_d = 1, sᵢ = sᵢ₊₁·vᵢ₊₁ (the last column varies fastest), a bijection
/// onto [0, m), m = ∏ vᵢ.
///
/// # Limit
/// m must fit in 64 bits (m ≤ 2^64 − 1): [`MixedRadix::new`] returns an error naming the
/// columns otherwise. (The paper makes the same "machine word" assumption; 2^64 cells are far
/// beyond what the thresholded histogram can usefully populate anyway, since about
/// m/(2·n^{A/2}) empty cells cross the threshold.)
///
/// # Runtime
/// O(d) per [`encode`](MixedRadix::encode) / [`decode`](MixedRadix::decode).
///
/// ```
/// use disguise::histogram::MixedRadix;
/// let enc = MixedRadix::new(&[3, 4, 2], &["a", "b", "c"])?;
/// assert_eq!(enc.size(), 24);
/// let code = enc.encode(&[2, 1, 1]);
/// assert_eq!(code, 2 * 8 + 1 * 2 + 1);
/// let mut back = [0u32; 3];
/// enc.decode(code, &mut back);
/// assert_eq!(back, [2, 1, 1]);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MixedRadix {
    radices: Vec<u64>,
    strides: Vec<u64>,
    size: u64,
}

impl MixedRadix {
    /// The system with these radices |Vᵢ| ≥ 1; `names` (same length) name the columns in the
    /// overflow error.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for no radix, a zero radix or a length mismatch;
    /// [`Error::Overflow`] naming every column and its size when m ≥ 2^64.
    pub fn new<S: AsRef<str>>(radices: &[u64], names: &[S]) -> Result<Self> {
        if radices.is_empty() || radices.len() != names.len() {
            return Err(Error::param(
                "radices",
                format!(
                    "need one radix per column and at least one column, got {} radices for {} names",
                    radices.len(),
                    names.len()
                ),
            ));
        }
        if let Some(i) = radices.iter().position(|&r| r == 0) {
            return Err(Error::param(
                "radices",
                format!("column '{}' has an empty domain", names[i].as_ref()),
            ));
        }
        let mut strides = vec![0u64; radices.len()];
        let mut size: u64 = 1;
        for i in (0..radices.len()).rev() {
            strides[i] = size;
            size = size.checked_mul(radices[i]).ok_or_else(|| {
                let listed: Vec<String> = names
                    .iter()
                    .zip(radices)
                    .map(|(n, r)| format!("{} ({r})", n.as_ref()))
                    .collect();
                let log2: f64 = radices.iter().map(|&r| (r as f64).log2()).sum();
                Error::Overflow(format!(
                    "the histogram space of columns {} has about 2^{log2:.1} cells, more than \
                     2^64: project onto fewer columns or use fewer bins",
                    listed.join(" × ")
                ))
            })?;
        }
        Ok(Self {
            radices: radices.to_vec(),
            strides,
            size,
        })
    }

    /// m = ∏ vᵢ, the number of cells.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The radices vᵢ.
    pub fn radices(&self) -> &[u64] {
        &self.radices
    }

    /// The number of digits d.
    pub fn len(&self) -> usize {
        self.radices.len()
    }

    /// Always false (a system has at least one digit); for clippy's `len_without_is_empty`.
    pub fn is_empty(&self) -> bool {
        self.radices.is_empty()
    }

    /// The code of a point; digits must be in range (debug-asserted; use
    /// [`try_encode`](MixedRadix::try_encode) for unchecked input).
    #[inline]
    pub fn encode(&self, digits: &[u32]) -> u64 {
        debug_assert_eq!(digits.len(), self.radices.len());
        let mut code = 0u64;
        for ((&x, &s), &r) in digits.iter().zip(&self.strides).zip(&self.radices) {
            debug_assert!(u64::from(x) < r);
            code += u64::from(x) * s;
        }
        code
    }

    /// [`encode`](MixedRadix::encode) with validation.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a wrong number of digits or a digit out of range.
    pub fn try_encode(&self, digits: &[u32]) -> Result<u64> {
        let (want, got) = (self.radices.len(), digits.len());
        if got != want {
            let message = format!("expected {want} digits, got {got}");
            return Err(Error::param("digits", message));
        }
        if let Some(i) = (0..digits.len()).find(|&i| u64::from(digits[i]) >= self.radices[i]) {
            return Err(Error::param(
                "digits",
                format!(
                    "digit {i} is {} but its radix is {}",
                    digits[i], self.radices[i]
                ),
            ));
        }
        Ok(self.encode(digits))
    }

    /// The point of a code < m, written into `out` (length d).
    ///
    /// # Panics
    /// If `out` has the wrong length (an internal invariant).
    #[inline]
    pub fn decode(&self, code: u64, out: &mut [u32]) {
        assert_eq!(out.len(), self.radices.len(), "decode: wrong output length");
        debug_assert!(code < self.size);
        let mut rest = code;
        for i in (0..self.radices.len()).rev() {
            let r = self.radices[i];
            out[i] = (rest % r) as u32;
            rest /= r;
        }
    }

    /// Encodes every row of column-major `columns` (each of length n): O(n·d).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a wrong number of columns, unequal lengths or a digit
    /// out of range.
    pub fn encode_columns(&self, columns: &[&[u32]]) -> Result<Vec<u64>> {
        let (want, got) = (self.radices.len(), columns.len());
        if got != want {
            let message = format!("expected {want} columns, got {got}");
            return Err(Error::param("columns", message));
        }
        let n = columns.first().map_or(0, |c| c.len());
        let mut codes = vec![0u64; n];
        for ((col, &s), &r) in columns.iter().zip(&self.strides).zip(&self.radices) {
            if col.len() != n {
                return Err(Error::param("columns", "columns differ in length"));
            }
            for (code, &x) in codes.iter_mut().zip(col.iter()) {
                if u64::from(x) >= r {
                    return Err(Error::param(
                        "columns",
                        format!("digit {x} out of range for radix {r}"),
                    ));
                }
                *code += u64::from(x) * s;
            }
        }
        Ok(codes)
    }

    /// Encodes rows `start..start + out.len()` of compact columns into `out` (so that a
    /// caller can encode n rows in blocks, without n codes in memory at once).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a wrong number of columns, rows out of range or a
    /// digit out of range.
    pub fn encode_codes_into(
        &self,
        columns: &[&Codes],
        start: usize,
        out: &mut [u64],
    ) -> Result<()> {
        let (want, got) = (self.radices.len(), columns.len());
        if got != want {
            let message = format!("expected {want} columns, got {got}");
            return Err(Error::param("columns", message));
        }
        out.fill(0);
        for ((col, &s), &r) in columns.iter().zip(&self.strides).zip(&self.radices) {
            let end = start + out.len();
            if end > col.len() {
                return Err(Error::param("columns", "rows out of range"));
            }
            let mut bad = None;
            with_slice!(col, v => {
                for (code, &x) in out.iter_mut().zip(&v[start..end]) {
                    let x = u64::from(x);
                    if x >= r {
                        bad = Some(x);
                    }
                    // Wrapping: a bad digit is reported below, never a panic.
                    *code = code.wrapping_add(x.wrapping_mul(s));
                }
            });
            if let Some(x) = bad {
                return Err(Error::param(
                    "columns",
                    format!("digit {x} out of range for radix {r}"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_names_columns() {
        let radices = vec![1u64 << 20; 4];
        let names = ["a", "b", "c", "d"];
        let e = MixedRadix::new(&radices, &names).unwrap_err().to_string();
        assert!(e.contains("a (1048576) × b") && e.contains("2^80.0"), "{e}");
        // Exactly 2^64 − 1 fits: 3 · 5 · 17 · 257 · 641 · 65537 · 6700417.
        let r = [3u64, 5, 17, 257, 641, 65537, 6_700_417];
        let enc = MixedRadix::new(&r, &["x"; 7]).unwrap();
        assert_eq!(enc.size(), u64::MAX);
        let top: Vec<u32> = r.iter().map(|&v| (v - 1) as u32).collect();
        assert_eq!(enc.encode(&top), u64::MAX - 1);
    }
}
