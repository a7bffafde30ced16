//! Token counts with the encoders models use: `o200k_base` (GPT-4o and later,
//! Codex) and `cl100k_base`. Each encoder is built once per process.

use serde::{Deserialize, Serialize};

/// Tokens of one text under both encodings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub o200k: usize,
    pub cl100k: usize,
}

impl Tokens {
    pub fn of(text: &str) -> Tokens {
        Tokens {
            o200k: tiktoken_rs::o200k_base_singleton()
                .encode_ordinary(text)
                .len(),
            cl100k: tiktoken_rs::cl100k_base_singleton()
                .encode_ordinary(text)
                .len(),
        }
    }
}

impl std::ops::Add for Tokens {
    type Output = Tokens;
    fn add(self, rhs: Tokens) -> Tokens {
        Tokens {
            o200k: self.o200k + rhs.o200k,
            cl100k: self.cl100k + rhs.cl100k,
        }
    }
}

impl std::iter::Sum for Tokens {
    fn sum<I: Iterator<Item = Tokens>>(iter: I) -> Tokens {
        iter.fold(Tokens::default(), |a, b| a + b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_stable_and_additive() {
        let t = Tokens::of("hello world");
        assert_eq!(
            t,
            Tokens {
                o200k: 2,
                cl100k: 2
            }
        );
        assert_eq!(Tokens::of(""), Tokens::default());
        assert_eq!(
            t + t,
            Tokens {
                o200k: 4,
                cl100k: 4
            }
        );
    }

    #[test]
    fn six_digit_references_always_cost_the_same() {
        let costs: std::collections::HashSet<usize> =
            ["[r:000000]", "[r:123456]", "[r:999999]", "[r:040302]"]
                .iter()
                .map(|r| Tokens::of(r).o200k)
                .collect();
        assert_eq!(costs.len(), 1, "{costs:?}");
    }
}
