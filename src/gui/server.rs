//! The HTTP side, on hyper: it parses requests with their heads bounded
//! while they are read (size, header count, a read timeout), and this file
//! bounds the rest: connections at once (past the cap the oldest
//! connection that has sent nothing is closed to make room, else a 503;
//! never a thread or an allocation per idle connection), bodies read within a size
//! and a time limit (never allocated from a declared length), uploads at
//! once. Every request is checked here before any route sees it (Host and
//! Origin against DNS rebinding and cross-site use), routed on a blocking
//! thread (routes talk to engines), and answered with safe headers.

use super::GuiConfig;
use super::assets::{self, Coding};
use super::engines::{ApiError, Engines};
use super::live::{self, EventStream};
use super::records::Records;
use super::routes::{self, Reply};
use anyhow::{Context, Result, anyhow};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Empty, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::json;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// Longest request target (path and query) accepted.
pub const MAX_URL: usize = 16 * 1024;

/// Largest request head (request line and headers), enforced while read.
pub const MAX_HEAD: usize = 32 * 1024;

/// Most header lines in one request.
pub const MAX_HEADERS: usize = 64;

/// A request head must arrive within this, the first on a connection as
/// well as the next on a kept-alive one: an idle connection is closed.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// A request body must arrive whole within this (a stalled one gets 408).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// Largest request body: a records upload; every other body is far smaller.
pub const MAX_BODY: usize = 8 << 20;

/// Largest body of an API call other than an upload.
pub const MAX_JSON_BODY: usize = 256 * 1024;

/// Uploads read and parsed at once; more get a 503 (each costs a few times
/// its size while it is checked).
pub const MAX_UPLOADS_AT_ONCE: usize = 2;

/// Connections served at once unless `--max-connections` says otherwise;
/// the descriptor limit may lower it.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// Descriptors kept for what is not a connection: engines' pipes, records
/// files, the listener.
const RESERVED_FILES: u64 = 64;

/// Descriptors an engine holds in the server (its three pipes, with room).
const FILES_PER_ENGINE: u64 = 6;

/// Connections past the cap being told 503 at once; past that they are
/// closed unanswered.
const MAX_REFUSING: usize = 256;

/// How long a connection past the cap is given to take its 503.
const REFUSAL_TIME: Duration = Duration::from_secs(1);

/// Threads running routes (engine calls block): a bound, not a pool size.
const BLOCKING_THREADS: usize = 256;

const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 71\r\nConnection: close\r\nRetry-After: 1\r\n\r\n{\"error\":\"too many connections to the server at once; try again shortly\"}";

pub struct AppState {
    pub engines: Arc<Engines>,
    pub records: Records,
    pub channels: live::Channels,
    /// `host:port` values a request may name.
    allowed_hosts: Vec<String>,
    pub started: Instant,
    uploads: Arc<Semaphore>,
}

pub struct Server {
    listener: std::net::TcpListener,
    state: Arc<AppState>,
    url: String,
    max_connections: usize,
}

/// The limits the command line may set.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_connections: usize,
    pub max_engines: usize,
}

impl Server {
    pub fn bind(host: &str, port: u16, config: GuiConfig, limits: Limits) -> Result<Server> {
        let address = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let listener = std::net::TcpListener::bind(&address)
            .with_context(|| format!("listening on {address}"))?;
        listener.set_nonblocking(true)?;
        deepen_backlog(&listener);
        let port = listener
            .local_addr()
            .map_err(|e| anyhow!("{address}: {e}"))?
            .port();
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
        let max_connections = connection_cap(limits);
        Ok(Server {
            listener,
            state: Arc::new(AppState {
                engines: Arc::new(Engines::new(config.engines, limits.max_engines)),
                records: Records::new(config.records),
                channels: live::Channels::default(),
                allowed_hosts,
                started: Instant::now(),
                uploads: Arc::new(Semaphore::new(MAX_UPLOADS_AT_ONCE)),
            }),
            url: format!("http://{url_host}/"),
            max_connections,
        })
    }

    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// Answers requests until the process ends.
    pub fn serve(self) -> Result<()> {
        limit_malloc_arenas();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(BLOCKING_THREADS)
            .enable_all()
            .build()
            .context("starting the server's runtime")?;
        let engines = self.state.engines.clone();
        std::thread::spawn(move || engines.reap_forever());
        std::thread::spawn(assets::warm);
        runtime.block_on(accept(self.listener, self.state, self.max_connections))
    }
}

