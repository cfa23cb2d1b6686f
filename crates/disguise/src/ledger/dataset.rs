//! The name of a data set in a ledger: given by the caller, trimmed, and never one that a
//! person would take for another — the same letters in another case, with other white
//! space, with invisible characters, or in another Unicode spelling — nor, unless the caller
//! confirms that it names a new data set ([`Name::new_dataset`]), one or two edits from
//! another (a typo).

use crate::error::{Error, Result};
use unicode_normalization::UnicodeNormalization;

/// The longest data set name a ledger accepts, in bytes.
const MAX_NAME: usize = 256;

/// Checks a data set name and returns it trimmed of surrounding white space: 1 to 256
/// bytes, no control characters, and something visible (a name made only of invisible
/// characters, such as a byte order mark or a zero-width space, is empty). The name is
/// stored as given (trimmed): what a person typed is what the audit log shows, and what
/// they type again; names alike to it are refused by the ledger (alike: equal after NFKC,
/// with invisible characters dropped and case and white space folded), and so are new names
/// near it, unless confirmed new ([`Name`]).
///
/// ```
/// use disguise::ledger::check_name;
/// assert_eq!(check_name("  car ")?, "car");
/// assert!(check_name(" ").is_err());
/// assert!(check_name("\u{feff}\u{200b}").is_err()); // invisible only: empty
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] naming `dataset`.
pub fn check_name(name: &str) -> Result<&str> {
    let name = name.trim();
    if name.len() > MAX_NAME {
        return Err(Error::param(
            "dataset",
            format!("the name is {} bytes long, at most {MAX_NAME}", name.len()),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::param(
            "dataset",
            "the name contains a control character",
        ));
    }
    if likeness(name).is_empty() {
        let what = if name.is_empty() {
            "the name is empty"
        } else {
            "the name is empty: it has only invisible characters (such as a byte order mark \
             or a zero-width space)"
        };
        return Err(Error::param("dataset", what));
    }
    Ok(name)
}

/// What two names that a person would take for the same data set share: the name in
/// Unicode normalisation form KC (so that `café` typed as `e` + U+0301, full-width
/// `ａｄｕｌｔ` and ligatures spell as their plain letters), without its default-ignorable
/// code points ([`is_default_ignorable`]: byte order marks, zero-width spaces and joiners,
/// soft hyphens, direction marks, variation selectors, …), case folded (lower case of the
/// upper case, so that `ß` and `SS` agree) and without white space: `Car`, ` car`, `c ar`,
/// `\u{feff}car`, `c\u{200b}ar` and `ｃａｒ` are all `car`.
pub(crate) fn likeness(name: &str) -> String {
    let visible = |c: &char| !c.is_whitespace() && !is_default_ignorable(*c);
    // Normalise, fold case, and normalise again (folding can leave a sequence that is not
    // in normal form, e.g. `İ` lowers to `i` + U+0307); drop what is invisible at each step.
    let folded: String = name
        .chars()
        .filter(visible)
        .nfkc()
        .filter(visible)
        .flat_map(char::to_uppercase)
        .flat_map(char::to_lowercase)
        .collect();
    folded.nfkc().filter(visible).collect()
}

/// The code points of Unicode's derived property Default_Ignorable_Code_Point: characters
/// that a renderer shows as nothing when it does not support them (DerivedCoreProperties.txt
/// of the Unicode Character Database; unchanged since Unicode 14.0, 4,174 code points).
const DEFAULT_IGNORABLE: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),   // SOFT HYPHEN
    (0x034F, 0x034F),   // COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),   // ARABIC LETTER MARK
    (0x115F, 0x1160),   // HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),   // KHMER VOWEL INHERENT AQ..AA
    (0x180B, 0x180F),   // MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    (0x200B, 0x200F),   // ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),   // LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x206F),   // WORD JOINER..NOMINAL DIGIT SHAPES (with reserved U+2065)
    (0x3164, 0x3164),   // HANGUL FILLER
    (0xFE00, 0xFE0F),   // VARIATION SELECTOR-1..16
    (0xFEFF, 0xFEFF),   // ZERO WIDTH NO-BREAK SPACE (byte order mark)
    (0xFFA0, 0xFFA0),   // HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),   // reserved
    (0x1BCA0, 0x1BCA3), // SHORTHAND FORMAT LETTER OVERLAP..UP STEP
    (0x1D173, 0x1D17A), // MUSICAL SYMBOL BEGIN BEAM..END PHRASE
    (0xE0000, 0xE0FFF), // tags, VARIATION SELECTOR-17..256, reserved
];

