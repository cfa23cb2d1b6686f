//! Building [`Transactions`]: interning item names, reading FIMI and long-CSV files as a
//! stream (the raw text is never held whole), and the public item list.

use super::count::reserve;
use super::{Transactions, item_order};
use crate::data::{Position, for_each_line, open_input, quote};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// Item names to ids. With a public list the ids are final (the list's canonical order) and
/// other names are dropped; without, ids are provisional (order of first appearance) and
/// [`Interner::finish`] renumbers them canonically.
pub(super) struct Interner {
    index: HashMap<Box<str>, u32>,
    public: bool,
    dropped: u64,
}

impl Interner {
    pub(super) fn new<S: AsRef<str>>(items: Option<&[S]>) -> Result<Self> {
        let Some(list) = items else {
            return Ok(Self {
                index: HashMap::new(),
                public: false,
                dropped: 0,
            });
        };
        if list.is_empty() {
            return Err(Error::param("items", "the item list is empty"));
        }
        let mut names: Vec<&str> = list.iter().map(AsRef::as_ref).collect();
        names.sort_unstable_by(|a, b| item_order(a, b));
        names.dedup();
        if names.len() >= u32::MAX as usize {
            return Err(Error::param("items", "more than 2^32 − 1 distinct items"));
        }
        let index = names
            .into_iter()
            .enumerate()
            .map(|(i, n)| (Box::from(n), i as u32))
            .collect();
        Ok(Self {
            index,
            public: true,
            dropped: 0,
        })
    }

    /// The id of `name`, or `None` if a public list drops it. `at` names the place for the
    /// error of a 2³²-th distinct item.
    pub(super) fn id(&mut self, name: &str, at: impl FnOnce() -> String) -> Result<Option<u32>> {
        if let Some(&id) = self.index.get(name) {
            return Ok(Some(id));
        }
        if self.public {
            self.dropped += 1;
            return Ok(None);
        }
        let id = self.index.len();
        if id >= u32::MAX as usize {
            return Err(Error::parse(format!(
                "{}: item {} is the 2^32-th distinct item; at most 2^32 − 1 are supported",
                at(),
                quote(name)
            )));
        }
        self.index.insert(Box::from(name), id as u32);
        Ok(Some(id as u32))
    }

    /// Renumbers `ids` canonically and sorts and deduplicates every transaction in place.
    pub(super) fn finish(self, mut ids: Vec<u32>, mut offsets: Vec<usize>) -> Result<Transactions> {
        let n = offsets.len() - 1;
        if n == 0 {
            return Err(Error::param("transactions", "no transactions"));
        }
        if n > u32::MAX as usize {
            return Err(Error::param(
                "transactions",
                format!("{n} transactions; at most 2^32 − 1 are supported"),
            ));
        }
        let mut named: Vec<(Box<str>, u32)> = self.index.into_iter().collect();
        named.sort_unstable_by(|a, b| item_order(&a.0, &b.0));
        if !self.public {
            let mut canonical = vec![0u32; named.len()];
            for (rank, (_, provisional)) in named.iter().enumerate() {
                canonical[*provisional as usize] = rank as u32;
            }
            ids.iter_mut().for_each(|id| *id = canonical[*id as usize]);
        }
        let items: Vec<String> = named.into_iter().map(|(n, _)| n.into_string()).collect();
        // Sort and deduplicate each transaction, compacting the buffer as we go.
        let mut write = 0;
        for t in 0..n {
            let (start, end) = (offsets[t], offsets[t + 1]);
            ids[start..end].sort_unstable();
            offsets[t] = write;
            let mut last = None;
            for read in start..end {
                let id = ids[read];
                if last != Some(id) {
                    ids[write] = id;
                    write += 1;
                    last = Some(id);
                }
            }
        }
        offsets[n] = write;
        ids.truncate(write);
        ids.shrink_to_fit();
        Ok(Transactions {
            items,
            ids,
            offsets,
            public_items: self.public,
            dropped: self.dropped,
        })
    }
}

/// Pushes onto a vector sized by the input, failing with [`Error::OutOfMemory`] rather than
/// aborting.
fn push<T>(v: &mut Vec<T>, x: T, what: &str) -> Result<()> {
    if v.len() == v.capacity() {
        reserve(v, v.len().max(1024), what)?;
    }
    v.push(x);
    Ok(())
}

/// The byte column (1-based) of `token`, a subslice of `line`.
fn column_of(line: &str, token: &str) -> u64 {
    (token.as_ptr() as usize - line.as_ptr() as usize + 1) as u64
}

/// Reads a FIMI file: one transaction per line, items separated by whitespace.
pub(super) fn read_fimi(
    path: &Path,
    shown: &str,
    mut interner: Interner,
    keep: &mut dyn FnMut(u64) -> bool,
) -> Result<Transactions> {
    let mut ids: Vec<u32> = Vec::new();
    let mut offsets: Vec<usize> = vec![0];
    let mut lines = 0u64;
    for_each_line(path, shown, |number, line| {
        lines += 1;
        if !keep(lines - 1) {
            return Ok(());
        }
        for token in line.split_whitespace() {
            let at = || {
                let column = column_of(line, token);
                Position::new(shown, number).column(column).to_string()
            };
            if let Some(id) = interner.id(token, at)? {
                push(&mut ids, id, "the transactions")?;
            }
        }
        push(&mut offsets, ids.len(), "the transactions")
    })?;
    if lines == 0 {
        return Err(Error::parse(format!(
            "{shown}: no transactions (empty file)"
        )));
    }
    interner.finish(ids, offsets)
}

