//! Turning what a user typed into FTS5 queries that cannot raise syntax errors.
//!
//! Every whitespace-separated term becomes a quoted phrase of the tokens the
//! `unicode61` tokenizer would see in it, so `exec-file`, `a::b`, `/v1/x`,
//! `NEAR(` and stray quotes are all plain phrases. Terms with no token
//! characters are dropped.

/// The FTS5 phrase for each searchable term of `query`, in order, without duplicates.
pub fn phrases(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for term in query.split_whitespace() {
        let tokens = tokens(term);
        if tokens.is_empty() {
            continue;
        }
        let phrase = format!("\"{}\"", tokens.join(" "));
        if !out.contains(&phrase) {
            out.push(phrase);
        }
    }
    out
}

/// Lower-cased tokens of `text` as `unicode61` splits them (letters and digits).
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !is_token_char(c))
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn is_token_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// All phrases must match.
pub fn all_of(phrases: &[String]) -> String {
    phrases.join(" AND ")
}

/// Any phrase may match.
pub fn any_of(phrases: &[String]) -> String {
    phrases.join(" OR ")
}

/// Edit distance between `a` and `b` when it is at most `max`, else `None`.
pub fn within_distance(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= max).then_some(d)
}

/// Where a preview of `text` should centre: the first occurrence of the
/// whole query (its tokens in order, as typed), else the first occurrence of
/// its rarest token in `text`, so that a common word does not pull the preview
/// to the start of every chunk.
pub fn first_match(text: &str, tokens: &[String]) -> Option<usize> {
    if tokens.len() > 1
        && let Some(at) = find_ignore_case(text, &tokens.join(" "))
    {
        return Some(at);
    }
    let lower = text.to_lowercase();
    tokens
        .iter()
        .filter_map(|t| {
            let first = find_ignore_case(text, t)?;
            Some((lower.matches(t.as_str()).count(), first))
        })
        .min()
        .map(|(_, at)| at)
}

fn find_ignore_case(hay: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    if needle.is_ascii() {
        let n = needle.as_bytes();
        return hay
            .as_bytes()
            .windows(n.len())
            .position(|w| w.eq_ignore_ascii_case(n));
    }
    // Compare character by character from each start, lower-casing as we go:
    // no copy of the rest of the text per position.
    hay.char_indices().map(|(i, _)| i).find(|&i| {
        let mut rest = hay[i..].chars().flat_map(char::to_lowercase);
        needle.chars().all(|n| rest.next() == Some(n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_becomes_plain_phrases() {
        assert_eq!(phrases("exec-file"), vec!["\"exec file\""]);
        assert_eq!(phrases("a::b"), vec!["\"a b\""]);
        assert_eq!(phrases("/v1/x"), vec!["\"v1 x\""]);
        assert_eq!(phrases("NEAR("), vec!["\"near\""]);
        assert!(phrases("\" * ( )").is_empty());
        assert_eq!(phrases("Foo foo"), vec!["\"foo\""]);
    }

    #[test]
    fn boolean_joins() {
        let p = phrases("alpha beta");
        assert_eq!(all_of(&p), "\"alpha\" AND \"beta\"");
        assert_eq!(any_of(&p), "\"alpha\" OR \"beta\"");
    }

    #[test]
    fn bounded_edit_distance() {
        assert_eq!(within_distance("kitten", "sitting", 3), Some(3));
        assert_eq!(within_distance("kitten", "sitting", 2), None);
        assert_eq!(within_distance("search", "serach", 2), Some(2));
        assert_eq!(within_distance("a", "abcdef", 2), None);
    }

    #[test]
    fn first_match_is_case_insensitive() {
        assert_eq!(first_match("Hello World", &["world".into()]), Some(6));
        assert_eq!(first_match("ÄBC äbc", &["äbc".into()]), Some(0));
        assert_eq!(first_match("nothing", &["zzz".into()]), None);
        let text = "unit 1 ok unit 2 ok test 400 unit 3";
        assert_eq!(
            first_match(text, &["unit".into(), "400".into()]),
            text.find("400")
        );
        assert_eq!(
            first_match("a unit 400 b", &["unit".into(), "400".into()]),
            Some(2)
        );
    }
}
