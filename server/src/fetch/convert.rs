//! Turning a response body into indexable text, by content type.

use crate::store::chunk::Format;

use super::{FetchError, Fetched};

/// Elements whose content never reaches the index.
const DROPPED_TAGS: [&str; 9] = [
    "script", "style", "nav", "header", "footer", "noscript", "template", "svg", "iframe",
];

/// A document ready to index.
#[derive(Debug)]
pub struct Document {
    pub text: String,
    pub format: Format,
    /// The media type, for the summary line.
    pub media_type: String,
}

/// Converts a fetched body: HTML to Markdown, JSON as JSON, `text/*` as text.
pub fn to_document(fetched: Fetched) -> Result<Document, FetchError> {
    let media_type = fetched
        .content_type
        .as_deref()
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_else(|| sniff(&fetched.body).to_owned());
    let text = String::from_utf8_lossy(&fetched.body).into_owned();
    let (text, format) = match media_type.as_str() {
        "text/html" | "application/xhtml+xml" => (html_to_markdown(&text)?, Format::Markdown),
        "text/markdown" | "text/x-markdown" => (text, Format::Markdown),
        m if m == "application/json" || m.ends_with("+json") => (text, Format::Json),
        m if m.starts_with("text/") => {
            let format = Format::sniff(&text);
            (text, format)
        }
        other => {
            return Err(FetchError::Unsupported(format!(
                "content type {other} from {} is not supported (HTML, JSON and text/* are)",
                fetched.final_url
            )));
        }
    };
    Ok(Document {
        text,
        format,
        media_type,
    })
}

/// A media type for a body sent without one.
fn sniff(body: &[u8]) -> &'static str {
    let start: Vec<u8> = body
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(15)
        .map(u8::to_ascii_lowercase)
        .collect();
    if start.starts_with(b"<!doctype html") || start.starts_with(b"<html") {
        "text/html"
    } else if std::str::from_utf8(body).is_ok() {
        "text/plain"
    } else {
        "application/octet-stream"
    }
}

pub fn html_to_markdown(html: &str) -> Result<String, FetchError> {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(DROPPED_TAGS.to_vec())
        .build();
    converter
        .convert(html)
        .map_err(|e| FetchError::Unsupported(format!("cannot convert HTML: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetched(ct: Option<&str>, body: &str) -> Fetched {
        Fetched {
            final_url: "http://x/".into(),
            content_type: ct.map(str::to_owned),
            body: body.as_bytes().to_vec(),
            redirects: 0,
        }
    }

    #[test]
    fn html_becomes_markdown_without_scripts_or_navigation() {
        let html = "<html><head><style>.x{}</style><script>var secret=1</script></head><body>\
            <nav>Home | About</nav><header>Site</header><h1>Title</h1><p>Body <b>text</b></p>\
            <pre><code>let x = 1;</code></pre><footer>Copyright</footer></body></html>";
        let doc = to_document(fetched(Some("text/html; charset=utf-8"), html)).unwrap();
        assert_eq!(doc.format, Format::Markdown);
        assert!(doc.text.contains("# Title"), "{}", doc.text);
        assert!(doc.text.contains("let x = 1;"));
        for gone in ["secret", "Home | About", "Copyright", ".x{}", "Site"] {
            assert!(!doc.text.contains(gone), "{gone} kept: {}", doc.text);
        }
    }

    #[test]
    fn json_and_text_are_kept_and_binaries_refused() {
        let doc = to_document(fetched(Some("application/json"), r#"{"a":1}"#)).unwrap();
        assert_eq!(doc.format, Format::Json);
        let doc = to_document(fetched(Some("text/plain"), "plain words")).unwrap();
        assert_eq!(doc.format, Format::Text);
        let err = to_document(fetched(Some("application/pdf"), "%PDF")).unwrap_err();
        assert!(
            err.to_string().starts_with("content type application/pdf"),
            "{err}"
        );
        let doc = to_document(fetched(None, "<!DOCTYPE html><h1>x</h1>")).unwrap();
        assert_eq!(doc.media_type, "text/html");
    }
}
