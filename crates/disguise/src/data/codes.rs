//! Category codes stored in the narrowest unsigned integer type that holds them.
//!
//! A column of a table with a handful of categories needs one byte per record, not four (a
//! `u32` per record) and not a string: [`Codes`] keeps `u8` codes until a code ≥ 256 is
//! pushed, then widens to `u16`, then to `u32`. Consumers read codes as `u32` through
//! [`Codes::get`] and [`Codes::iter`], or dispatch once per column on the variant for tight
//! loops.

/// A column of category codes (`0..arity`), one per record, stored as `u8`, `u16` or `u32`:
/// the narrowest type that holds every code pushed so far.
///
/// ```
/// use disguise::data::Codes;
/// let mut codes = Codes::new();
/// codes.push(3);
/// codes.push(255);
/// assert_eq!(codes.width(), 1); // bytes per code
/// codes.push(256); // widens to u16, keeping the codes
/// assert_eq!(codes.width(), 2);
/// assert_eq!(codes.iter().collect::<Vec<u32>>(), [3, 255, 256]);
/// assert_eq!(codes.get(2), 256);
/// // From a `Vec<u32>`: narrowed to the smallest type that holds its largest code.
/// assert_eq!(Codes::from(vec![0, 1, 2]).width(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Codes {
    /// Codes below 256.
    U8(Vec<u8>),
    /// Codes below 65 536.
    U16(Vec<u16>),
    /// Any `u32` code.
    U32(Vec<u32>),
}

impl Default for Codes {
    fn default() -> Self {
        Codes::new()
    }
}

/// Runs `$body` with `$v` bound to the column's slice, whatever its width (one dispatch per
/// column, so the loop inside is monomorphic).
macro_rules! with_slice {
    ($codes:expr, $v:ident => $body:expr) => {
        match $codes {
            $crate::data::Codes::U8($v) => $body,
            $crate::data::Codes::U16($v) => $body,
            $crate::data::Codes::U32($v) => $body,
        }
    };
}
pub(crate) use with_slice;

impl Codes {
    /// An empty column of `u8` codes.
    pub fn new() -> Self {
        Codes::U8(Vec::new())
    }

    /// An empty column in the narrowest type for codes below `arity`, with room for
    /// `capacity` codes.
    ///
    /// ```
    /// use disguise::data::Codes;
    /// assert_eq!(Codes::for_arity(256, 0).width(), 1);
    /// assert_eq!(Codes::for_arity(257, 0).width(), 2);
    /// assert_eq!(Codes::for_arity(1 << 16, 0).width(), 2);
    /// assert_eq!(Codes::for_arity((1 << 16) + 1, 0).width(), 4);
    /// ```
    pub fn for_arity(arity: u64, capacity: usize) -> Self {
        if arity <= 1 << 8 {
            Codes::U8(Vec::with_capacity(capacity))
        } else if arity <= 1 << 16 {
            Codes::U16(Vec::with_capacity(capacity))
        } else {
            Codes::U32(Vec::with_capacity(capacity))
        }
    }

    /// Appends `code`, widening the whole column first if it does not fit the current type.
    #[inline]
    pub fn push(&mut self, code: u32) {
        match self {
            Codes::U8(v) => {
                if let Ok(c) = u8::try_from(code) {
                    v.push(c);
                    return;
                }
            }
            Codes::U16(v) => {
                if let Ok(c) = u16::try_from(code) {
                    v.push(c);
                    return;
                }
            }
            Codes::U32(v) => {
                v.push(code);
                return;
            }
        }
        self.widen_for(code);
        self.push(code);
    }

    /// Converts to the narrowest type that holds `code` (and every code already stored).
    #[cold]
    fn widen_for(&mut self, code: u32) {
        let wide_enough = |codes: &Codes| match codes {
            Codes::U8(_) => code <= u32::from(u8::MAX),
            Codes::U16(_) => code <= u32::from(u16::MAX),
            Codes::U32(_) => true,
        };
        while !wide_enough(self) {
            *self = match std::mem::take(self) {
                Codes::U8(v) => Codes::U16(widen(v)),
                Codes::U16(v) => Codes::U32(widen(v)),
                Codes::U32(v) => Codes::U32(v),
            };
        }
    }

    /// The number of codes.
    pub fn len(&self) -> usize {
        with_slice!(self, v => v.len())
    }

    /// Whether there are no codes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per code: 1, 2 or 4.
    pub fn width(&self) -> usize {
        match self {
            Codes::U8(_) => 1,
            Codes::U16(_) => 2,
            Codes::U32(_) => 4,
        }
    }

