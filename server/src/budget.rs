//! Byte budgets and the one formatter that applies them.
//!
//! Tools describe a reply as [`Block`]s; [`Reply::render`] turns them into the
//! final text within a [`ByteBudget`]. This is the only place in the server
//! that shortens text shown to the model: previews are windowed here, long
//! outputs are reduced to head/tail excerpts here, and the last step cuts the
//! whole text on a UTF-8 boundary with an explicit marker. Indexed content is
//! never touched: only rendered text is cut.

use std::fmt;

/// The smallest `max_bytes` a caller may ask for.
pub const MIN_BUDGET: usize = 256;

/// Characters a search preview may hold.
pub const PREVIEW_CHARS: usize = 600;

/// The byte ceiling of one reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteBudget(usize);

impl ByteBudget {
    /// A tool's hard cap; also the budget when no `max_bytes` is given.
    pub const fn cap(bytes: usize) -> Self {
        Self(bytes)
    }

    /// The effective budget: `max_bytes` when given, else the cap. Out of range is an error
    /// message naming the accepted range.
    pub fn effective(max_bytes: Option<u64>, cap: ByteBudget) -> Result<Self, String> {
        match max_bytes {
            None => Ok(cap),
            Some(n) if (MIN_BUDGET as u64..=cap.0 as u64).contains(&n) => Ok(Self(n as usize)),
            Some(n) => Err(format!("must be in {MIN_BUDGET}..={}, got {n}", cap.0)),
        }
    }

    pub fn bytes(self) -> usize {
        self.0
    }
}

impl fmt::Display for ByteBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} B", self.0)
    }
}

/// Which part of a long text an excerpt keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The beginning and the end, a third and two thirds.
    HeadAndTail,
    /// The end only (where errors are).
    Tail,
}

/// One piece of a reply.
#[derive(Debug)]
pub enum Block {
    /// Text kept whole unless the final cut reaches it.
    Text(String),
    /// A long text shrunk to fit the space the fixed blocks leave; `weight`
    /// shares that space between several excerpts.
    Excerpt {
        text: String,
        keep: Keep,
        weight: usize,
        /// Bytes known to be missing from the middle of `text` already (a huge
        /// output of which only the ends were kept); counted in the marker.
        hidden: usize,
    },
    /// At most [`PREVIEW_CHARS`] characters of `text` around byte `anchor`,
    /// whitespace collapsed, prefixed by `prefix`.
    Preview {
        prefix: &'static str,
        text: String,
        anchor: usize,
    },
}

/// A reply under construction.
#[derive(Debug, Default)]
pub struct Reply {
    blocks: Vec<Block>,
}

impl Reply {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a line (a newline is added).
    pub fn line(&mut self, text: impl Into<String>) -> &mut Self {
        let mut text = text.into();
        text.push('\n');
        self.blocks.push(Block::Text(text));
        self
    }

    /// Appends text as is.
    pub fn text(&mut self, text: impl Into<String>) -> &mut Self {
        self.blocks.push(Block::Text(text.into()));
        self
    }

    pub fn excerpt(&mut self, text: String, keep: Keep, weight: usize) -> &mut Self {
        self.excerpt_of_edges(text, 0, keep, weight)
    }

    /// Like [`Reply::excerpt`] for a text whose middle `hidden` bytes were never kept.
    pub fn excerpt_of_edges(
        &mut self,
        text: String,
        hidden: usize,
        keep: Keep,
        weight: usize,
    ) -> &mut Self {
        self.blocks.push(Block::Excerpt {
            text,
            keep,
            weight,
            hidden,
        });
        self
    }

    pub fn preview(&mut self, prefix: &'static str, text: String, anchor: usize) -> &mut Self {
        self.blocks.push(Block::Preview {
            prefix,
            text,
            anchor,
        });
        self
    }

