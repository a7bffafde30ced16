//! Corpora for the criterion benches in `benches/quietcontext.rs`:
//! deterministic Markdown, log and JSON text of a requested size.

use std::fmt::Write;

const WORDS: [&str; 24] = [
    "request", "handler", "timeout", "cache", "index", "query", "session", "worker", "payload",
    "retry", "socket", "buffer", "commit", "schema", "token", "budget", "stream", "parser",
    "gateway", "replica", "shard", "lease", "quorum", "ledger",
];

/// A small deterministic generator (xorshift), so corpora are the same every run.
struct Words(u64);

impl Words {
    fn next(&mut self) -> &'static str {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        WORDS[(self.0 % WORDS.len() as u64) as usize]
    }

    fn number(&mut self) -> u64 {
        self.next();
        self.0 % 100_000
    }
}

/// Markdown: nested headings, paragraphs and code fences.
pub fn markdown(bytes: usize) -> String {
    let mut w = Words(0x1234_5678);
    let mut s = String::with_capacity(bytes + 1024);
    let mut n = 0;
    while s.len() < bytes {
        n += 1;
        let _ = writeln!(s, "# Part {n}\n");
        for sec in 0..4 {
            let _ = writeln!(s, "## {} {sec}\n", w.next());
            for _ in 0..3 {
                let line: Vec<&str> = (0..14).map(|_| w.next()).collect();
                let _ = writeln!(s, "{}.\n", line.join(" "));
            }
            let _ = writeln!(
                s,
                "```sh\n{} --{} {}\n```\n",
                w.next(),
                w.next(),
                w.number()
            );
        }
    }
    s
}

/// Log lines: timestamps, ids, words and numbers.
pub fn log(bytes: usize) -> String {
    let mut w = Words(0x9E37_79B9);
    let mut s = String::with_capacity(bytes + 256);
    let mut n = 0u64;
    while s.len() < bytes {
        n += 1;
        let _ = writeln!(
            s,
            "2026-11-29T12:{:02}:{:02}Z INFO id={n} {} {} {} {} v{}",
            (n / 60) % 60,
            n % 60,
            w.next(),
            w.next(),
            w.next(),
            w.next(),
            w.number()
        );
    }
    s
}

/// JSON: an object holding an array of records.
pub fn json(bytes: usize) -> String {
    let mut w = Words(0xDEAD_BEEF);
    let mut records = Vec::new();
    let mut size = 0;
    let mut n = 0;
    while size < bytes {
        n += 1;
        let record = serde_json::json!({
            "id": n, "name": w.next(), "kind": w.next(), "score": w.number(),
            "tags": [w.next(), w.next(), w.next()],
            "owner": {"team": w.next(), "region": w.next()},
        });
        size += record.to_string().len() + 1;
        records.push(record);
    }
    serde_json::json!({"version": 1, "records": records}).to_string()
}
