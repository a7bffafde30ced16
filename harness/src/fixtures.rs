//! A real HTTP server on 127.0.0.1 serving fixture pages for `fetch-index`
//! tests and scenarios (tiny_http, one thread per request). It starts on an
//! ephemeral port and stops when dropped.
//!
//! Routes: `/page` (HTML with headings, code and a table), `/page100k`,
//! `/r1` → `/r2` → `/page`, `/loop`, `/to-metadata` and `/to-mapped`
//! (redirects to 169.254.169.254), `/json`, `/text`, `/pdf`, `/big` (300 KB),
//! `/slow` (4 s), `/500`; anything else is 404.

use std::io::Cursor;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use tiny_http::{Header, Response, Server};

/// The fixture server.
pub struct HttpFixture {
    server: Arc<Server>,
    /// The accept loop; joined on drop.
    thread: Option<JoinHandle<()>>,
    pub base: String,
}

type Reply = Response<Cursor<Vec<u8>>>;

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

fn body(status: u16, content_type: &str, text: impl Into<Vec<u8>>) -> Reply {
    let mut response = Response::from_data(text.into()).with_status_code(status);
    if let Some(h) = header("Content-Type", content_type) {
        response.add_header(h);
    }
    response
}

fn redirect(to: &str) -> Reply {
    let mut response = Response::from_data(Vec::new()).with_status_code(302);
    if let Some(h) = header("Location", to) {
        response.add_header(h);
    }
    response
}

pub const PAGE: &str = r#"<!DOCTYPE html><html><head><title>Doc</title>
<style>body { color: red }</style><script>var trackingCode = "scriptonly";</script></head>
<body><nav><a href="/">Home</a> navonlyword</nav>
<h1>Widget Manual</h1><p>The <b>flibbertigibbet</b> setting controls the widget.</p>
<h2>Install</h2><pre><code>cargo install widget --locked</code></pre>
<h2>Limits</h2><table><thead><tr><th>Name</th><th>Value</th></tr></thead>
<tbody><tr><td>max_widgets</td><td>42</td></tr></tbody></table>
<footer>footeronlyword</footer></body></html>"#;

/// A page of about `kb` kilobytes with many sections.
pub fn big_page(kb: usize) -> String {
    let mut html = String::from("<html><body>");
    let mut i = 0;
    while html.len() < kb * 1024 {
        html.push_str(&format!(
            "<h2>Section {i}</h2><p>Paragraph {i} talks about topic{i} and the common theme of widgets in detail.</p><ul><li>point a{i}</li><li>point b{i}</li></ul>"
        ));
        i += 1;
    }
    html.push_str("</body></html>");
    html
}

fn route(url: &str) -> Reply {
    match url {
        "/page" => body(200, "text/html; charset=utf-8", PAGE),
        "/page100k" => body(200, "text/html", big_page(100)),
        "/r1" => redirect("/r2"),
        "/r2" => redirect("/page"),
        "/loop" => redirect("/loop"),
        "/to-metadata" => redirect("http://169.254.169.254/latest/meta-data/"),
        "/to-mapped" => redirect("http://[::ffff:169.254.169.254]/"),
        "/json" => body(
            200,
            "application/json",
            r#"{"service":{"name":"gizmo","ports":[80,443]}}"#,
        ),
        "/text" => body(200, "text/plain", "plain words about quasar"),
        "/pdf" => body(200, "application/pdf", "%PDF-1.4"),
        "/big" => body(200, "text/plain", vec![b'a'; 300_000]),
        "/slow" => {
            thread::sleep(Duration::from_secs(4));
            body(200, "text/plain", "late")
        }
        "/500" => body(500, "text/plain", "boom"),
        _ => body(404, "text/plain", "not found"),
    }
}

impl HttpFixture {
    pub fn start() -> std::io::Result<HttpFixture> {
        let server = Arc::new(Server::http("127.0.0.1:0").map_err(std::io::Error::other)?);
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| std::io::Error::other("fixture server has no IP address"))?;
        let accept = server.clone();
        let thread = thread::spawn(move || {
            for request in accept.incoming_requests() {
                thread::spawn(move || {
                    let reply = route(request.url());
                    let _ = request.respond(reply);
                });
            }
        });
        Ok(HttpFixture {
            server,
            thread: Some(thread),
            base: format!("http://127.0.0.1:{port}"),
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
