//! Fetching a URL for `fetch-index`: http(s) only, bounded in size, time and
//! redirects, and checked against [`guard`] at every hop.
//!
//! - [`guard`]: which IP addresses may be reached.
//! - [`convert`]: HTML → Markdown, JSON, text; other content types refused.
//!
//! Redirects are followed here, one hop at a time, so each hop's URL is
//! checked and counted; the address check itself runs inside the HTTP
//! client's resolver, on the very addresses it connects to (a name cannot
//! resolve to one address when checked and another when used).

pub mod convert;
pub mod guard;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

/// Limits for one fetch.
#[derive(Debug, Clone)]
pub struct FetchPolicy {
    /// Refuse loopback as well.
    pub strict: bool,
    /// For the whole fetch, redirects included.
    pub timeout: Duration,
    pub max_bytes: u64,
    pub max_redirects: usize,
}

impl Default for FetchPolicy {
    fn default() -> Self {
        Self {
            strict: false,
            timeout: Duration::from_secs(30),
            max_bytes: 16 * 1024 * 1024,
            max_redirects: 5,
        }
    }
}

/// A fetched response body.
#[derive(Debug)]
pub struct Fetched {
    pub final_url: String,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    pub redirects: usize,
}

/// Why a fetch failed; every message names the URL or the limit involved.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("url: {0}")]
    BadUrl(String),
    #[error("url: refused {url}: {why}")]
    Refused { url: String, why: String },
    #[error("HTTP {status} {reason} from {url}")]
    Status {
        status: u16,
        reason: String,
        url: String,
    },
    #[error("response body from {url} exceeds the {limit}-byte limit")]
    TooLarge { url: String, limit: u64 },
    #[error("fetching {url} took longer than {timeout:?}")]
    Timeout { url: String, timeout: Duration },
    #[error("more than {0} redirects")]
    TooManyRedirects(usize),
    #[error("fetching {url} failed: {error}")]
    Http { url: String, error: String },
    #[error("{0}")]
    Unsupported(String),
}

/// Fetches `url`, following up to `policy.max_redirects` redirects.
pub fn fetch(url: &str, policy: &FetchPolicy) -> Result<Fetched, FetchError> {
    let started = Instant::now();
    let refused: Arc<Mutex<Option<String>>> = Arc::default();
    let config = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .proxy(None)
        .user_agent(concat!("quietcontext/", env!("CARGO_PKG_VERSION")))
        .build();
    let agent = ureq::Agent::with_parts(
        config,
        DefaultConnector::default(),
        GuardedResolver {
            strict: policy.strict,
            refused: refused.clone(),
        },
    );
    let mut current = parse_checked(url, policy.strict)?;
    let mut redirects = 0usize;
    loop {
        let left = policy
            .timeout
            .checked_sub(started.elapsed())
            .ok_or_else(|| FetchError::Timeout {
                url: current.to_string(),
                timeout: policy.timeout,
            })?;
        let shown = current.to_string();
        let response = agent
            .get(current.as_str())
            .config()
            .timeout_global(Some(left))
            .build()
            .call();
        let mut response = match response {
            Ok(r) => r,
            Err(e) => {
                if let Some(why) = crate::store::lock(&refused).take() {
                    return Err(FetchError::Refused { url: shown, why });
                }
                return Err(http_error(e, shown, policy));
            }
        };
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| FetchError::Http {
                    url: shown.clone(),
                    error: format!("{status} without a Location header"),
                })?;
            redirects += 1;
            if redirects > policy.max_redirects {
                return Err(FetchError::TooManyRedirects(policy.max_redirects));
            }
            let next = current
                .join(location)
                .map_err(|e| FetchError::BadUrl(format!("bad redirect {location:?}: {e}")))?;
            current = parse_checked(next.as_str(), policy.strict)?;
            continue;
        }
        if !status.is_success() {
            return Err(FetchError::Status {
                status: status.as_u16(),
                reason: status.canonical_reason().unwrap_or("").to_owned(),
                url: shown,
            });
        }
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response
            .body_mut()
            .with_config()
            .limit(policy.max_bytes)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
                    url: shown.clone(),
                    limit: policy.max_bytes,
                },
                e => http_error(e, shown.clone(), policy),
            })?;
        return Ok(Fetched {
            final_url: shown,
            content_type,
            body,
            redirects,
        });
    }
}

/// Parses a URL and refuses other schemes and literal addresses that are
/// never allowed (the resolver checks names; this gives a clear early message).
fn parse_checked(raw: &str, strict: bool) -> Result<url::Url, FetchError> {
    let url = url::Url::parse(raw).map_err(|e| FetchError::BadUrl(format!("{raw:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(FetchError::BadUrl(format!(
            "scheme {:?} is not allowed (http and https only)",
            url.scheme()
        )));
    }
    let ip = match url.host() {
        Some(url::Host::Ipv4(v4)) => Some(std::net::IpAddr::V4(v4)),
        Some(url::Host::Ipv6(v6)) => Some(std::net::IpAddr::V6(v6)),
        Some(url::Host::Domain(_)) => None,
        None => return Err(FetchError::BadUrl(format!("{raw:?} has no host"))),
    };
    if let Some(why) = ip.and_then(|ip| guard::refusal(ip, strict)) {
        return Err(FetchError::Refused {
            url: url.to_string(),
            why: why.to_owned(),
        });
    }
    Ok(url)
}

fn http_error(error: ureq::Error, url: String, policy: &FetchPolicy) -> FetchError {
    match error {
        ureq::Error::Timeout(_) => FetchError::Timeout {
            url,
            timeout: policy.timeout,
        },
        e => FetchError::Http {
            url,
            error: e.to_string(),
        },
    }
}

/// Resolves names as usual, then refuses the whole connection if any address
/// is not allowed.
#[derive(Debug)]
struct GuardedResolver {
    strict: bool,
    /// Why the last resolution was refused, for the error message.
    refused: Arc<Mutex<Option<String>>>,
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addrs = DefaultResolver::default().resolve(uri, config, timeout)?;
        for addr in addrs.iter() {
            if let Some(why) = guard::refusal(addr.ip(), self.strict) {
                let host = uri.host().unwrap_or_default();
                *crate::store::lock(&self.refused) =
                    Some(format!("{host} resolves to {} ({why})", addr.ip()));
                return Err(ureq::Error::HostNotFound);
            }
        }
        Ok(addrs)
    }
}