    /// The memory the codes take: `len() × width()` bytes.
    pub fn bytes(&self) -> usize {
        self.len() * self.width()
    }

    /// Code `i`.
    ///
    /// # Panics
    /// If `i` ≥ `len()`.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        with_slice!(self, v => v[i].code())
    }

    /// The codes in order, as `u32`.
    pub fn iter(&self) -> Iter<'_> {
        match self {
            Codes::U8(v) => Iter::U8(v.iter()),
            Codes::U16(v) => Iter::U16(v.iter()),
            Codes::U32(v) => Iter::U32(v.iter()),
        }
    }

    /// The codes as a `Vec<u32>` (a copy at four bytes per code).
    pub fn to_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }

    /// The largest code, or `None` when empty.
    pub fn max(&self) -> Option<u32> {
        with_slice!(self, v => v.iter().max().map(|&c| c.code()))
    }

    /// The codes of the given records, in the given order (repeats allowed), in the same
    /// type.
    ///
    /// # Panics
    /// If a record is ≥ `len()`.
    pub fn select(&self, rows: &[usize]) -> Codes {
        match self {
            Codes::U8(v) => Codes::U8(rows.iter().map(|&r| v[r]).collect()),
            Codes::U16(v) => Codes::U16(rows.iter().map(|&r| v[r]).collect()),
            Codes::U32(v) => Codes::U32(rows.iter().map(|&r| v[r]).collect()),
        }
    }

    /// Replaces every code c by `table[c]`, in place; the column is re-stored in the type
    /// that `table`'s largest value needs (so a permutation of the codes keeps the type).
    ///
    /// # Panics
    /// If a code is ≥ `table.len()`.
    pub fn remap(&mut self, table: &[u32]) {
        let arity = table.iter().max().map_or(0, |&m| u64::from(m) + 1);
        let same_type = Codes::for_arity(arity, 0).width() == self.width();
        if same_type {
            match self {
                Codes::U8(v) => v.iter_mut().for_each(|c| *c = table[*c as usize] as u8),
                Codes::U16(v) => v.iter_mut().for_each(|c| *c = table[*c as usize] as u16),
                Codes::U32(v) => v.iter_mut().for_each(|c| *c = table[*c as usize]),
            }
        } else {
            let mut out = Codes::for_arity(arity, self.len());
            for c in self.iter() {
                out.push(table[c as usize]);
            }
            *self = out;
        }
    }

    /// Frees the unused capacity.
    pub fn shrink_to_fit(&mut self) {
        with_slice!(self, v => v.shrink_to_fit())
    }
}

/// One stored code, of whatever width, read as a `u32` or an index.
pub(crate) trait Code: Copy {
    /// The code.
    fn code(self) -> u32;
    /// The code as an index.
    #[inline]
    fn index(self) -> usize {
        self.code() as usize
    }
}

impl Code for u8 {
    #[inline]
    fn code(self) -> u32 {
        u32::from(self)
    }
}

impl Code for u16 {
    #[inline]
    fn code(self) -> u32 {
        u32::from(self)
    }
}

impl Code for u32 {
    #[inline]
    fn code(self) -> u32 {
        self
    }
}

fn widen<A: Copy, B: From<A>>(v: Vec<A>) -> Vec<B> {
    let mut out = Vec::with_capacity(v.capacity().max(v.len() + 1));
    out.extend(v.into_iter().map(B::from));
    out
}

/// Narrowed to the smallest type that holds the largest code (one pass to find it, one copy
/// when it narrows).
impl From<Vec<u32>> for Codes {
    fn from(v: Vec<u32>) -> Self {
        let max = v.iter().copied().max().unwrap_or(0);
        if max <= u32::from(u8::MAX) {
            Codes::U8(v.into_iter().map(|c| c as u8).collect())
        } else if max <= u32::from(u16::MAX) {
            Codes::U16(v.into_iter().map(|c| c as u16).collect())
        } else {
            Codes::U32(v)
        }
    }
}

impl From<&[u32]> for Codes {
    fn from(v: &[u32]) -> Self {
        v.iter().copied().collect()
    }
}

impl FromIterator<u32> for Codes {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut codes = Codes::U8(Vec::with_capacity(iter.size_hint().0));
        for c in iter {
            codes.push(c);
        }
        codes
    }
}

