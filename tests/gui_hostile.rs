//! `yote gui` against hostile clients: every failure of issue 39's attack
//! on the browser server, fed again in its original form (scaled to a few
//! hundred connections), and issue 38's engine reaping and asset caching.
//!
//! Time bounds are loose (the machine is shared): they catch the old
//! behaviour (a dead process, no answer, an engine left for minutes), not a
//! slow machine. Memory bounds are the server's peak resident size
//! (`VmHWM`), far below what the old server reached.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const YOTE: &str = env!("CARGO_BIN_EXE_yote");

use support::gui::{Gui, read_reply};

impl Gui {
    /// Started by a shell that first lowers its descriptor limit.
    fn start_with_files(limit: u32, extra: &[&str]) -> Gui {
        let script = format!("ulimit -n {limit} && exec \"$0\" gui --port 0 \"$@\"");
        Gui::spawn(Command::new("sh").args(["-c", &script, YOTE]).args(extra))
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// The server's peak resident size in MB.
    fn peak_mb(&self) -> u64 {
        proc_status_kb(self.child.id(), "VmHWM") / 1024
    }

    /// Engine processes the server runs now.
    fn engines(&self) -> usize {
        children_of(self.child.id())
    }

    /// Opens `/api/channel` and gives the stream and the channel's id.
    fn channel(&self) -> (TcpStream, String) {
        let mut stream = self.connect();
        write!(
            stream,
            "GET /api/channel HTTP/1.1\r\nHost: {}\r\n\r\n",
            self.host()
        )
        .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut seen = String::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut buf = [0u8; 4096];
        // The data line is complete once its event's blank line came.
        while !seen
            .split("event: channel\ndata: ")
            .nth(1)
            .is_some_and(|d| d.contains("\n\n"))
        {
            assert!(Instant::now() < deadline, "no channel: {seen}");
            if let Ok(n) = stream.read(&mut buf) {
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
        let data = seen.split("event: channel\ndata: ").nth(1).unwrap();
        let id =
            serde_json::from_str::<serde_json::Value>(data.lines().next().unwrap()).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string();
        (stream, id)
    }
}

/// Everything that arrives on `stream` within `wait`, as text.
fn read_for(stream: &mut TcpStream, wait: Duration) -> String {
    let (_, head, body) = read_reply(stream, wait);
    format!("{head}\r\n\r\n{}", String::from_utf8_lossy(&body))
}

fn proc_status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Live (not zombie) processes whose parent is `pid`.
fn children_of(pid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            // After the command's closing parenthesis: state, then ppid.
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .map_or("", |(_, rest)| rest)
                .split_whitespace()
                .collect();
            fields.first() != Some(&"Z") && fields.get(1) == Some(&pid.to_string().as_str())
        })
        .count()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-gui-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn error_of(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .map(|v| v["error"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// Issue 39 item 1: `Content-Length: 1000000000000` on every kind of answer
/// (403, 405, 413, 200) once aborted the server (`memory allocation of
/// 1000000000000 bytes failed`): the refused body is never read or
/// allocated, and the server goes on.
#[test]
fn a_huge_content_length_is_never_allocated() {
    let mut gui = Gui::start(&[]);
    let host = gui.host();
    for (request, expected) in [
        ("GET /api/config HTTP/1.1\r\nHost: evil".to_string(), 403),
        (format!("PUT /api/state HTTP/1.1\r\nHost: {host}"), 405),
        (format!("POST /api/state HTTP/1.1\r\nHost: {host}"), 413),
        (format!("GET /api/config HTTP/1.1\r\nHost: {host}"), 200),
    ] {
        let text = format!("{request}\r\nContent-Length: 1000000000000\r\n\r\n");
        let (status, head, _) = gui.raw_within(text.as_bytes(), Duration::from_secs(10));
        assert_eq!(status, expected, "{request}: {head}");
        assert!(gui.alive(), "the server died after {request}");
    }
    assert_eq!(gui.get("/api/config").0, 200);
    assert!(gui.peak_mb() < 100, "peak {} MB", gui.peak_mb());
}

/// Issue 39 item 2: idle connections once held a thread and two
/// descriptors each with no timeout, and when descriptors ran out the
/// accept thread ended and `yote gui` exited (636 connections under
/// `ulimit -n 1024`). Here 400 idle connections under `ulimit -n 256`
/// (past the connection cap the limit allows): a page load is answered at
/// once (a silent connection is closed to make room), the server lives,
/// serves again when they go, and closes an idle connection by itself.
#[test]
fn idle_connections_neither_stop_the_server_nor_hold_it() {
    let mut gui = Gui::start_with_files(256, &[]);
    let mut probe = gui.connect();
    probe.write_all(b"GET / HT").unwrap();
    let idle: Vec<TcpStream> = (0..400)
        .filter_map(|_| TcpStream::connect(("127.0.0.1", gui.port)).ok())
        .collect();
    assert!(idle.len() > 300, "only {} connections", idle.len());
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    let request = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        gui.host()
    );
    let (status, head, _) = gui.raw_within(request.as_bytes(), Duration::from_secs(10));
    let took = asked.elapsed();
    assert!(
        status == 200 || status == 503,
        "a page load under 400 idle connections: {head:?}"
    );
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    eprintln!("page load under 400 idle connections: {status} in {took:?}");
    assert!(gui.alive(), "the server exited under idle connections");
    drop(idle);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(gui.get("/").0, 200, "serving again once they went");
    // A half-sent request (the first one was pushed out by the flood) is
    // given up on by the server after its head timeout: an error answer or
    // a closed connection, not a connection held for ever.
    let (status, head, _) = read_reply(&mut probe, Duration::from_secs(30));
    assert!(status == 408 || status == 0, "{head}");
    let mut late = gui.connect();
    late.write_all(b"GET / HT").unwrap();
    let sent = Instant::now();
    let (status, head, _) = read_reply(&mut late, Duration::from_secs(30));
    assert!(status == 408 || status == 0, "{head}");
    let held = sent.elapsed();
    assert!(
        held < Duration::from_secs(25),
        "a half-sent head held {held:?}"
    );
    assert!(gui.alive());
}

/// Issue 39 item 3: a 200 MiB request line or header was read whole
/// before any size check (415 MB peak; the long header was even answered
/// 200), and two million headers cost 224 MB. Heads are bounded while they
/// are read: a 64 MiB header, a 64 MiB request line and two million
/// headers are refused with the server's peak memory far below them.
#[test]
fn request_heads_are_bounded_while_read() {
    let mut gui = Gui::start(&[]);
    let host = gui.host();
    let chunk = vec![b'a'; 1 << 20];
    let headers = b"X: y\r\n".repeat(1 << 16);
    let cases: [(String, &[u8], usize); 3] = [
        (
            format!("GET /api/config HTTP/1.1\r\nHost: {host}\r\nX-Big: "),
            &chunk,
            64,
        ),
        ("GET /".to_string(), &chunk, 64),
        (
            format!("GET /api/config HTTP/1.1\r\nHost: {host}\r\n"),
            &headers,
            31,
        ),
    ];
    for (start, repeat, times) in cases {
        let mut stream = gui.connect();
        stream
            .set_write_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut sent = stream.write_all(start.as_bytes()).is_ok();
        for _ in 0..times {
            sent = sent && stream.write_all(repeat).is_ok();
        }
        if sent {
            let _ = stream.write_all(b" HTTP/1.1\r\n\r\n");
        }
        let (status, head, _) = read_reply(&mut stream, Duration::from_secs(20));
        assert_ne!(status, 200, "{}…: {head}", &start[..start.len().min(40)]);
        assert!(gui.alive());
    }
    assert_eq!(gui.get("/api/config").0, 200);
    assert!(
        gui.peak_mb() < 48,
        "peak {} MB for heads it refused",
        gui.peak_mb()
    );
}

/// Issue 39 item 4: 130 POSTs declaring `Content-Length: 5000` and sending
/// nothing took every request slot, and a normal GET got no answer at all.
/// Now a page load is answered while they wait, and a stalled body is
/// timed out.
#[test]
fn stalled_bodies_neither_block_page_loads_nor_wait_for_ever() {
    let mut gui = Gui::start(&[]);
    let head = format!(
        "POST /api/state HTTP/1.1\r\nHost: {}\r\nContent-Length: 5000\r\n\r\n",
        gui.host()
    );
    let stalled: Vec<TcpStream> = (0..130)
        .map(|_| {
            let mut s = gui.connect();
            s.write_all(head.as_bytes()).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    let page = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        gui.host()
    );
    let (status, answer, _) = gui.raw_within(page.as_bytes(), Duration::from_secs(10));
    let took = asked.elapsed();
    assert_eq!(status, 200, "{answer}");
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    eprintln!("page load beside 130 stalled bodies: {took:?}");
    let mut first = stalled.into_iter().next().unwrap();
    let (status, answer, _) = read_reply(&mut first, Duration::from_secs(40));
    assert_eq!(status, 408, "a stalled body is timed out: {answer:?}");
    assert!(gui.alive());
}

/// Issue 39 item 5: 40 sessions attached to one `/api/channel`, each
/// analysing, ran 40 engines while the session limit was 32, and evicted
/// sessions kept theirs. Every engine counts against one limit, whichever
/// route started it (the default, 12; past it a JSON error says so), and a
/// closed session's engines end.
#[test]
fn every_engine_counts_against_one_limit() {
    let fake = support::fake_engine();
    let hang = format!("{fake} --mode hang");
    let gui = Gui::start(&["--engine", &hang]);
    let (_stream, channel) = gui.channel();
    let mut started = 0;
    let mut refusal = String::new();
    for _ in 0..40 {
        let session = gui.session();
        gui.json(
            "/api/listen",
            &format!(r#"{{"channel":"{channel}","session":"{session}"}}"#),
        );
        let (status, body) = gui.post(
            "/api/analyse",
            &format!(r#"{{"session":"{session}","engine":1}}"#),
        );
        match status {
            200 => started += 1,
            503 => refusal = error_of(&body),
            _ => panic!("{status} {body}"),
        }
    }
    let running = gui.engines();
    assert!(
        running <= 12,
        "{running} engine processes for a limit of 12"
    );
    // Sessions past the 32 kept evict the oldest, and an evicted session's
    // engine frees its slot once it is reaped: how many of the last 8
    // analyses got one depends on how fast the machine reaped (13 started
    // under load once). The limit itself is `running` above.
    assert!(
        (12..=20).contains(&started),
        "{started} analyses started for a limit of 12 and 8 evictions"
    );
    assert!(refusal.contains("engines"), "{refusal}");
    let health: serde_json::Value = serde_json::from_str(&gui.get("/api/health").1).unwrap();
    assert_eq!(health["engines"], 12, "{health}");
    // Evicting the sessions (many newer ones) ends their engines too.
    for _ in 0..40 {
        gui.session();
    }
    let deadline = Instant::now() + Duration::from_secs(15);
    while gui.engines() > 0 {
        assert!(
            Instant::now() < deadline,
            "{} engines of evicted sessions left",
            gui.engines()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

const GAME: &str = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. @c3 @d4 1-0\n\n";

/// Issue 39 item 6: a `--records` file replaced by a FIFO blocked
/// `GET /api/records/f0` for ever, and a FIFO `FILE.live` froze Watch.
/// Only regular files are read.
#[test]
fn a_fifo_in_place_of_a_records_file_is_refused() {
    let dir = temp_dir("fifo");
    let records = dir.join("games.pgn");
    std::fs::write(&records, GAME).unwrap();
    let gui = Gui::start(&["--records", records.to_str().unwrap()]);
    std::fs::remove_file(&records).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(&records)
            .status()
            .unwrap()
            .success()
    );
    let request = format!(
        "GET /api/records/f0 HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        gui.host()
    );
    let (status, head, body) = gui.raw_within(request.as_bytes(), Duration::from_secs(5));
    let body = String::from_utf8_lossy(&body);
    assert!((400..600).contains(&status), "{head} {body}");
    assert!(error_of(&body).contains("not a regular file"), "{body}");
    std::fs::remove_file(&records).unwrap();
    std::fs::write(&records, GAME).unwrap();
    let sidecar = dir.join("games.pgn.live");
    assert!(
        Command::new("mkfifo")
            .arg(&sidecar)
            .status()
            .unwrap()
            .success()
    );
    let mut stream = gui.connect();
    write!(
        stream,
        "GET /api/watch?records=f0 HTTP/1.1\r\nHost: {}\r\n\r\n",
        gui.host()
    )
    .unwrap();
    let (_, _, seen) = read_reply(&mut stream, Duration::from_secs(3));
    let seen = String::from_utf8_lossy(&seen);
    assert!(
        seen.contains("event: game"),
        "Watch froze on a FIFO sidecar: {seen:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 39 item 6: a records file truncated and written again stalled
/// Watch until it outgrew the old offset. A rewrite (another file, or a
/// shorter one) is seen and the file read again from its start.
#[test]
fn a_rewritten_records_file_is_watched_from_its_start() {
    let dir = temp_dir("rewrite");
    let records = dir.join("games.pgn");
    std::fs::write(&records, GAME.repeat(3)).unwrap();
    let gui = Gui::start(&["--records", records.to_str().unwrap()]);
    let mut stream = gui.connect();
    write!(
        stream,
        "GET /api/watch?records=f0 HTTP/1.1\r\nHost: {}\r\n\r\n",
        gui.host()
    )
    .unwrap();
    let first = read_for(&mut stream, Duration::from_secs(2));
    assert!(first.contains("event: game"), "{first}");
    std::fs::write(&records, GAME.replace("\"a\"", "\"rewritten\"")).unwrap();
    let after = read_for(&mut stream, Duration::from_secs(3));
    assert!(
        after.contains("rewritten"),
        "the rewritten game was not sent: {after:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 39 item 6: a 30 MB records file cost ~230 MB per GET, and an
/// 8 MB upload ~48 MB (16 at once 770 MB). Records are read a game at a
/// time, and uploads are bounded.
#[test]
fn large_records_and_uploads_cost_bounded_memory() {
    let dir = temp_dir("large");
    let records = dir.join("games.pgn");
    let game = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gui-analysed.pgn"),
    )
    .unwrap();
    let copies = (30 << 20) / game.len() + 1;
    std::fs::write(&records, game.repeat(copies)).unwrap();
    let gui = Gui::start(&["--records", records.to_str().unwrap()]);
    let (status, list) = gui.get("/api/records/f0");
    assert_eq!(status, 200, "{}", &list[..list.len().min(300)]);
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert!(
        list["games"].as_array().unwrap().len() >= copies.min(1000),
        "{}",
        list["games"].as_array().unwrap().len()
    );
    assert_eq!(gui.get("/api/records/f0/5").0, 200);
    let upload = game.repeat((8 << 20) / game.len() - 1);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (port, body) = (gui.port, upload.clone());
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                let head = format!("POST /api/records?name=big HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n", body.len());
                let _ = s.write_all(head.as_bytes());
                let _ = s.write_all(body.as_bytes());
                read_reply(&mut s, Duration::from_secs(60)).0
            })
        })
        .collect();
    let statuses: Vec<u16> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(statuses.contains(&200), "{statuses:?}");
    assert!(
        statuses.iter().all(|&s| s == 200 || s == 503),
        "{statuses:?}"
    );
    let peak = gui.peak_mb();
    eprintln!("peak after a 30 MB records file and 8 uploads of 8 MB: {peak} MB");
    assert!(peak < 150, "peak {peak} MB");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 39 item 7: a fen with a newline passed `/api/validate` and reached
/// the engine as two lines; a GET from another localhost port
/// (`Sec-Fetch-Site: same-site`, no Origin) could open event streams; and
/// `HEAD /api/channel` sent a body.
#[test]
fn newlines_other_ports_and_head_requests_are_handled() {
    let gui = Gui::start(&[]);
    let session = gui.session();
    let body = format!(r#"{{"session":"{session}","fen":"6/6/6/6/6 w 12 12 0\n1"}}"#);
    let (status, text) = gui.post("/api/validate", &body);
    assert_eq!(status, 400, "{text}");
    assert!(error_of(&text).contains("control character"), "{text}");
    let same_site = [("Sec-Fetch-Site", "same-site")];
    for (method, path, body) in [
        ("GET", "/api/channel", ""),
        ("GET", &format!("/api/events?session={session}") as &str, ""),
        ("POST", "/api/session", "{}"),
    ] {
        let (status, text) = gui.request(method, path, &same_site, body);
        assert_eq!(status, 403, "{method} {path}: {text}");
    }
    assert_eq!(
        gui.request("GET", "/", &same_site, "").0,
        200,
        "a link from another port opens the page"
    );
    let head = format!("HEAD /api/channel HTTP/1.1\r\nHost: {}\r\n\r\n", gui.host());
    let (status, answer, body) = gui.raw_within(head.as_bytes(), Duration::from_secs(3));
    assert_eq!(status, 200, "{answer}");
    assert!(
        body.is_empty(),
        "HEAD sent a body: {:?}",
        String::from_utf8_lossy(&body)
    );
    let head = format!(
        "HEAD / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        gui.host()
    );
    let (status, _, body) = gui.raw_within(head.as_bytes(), Duration::from_secs(3));
    assert_eq!((status, body.len()), (200, 0));
}

/// Issue 38: every page load made a session whose engine lingered ten
/// minutes. Ten pages (sessions on one channel, some playing a move, some
/// analysing with an engine that never answers) close: their engines end
/// within 30 s.
#[test]
fn engines_of_closed_pages_end_within_30_s() {
    let fake = support::fake_engine();
    let hang = format!("{fake} --mode hang");
    let gui = Gui::start(&["--engine", &fake, "--engine", &hang]);
    let (stream, channel) = gui.channel();
    for tab in 0..10 {
        let session = gui.session();
        gui.json(
            "/api/listen",
            &format!(r#"{{"channel":"{channel}","session":"{session}"}}"#),
        );
        if tab % 2 == 0 {
            let go = format!(
                r#"{{"session":"{session}","slot":"W","engine":1,"clock":{{"movetime":50}}}}"#
            );
            gui.json("/api/go", &go);
        } else {
            gui.json(
                "/api/analyse",
                &format!(r#"{{"session":"{session}","engine":2}}"#),
            );
        }
    }
    assert_eq!(gui.engines(), 10);
    let closed = Instant::now();
    drop(stream);
    while gui.engines() > 0 {
        assert!(
            closed.elapsed() < Duration::from_secs(30),
            "{} engines left 30 s after the pages closed",
            gui.engines()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    eprintln!(
        "engines of 10 closed pages ended after {:?}",
        closed.elapsed()
    );
}

/// Issue 38: assets compressed where the browser accepts it, with an ETag
/// that a revalidation answers with 304 and no body.
#[test]
fn assets_are_compressed_and_revalidated() {
    let gui = Gui::start(&[]);
    let original =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gui/assets/app.js")).unwrap();
    let request = |extra: &str| {
        let text = format!(
            "GET /assets/app.js HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}\r\n",
            gui.host()
        );
        gui.raw_within(text.as_bytes(), Duration::from_secs(10))
    };
    let (status, plain_head, plain) = request("");
    assert_eq!(status, 200);
    assert_eq!(plain, original);
    let (status, head, body) = request("Accept-Encoding: gzip, deflate, br, zstd\r\n");
    assert_eq!(status, 200);
    let lower = head.to_ascii_lowercase();
    assert!(lower.contains("vary: accept-encoding"), "{head}");
    let encoding = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-encoding: "))
        .unwrap_or("")
        .trim()
        .to_string();
    let decoded = match encoding.as_str() {
        "zstd" => zstd::decode_all(&body[..]).unwrap(),
        "deflate" => miniz_oxide::inflate::decompress_to_vec_zlib(&body).unwrap(),
        other => panic!("not compressed ({other:?}): {head}"),
    };
    assert_eq!(decoded, original);
    assert!(
        body.len() * 2 < original.len(),
        "{} of {} bytes",
        body.len(),
        original.len()
    );
    let etag = lower
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .expect("an ETag")
        .trim()
        .to_string();
    let (status, head, body) = request(&format!(
        "Accept-Encoding: gzip, deflate, br, zstd\r\nIf-None-Match: {etag}\r\n"
    ));
    assert_eq!((status, body.len()), (304, 0), "{head}");
    let plain_etag = plain_head
        .to_ascii_lowercase()
        .lines()
        .find_map(|l| l.strip_prefix("etag: ").map(str::to_string));
    assert!(
        plain_etag.is_some_and(|e| e != etag),
        "each encoding has its own ETag"
    );
}

/// Issue 38 item 13 / issue 40 item 8: `--open` on a machine without a
/// browser printed seven lines of xdg-open noise. One line, and the URL.
#[test]
fn open_without_a_browser_says_one_line() {
    let dir = temp_dir("open");
    let noisy = dir.join("xdg-open");
    let noise = "#!/bin/sh\nfor i in 1 2 3 4; do echo \"xdg-open noise $i\"; echo \"xdg-open error $i\" >&2; done\nexit 3\n";
    std::fs::write(&noisy, noise).unwrap();
    assert!(
        Command::new("chmod")
            .arg("+x")
            .arg(&noisy)
            .status()
            .unwrap()
            .success()
    );
    for display in [None, Some(":99")] {
        let mut command = Command::new(YOTE);
        command
            .args(["gui", "--port", "0", "--open"])
            .env("PATH", &dir)
            .env_remove("BROWSER")
            .env_remove("WAYLAND_DISPLAY");
        match display {
            Some(d) => command.env("DISPLAY", d),
            None => command.env_remove("DISPLAY"),
        };
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(3));
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stdout.contains("http://127.0.0.1:"), "{stdout}");
        let lines = stdout.lines().count() + stderr.lines().count();
        assert!(
            !stdout.contains("noise") && !stderr.contains("xdg-open error"),
            "{stdout}{stderr}"
        );
        assert!(lines <= 2, "display {display:?}: {stdout}{stderr}");
        assert!(
            stderr.contains("open") && stderr.contains("http://127.0.0.1:"),
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38: a page that says it is closing (`POST /api/close`, sent by
/// `sendBeacon` on `pagehide`) has its engines ended at once; a heartbeat
/// says how long a silent page keeps them.
#[test]
fn a_closed_session_ends_its_engines_at_once() {
    let fake = support::fake_engine();
    let gui = Gui::start(&["--engine", &fake]);
    let session = gui.session();
    let go = format!(
        r#"{{"session":"{session}","slot":"B","engine":1,"fen":"6/6/6/6/6 b 12 12 0 1","clock":{{"movetime":50}}}}"#
    );
    gui.json("/api/go", &go);
    let beat = gui.json("/api/heartbeat", &format!(r#"{{"session":"{session}"}}"#));
    assert_eq!(beat["idle_timeout_s"], 15, "{beat}");
    assert_eq!(gui.engines(), 1);
    let closed = gui.json("/api/close", &format!(r#"{{"session":"{session}"}}"#));
    assert_eq!(closed["closed"], true);
    let deadline = Instant::now() + Duration::from_secs(3);
    while gui.engines() > 0 {
        assert!(
            Instant::now() < deadline,
            "the closed session's engine is left"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        gui.post("/api/go", &go).0,
        404,
        "a closed session starts nothing"
    );
}

/// Issue 38: `navigator.sendBeacon` posts the close as `text/plain` with
/// the page's own Origin and `Sec-Fetch-Site: same-origin`: that is
/// accepted, while the same request from another site or port is refused
/// and leaves the session open.
#[test]
fn a_beacon_closes_its_session_and_only_from_the_page() {
    let gui = Gui::start(&[]);
    let session = gui.session();
    let body = format!(r#"{{"session":"{session}"}}"#);
    let origin = format!("http://{}", gui.host());
    let beacon = |site: &str, origin: &str| {
        gui.request(
            "POST",
            "/api/close",
            &[
                ("Content-Type", "text/plain;charset=UTF-8"),
                ("Origin", origin),
                ("Sec-Fetch-Site", site),
                ("Sec-Fetch-Mode", "no-cors"),
            ],
            &body,
        )
    };
    for (site, from) in [
        ("cross-site", "http://evil.example"),
        ("same-site", "http://127.0.0.1:1"),
        ("cross-site", origin.as_str()),
    ] {
        let (status, text) = beacon(site, from);
        assert_eq!(status, 403, "{site} from {from}: {text}");
    }
    let (status, text) = gui.post("/api/heartbeat", &body);
    assert_eq!(status, 200, "a refused close closed the session: {text}");
    let (status, text) = beacon("same-origin", &origin);
    assert_eq!(status, 200, "{text}");
    assert!(text.contains(r#""closed":true"#), "{text}");
    assert_eq!(gui.post("/api/heartbeat", &body).0, 404);
}