    /// Appends the blocks of another reply.
    pub fn append(&mut self, other: Reply) -> &mut Self {
        self.blocks.extend(other.blocks);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The final text: previews windowed, excerpts fitted, then the whole cut to the budget.
    pub fn render(self, budget: ByteBudget) -> String {
        let limit = budget.bytes();
        let weights: usize = self
            .blocks
            .iter()
            .map(|b| match b {
                Block::Excerpt { weight, .. } => (*weight).max(1),
                _ => 0,
            })
            .sum();
        // Previews are windowed first: they are small and their size is known before excerpts.
        let previews: Vec<Option<String>> = self
            .blocks
            .iter()
            .map(|b| match b {
                Block::Preview {
                    prefix,
                    text,
                    anchor,
                } => Some(format!("{prefix}{}\n", preview_window(text, *anchor))),
                _ => None,
            })
            .collect();
        let fixed: usize = self
            .blocks
            .iter()
            .zip(&previews)
            .map(|(b, p)| match (b, p) {
                (Block::Text(t), _) => t.len(),
                (_, Some(p)) => p.len(),
                _ => 0,
            })
            .sum();
        let room = limit.saturating_sub(fixed);
        let mut out = String::with_capacity(limit.min(fixed + room));
        for (block, preview) in self.blocks.into_iter().zip(previews) {
            match block {
                Block::Text(t) => out.push_str(&t),
                Block::Preview { .. } => out.push_str(preview.as_deref().unwrap_or_default()),
                Block::Excerpt {
                    text,
                    keep,
                    weight,
                    hidden,
                } => {
                    let share = room * weight.max(1) / weights.max(1);
                    out.push_str(&excerpt(&text, hidden, share, keep));
                    // What follows an excerpt starts on its own line.
                    if !out.is_empty() && !out.ends_with('\n') {
                        out.push('\n');
                    }
                }
            }
        }
        cut_to(out, limit)
    }
}

/// Cuts `text` to at most `limit` bytes: on a line end when one is near, else on a
/// UTF-8 boundary, and says so with a marker that fits inside the limit.
pub fn cut_to(text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    // The marker starts on its own line (the newline counts as shown text).
    let marker_for = |shown: usize| {
        format!(
            "\n…[cut: {shown} of {} B shown; budget {limit} B]",
            text.len()
        )
    };
    // The marker's own length depends on the digits of `shown`; size it for the largest.
    let reserve = marker_for(limit).len();
    if reserve > limit {
        // Too small for a marker (never for a tool budget, which is at least 256 B).
        let end = text.floor_char_boundary(limit);
        return text[..end].to_owned();
    }
    let room = limit.saturating_sub(reserve);
    let end = line_end_near(&text, room);
    let marker = marker_for(end);
    let mut out = String::with_capacity(end + marker.len());
    out.push_str(&text[..end]);
    out.push_str(if out.ends_with('\n') {
        &marker[1..]
    } else {
        &marker
    });
    out
}

/// The largest cut point `<= at` on a char boundary, moved back to just after
/// a newline when one lies in the last quarter.
fn line_end_near(text: &str, at: usize) -> usize {
    let end = text.floor_char_boundary(at.min(text.len()));
    let floor = text.floor_char_boundary(end - end / 4);
    match text[floor..end].rfind('\n') {
        Some(i) => floor + i + 1,
        None => end,
    }
}

/// The first cut point `>= at` on a char boundary, moved forward to just after
/// a newline when one lies in the next quarter of `span`.
fn line_start_near(text: &str, at: usize, span: usize) -> usize {
    let start = text.ceil_char_boundary(at.min(text.len()));
    let ceil = text.floor_char_boundary((start + span / 4).min(text.len()));
    match text[start..ceil].find('\n') {
        Some(i) => start + i + 1,
        None => start,
    }
}

/// `text` whole when it fits `room`, else what fits of its head and/or tail with
/// a marker that says how much was left out (`hidden` bytes were already missing
/// from its middle).
fn excerpt(text: &str, hidden: usize, room: usize, keep: Keep) -> String {
    if text.len() <= room && hidden == 0 {
        return text.to_owned();
    }
    let marker = |omitted: usize| format!("\n…[{omitted} B omitted]…\n");
    let space = room.saturating_sub(marker(text.len() + hidden).len());
    if space == 0 {
        return String::new();
    }
    let (head_len, tail_len) = match keep {
        Keep::HeadAndTail => (space / 3, space - space / 3),
        Keep::Tail => (0, space),
    };
    let head_end = if head_len == 0 {
        0
    } else {
        line_end_near(text, head_len)
    };
    let tail_start = line_start_near(text, text.len() - tail_len, tail_len).max(head_end);
    let omitted = tail_start - head_end + hidden;
    let mut out = String::with_capacity(room);
    out.push_str(&text[..head_end]);
    out.push_str(&marker(omitted));
    out.push_str(&text[tail_start..]);
    out
}

/// At most [`PREVIEW_CHARS`] characters of `text` around byte `anchor`, on one line.
fn preview_window(text: &str, anchor: usize) -> String {
    let anchor = text.floor_char_boundary(anchor.min(text.len()));
    // Start a third of the window before the match, then collapse whitespace.
    let lead: usize = text[..anchor]
        .char_indices()
        .rev()
        .nth(PREVIEW_CHARS / 3)
        .map(|(i, _)| i)
        .unwrap_or(0);
    let mut out = String::new();
    let mut chars = 0usize;
    let mut last_space = true;
    if lead > 0 {
        out.push('…');
        chars += 1;
    }
    let mut rest = text[lead..].chars().peekable();
    while let Some(c) = rest.next() {
        let c = if c.is_whitespace() { ' ' } else { c };
        if c == ' ' && last_space {
            continue;
        }
        last_space = c == ' ';
        if chars + 1 >= PREVIEW_CHARS && rest.peek().is_some() {
            out.push('…');
            break;
        }
        out.push(c);
        chars += 1;
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effective_budget_is_the_cap_or_a_value_in_range() {
        let cap = ByteBudget::cap(8192);
        assert_eq!(ByteBudget::effective(None, cap), Ok(cap));
        assert_eq!(ByteBudget::effective(Some(256), cap).unwrap().bytes(), 256);
        assert_eq!(
            ByteBudget::effective(Some(8192), cap).unwrap().bytes(),
            8192
        );
        assert_eq!(
            ByteBudget::effective(Some(255), cap),
            Err("must be in 256..=8192, got 255".into())
        );
        assert!(ByteBudget::effective(Some(8193), cap).is_err());
    }

    #[test]
    fn text_within_the_budget_is_untouched() {
        let mut r = Reply::new();
        r.line("hello");
        assert_eq!(r.render(ByteBudget::cap(256)), "hello\n");
    }

    #[test]
    fn cutting_respects_the_limit_and_char_boundaries_and_says_so() {
        let text = "é".repeat(1000) + "🦀".repeat(500).as_str();
        for limit in [256, 257, 258, 259, 1000, 3001] {
            let out = cut_to(text.clone(), limit);
            assert!(out.len() <= limit, "limit {limit}: {}", out.len());
            assert!(out.contains("…[cut: "), "limit {limit}");
            assert!(out.ends_with(&format!("budget {limit} B]")));
        }
    }

    #[test]
    fn cutting_prefers_a_line_end() {
        let text = format!("{}\n{}", "a".repeat(200), "b".repeat(400));
        let out = cut_to(text, 256);
        assert_eq!(
            out,
            format!(
                "{}\n…[cut: 201 of 601 B shown; budget 256 B]",
                "a".repeat(200)
            )
        );
    }

    #[test]
    fn an_excerpt_keeps_head_and_tail_and_counts_what_it_omits() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let mut r = Reply::new();
        r.line("header").excerpt(text.clone(), Keep::HeadAndTail, 1);
        let out = r.render(ByteBudget::cap(1024));
        assert!(out.len() <= 1024);
        assert!(out.contains("line 0\n"));
        assert!(out.contains("line 999\n"));
        assert!(out.contains("B omitted]"));
        assert!(!out.contains("[cut:"), "excerpt alone should fit: {out}");
    }

    #[test]
    fn a_tail_excerpt_keeps_the_end() {
        let text: String = (0..1000).map(|i| format!("err {i}\n")).collect();
        let mut r = Reply::new();
        r.excerpt(text, Keep::Tail, 1);
        let out = r.render(ByteBudget::cap(300));
        assert!(out.ends_with("err 999\n"), "{out}");
        assert!(!out.contains("err 0\n"));
    }

    #[test]
    fn previews_hold_at_most_600_chars_around_the_anchor() {
        let text = format!("{}NEEDLE{}", "x ".repeat(2000), "y ".repeat(2000));
        let anchor = text.find("NEEDLE").unwrap();
        let window = preview_window(&text, anchor);
        assert!(window.chars().count() <= PREVIEW_CHARS);
        assert!(window.contains("NEEDLE"));
        let short = preview_window("a\n\n  b", 0);
        assert_eq!(short, "a b");
    }

    #[test]
    fn multibyte_previews_stay_within_the_char_limit() {
        let text = "🦀".repeat(5000);
        let window = preview_window(&text, 8000);
        assert!(window.chars().count() <= PREVIEW_CHARS);
    }
}