/// Whether `c` is a default-ignorable code point ([`DEFAULT_IGNORABLE`]).
pub(crate) fn is_default_ignorable(c: char) -> bool {
    let c = u32::from(c);
    DEFAULT_IGNORABLE
        .binary_search_by(|&(low, high)| {
            if high < c {
                std::cmp::Ordering::Less
            } else if low > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// A data set's name as the ledger's methods that may create a data set take it
/// ([`Ledger::set_limit`](super::Ledger::set_limit), [`Ledger::reserve`](super::Ledger::reserve),
/// [`Ledger::charge`](super::Ledger::charge)): the name, and whether the caller confirms that
/// it names a new data set.
///
/// A name the ledger holds is always taken as it is. A name it does not hold creates a data
/// set, and a typo would give the same people a second budget, so a new name is refused with
/// "did you mean …?" when it is *near* an existing name: their [likenesses](check_name)
/// (case, white space, invisible characters and Unicode spelling folded) are at most 2 edits
/// apart — an edit being the insertion, deletion or substitution of one character, or the
/// transposition of two adjacent ones (the Damerau–Levenshtein distance) —, or at most 1 edit
/// when the shorter of the two has at most 3 characters (any two 2-letter names are 2 edits
/// apart, and 1-letter ones 1). A name built with [`Name::new_dataset`] confirms that it is
/// new, and is then taken even when near another; a name *alike* to another (the same
/// likeness: `Adult` beside `adult`) is refused even so, since no person could tell the two
/// apart. A plain `&str` or `&String` is a name without that confirmation.
///
/// ```
/// use disguise::ledger::{Ledger, Limit, Name};
/// # let dir = tempfile::tempdir().unwrap();
/// let ledger = Ledger::create(&dir.path().join("budget.ledger"))?;
/// ledger.set_limit("nursery", Limit::new(1.0, 0.0)?)?;
/// // One letter off an existing name: taken for a typo.
/// let typo = ledger.set_limit("nursry", Limit::new(1.0, 0.0)?).unwrap_err();
/// assert!(typo.to_string().contains("did you mean \"nursery\"?"));
/// // Confirmed as a new data set: it gets its own budget, and is then known by its name.
/// ledger.set_limit(Name::new_dataset("nursry"), Limit::new(1.0, 0.0)?)?;
/// ledger.set_limit("nursry", Limit::new(0.5, 0.0)?)?;
/// // A name that differs only by case is never a new data set.
/// assert!(ledger.set_limit(Name::new_dataset("Nursery"), Limit::new(1.0, 0.0)?).is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Name<'a> {
    /// The name as given (trimmed where it is used).
    pub(crate) name: &'a str,
    /// Whether the caller confirms that the name is a new data set's.
    pub(crate) new: bool,
}

impl<'a> Name<'a> {
    /// `name`, confirmed as the name of a new data set: taken even when it is near an
    /// existing name (never when it is alike to one).
    pub fn new_dataset(name: &'a str) -> Self {
        Self { name, new: true }
    }
}

/// A name without confirmation that it is new.
impl<'a> From<&'a str> for Name<'a> {
    fn from(name: &'a str) -> Self {
        Self { name, new: false }
    }
}

/// A name without confirmation that it is new.
impl<'a> From<&'a String> for Name<'a> {
    fn from(name: &'a String) -> Self {
        Self::from(name.as_str())
    }
}

