//! Criterion benches: index throughput (Markdown, log, JSON at 1, 10, 100 MB),
//! search latency against corpus size, chunker and budget-formatter
//! throughput, and request round trips through a spawned server.
//!
//! Sample sizes are small to suit a 2-core machine. `cargo bench -p
//! qc-benches -- --test` runs every bench once (the CI smoke check).
//!
//! The round-trip benches spawn this very binary as the server (with
//! `QC_BENCH_SERVE=1` it serves stdio through `quietcontext::serve`, as the
//! `quietcontext` binary does), so they need no separately built binary.

#![allow(clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use qc_benches::{json, log, markdown};
use qc_harness::client::{Client, ServerCommand};
use quietcontext::budget::{ByteBudget, Keep, Reply};
use quietcontext::store::chunk::{self, Chunk, Format};
use quietcontext::store::{Scope, Store, StoreConfig};
use serde_json::json as value;

const MB: usize = 1024 * 1024;

fn corpus(format: Format, bytes: usize) -> String {
    match format {
        Format::Markdown => markdown(bytes),
        Format::Json => json(bytes),
        Format::Text => log(bytes),
    }
}

fn fresh_store() -> Store {
    Store::open(&StoreConfig::default()).expect("store")
}

fn index_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("index");
    group.sample_size(10);
    for format in [Format::Markdown, Format::Text, Format::Json] {
        for mb in [1, 10, 100] {
            let text = corpus(format, mb * MB);
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(
                BenchmarkId::new(format.name(), format!("{mb}MB")),
                &text,
                |b, text| {
                    b.iter_batched(
                        fresh_store,
                        |store| store.index_text("bench", text, format).map(|s| s.chunks),
                        BatchSize::PerIteration,
                    );
                },
            );
        }
    }
    group.finish();
}

fn search_latency(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(30);
    for mb in [1, 10, 100] {
        let store = fresh_store();
        let text = log(mb * MB);
        store
            .index_text("corpus", &text, Format::Text)
            .expect("index");
        drop(text);
        for (name, query) in [
            ("common", "timeout retry"),
            ("rare", "v31337"),
            ("fuzzy", "quorm"),
        ] {
            group.bench_function(BenchmarkId::new(name, format!("{mb}MB")), |b| {
                b.iter(|| store.search(black_box(query), Scope::Source("corpus"), 5, false))
            });
        }
    }
    group.finish();
}

fn chunker_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("chunker");
    group.sample_size(10);
    for format in [Format::Markdown, Format::Text, Format::Json] {
        let text = corpus(format, 10 * MB);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new(format.name(), "10MB"), &text, |b, text| {
            b.iter(|| {
                let mut out: Vec<Chunk> = Vec::new();
                let _ = chunk::chunk_text(text, format, "", &mut out);
                out.len()
            })
        });
    }
    group.finish();
}

fn budget_formatter(c: &mut Criterion) {
    let mut group = c.benchmark_group("budget");
    let text = log(MB);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("excerpt 1MB into 8KiB", |b| {
        b.iter(|| {
            let mut reply = Reply::new();
            reply
                .line("header")
                .excerpt(text.clone(), Keep::HeadAndTail, 1);
            reply.render(ByteBudget::cap(8192)).len()
        })
    });
    group.bench_function("cut 1MB to 8KiB", |b| {
        b.iter(|| {
            let mut reply = Reply::new();
            reply.text(text.clone());
            reply.render(ByteBudget::cap(8192)).len()
        })
    });
    group.finish();
}

fn round_trip(c: &mut Criterion) {
    let exe = std::env::current_exe().expect("current exe");
    let dir = std::env::temp_dir();
    let cmd = ServerCommand::new(exe).env("QC_BENCH_SERVE", "1").cwd(dir);
    let mut client = Client::spawn(&cmd).expect("spawn");
    client.deadline = Duration::from_secs(30);
    client.initialize("2025-06-18").expect("initialize");
    client
        .call_tool(
            "index",
            value!({"source": "doc", "content": markdown(64 * 1024)}),
        )
        .expect("index");
    let mut group = c.benchmark_group("round trip");
    group.bench_function("tools/list", |b| {
        b.iter(|| client.list_tools().map(|f| f.raw.len()))
    });
    group.bench_function("search", |b| {
        b.iter(|| {
            client
                .call_tool("search", value!({"queries": ["gateway lease"]}))
                .map(|r| r.text.len())
        })
    });
    group.finish();
}

/// With `QC_BENCH_SERVE=1`: serve stdio like the `quietcontext` binary.
fn serve() {
    let workdir = std::env::current_dir().expect("cwd");
    let mut config = quietcontext::Config::new(workdir);
    config.program_env = quietcontext::runner::Runner::filter_env(std::env::vars_os(), &[]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let served = runtime.block_on(quietcontext::serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        config,
        std::future::pending(),
    ));
    runtime.shutdown_timeout(Duration::from_millis(100));
    if let Err(e) = served {
        panic!("serve: {e:#}");
    }
}

fn main() {
    if std::env::var_os("QC_BENCH_SERVE").is_some() {
        serve();
        return;
    }
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    index_throughput(&mut c);
    search_latency(&mut c);
    chunker_throughput(&mut c);
    budget_formatter(&mut c);
    round_trip(&mut c);
    c.final_summary();
}