/// glibc gives each thread that allocates its own arena and keeps what it
/// grew to: with a route on any of 256 blocking threads, the server's
/// memory would follow the busiest moment of each. Two arenas bound it.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a plain glibc call, made before the runtime's threads start.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// Connections the kernel may complete before they are accepted: std
/// listens with 128, and a flood past that makes a page load's SYN wait
/// for a retransmit (a second or more) instead of getting its answer.
const BACKLOG: i32 = 4096;

/// Listens again with [`BACKLOG`] (Linux updates a listening socket's
/// backlog in place); the default stays where that fails.
fn deepen_backlog(listener: &std::net::TcpListener) {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain syscall on a socket this process owns.
    unsafe {
        libc::listen(listener.as_raw_fd(), BACKLOG);
    }
}

/// The connection cap: the command line's, lowered to what the descriptor
/// limit allows once engines and files have theirs (raised to its hard
/// limit first, as servers do).
fn connection_cap(limits: Limits) -> usize {
    let files = raise_file_limit();
    let reserved = RESERVED_FILES + FILES_PER_ENGINE * limits.max_engines as u64;
    let allowed = files.saturating_sub(reserved).max(8);
    limits.max_connections.min(allowed as usize).max(1)
}

/// Raises the soft descriptor limit to the hard one; the limit now.
fn raise_file_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain syscalls on a struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    limit.rlim_cur
}

/// Accepts for ever: a failed accept (out of descriptors) is waited out,
/// never the end of the server.
async fn accept(
    listener: std::net::TcpListener,
    state: Arc<AppState>,
    max_connections: usize,
) -> Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let gate = Arc::new(Gate {
        slots: Arc::new(Semaphore::new(max_connections)),
        refusing: Arc::new(Semaphore::new(MAX_REFUSING)),
        silent: Silent::default(),
    });
    log::info!("serving at most {max_connections} connections at once");
    loop {
        let socket = match listener.accept().await {
            Ok((socket, _)) => socket,
            Err(e) => {
                log::warn!("accepting a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let (gate, state) = (gate.clone(), state.clone());
        tokio::spawn(async move { gate.admit(socket, state).await });
    }
}

/// What a new connection passes: the cap on connections, and past it the
/// eviction of a silent one or a 503.
struct Gate {
    slots: Arc<Semaphore>,
    refusing: Arc<Semaphore>,
    silent: Silent,
}

/// How long a connection waits for the slot of the one evicted for it.
const EVICTION_WAIT: Duration = Duration::from_millis(200);

impl Gate {
    /// Serves the connection if there is room or a silent connection can
    /// make room, else tells it 503 (if not too many are being told).
    async fn admit(&self, socket: TcpStream, state: Arc<AppState>) {
        let slot = match self.slots.clone().try_acquire_owned() {
            Ok(slot) => Some(slot),
            Err(_) if self.silent.evict_oldest() => {
                tokio::time::timeout(EVICTION_WAIT, self.slots.clone().acquire_owned())
                    .await
                    .ok()
                    .and_then(Result::ok)
            }
            Err(_) => None,
        };
        if let Some(slot) = slot {
            connection(socket, state, &self.silent).await;
            drop(slot);
        } else if let Ok(permit) = self.refusing.clone().try_acquire_owned() {
            let _ = tokio::time::timeout(REFUSAL_TIME, refuse(socket)).await;
            drop(permit);
        }
    }
}

/// Connections that have not sent a request yet, oldest first. At the cap
/// the oldest of them is closed to make room: connections that never ask
/// anything cannot keep a page load out, they only push each other out.
#[derive(Default)]
struct Silent {
    next: AtomicU64,
    waiting: Mutex<BTreeMap<u64, Arc<Notify>>>,
}

impl Silent {
    fn enter(&self) -> (u64, Arc<Notify>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let evict = Arc::new(Notify::new());
        self.waiting
            .lock()
            .expect("silent lock")
            .insert(id, evict.clone());
        (id, evict)
    }

    fn leave(&self, id: u64) {
        self.waiting.lock().expect("silent lock").remove(&id);
    }

    /// Tells the oldest silent connection to close; whether there was one.
    fn evict_oldest(&self) -> bool {
        let oldest = self.waiting.lock().expect("silent lock").pop_first();
        oldest.map(|(_, evict)| evict.notify_one()).is_some()
    }
}

/// Tells a connection past the cap 503, without reading its request
/// beyond draining what it sent (so the answer is not lost to a reset).
async fn refuse(mut socket: TcpStream) -> std::io::Result<()> {
    socket.write_all(BUSY).await?;
    socket.shutdown().await?;
    let mut sink = [0u8; 4096];
    let mut left = 64 * 1024;
    while left > 0 {
        match socket.read(&mut sink).await? {
            0 => break,
            n => left -= n.min(left),
        }
    }
    Ok(())
}

/// Serves one connection until it closes, times out, or is evicted while
/// it has not sent a request yet.
async fn connection(socket: TcpStream, state: Arc<AppState>, silent: &Silent) {
    let (id, evict) = silent.enter();
    let service = hyper::service::service_fn(|request| {
        silent.leave(id);
        let state = state.clone();
        async move { Ok::<_, Infallible>(handle(state, request).await) }
    });
    let served = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        // Header names as most clients and tests print them.
        .title_case_headers(true)
        .max_buf_size(2 * MAX_HEAD)
        .max_header_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .serve_connection(TokioIo::new(socket), service);
    let mut served = pin!(served);
    let mut evicted = pin!(evict.notified());
    let ended = poll_fn(|cx| {
        if evicted.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Ok(()));
        }
        served.as_mut().poll(cx)
    })
    .await;
    silent.leave(id);
    if let Err(e) = ended {
        log::debug!("connection: {e}");
    }
}