/// A CSV reader error as `file:line[:column]: what`.
fn csv_error(shown: &str, e: &csv::Error) -> Error {
    let line = e.position().map_or(0, csv::Position::line);
    let at = Position::new(shown, line);
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => Error::parse(format!(
            "{at}: {len} fields where the header has {expected_len}"
        )),
        csv::ErrorKind::Utf8 { err, .. } => Error::parse(format!(
            "{}: not valid UTF-8 text",
            at.column(err.field() as u64 + 1)
        )),
        // Borrowed from the reader's error: the cause is kept as a copy of its kind and text.
        csv::ErrorKind::Io(io) => Error::io_with(
            shown.to_string(),
            std::io::Error::new(io.kind(), io.to_string()),
        ),
        _ => Error::parse(format!("{at}: {e}")),
    }
}

/// Opens a long CSV file of transactions and reads its header: the reader at the first row,
/// and the positions of the id and item columns (no column named twice).
pub(super) fn open_csv(
    path: &Path,
    shown: &str,
    id_column: &str,
    item_column: &str,
) -> Result<(csv::Reader<impl std::io::Read>, usize, usize)> {
    let file = open_input(path, shown)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(file);
    let headers = reader.headers().map_err(|e| csv_error(shown, &e))?.clone();
    if headers.is_empty() {
        return Err(Error::parse(format!("{shown}: empty file (no header row)")));
    }
    let header = Position::new(shown, 1);
    for (j, name) in headers.iter().enumerate() {
        let name = name.trim();
        if let Some(i) = headers
            .iter()
            .take(j)
            .position(|h| h.trim().eq_ignore_ascii_case(name))
        {
            return Err(Error::parse(format!(
                "{}: column {} repeats column {} (names are matched ignoring case)",
                header.column(j as u64 + 1),
                quote(name),
                i + 1
            )));
        }
    }
    // The same lookup (and message, with long or strange header lists shortened) as every
    // other reader of a delimited file.
    let names: Vec<String> = headers.iter().map(|h| h.trim().to_string()).collect();
    let find = |name: &str| crate::data::reader::find_column(shown, &names, name);
    let (id_idx, item_idx) = (find(id_column)?, find(item_column)?);
    Ok((reader, id_idx, item_idx))
}

/// Reads a long CSV file: a header, then one (transaction id, item) pair per row; every
/// distinct id is one transaction, in order of first appearance. Streams the rows, keeping
/// only the ids of the transactions and one (transaction, item) pair of integers per row.
pub(super) fn read_csv(
    path: &Path,
    shown: &str,
    id_column: &str,
    item_column: &str,
    mut interner: Interner,
) -> Result<Transactions> {
    let (mut reader, id_idx, item_idx) = open_csv(path, shown, id_column, item_column)?;
    let mut by_id: HashMap<Box<str>, u32> = HashMap::new();
    // (transaction, item) pairs in file order.
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(csv_error(shown, &e)),
        }
        let line = record.position().map_or(0, csv::Position::line);
        let id = record.get(id_idx).unwrap_or("").trim();
        let next = by_id.len();
        let transaction = match by_id.get(id) {
            Some(&t) => t,
            None => {
                if next >= u32::MAX as usize {
                    return Err(Error::parse(format!(
                        "{}: more than 2^32 − 1 transactions",
                        Position::new(shown, line)
                    )));
                }
                by_id.insert(Box::from(id), next as u32);
                next as u32
            }
        };
        let item = record.get(item_idx).unwrap_or("").trim();
        if item.is_empty() {
            continue;
        }
        let at = || {
            Position::new(shown, line)
                .column(item_idx as u64 + 1)
                .to_string()
        };
        if let Some(item) = interner.id(item, at)? {
            push(&mut pairs, (transaction, item), "the transactions")?;
        }
    }
    let n = by_id.len();
    drop(by_id);
    if n == 0 {
        return Err(Error::parse(format!("{shown}: no data rows")));
    }
    // Group the pairs by transaction (a counting sort that keeps the file order within each).
    let mut offsets: Vec<usize> = Vec::new();
    reserve(&mut offsets, n + 1, "the transactions")?;
    offsets.resize(n + 1, 0);
    for &(t, _) in &pairs {
        offsets[t as usize + 1] += 1;
    }
    for t in 0..n {
        offsets[t + 1] += offsets[t];
    }
    let mut ids: Vec<u32> = Vec::new();
    reserve(&mut ids, pairs.len(), "the transactions")?;
    ids.resize(pairs.len(), 0);
    let mut next = offsets.clone();
    for (t, item) in pairs {
        ids[next[t as usize]] = item;
        next[t as usize] += 1;
    }
    interner.finish(ids, offsets)
}

/// Reads a public item list: names separated by whitespace (e.g. one per line), streamed,
/// a leading byte-order mark skipped.
pub(super) fn read_item_list(path: &Path) -> Result<Vec<String>> {
    let shown = path.display().to_string();
    let mut items: Vec<String> = Vec::new();
    for_each_line(path, &shown, |_, line| {
        for token in line.split_whitespace() {
            push(&mut items, token.to_string(), "the item list")?;
        }
        Ok(())
    })?;
    if items.is_empty() {
        return Err(Error::parse(format!("{shown}: no items")));
    }
    Ok(items)
}
