//! Reading the records of the k-submodular tasks: typed points (k-type facility location)
//! and the reach lists of k-topic influence ([`crate::objective::TopicCoverage`]).

use crate::apps::{TransactionFormat, Transactions};
use crate::data::{quote, read_columns_with_checks};
use crate::error::{Error, Result};
use std::path::Path;

/// The points of k-type facility location: the two coordinate `columns` of the CSV file
/// `path` (each value checked by `check`, column 0 or 1, while reading) and each point's
/// type, the index in the public `types` of its label in `type_column`. A label not in
/// `types` is an error at its place: the data is cleaned first, not silently filtered.
/// Messages name the options as `flag` spells them (`types`, `type_column`).
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-typed");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("typed.csv");
/// std::fs::write(&path, "x,y,shift\n0,0,day\n1,2,night\n3,1,dusk\n")?;
/// let types = ["day".to_string(), "night".to_string()];
/// let flag = |name: &str| format!("--{name}");
/// let read = disguise::task::read_typed_points(&path, ["x", "y"], |_, _| Ok(()), "shift", &types, &flag);
/// assert!(read.unwrap_err().to_string().ends_with("typed.csv:4:3: column 'shift': type \"dusk\" is not in --types"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The reader's, at their `file:line:column`; [`Error::Parse`] for a file without
/// `type_column`.
pub fn read_typed_points(
    path: &Path,
    columns: [&str; 2],
    check: impl Fn(usize, f64) -> std::result::Result<(), String>,
    type_column: &str,
    types: &[String],
    flag: &dyn Fn(&str) -> String,
) -> Result<(Vec<[f64; 2]>, Vec<usize>)> {
    let known = |t: &str| {
        if types.iter().any(|x| x == t) {
            Ok(())
        } else {
            Err(format!("type {} is not in {}", quote(t), flag("types")))
        }
    };
    let read = read_columns_with_checks(path, &columns, Some(type_column), check, known)?;
    let Some(labels) = read.text.as_ref() else {
        return Err(Error::parse(format!(
            "{}: no column {type_column:?} ({})",
            path.display(),
            flag("type_column")
        )));
    };
    let kinds = labels
        .iter()
        .map(|label| {
            let t = types.iter().position(|t| t == label);
            t.expect("invariant: every type was checked while reading")
        })
        .collect();
    let points = read.numeric[0]
        .iter()
        .zip(&read.numeric[1])
        .map(|(&a, &b)| [a, b])
        .collect();
    Ok((points, kinds))
}

/// The reach lists of k-topic influence, one per person, and what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    /// Each person's (seed, topic) pairs, as indices into the public seeds and topics.
    pub lists: Vec<Vec<(usize, usize)>>,
    /// The pairs dropped for naming a seed or a topic not in the public lists.
    pub dropped: u64,
}

/// The reach lists of k-topic influence: one person per line of `path`, the `seed:topic`
/// pairs (separated by spaces) whose message reaches them; the name after the last `:` is
/// the topic. Each pair becomes (the seed's index in `seeds`, the topic's in `topics`); a
/// pair naming a seed or a topic not in those public lists is dropped and counted.
///
/// ```
/// # let dir = std::env::temp_dir().join("disguise-doc-reach");
/// # std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("reach.txt");
/// std::fs::write(&path, "ann:news bob:sport\n\nbob:news eve:news ann:cooking\n")?;
/// let seeds = ["ann".to_string(), "bob".to_string()];
/// let topics = ["news".to_string(), "sport".to_string()];
/// let reach = disguise::task::read_reach(&path, &seeds, &topics)?;
/// assert_eq!(reach.lists, vec![vec![(0, 0), (1, 1)], vec![], vec![(1, 0)]]);
/// assert_eq!(reach.dropped, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`Transactions::read`] for the FIMI format, at the file's `line:column`.
pub fn read_reach(path: &Path, seeds: &[String], topics: &[String]) -> Result<Reach> {
    let lines = Transactions::read(path, &TransactionFormat::Fimi, None)?;
    // Each distinct token once: its (seed, topic), or None when either is not public.
    let pair_of: Vec<Option<(usize, usize)>> = lines
        .items()
        .iter()
        .map(|token| {
            let (seed, topic) = token.rsplit_once(':')?;
            let v = seeds.iter().position(|n| n == seed)?;
            let t = topics.iter().position(|n| n == topic)?;
            Some((v, t))
        })
        .collect();
    let mut dropped = 0u64;
    let lists = lines
        .rows()
        .map(|row| {
            row.iter()
                .filter_map(|&i| {
                    let pair = pair_of[i as usize];
                    dropped += u64::from(pair.is_none());
                    pair
                })
                .collect()
        })
        .collect();
    Ok(Reach { lists, dropped })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_the_type_column_names_it() {
        let dir = std::env::temp_dir().join(format!("disguise-typed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("untyped.csv");
        std::fs::write(&path, "x,y\n0,0\n").unwrap();
        let flag = |name: &str| format!("--{}", name.replace('_', "-"));
        let e = read_typed_points(&path, ["x", "y"], |_, _| Ok(()), "shift", &[], &flag);
        let e = e.unwrap_err().to_string();
        assert!(
            e.ends_with("untyped.csv: no column \"shift\" (--type-column)"),
            "{e}"
        );
        let e = read_typed_points(&path, ["x", "z"], |_, _| Ok(()), "shift", &[], &flag);
        assert!(e.unwrap_err().to_string().contains("no column"));
    }

    #[test]
    fn an_unreadable_reach_file_names_the_file() {
        let missing = std::env::temp_dir().join("disguise-no-such-reach-file.txt");
        let e = read_reach(&missing, &[], &[]).unwrap_err();
        assert!(
            e.to_string().contains("disguise-no-such-reach-file.txt"),
            "{e}"
        );
    }
}