/// How close an existing name is to a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Closeness {
    /// The same likeness: no person could tell them apart.
    Alike,
    /// This many edits apart (1 or 2), near enough to be a typo.
    Near(usize),
}

/// How close two names' likenesses `a` and `b` are ([`Name`]): alike when equal, near when
/// at most 2 Damerau–Levenshtein edits apart (at most 1 when the shorter has at most 3
/// characters); `None` otherwise.
pub(crate) fn closeness(a: &str, b: &str) -> Option<Closeness> {
    if a == b {
        return Some(Closeness::Alike);
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let most = if la.min(lb) <= 3 { 1 } else { 2 };
    // The distance is at least the difference of the lengths: most pairs stop here.
    if la.abs_diff(lb) > most {
        return None;
    }
    let edits = strsim::damerau_levenshtein(a, b);
    (edits <= most).then_some(Closeness::Near(edits))
}

/// What a ledger method does with a name it does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Creates the data set (a limit, or a release): a near name may be confirmed new.
    Create,
    /// Looks it up (a status, a limit, releases): nothing to confirm.
    Look,
}

/// The refusal of `name` when `existing` is a different name alike or near to it.
pub(crate) fn did_you_mean(
    name: &str,
    existing: &str,
    closeness: Closeness,
    purpose: Purpose,
) -> Error {
    let why = match (closeness, purpose) {
        (Closeness::Alike, _) => "the names differ only by case, white space, invisible \
                                  characters or the Unicode spelling of their letters, which \
                                  would give the same data a second budget"
            .to_string(),
        (Closeness::Near(edits), Purpose::Create) => format!(
            "{} from it: a new name that close to an existing one is taken for a typo, which \
             would give the same people a second budget; if {name:?} is a different data set, \
             confirm that it is new: --new-dataset on the command line, \
             Ledger.set_limit(..., new=True) in Python",
            edits_words(edits)
        ),
        (Closeness::Near(edits), Purpose::Look) => format!("{} from it", edits_words(edits)),
    };
    Error::param(
        "dataset",
        format!("no data set {name:?} in the ledger; did you mean {existing:?}? ({why})"),
    )
}