type Body = UnsyncBoxBody<Bytes, Infallible>;

fn header<'r>(headers: &'r HeaderMap, name: &str) -> Option<&'r str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Why a request is refused before routing, if it is.
fn refusal(state: &AppState, request: &Request<Incoming>) -> Option<ApiError> {
    let target = request.uri().path_and_query().map_or("", |p| p.as_str());
    if target.len() > MAX_URL {
        return Some(ApiError::new(
            414,
            format!("request target longer than {MAX_URL} bytes"),
        ));
    }
    let headers = request.headers();
    let host = header(headers, "Host").unwrap_or("");
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
    if let Some(origin) = header(headers, "Origin") {
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
    // A page on another localhost port is "same-site": it may link to the
    // page, but not call the API or open its streams.
    let fetched_from = header(headers, "Sec-Fetch-Site").unwrap_or("none");
    let api = request.uri().path().starts_with("/api/") || request.method() == Method::POST;
    match fetched_from.to_ascii_lowercase().as_str() {
        "cross-site" => Some(ApiError::new(403, "cross-site requests are refused")),
        "same-site" if api => Some(ApiError::new(
            403,
            "requests from another page of this machine (another port) are refused",
        )),
        _ => None,
    }
}

/// Reads the body within [`BODY_TIMEOUT`], refusing one over `limit`
/// bytes (by its declared length at once, else as soon as it passes it)
/// or not UTF-8.
async fn read_body(
    body: Incoming,
    declared: Option<u64>,
    limit: usize,
) -> Result<String, ApiError> {
    let too_big = || ApiError::new(413, format!("request body over {limit} bytes"));
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_big());
    }
    let collected = tokio::time::timeout(BODY_TIMEOUT, Limited::new(body, limit).collect()).await;
    let bytes = match collected {
        Err(_) => {
            return Err(ApiError::new(
                408,
                format!(
                    "the body did not arrive within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            ));
        }
        Ok(Err(e)) if e.is::<LengthLimitError>() => return Err(too_big()),
        Ok(Err(e)) => return Err(ApiError::new(400, format!("reading the body: {e}"))),
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    String::from_utf8(Vec::from(bytes))
        .map_err(|_| ApiError::new(400, "the body is not UTF-8 text"))
}

/// The routes whose answer is a live stream.
fn is_stream(path: &str) -> bool {
    ["/api/channel", "/api/events", "/api/watch"].contains(&path)
}

/// What a request asks, read from its head.
struct Asked {
    method: Method,
    path: String,
    query: String,
    accept_encoding: String,
    if_none_match: Option<String>,
    declared_length: Option<u64>,
}

impl Asked {
    fn of(request: &Request<Incoming>) -> Asked {
        let headers = request.headers();
        Asked {
            method: request.method().clone(),
            path: request.uri().path().to_string(),
            query: request.uri().query().unwrap_or("").to_string(),
            accept_encoding: header(headers, "Accept-Encoding").unwrap_or("").to_string(),
            if_none_match: header(headers, "If-None-Match").map(str::to_string),
            declared_length: header(headers, "Content-Length").and_then(|n| n.parse().ok()),
        }
    }
}

async fn handle(state: Arc<AppState>, request: Request<Incoming>) -> Response<Body> {
    log::debug!("{} {}", request.method(), request.uri());
    if let Some(error) = refusal(&state, &request) {
        return error_response(error);
    }
    let asked = Asked::of(&request);
    if asked.method == Method::HEAD && is_stream(&asked.path) {
        // Headers only: a stream is not opened for it.
        return stream_head();
    }
    let (body, upload) = match body_of(&state, &asked, request.into_body()).await {
        Ok(read) => read,
        Err(e) => return error_response(e),
    };
    let (method, path, query) = (
        asked.method.clone(),
        asked.path.clone(),
        asked.query.clone(),
    );
    let routed =
        tokio::task::spawn_blocking(move || routes::route(&state, &method, &path, &query, body))
            .await;
    drop(upload);
    match routed {
        Ok(Reply::Stream(events, first, on_end)) => {
            stream_response(EventStream::new(events, first, on_end))
        }
        Ok(Reply::Asset(asset)) => asset_response(
            asset,
            &asked.accept_encoding,
            asked.if_none_match.as_deref(),
        ),
        Ok(reply) => reply_response(reply),
        Err(e) => error_response(ApiError::new(500, format!("the request failed: {e}"))),
    }
}

/// The request's body as text (empty for GET and HEAD), and for an upload
/// its place among the uploads read at once, held until it is answered.
async fn body_of(
    state: &AppState,
    asked: &Asked,
    body: Incoming,
) -> Result<(String, Option<OwnedSemaphorePermit>), ApiError> {
    match asked.method {
        Method::GET | Method::HEAD => Ok((String::new(), None)),
        Method::POST if asked.path == "/api/records" => {
            let upload = state.uploads.clone().try_acquire_owned().map_err(|_| {
                ApiError::new(
                    503,
                    format!("more than {MAX_UPLOADS_AT_ONCE} uploads at once; try again"),
                )
            })?;
            let text = read_body(body, asked.declared_length, MAX_BODY).await?;
            Ok((text, Some(upload)))
        }
        Method::POST => Ok((
            read_body(body, asked.declared_length, MAX_JSON_BODY).await?,
            None,
        )),
        _ => Err(ApiError::new(
            405,
            format!("method {} is not used here", asked.method),
        )),
    }
}

fn error_reply(error: ApiError) -> Reply {
    let mut body = json!({ "error": error.message });
    if let Some(engine) = error.engine {
        body["engine"] = engine;
    }
    Reply::Json(error.status, body)
}

fn error_response(error: ApiError) -> Response<Body> {
    reply_response(error_reply(error))
}

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed_unsync()
}

/// A response with the safe headers every answer carries.
fn response(status: u16, kind: &str, cache: &str, body: Body) -> Response<Body> {
    let mut response = Response::new(body);
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    let mut set = |name: header::HeaderName, value: &str| {
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    };
    set(header::CONTENT_TYPE, kind);
    set(header::CACHE_CONTROL, cache);
    set(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(header::X_FRAME_OPTIONS, "DENY");
    set(header::REFERRER_POLICY, "no-referrer");
    set(
        header::CONTENT_SECURITY_POLICY,
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    );
    response
}

fn reply_response(reply: Reply) -> Response<Body> {
    match reply {
        Reply::Json(status, value) => response(
            status,
            "application/json",
            "no-store",
            full(value.to_string()),
        ),
        Reply::JsonText(text) => response(200, "application/json", "no-store", full(text)),
        Reply::Error(e) => error_response(e),
        Reply::Asset(asset) => asset_response(asset, "", None),
        Reply::Stream(..) => unreachable!("streams are answered by stream_response"),
    }
}

/// An asset in the best coding the browser accepts, or 304 when the
/// browser's copy (its ETag) is this one. The page itself is no-store:
/// kept out of the back/forward cache, where it would hold its streams;
/// the files it loads are revalidated each time (`no-cache`).
fn asset_response(
    asset: &'static assets::Asset,
    accept: &str,
    if_none_match: Option<&str>,
) -> Response<Body> {
    let (coding, bytes) = asset.encoded(Coding::pick(accept));
    let etag = asset.etag(coding);
    let cache = if asset.kind.starts_with("text/html") {
        "no-store"
    } else {
        "no-cache"
    };
    let fresh = if_none_match.is_some_and(|tags| {
        tags.split(',')
            .any(|t| t.trim().trim_start_matches("W/") == etag || t.trim() == "*")
    });
    let mut answer = if fresh {
        response(304, asset.kind, cache, Empty::new().boxed_unsync())
    } else {
        response(200, asset.kind, cache, full(Bytes::from_static(bytes)))
    };
    let headers = answer.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, value);
    }
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Some(name) = coding.header() {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
    }
    answer
}

fn stream_response(stream: EventStream) -> Response<Body> {
    response(200, "text/event-stream", "no-cache", stream.boxed_unsync())
}

fn stream_head() -> Response<Body> {
    response(
        200,
        "text/event-stream",
        "no-cache",
        Empty::new().boxed_unsync(),
    )
}
