//! The name of a data set in a ledger: given by the caller, trimmed, and never one that a
//! person would take for another — the same letters in another case, with other white
//! space, with invisible characters, or in another Unicode spelling.

use crate::error::{Error, Result};
use unicode_normalization::UnicodeNormalization;

/// The longest data set name a ledger accepts, in bytes.
const MAX_NAME: usize = 256;

/// Checks a data set name and returns it trimmed of surrounding white space: 1 to 256
/// bytes, no control characters, and something visible (a name made only of invisible
/// characters, such as a byte order mark or a zero-width space, is empty). The name is
/// stored as given (trimmed): what a person typed is what the audit log shows, and what
/// they type again; names alike to it are refused by the ledger (alike: equal after NFKC,
/// with invisible characters dropped and case and white space folded).
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

/// The refusal of `name` when `existing` is a different name alike to it.
pub(crate) fn did_you_mean(name: &str, existing: &str) -> Error {
    Error::param(
        "dataset",
        format!(
            "no data set {name:?} in the ledger; did you mean {existing:?}? (the names differ \
             only by case, white space, invisible characters or the Unicode spelling of their \
             letters, which would give the same data a second budget)"
        ),
    )
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
