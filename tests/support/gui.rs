//! A running `yote gui` for the front end's tests, spoken to over raw
//! HTTP so that every byte the server sees is the test's.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `yote gui` on a free port, killed when dropped.
pub struct Gui {
    pub child: Child,
    pub port: u16,
}

impl Gui {
    pub fn start(extra: &[&str]) -> Gui {
        Gui::spawn(
            Command::new(super::BIN)
                .args(["gui", "--port", "0"])
                .args(extra),
        )
    }

    pub fn spawn(command: &mut Command) -> Gui {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("yote gui starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .rsplit(':')
            .next()
            .and_then(|p| p.trim_end_matches('/').parse().ok())
            .unwrap_or_else(|| panic!("no URL in {line:?}"));
        Gui { child, port }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn connect(&self) -> TcpStream {
        TcpStream::connect(("127.0.0.1", self.port)).expect("the server accepts")
    }

    /// Sends a raw request and reads the answer until the server closes
    /// the connection or `wait` passes: (status, head, body), status 0 when
    /// nothing came.
    pub fn raw_within(&self, request: &[u8], wait: Duration) -> (u16, String, Vec<u8>) {
        let mut stream = self.connect();
        let _ = stream.write_all(request);
        read_reply(&mut stream, wait)
    }

    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String) {
        let mut text = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.host(),
            body.len()
        );
        for (k, v) in headers {
            text.push_str(&format!("{k}: {v}\r\n"));
        }
        text.push_str("\r\n");
        text.push_str(body);
        let (status, _, body) = self.raw_within(text.as_bytes(), Duration::from_secs(30));
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        self.request("GET", path, &[], "")
    }

    pub fn post(&self, path: &str, body: &str) -> (u16, String) {
        self.request("POST", path, &[("Content-Type", "application/json")], body)
    }

    pub fn json(&self, path: &str, body: &str) -> serde_json::Value {
        let (status, text) = self.post(path, body);
        assert_eq!(status, 200, "{path} {body}: {text}");
        serde_json::from_str(&text).unwrap()
    }

    pub fn session(&self) -> String {
        self.json("/api/session", "{}")["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Sends a raw request and reads the whole answer (the server closes
    /// the connection after each response): (status, body).
    pub fn raw(&self, request: &[u8]) -> (u16, String) {
        let (status, _, body) = self.raw_within(request, Duration::from_secs(30));
        (status, String::from_utf8_lossy(&body).into_owned())
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `stream` until the server closes it or `wait` passes: (status,
/// head, body), status 0 when nothing came.
pub fn read_reply(stream: &mut TcpStream, wait: Duration) -> (u16, String, Vec<u8>) {
    let deadline = Instant::now() + wait;
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    while Instant::now() < deadline {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
    let split = bytes.windows(4).position(|w| w == b"\r\n\r\n");
    let (head, body) = match split {
        Some(i) => (
            String::from_utf8_lossy(&bytes[..i]).into_owned(),
            bytes[i + 4..].to_vec(),
        ),
        None => (String::from_utf8_lossy(&bytes).into_owned(), Vec::new()),
    };
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head, body)
}