impl<'a> IntoIterator for &'a Codes {
    type Item = u32;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The codes of a [`Codes`] column as `u32`, in order.
#[derive(Debug, Clone)]
pub enum Iter<'a> {
    /// Over `u8` codes.
    U8(std::slice::Iter<'a, u8>),
    /// Over `u16` codes.
    U16(std::slice::Iter<'a, u16>),
    /// Over `u32` codes.
    U32(std::slice::Iter<'a, u32>),
}

impl Iterator for Iter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Iter::U8(it) => it.next().map(|&c| u32::from(c)),
            Iter::U16(it) => it.next().map(|&c| u32::from(c)),
            Iter::U32(it) => it.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::U8(it) => it.size_hint(),
            Iter::U16(it) => it.size_hint(),
            Iter::U32(it) => it.size_hint(),
        }
    }

    fn fold<B, F: FnMut(B, u32) -> B>(self, init: B, mut f: F) -> B {
        match self {
            Iter::U8(it) => it.fold(init, |acc, &c| f(acc, u32::from(c))),
            Iter::U16(it) => it.fold(init, |acc, &c| f(acc, u32::from(c))),
            Iter::U32(it) => it.fold(init, |acc, &c| f(acc, c)),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Anything that reads as a column of `u32` codes: `[u32]`, `Vec<u32>` and [`Codes`]. Lets
/// the objectives take the compact columns of a [`Table`](super::Table) as well as plain
/// vectors.
pub trait CodeColumn {
    /// The number of codes.
    fn code_count(&self) -> usize;
    /// Code `i` (panics if out of range).
    fn code_at(&self, i: usize) -> u32;
    /// Calls `f(i, code)` for every code in order.
    fn for_each_code(&self, f: impl FnMut(usize, u32));
}

impl CodeColumn for [u32] {
    fn code_count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn code_at(&self, i: usize) -> u32 {
        self[i]
    }
    fn for_each_code(&self, mut f: impl FnMut(usize, u32)) {
        self.iter().enumerate().for_each(|(i, &c)| f(i, c));
    }
}

impl CodeColumn for Vec<u32> {
    fn code_count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn code_at(&self, i: usize) -> u32 {
        self[i]
    }
    fn for_each_code(&self, f: impl FnMut(usize, u32)) {
        self.as_slice().for_each_code(f);
    }
}

impl CodeColumn for Codes {
    fn code_count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn code_at(&self, i: usize) -> u32 {
        self.get(i)
    }
    fn for_each_code(&self, mut f: impl FnMut(usize, u32)) {
        with_slice!(self, v => v.iter().enumerate().for_each(|(i, &c)| f(i, c.code())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widens_at_256_and_65536_levels() {
        let mut codes = Codes::new();
        for c in 0..256 {
            codes.push(c);
        }
        assert!(matches!(codes, Codes::U8(_)));
        codes.push(256);
        assert!(matches!(codes, Codes::U16(_)));
        for c in 257..65_536 {
            codes.push(c);
        }
        assert!(matches!(codes, Codes::U16(_)));
        assert_eq!(codes.bytes(), 65_536 * 2);
        codes.push(65_536);
        assert!(matches!(codes, Codes::U32(_)));
        assert_eq!(codes.len(), 65_537);
        assert!(codes.iter().enumerate().all(|(i, c)| c == i as u32));
        // A jump straight from u8 to u32 keeps the codes too.
        let mut codes = Codes::from(vec![7, 200]);
        codes.push(1 << 20);
        assert_eq!(codes, Codes::U32(vec![7, 200, 1 << 20]));
    }

    #[test]
    fn conversions_and_remapping() {
        assert_eq!(Codes::from(vec![1, 300]), Codes::U16(vec![1, 300]));
        assert_eq!(Codes::from(vec![1, 70_000]).width(), 4);
        assert_eq!(Codes::from(Vec::new()).width(), 1);
        let mut c: Codes = [2u32, 0, 1, 2].iter().copied().collect();
        assert_eq!(c.width(), 1);
        c.remap(&[1, 2, 0]);
        assert_eq!(c.to_vec(), [0, 1, 2, 0]);
        assert_eq!(c.width(), 1);
        c.remap(&[1000, 0, 1]);
        assert_eq!(c, Codes::U16(vec![1000, 0, 1, 1000]));
        assert_eq!(c.select(&[3, 3, 1]), Codes::U16(vec![1000, 1000, 0]));
        assert_eq!(c.max(), Some(1000));
        let mut seen = Vec::new();
        c.for_each_code(|i, v| seen.push((i, v)));
        assert_eq!(seen, [(0, 1000), (1, 0), (2, 1), (3, 1000)]);
    }
}
