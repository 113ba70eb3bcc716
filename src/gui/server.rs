//! The HTTP side: tiny_http accepts and parses requests; every request is
//! checked here before any route sees it (Host and Origin against DNS
//! rebinding and cross-site use, sizes), answered on its own thread (a
//! bounded number), and turned into a response with safe headers.

use super::GuiConfig;
use super::engines::{ApiError, Engines};
use super::live;
use super::records::Records;
use super::routes::{self, Reply};
use anyhow::{Result, anyhow};
use serde_json::json;
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Instant;
use tiny_http::{Method, Request, StatusCode};

/// Requests answered at once (streams included); beyond it, 503.
const MAX_ACTIVE: usize = 128;

/// Longest request target (path and query) accepted.
pub const MAX_URL: usize = 16 * 1024;

/// Largest request body: a records upload; every other body is far smaller.
pub const MAX_BODY: usize = 8 << 20;

/// Largest body of an API call other than an upload.
pub const MAX_JSON_BODY: usize = 256 * 1024;

pub struct AppState {
    pub engines: Arc<Engines>,
    pub records: Records,
    pub channels: live::Channels,
    /// `host:port` values a request may name.
    allowed_hosts: Vec<String>,
    pub started: Instant,
}

pub struct Server {
    http: tiny_http::Server,
    state: Arc<AppState>,
    url: String,
}

impl Server {
    pub fn bind(host: &str, port: u16, config: GuiConfig) -> Result<Server> {
        let address = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let http = tiny_http::Server::http(&address)
            .map_err(|e| anyhow!("listening on {address}: {e}"))?;
        let port = http
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| anyhow!("{address} is not an IP address"))?;
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let mut allowed_hosts: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{port}"))
            .collect();
        let named = if bare.contains(':') {
            format!("[{bare}]:{port}")
        } else {
            format!("{bare}:{port}")
        };
        if !allowed_hosts.contains(&named) {
            allowed_hosts.push(named.clone());
        }
        let url_host = if ["0.0.0.0", "::"].contains(&bare) {
            format!("127.0.0.1:{port}")
        } else {
            named
        };
        Ok(Server {
            http,
            state: Arc::new(AppState {
                engines: Arc::new(Engines::new(config.engines)),
                records: Records::new(config.records),
                channels: live::Channels::default(),
                allowed_hosts,
                started: Instant::now(),
            }),
            url: format!("http://{url_host}/"),
        })
    }

    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// Answers requests until the process ends.
    pub fn serve(self) {
        let active = Arc::new(AtomicUsize::new(0));
        for request in self.http.incoming_requests() {
            if active.load(Ordering::Relaxed) >= MAX_ACTIVE {
                let _ = respond(
                    request,
                    error_reply(ApiError::new(503, "too many requests at once")),
                );
                continue;
            }
            active.fetch_add(1, Ordering::Relaxed);
            let state = self.state.clone();
            let active = active.clone();
            thread::spawn(move || {
                handle(&state, request);
                active.fetch_sub(1, Ordering::Relaxed);
            });
        }
    }
}

fn header<'r>(request: &'r Request, name: &str) -> Option<&'r str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

/// Why a request is refused before routing, if it is.
fn refusal(state: &AppState, request: &Request) -> Option<ApiError> {
    if request.url().len() > MAX_URL {
        return Some(ApiError::new(
            414,
            format!("request target longer than {MAX_URL} bytes"),
        ));
    }
    let host = header(request, "Host").unwrap_or("");
    if !state
        .allowed_hosts
        .iter()
        .any(|h| h.eq_ignore_ascii_case(host))
    {
        return Some(ApiError::new(
            403,
            format!(
                "Host '{host}' is not this server's name (a DNS rebinding attempt?); use {}",
                state.allowed_hosts[0]
            ),
        ));
    }
    if let Some(origin) = header(request, "Origin") {
        let own = state
            .allowed_hosts
            .iter()
            .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")));
        if !own {
            return Some(ApiError::new(
                403,
                format!("requests from another site ('{origin}') are refused"),
            ));
        }
    }
    if header(request, "Sec-Fetch-Site").is_some_and(|s| s.eq_ignore_ascii_case("cross-site")) {
        return Some(ApiError::new(403, "cross-site requests are refused"));
    }
    None
}

/// Reads the body, refusing one over `limit` bytes or not UTF-8.
fn read_body(request: &mut Request, limit: usize) -> Result<String, ApiError> {
    let too_big = || ApiError::new(413, format!("request body over {limit} bytes"));
    if request.body_length().is_some_and(|n| n > limit) {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    request
        .as_reader()
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ApiError::new(400, format!("reading the body: {e}")))?;
    if bytes.len() > limit {
        return Err(too_big());
    }
    String::from_utf8(bytes).map_err(|_| ApiError::new(400, "the body is not UTF-8 text"))
}

fn handle(state: &Arc<AppState>, mut request: Request) {
    log::debug!("{} {}", request.method(), request.url());
    if let Some(error) = refusal(state, &request) {
        let _ = respond(request, error_reply(error));
        return;
    }
    let method = request.method().clone();
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let body = match method {
        Method::Get | Method::Head => String::new(),
        Method::Post => {
            let limit = if path == "/api/records" {
                MAX_BODY
            } else {
                MAX_JSON_BODY
            };
            match read_body(&mut request, limit) {
                Ok(body) => body,
                Err(e) => {
                    let _ = respond(request, error_reply(e));
                    return;
                }
            }
        }
        _ => {
            let _ = respond(
                request,
                error_reply(ApiError::new(
                    405,
                    format!("method {method} is not used here"),
                )),
            );
            return;
        }
    };
    let reply = routes::route(state, &method, path, query, body);
    if let Reply::Stream(events, first, on_end) = reply {
        live::stream(request.into_writer(), events, first);
        if let Some(on_end) = on_end {
            on_end();
        }
        return;
    }
    let _ = respond(request, reply);
}

fn error_reply(error: ApiError) -> Reply {
    let mut body = json!({ "error": error.message });
    if let Some(engine) = error.engine {
        body["engine"] = engine;
    }
    Reply::Json(error.status, body)
}

/// Writes the response and closes the connection. tiny_http parses the
/// requests, but its pool gives each kept-alive connection a thread and
/// can leave a new connection queued behind idle ones for seconds when a
/// browser opens several at once (measured: a module request held 4 s);
/// closing after every response frees the thread at once. Local
/// connections cost well under a millisecond.
fn respond(request: Request, reply: Reply) -> std::io::Result<()> {
    let (status, kind, bytes, cache): (u16, &str, Vec<u8>, &str) = match reply {
        Reply::Json(status, value) => (
            status,
            "application/json",
            value.to_string().into_bytes(),
            "no-store",
        ),
        Reply::Error(e) => return respond(request, error_reply(e)),
        // no-store keeps the page out of the back/forward cache, where it
        // would hold its connections open.
        Reply::Asset(kind, bytes) => (200, kind, bytes.to_vec(), "no-store"),
        Reply::Stream(..) => unreachable!("streams are written by live::stream"),
    };
    let head_only = *request.method() == Method::Head;
    let reason = StatusCode(status).default_reason_phrase();
    let mut head = format!("HTTP/1.1 {status} {reason}\r\n");
    let headers = [
        ("Content-Type", kind),
        ("Content-Length", &bytes.len().to_string()),
        ("Connection", "close"),
        ("Cache-Control", cache),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
        ),
    ];
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = request.into_writer();
    out.write_all(head.as_bytes())?;
    if !head_only {
        out.write_all(&bytes)?;
    }
    out.flush()
}
