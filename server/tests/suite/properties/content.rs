//! Generated program output: shapes that stress cutting and chunking.

use proptest::prelude::*;

/// What the generated text looks like.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// Printable ASCII in lines of varied length.
    Ascii,
    /// 1- to 4-byte characters mixed, so every boundary meets a wide one.
    MultiByte,
    /// One long line, no newline at all.
    OneLongLine,
    /// Many very short lines.
    ShortLines,
}

/// A program's output, described compactly so failures shrink well.
#[derive(Debug, Clone)]
pub struct OutputSpec {
    pub shape: Shape,
    pub len: usize,
    pub seed: u64,
    /// 0: all on stdout; 1: a little stderr; 2: half; 3: all on stderr.
    pub stderr_share: u8,
}

const WIDE: [char; 6] = ['a', 'é', '€', '🦀', 'ß', '𝄞'];

fn text(shape: Shape, len: usize, rng: &mut fastrand::Rng) -> String {
    let mut s = String::with_capacity(len + 4);
    while s.len() < len {
        match shape {
            Shape::Ascii => {
                let c = if rng.u8(0..60) == 0 {
                    '\n'
                } else {
                    rng.u8(b' '..=b'~') as char
                };
                s.push(c);
            }
            Shape::MultiByte => {
                let c = if rng.u8(0..40) == 0 {
                    '\n'
                } else {
                    WIDE[rng.usize(0..WIDE.len())]
                };
                s.push(c);
            }
            Shape::OneLongLine => {
                let c = if rng.bool() {
                    rng.alphanumeric()
                } else {
                    WIDE[rng.usize(0..WIDE.len())]
                };
                s.push(c);
            }
            Shape::ShortLines => {
                for _ in 0..rng.usize(0..3) {
                    s.push(rng.alphanumeric());
                }
                s.push('\n');
            }
        }
    }
    s
}

impl OutputSpec {
    /// `(stdout, stderr)`.
    pub fn build(&self) -> (String, String) {
        let mut rng = fastrand::Rng::with_seed(self.seed);
        let all = text(self.shape, self.len, &mut rng);
        let split = match self.stderr_share {
            0 => all.len(),
            1 => all.len() - all.len() / 10,
            2 => all.len() / 2,
            _ => 0,
        };
        let split = all.floor_char_boundary(split);
        (all[..split].to_owned(), all[split..].to_owned())
    }
}

pub fn output_spec() -> impl Strategy<Value = OutputSpec> {
    (
        prop_oneof![
            Just(Shape::Ascii),
            Just(Shape::MultiByte),
            Just(Shape::OneLongLine),
            Just(Shape::ShortLines)
        ],
        prop_oneof![3 => 0usize..3000, 2 => 0usize..100_000],
        any::<u64>(),
        0u8..4,
    )
        .prop_map(|(shape, len, seed, stderr_share)| OutputSpec {
            shape,
            len,
            seed,
            stderr_share,
        })
}

/// `max_bytes` for a tool with cap `cap`: absent, or any value in range.
pub fn max_bytes(cap: usize) -> impl Strategy<Value = Option<usize>> {
    prop_oneof![1 => Just(None), 3 => (256usize..=cap).prop_map(Some)]
}
