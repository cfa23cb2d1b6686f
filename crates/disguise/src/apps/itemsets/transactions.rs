//! The data of itemset mining: [`Transactions`] (one set of items per user, interned and
//! sorted in the canonical item order), how they are read ([`TransactionFormat`],
//! [`read_item_list`]), and that order ([`item_order`]).

use super::read;
use crate::error::Result;
use std::cmp::Ordering;
use std::path::Path;

/// The canonical order of item names: names that are canonical decimal integers (no sign,
/// no leading zero, fitting in u64) first, by value; then all other names by their bytes.
/// A fixed total order on all strings, so everything derived from it (truncation, ties)
/// is data-independent.
///
/// ```
/// use disguise::apps::item_order;
/// use std::cmp::Ordering;
/// assert_eq!(item_order("9", "10"), Ordering::Less);
/// assert_eq!(item_order("10", "apple"), Ordering::Less);
/// assert_eq!(item_order("007", "7"), Ordering::Greater); // "007" is a name, not a number
/// ```
pub fn item_order(a: &str, b: &str) -> Ordering {
    match (canonical_int(a), canonical_int(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.as_bytes().cmp(b.as_bytes()),
    }
}

fn canonical_int(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    s.parse().ok()
}

/// How a transactions file is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransactionFormat {
    /// FIMI: one transaction per line, items separated by whitespace. A blank line is an
    /// empty transaction (a user who bought nothing); it still counts in n.
    Fimi,
    /// CSV with a header row, one (transaction id, item) pair per row ("long" format);
    /// every distinct id is one transaction, in order of first appearance.
    Csv {
        /// The transaction id column (matched case-insensitively).
        id_column: String,
        /// The item column.
        item_column: String,
    },
}

impl TransactionFormat {
    /// The layout of the file at `path`: CSV when `csv` says so or, when it is `None`, when
    /// the file's extension is `.csv` (in any case); FIMI otherwise. `id_column` and
    /// `item_column` name a CSV file's columns.
    ///
    /// ```
    /// use disguise::apps::TransactionFormat;
    /// use std::path::Path;
    ///
    /// let csv = TransactionFormat::of(Path::new("sales.CSV"), None, "id", "item");
    /// assert!(matches!(csv, TransactionFormat::Csv { .. }));
    /// let fimi = TransactionFormat::of(Path::new("chess.dat"), None, "id", "item");
    /// assert_eq!(fimi, TransactionFormat::Fimi);
    /// let asked = TransactionFormat::of(Path::new("sales.csv"), Some(false), "id", "item");
    /// assert_eq!(asked, TransactionFormat::Fimi);
    /// ```
    pub fn of(path: &Path, csv: Option<bool>, id_column: &str, item_column: &str) -> Self {
        let csv = csv.unwrap_or_else(|| {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
        });
        if csv {
            TransactionFormat::Csv {
                id_column: id_column.to_string(),
                item_column: item_column.to_string(),
            }
        } else {
            TransactionFormat::Fimi
        }
    }
}

/// A set of transactions over interned items, each transaction sorted in the canonical item
/// order ([`item_order`]) without duplicates. Stored compactly: all transactions' item ids
/// (`u32`) in one buffer, with the offset where each transaction starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Transactions {
    /// Item names; the id of an item is its position. Sorted by [`item_order`].
    pub(super) items: Vec<String>,
    /// Every transaction's ids, one after another.
    pub(super) ids: Vec<u32>,
    /// Transaction t is `ids[offsets[t]..offsets[t + 1]]`; n + 1 entries.
    pub(super) offsets: Vec<usize>,
    pub(super) public_items: bool,
    pub(super) dropped: u64,
}