/// "1 edit" or "2 edits".
fn edits_words(edits: usize) -> String {
    format!("{edits} edit{}", if edits == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_alike_share_their_likeness_and_others_do_not() {
        assert_eq!(likeness("Car"), likeness(" car"));
        assert_eq!(likeness("c ar"), "car");
        assert_ne!(likeness("car"), likeness("cars"));
        assert_eq!(check_name(" car\t").unwrap(), "car");
        assert!(check_name("a\u{7}b").is_err());
        assert!(check_name(&"x".repeat(300)).is_err());
    }

    #[test]
    fn invisible_characters_unicode_spellings_and_case_folding_are_alike() {
        for alike in [
            "\u{feff}adult",
            "adu\u{200b}lt",
            "\u{ff41}\u{ff44}\u{ff55}\u{ff4c}\u{ff54}", // full width
            "ADULT",
            "a\u{00ad}dult",
            "adult\u{2060}",
            "\u{202e}adult",
            "adult\u{fe0f}",
            "adult\u{e0001}",
            "a\u{3000}dult", // ideographic space
        ] {
            assert_eq!(likeness(alike), "adult", "{alike:?}");
        }
        assert_eq!(likeness("cafe\u{301}"), likeness("café"));
        assert_eq!(likeness("Straße"), likeness("STRASSE"));
        assert_eq!(likeness("\u{fb01}le"), "file"); // the ligature ﬁ
        assert_ne!(likeness("café"), likeness("cafe"));
        // A name made only of invisible characters is empty.
        for empty in ["\u{feff}", "\u{200b}\u{200d}", " \u{2060} ", "\u{e0020}"] {
            let err = check_name(empty).unwrap_err().to_string();
            assert!(err.contains("empty"), "{empty:?}: {err}");
        }
        assert_eq!(check_name("\u{feff}adult").unwrap(), "\u{feff}adult");
    }

    #[test]
    fn names_are_near_within_two_edits_or_one_when_one_has_at_most_3_characters() {
        use Closeness::{Alike, Near};
        for (a, b, expected) in [
            ("adult", "adult", Some(Alike)),
            ("nursery", "nursry", Some(Near(1))), // deleted
            ("adult", "adlut", Some(Near(1))),    // transposed: one edit, not two
            ("adult", "adults", Some(Near(1))),   // inserted
            ("adult", "adulf", Some(Near(1))),    // substituted
            ("adult", "adult-2", Some(Near(2))),
            ("adult", "dault", Some(Near(1))),
            ("sales-2023", "sales-2024", Some(Near(1))),
            ("wine", "wild", Some(Near(2))), // 4 characters: 2 edits
            ("adult", "adult-v2", None),     // 3 edits
            ("adult", "census", None),
            ("nursery", "nursing", None),
            // At most 3 characters: one edit.
            ("car", "cars", Some(Near(1))),
            ("cat", "act", Some(Near(1))),
            ("d1", "d2", Some(Near(1))),
            ("a", "b", Some(Near(1))),
            ("a", "ab", Some(Near(1))),
            ("car", "bus", None),
            ("ab", "cd", None), // 2 edits, as are any two 2-letter names
            ("car", "cow", None),
            ("ab", "abcd", None),
            ("a", "abc", None),
            ("abc", "abcde", None),
            // Characters, not bytes: é is one.
            ("café", "cafe", Some(Near(1))),
            ("日本", "日本語", Some(Near(1))),
        ] {
            assert_eq!(closeness(a, b), expected, "{a} / {b}");
            assert_eq!(closeness(b, a), expected, "{b} / {a}");
        }
    }

    #[test]
    fn a_name_converts_from_a_string_without_confirmation() {
        let owned = String::from("adult");
        assert_eq!(Name::from(&owned), Name::from("adult"));
        assert!(!Name::from("adult").new);
        assert!(Name::new_dataset("adult").new);
        let refused = did_you_mean("adlut", "adult", Closeness::Near(1), Purpose::Create);
        let text = refused.to_string();
        assert!(
            text.starts_with("invalid dataset: no data set \"adlut\" in the ledger; did you mean \"adult\"? (1 edit from it")
                && text.contains("--new-dataset")
                && text.contains("new=True"),
            "{text}"
        );
        let looked = did_you_mean("adlut", "adult", Closeness::Near(2), Purpose::Look).to_string();
        assert!(
            looked.ends_with("(2 edits from it)") && !looked.contains("new"),
            "{looked}"
        );
        let alike = did_you_mean("Adult", "adult", Closeness::Alike, Purpose::Create).to_string();
        assert!(
            alike.contains("only by case") && !alike.contains("--new-dataset"),
            "{alike}"
        );
    }

    #[test]
    fn the_table_of_ignorable_code_points_is_sorted_and_has_4174_of_them() {
        assert!(DEFAULT_IGNORABLE.windows(2).all(|w| w[0].1 < w[1].0));
        assert!(DEFAULT_IGNORABLE.iter().all(|&(low, high)| low <= high));
        let total: u32 = DEFAULT_IGNORABLE
            .iter()
            .map(|&(low, high)| high - low + 1)
            .sum();
        assert_eq!(total, 4174);
        for c in ['\u{ad}', '\u{180e}', '\u{2065}', '\u{e0fff}', '\u{1bca3}'] {
            assert!(is_default_ignorable(c), "{c:?}");
        }
        for c in ['a', ' ', '\u{ac}', '\u{2070}', '\u{e1000}', '\u{1d17b}'] {
            assert!(!is_default_ignorable(c), "{c:?}");
        }
    }
}