impl Transactions {
    /// Builds transactions from rows of item names. With `items` (a public item list), the
    /// universe is that list and any other item is dropped from its transaction; without,
    /// the items are those seen in the data (used for naming only, never as a universe).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for no transactions, an
    /// empty item list, or more than 2³² − 1 distinct items or transactions.
    ///
    /// ```
    /// use disguise::apps::Transactions;
    /// let t = Transactions::from_rows(&[vec!["b", "a", "b"], vec!["10", "9"]], None)?;
    /// assert_eq!(t.len(), 2);
    /// assert_eq!(t.items(), ["9", "10", "a", "b"]);
    /// assert_eq!(t.row(0), [2, 3]);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn from_rows<S: AsRef<str>>(rows: &[Vec<S>], items: Option<&[S]>) -> Result<Self> {
        let mut interner = read::Interner::new(items)?;
        let mut ids = Vec::new();
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0);
        for (r, row) in rows.iter().enumerate() {
            for name in row {
                if let Some(id) = interner.id(name.as_ref(), || format!("row {}", r + 1))? {
                    ids.push(id);
                }
            }
            offsets.push(ids.len());
        }
        interner.finish(ids, offsets)
    }

    /// Reads a transactions file (see [`TransactionFormat`]), with an optional public item
    /// list. The file is streamed (its text is never held whole); a UTF-8 byte-order mark at
    /// its start is skipped.
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) for an unreadable file;
    /// [`Error::Parse`](crate::Error::Parse) naming `file:line:column` for text that is not
    /// UTF-8, malformed CSV, a missing or repeated column, or an empty file;
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) if the transactions do not fit in
    /// memory; the errors of [`Transactions::from_rows`].
    pub fn read(path: &Path, format: &TransactionFormat, items: Option<&[String]>) -> Result<Self> {
        let shown = path.display().to_string();
        let interner = read::Interner::new(items)?;
        match format {
            TransactionFormat::Fimi => read::read_fimi(path, &shown, interner, &mut |_| true),
            TransactionFormat::Csv {
                id_column,
                item_column,
            } => read::read_csv(path, &shown, id_column, item_column, interner),
        }
    }

    /// [`Transactions::read`] of a FIMI file keeping only the lines (transactions, from 0)
    /// that `keep` selects: one worker's share in a distributed run. The dropped count is
    /// that of the kept lines.
    ///
    /// ```
    /// use disguise::apps::Transactions;
    /// let dir = std::env::temp_dir().join("disguise-doc-fimi-where");
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("t.dat");
    /// std::fs::write(&path, "a b\nb\n\na c\n")?;
    /// let even = Transactions::read_fimi_where(&path, None, &mut |line| line % 2 == 0)?;
    /// assert_eq!(even.len(), 2); // "a b" and the blank line
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Transactions::read`].
    pub fn read_fimi_where(
        path: &Path,
        items: Option<&[String]>,
        keep: &mut dyn FnMut(u64) -> bool,
    ) -> Result<Self> {
        let shown = path.display().to_string();
        let interner = read::Interner::new(items)?;
        read::read_fimi(path, &shown, interner, keep)
    }

    /// Checks a transactions file from its header row alone, before anything is charged for
    /// reading its rows: a CSV file has the columns its format names (and no column twice).
    /// FIMI files have no header; a file that is not a regular file (a pipe) is not opened,
    /// since reading its header would take it, and is checked when it is read.
    ///
    /// ```
    /// use disguise::apps::{TransactionFormat, Transactions};
    /// let dir = std::env::temp_dir().join("disguise-doc-transactions-header");
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("baskets.csv");
    /// std::fs::write(&path, "basket,item\n1,milk\n")?;
    /// let csv = |id: &str| TransactionFormat::Csv { id_column: id.into(), item_column: "item".into() };
    /// assert!(Transactions::check_header(&path, &csv("basket")).is_ok());
    /// let err = Transactions::check_header(&path, &csv("order")).unwrap_err();
    /// assert!(err.to_string().contains("order"), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Transactions::read`] for the header: a missing or repeated column, an empty file.
    pub fn check_header(path: &Path, format: &TransactionFormat) -> Result<()> {
        let TransactionFormat::Csv {
            id_column,
            item_column,
        } = format
        else {
            return Ok(());
        };
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return Ok(());
        }
        let shown = path.display().to_string();
        read::open_csv(path, &shown, id_column, item_column).map(|_| ())
    }

    /// The number n of transactions (public).
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no transactions (never true for a built value).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item names in canonical order (id = position): the public list, or without one the
    /// items seen in the data — **NOT PRIVATE** then (a rare item is one person's), never to
    /// be released beside a result.
    pub fn items(&self) -> &[String] {
        &self.items
    }

    /// Transaction `t` as sorted item ids.
    ///
    /// # Panics
    /// If `t` ≥ [`Transactions::len`].
    pub fn row(&self, t: usize) -> &[u32] {
        &self.ids[self.offsets[t]..self.offsets[t + 1]]
    }

    /// The transactions as sorted item ids, in order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        self.offsets.windows(2).map(|w| &self.ids[w[0]..w[1]])
    }

    /// Whether the items are a public list (the universe is known).
    pub fn has_public_items(&self) -> bool {
        self.public_items
    }

    /// How many item occurrences were dropped because the item is not in the public list
    /// (**not private**: a statistic of the data).
    pub fn dropped_items(&self) -> u64 {
        self.dropped
    }

    /// The names of an itemset given by ids.
    pub fn names(&self, ids: &[u32]) -> Vec<String> {
        ids.iter()
            .map(|&i| self.items[i as usize].clone())
            .collect()
    }
}

/// Reads a public item list: item names separated by whitespace (e.g. one per line). The
/// file is streamed; a UTF-8 byte-order mark at its start is skipped.
///
/// # Errors
/// [`Error::Io`](crate::Error::Io) for an unreadable file,
/// [`Error::Parse`](crate::Error::Parse) for an empty one or text that is not UTF-8 (naming
/// `file:line:column`).
pub fn read_item_list(path: &Path) -> Result<Vec<String>> {
    read::read_item_list(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_interning() {
        assert_eq!(item_order("2", "10"), Ordering::Less);
        assert_eq!(item_order("0", "1"), Ordering::Less);
        assert_eq!(item_order("z", "10"), Ordering::Greater);
        assert_eq!(item_order("-1", "1"), Ordering::Greater);
        let t = Transactions::from_rows(&[vec!["x", "3", "20", "3"], vec![]], None).unwrap();
        assert_eq!(t.items(), ["3", "20", "x"]);
        let rows: Vec<&[u32]> = t.rows().collect();
        assert_eq!(rows, [&[0, 1, 2][..], &[]]);
        assert_eq!(t.len(), 2);
    }
}
