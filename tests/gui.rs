//! `yote gui` over HTTP: every endpoint, every refusal, engines that crash,
//! hang or print garbage; and the real-browser suite (tests/browser/).

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const YOTE: &str = env!("CARGO_BIN_EXE_yote");

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

use support::gui::Gui;

impl Gui {
    /// Sends `GET path` on a connection left open, read with a short
    /// timeout.
    fn open_stream(&self, path: &str) -> TcpStream {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {}\r\n\r\n",
            self.host()
        )
        .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        stream
    }

    /// Opens a live stream and returns what arrived within `wait`, or
    /// once `until` is seen.
    fn stream(&self, path: &str, wait: Duration, until: &str, during: impl FnOnce()) -> String {
        let mut stream = self.open_stream(path);
        let mut seen = String::new();
        let mut buf = [0u8; 4096];
        // The stream is open once its head arrived.
        let deadline = Instant::now() + wait;
        while !seen.contains("\r\n\r\n") && Instant::now() < deadline {
            if let Ok(n) = stream.read(&mut buf) {
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
        during();
        while Instant::now() < deadline && !seen.contains(until) {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => seen.push_str(&String::from_utf8_lossy(&buf[..n])),
                Err(_) => {}
            }
        }
        seen
    }
}

fn error_of(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body).unwrap()["error"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn page_and_assets_are_served_with_safe_headers() {
    let gui = Gui::start(&[]);
    let (status, page) = gui.get("/");
    assert_eq!(status, 200);
    for hook in [
        "data-role=\"moves\"",
        "data-role=\"status\"",
        "data-role=\"lines\"",
        "/assets/app.js",
    ] {
        assert!(page.contains(hook), "{hook}");
    }
    let raw = gui.raw(
        format!(
            "GET /assets/app.js HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            gui.host()
        )
        .as_bytes(),
    );
    assert_eq!(raw.0, 200);
    let mut stream = TcpStream::connect(("127.0.0.1", gui.port)).unwrap();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        gui.host()
    )
    .unwrap();
    let mut head = String::new();
    stream.read_to_string(&mut head).unwrap();
    for header in [
        "Content-Security-Policy: default-src 'self'",
        "X-Frame-Options: DENY",
        "X-Content-Type-Options: nosniff",
    ] {
        assert!(head.contains(header), "{header} missing in {head}");
    }
    assert_eq!(gui.get("/assets/nothing.js").0, 404);
    assert_eq!(gui.get("/etc/passwd").0, 404);
    assert_eq!(gui.get("/assets/../Cargo.toml").0, 404);
    let config: serde_json::Value = serde_json::from_str(&gui.get("/api/config").1).unwrap();
    assert_eq!(config["engines"][0]["name"], "yote");
    assert!(
        config["presets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "hand-removal")
    );
    let health: serde_json::Value = serde_json::from_str(&gui.get("/api/health").1).unwrap();
    assert!(
        health["assets_bytes"].as_u64().unwrap() < 300 * 1024,
        "assets over budget: {health}"
    );
}

#[test]
fn requests_from_other_hosts_and_sites_are_refused() {
    let gui = Gui::start(&[]);
    // DNS rebinding: the browser sends the attacker's name as Host.
    let (status, body) =
        gui.raw(b"GET /api/config HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("DNS rebinding"), "{body}");
    let (status, _) = gui.raw(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 403, "no Host at all");
    let origin = [("Origin", "http://evil.example")];
    let (status, body) = gui.request("POST", "/api/session", &origin, "{}");
    assert_eq!(status, 403, "{body}");
    let cross = [("Sec-Fetch-Site", "cross-site")];
    assert_eq!(gui.request("POST", "/api/session", &cross, "{}").0, 403);
    let own = format!("http://{}", gui.host());
    assert_eq!(
        gui.request("POST", "/api/session", &[("Origin", &own)], "{}")
            .0,
        200
    );
    let localhost = format!("localhost:{}", gui.port);
    let (status, _) = gui.raw(
        format!("GET /api/config HTTP/1.1\r\nHost: {localhost}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(status, 200, "localhost is this server too");
}

#[test]
fn malformed_and_oversized_requests_get_4xx_and_change_nothing() {
    let gui = Gui::start(&[]);
    let (status, body) = gui.post("/api/state", "{not json");
    assert_eq!(status, 400);
    assert!(error_of(&body).contains("not JSON"), "{body}");
    assert_eq!(gui.post("/api/state", "[1,2]").0, 400);
    assert_eq!(gui.post("/api/state", r#"{"moves":"@c3"}"#).0, 400);
    assert_eq!(gui.post("/api/state", r#"{"variant":7}"#).0, 400);
    let big = format!(r#"{{"fen":"{}"}}"#, "x".repeat(300 * 1024));
    let (status, body) = gui.post("/api/state", &big);
    assert_eq!(status, 413, "{body}");
    let long = format!("/api/config?{}", "a".repeat(20 * 1024));
    assert_eq!(gui.get(&long).0, 414);
    assert_eq!(gui.request("PUT", "/api/state", &[], "{}").0, 405);
    assert_eq!(gui.request("DELETE", "/", &[], "").0, 405);
    assert_eq!(gui.get("/api/nothing").0, 404);
    assert_eq!(gui.post("/api/config", "{}").0, 405);
    let (status, _) = gui.raw(b"NONSENSE\r\n\r\n");
    assert!((400..500).contains(&status) || status == 0, "{status}");
    let mut not_utf8 = format!(
        "POST /api/state HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: 2\r\n\r\n",
        gui.host()
    )
    .into_bytes();
    not_utf8.extend([0xff, 0xfe]);
    let (status, body) = gui.raw(&not_utf8);
    assert_eq!(status, 400, "{body}");
    // Still serving, with nothing changed.
    assert_eq!(gui.get("/api/config").0, 200);
}

#[test]
fn the_state_gives_board_legal_moves_and_the_two_ply_capture() {
    let gui = Gui::start(&[]);
    let start = gui.json("/api/state", "{}");
    assert_eq!(start["board"]["cells"], ".".repeat(30));
    assert_eq!(start["board"]["hands"]["W"], 12);
    assert_eq!(start["legal"].as_array().unwrap().len(), 30);
    // White c3, Black d3 and a1 (hand-removal rules): c3e3 jumps d3 and
    // owes one removal, from the board or the hand.
    let fen = "6/6/2WB2/6/B5 w 11 10 0 1";
    let jumped = gui.json(
        "/api/state",
        &format!(r#"{{"variant":"hand-removal","fen":"{fen}","moves":["c3e3"]}}"#),
    );
    assert_eq!(jumped["board"]["owed"], 1);
    assert_eq!(jumped["pending"], "c3e3");
    assert!(jumped["board"]["fen"].as_str().unwrap().ends_with("x1"));
    let removals: Vec<&str> = jumped["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert!(
        removals.contains(&"xa1") && removals.contains(&"x@"),
        "{removals:?}"
    );
    let done = gui.json(
        "/api/state",
        &format!(r#"{{"variant":"hand-removal","fen":"{fen}","moves":["c3e3","x@"]}}"#),
    );
    assert_eq!(done["engine_moves"][0], "c3e3x@");
    assert_eq!(done["board"]["hands"]["B"], 9);
    assert_eq!(done["moves"], serde_json::json!(["c3e3", "x@"]));
    // Every kind of bad game is a 422 naming what is wrong.
    for (body, says) in [
        (r#"{"variant":"nonsense"}"#, "variant 'nonsense'"),
        (r#"{"variant":"rows=9"}"#, "rows"),
        (r#"{"fen":"6/6 w 1 1"}"#, "position '6/6 w 1 1'"),
        (r#"{"moves":["@c3","c3c9"]}"#, "move 2 'c3c9'"),
        (r#"{"moves":["@c3","@c3"]}"#, "move 2 '@c3'"),
    ] {
        let (status, text) = gui.post("/api/state", body);
        assert_eq!(status, 422, "{body}: {text}");
        assert!(error_of(&text).contains(says), "{body}: {text}");
    }
    // A finished game has no legal moves and says how it ended.
    let over = gui.json("/api/state", r#"{"fen":"6/6/6/6/W5 b 1 0 0 1"}"#);
    assert_eq!(over["status"]["result"], "1-0");
    assert!(
        over["status"]["reason"]
            .as_str()
            .unwrap()
            .contains("too few pieces")
    );
    assert!(over["legal"].as_array().unwrap().is_empty());
}

/// CI's browser suite timed out on an edit (2026-12-06): the page's next
/// analysis was on its way when Set position asked the engine to check the
/// edited position. The analysis took the engine first, started searching,
/// and the check waited for it until it gave up with "busy thinking" 13 s
/// later. Steps: an analysis running and watched; then a new analysis and
/// a check sent at once. The check must be answered, not refused.
#[test]
fn a_position_check_is_not_refused_by_an_analysis_sent_beside_it() {
    let gui = Gui::start(&[]);
    let session = gui.session();
    let watcher = gui.open_stream(&format!("/api/events?session={session}"));
    for round in 0..6 {
        let first = format!(r#"{{"session":"{session}","moves":["@c3"],"id":"a{round}"}}"#);
        assert_eq!(gui.post("/api/analyse", &first).0, 200);
        std::thread::sleep(Duration::from_millis(300));
        let next = format!(r#"{{"session":"{session}","moves":["@c3","@d4"],"id":"b{round}"}}"#);
        let check = format!(r#"{{"session":"{session}","fen":"6/6/2W3/6/6 b 11 12 0 1"}}"#);
        let (analysed, checked) = std::thread::scope(|s| {
            let analysed = s.spawn(|| gui.post("/api/analyse", &next));
            // The analysis first, as the page sends them.
            std::thread::sleep(Duration::from_millis(5));
            let checked = s.spawn(|| gui.post("/api/validate", &check));
            (analysed.join().unwrap(), checked.join().unwrap())
        });
        assert_eq!(analysed.0, 200, "round {round}: {analysed:?}");
        assert_eq!(
            checked.0, 200,
            "round {round}: the check was refused: {checked:?}"
        );
        assert!(
            checked.1.contains("\"ok\":true"),
            "round {round}: {checked:?}"
        );
    }
    drop(watcher);
}

#[test]
fn engines_play_analyse_validate_and_stream_live() {
    let gui = Gui::start(&[]);
    let session = gui.session();
    let status = gui.get(&format!("/api/engines?session={session}"));
    assert_eq!(status.0, 200);
    let go = format!(
        r#"{{"session":"{session}","slot":"W","moves":[],"clock":{{"movetime":100}},"skill":5}}"#
    );
    let reply = gui.json("/api/go", &go);
    let best = reply["bestmove"].as_str().unwrap().to_string();
    assert!(best.starts_with('@'), "{reply}");
    let legal = gui.json("/api/state", &format!(r#"{{"moves":["{best}"]}}"#));
    assert_eq!(legal["moves"][0], best);
    // Clocks: wtime/btime and increments.
    let go = format!(
        r#"{{"session":"{session}","slot":"B","moves":["@c3"],"clock":{{"wtime":5000,"btime":5000,"winc":100,"binc":100}}}}"#
    );
    assert!(gui.json("/api/go", &go)["bestmove"].is_string());
    // Refusals: wrong side, no clock, no such engine, over, unknown session.
    for (body, code) in [
        (
            format!(r#"{{"session":"{session}","slot":"B","moves":[],"clock":{{"movetime":50}}}}"#),
            409,
        ),
        (
            format!(r#"{{"session":"{session}","slot":"W","moves":[]}}"#),
            400,
        ),
        (
            format!(
                r#"{{"session":"{session}","slot":"W","engine":5,"moves":[],"clock":{{"movetime":50}}}}"#
            ),
            400,
        ),
        (
            format!(r#"{{"session":"{session}","slot":"X","moves":[],"clock":{{"movetime":50}}}}"#),
            400,
        ),
        (
            format!(
                r#"{{"session":"{session}","slot":"W","skill":99,"moves":[],"clock":{{"movetime":50}}}}"#
            ),
            400,
        ),
        (
            format!(
                r#"{{"session":"{session}","slot":"B","fen":"6/6/6/6/W5 b 1 0 0 1","clock":{{"movetime":50}}}}"#
            ),
            409,
        ),
        (
            r#"{"session":"nope","slot":"W","clock":{"movetime":50}}"#.to_string(),
            404,
        ),
    ] {
        let (status, text) = gui.post("/api/go", &body);
        assert_eq!(status, code, "{body}: {text}");
    }
    // Analysis streams MultiPV lines to the session's event stream.
    let analyse = format!(r#"{{"session":"{session}","moves":["@c3"],"multipv":2}}"#);
    let events = gui.stream(
        &format!("/api/events?session={session}"),
        Duration::from_secs(20),
        "\"multipv\":2",
        || {
            assert_eq!(gui.post("/api/analyse", &analyse).0, 200);
        },
    );
    assert!(events.contains("text/event-stream"), "{events}");
    assert!(events.contains("event: engines"), "{events}");
    assert!(
        events.contains("event: info") && events.contains("\"multipv\":2"),
        "{events}"
    );
    assert!(events.contains("\"nps\""), "{events}");
    let stop = format!(r#"{{"session":"{session}","slot":"A"}}"#);
    assert_eq!(gui.post("/api/stop", &stop).0, 200);
    // In the middle of a two-ply capture the engine gets the position that
    // owes the removal, and its line starts with one.
    // Its events carry the request's id, so that the page can drop the
    // last lines of a search it replaced.
    let jumped = format!(
        r#"{{"session":"{session}","fen":"6/6/2WB2/6/B5 w 11 10 0 1","moves":["c3e3"],"id":"a7"}}"#
    );
    let path = format!("/api/events?session={session}");
    let events = gui.stream(&path, Duration::from_secs(20), "\"pv\":\"xa1", || {
        assert_eq!(gui.post("/api/analyse", &jumped).0, 200);
    });
    assert!(events.contains("\"pv\":\"xa1"), "{events}");
    let info = events.lines().find(|l| l.contains("\"pv\":\"xa1")).unwrap();
    assert!(info.contains("\"id\":\"a7\""), "{info}");
    let long = format!(r#"{{"session":"{session}","id":"{}"}}"#, "x".repeat(65));
    assert_eq!(gui.post("/api/analyse", &long).0, 400);
    assert_eq!(gui.post("/api/stop", &stop).0, 200);
    assert_eq!(gui.get("/api/events?session=nope").0, 404);
    assert_eq!(gui.get("/api/events").0, 400);
    // The editor's positions: checked by the rules, then by the engine.
    let bad = gui.json(
        "/api/validate",
        &format!(r#"{{"session":"{session}","fen":"6/6/6/6/6 w 12 13 0 1"}}"#),
    );
    assert_eq!(bad["ok"], false);
    assert!(
        bad["error"].as_str().unwrap().contains("13 pieces"),
        "{bad}"
    );
    let good = gui.json(
        "/api/validate",
        &format!(r#"{{"session":"{session}","fen":"6/6/2W3/6/6 b 11 12 0 1"}}"#),
    );
    assert_eq!(good["ok"], true, "{good}");
    assert_eq!(
        gui.post("/api/validate", &format!(r#"{{"session":"{session}"}}"#))
            .0,
        400
    );
    let restarted = gui.json(
        "/api/restart",
        &format!(r#"{{"session":"{session}","slot":"W"}}"#),
    );
    assert_eq!(restarted["state"], "ready");
}

/// A misbehaving engine is shown as such; the server keeps serving and a
/// restart brings the engine back.
#[test]
fn crashing_hanging_and_garbage_engines_are_reported_and_restartable() {
    let engines: Vec<String> = ["crash", "hang", "garbage", "illegal"]
        .iter()
        .map(|mode| format!("{} --mode {mode} --at 2", support::fake_engine()))
        .collect();
    let mut args = Vec::new();
    for e in &engines {
        args.extend(["--engine", e.as_str()]);
    }
    let gui = Gui::start(&args);
    for (index, expect) in [
        (1, "crashed"),
        (2, "hung"),
        (3, "garbage"),
        (4, "illegal move"),
    ] {
        let session = gui.session();
        let go = format!(
            r#"{{"session":"{session}","slot":"W","engine":{index},"moves":[],"clock":{{"movetime":50}}}}"#
        );
        assert_eq!(gui.post("/api/go", &go).0, 200, "the first go is answered");
        let started = Instant::now();
        let (status, body) = gui.post("/api/go", &go);
        assert_eq!(status, 502, "{expect}: {body}");
        let reply: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(reply["error"].as_str().unwrap().contains(expect), "{body}");
        assert!(reply["engine"]["slot"] == "W", "{body}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{expect} took {:?}",
            started.elapsed()
        );
        assert_eq!(
            gui.get("/api/config").0,
            200,
            "still serving after {expect}"
        );
        let status = gui.get(&format!("/api/engines?session={session}")).1;
        assert!(status.contains("failed"), "{status}");
        let restarted = gui.json(
            "/api/restart",
            &format!(r#"{{"session":"{session}","slot":"W"}}"#),
        );
        assert_eq!(restarted["state"], "ready", "{restarted}");
        assert_eq!(
            gui.post("/api/go", &go).0,
            200,
            "the restarted {expect} engine plays"
        );
    }
}

#[test]
fn records_are_listed_read_uploaded_and_watched() {
    let dir = std::env::temp_dir().join(format!("yote-gui-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let growing = dir.join("growing.pgn");
    let text = std::fs::read_to_string(data("gui-analysed.pgn")).unwrap();
    let games: Vec<&str> = text
        .split("[Event")
        .filter(|g| !g.trim().is_empty())
        .collect();
    std::fs::write(&growing, format!("[Event{}", games[0])).unwrap();
    let analysed = data("gui-analysed.pgn");
    let gui = Gui::start(&[
        "--records",
        analysed.to_str().unwrap(),
        "--records",
        growing.to_str().unwrap(),
    ]);
    let list: serde_json::Value = serde_json::from_str(&gui.get("/api/records").1).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2);
    let games_list: serde_json::Value =
        serde_json::from_str(&gui.get("/api/records/f0").1).unwrap();
    assert_eq!(games_list["games"].as_array().unwrap().len(), games.len());
    assert!(
        games_list["standings"].as_array().unwrap().len() == 2,
        "{games_list}"
    );
    let (status, body) = gui.get("/api/records/f0/1");
    assert_eq!(status, 200, "{body}");
    let game: serde_json::Value = serde_json::from_str(&body).unwrap();
    let plies = game["plies"].as_array().unwrap();
    assert_eq!(game["boards"].as_array().unwrap().len(), plies.len() + 1);
    assert!(plies.iter().filter(|p| p["white_cp"].is_number()).count() > plies.len() / 2);
    assert!(
        plies.iter().any(|p| p["mark"] != ""),
        "the analysed record has marks"
    );
    for (path, code) in [
        ("/api/records/f7", 404),
        ("/api/records/f0/999", 404),
        ("/api/records/f0/x", 400),
        ("/api/records/..%2f..%2fetc%2fpasswd", 404),
        ("/api/records/u99", 404),
    ] {
        assert_eq!(gui.get(path).0, code, "{path}");
    }
    // Uploads: a pasted record is read; text without a game is refused.
    let upload = "[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. @c3 @d4 *\n";
    let (status, body) = gui.request("POST", "/api/records?name=pasted", &[], upload);
    assert_eq!(status, 200, "{body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let pasted: serde_json::Value =
        serde_json::from_str(&gui.get(&format!("/api/records/{id}/0")).1).unwrap();
    assert_eq!(pasted["plies"][1]["text"], "@d4");
    assert_eq!(
        gui.request("POST", "/api/records", &[], "no games here").0,
        400
    );
    assert_eq!(
        gui.request(
            "POST",
            "/api/records",
            &[],
            "[Result \"1-0\"]\n\n1. @c3 0-1\n"
        )
        .0,
        400
    );
    // Watching: games appended while the page follows arrive live; only
    // the files the command line named can be watched.
    let events = gui.stream(
        "/api/watch?records=f1",
        Duration::from_secs(20),
        "\"games\":3",
        || {
            std::thread::sleep(Duration::from_millis(400));
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&growing)
                .unwrap();
            write!(file, "[Event{}[Event{}", games[1], games[2]).unwrap();
        },
    );
    assert!(events.contains("event: game"), "{events}");
    assert!(events.contains("\"games\":3"), "{events}");
    assert!(events.contains("\"final\""), "{events}");
    assert_eq!(gui.get(&format!("/api/watch?records={id}")).0, 404);
    assert_eq!(gui.get("/api/watch?records=f5").0, 404);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One channel stream carries many sessions' events (the page's shared
/// worker holds one for all its tabs): each event wrapped with its session,
/// attached by `/api/listen` (which sends the session's engines first) and
/// detached by `/api/unlisten`, after which an analysis nobody follows
/// stops. Bad channel and session names are refused.
#[test]
fn one_channel_carries_several_sessions_events() {
    let gui = Gui::start(&[]);
    let (a, b) = (gui.session(), gui.session());
    let mut stream = gui.open_stream("/api/channel");
    let mut seen = String::new();
    let mut read_until = |what: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut buf = [0u8; 4096];
        while !what(&seen) && Instant::now() < deadline {
            if let Ok(n) = stream.read(&mut buf) {
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
        seen.clone()
    };
    let opened = read_until(&|s: &str| s.contains("event: channel\ndata: {"));
    let data = opened.split("event: channel\ndata: ").nth(1).unwrap();
    let channel = serde_json::from_str::<serde_json::Value>(data.lines().next().unwrap()).unwrap()
        ["id"]
        .as_str()
        .unwrap()
        .to_string();
    for session in [&a, &b] {
        let body = format!(r#"{{"channel":"{channel}","session":"{session}"}}"#);
        assert_eq!(gui.json("/api/listen", &body)["listening"], true);
        let analyse = format!(r#"{{"session":"{session}","moves":["@c3"],"multipv":1}}"#);
        assert_eq!(gui.post("/api/analyse", &analyse).0, 200);
    }
    let both = read_until(&|s: &str| {
        [&a, &b].iter().all(|id| {
            s.split("event: info\ndata: ").skip(1).any(|e| {
                e.lines()
                    .next()
                    .unwrap_or("")
                    .contains(&format!(r#""session":"{id}""#))
            })
        })
    });
    let events: Vec<(String, serde_json::Value)> = both
        .split("\n\n")
        .filter_map(|e| {
            let name = e.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = e.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((name.to_string(), serde_json::from_str(data).ok()?))
        })
        .collect();
    for id in [&a, &b] {
        let of = |name: &str| {
            events
                .iter()
                .filter(|(n, d)| n == name && d["session"] == id.as_str())
                .count()
        };
        assert!(of("engines") == 1 && of("info") > 0, "{id}: {both}");
    }
    let info = events.iter().find(|(n, _)| n == "info").unwrap();
    assert!(
        info.1["data"]["pv"].is_string(),
        "wrapped as {{session, data}}: {both}"
    );
    // Detached, a's analysis has nobody to show its lines to: it stops.
    let body = format!(r#"{{"channel":"{channel}","session":"{a}"}}"#);
    assert_eq!(gui.json("/api/unlisten", &body)["listening"], false);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status: serde_json::Value =
            serde_json::from_str(&gui.get(&format!("/api/engines?session={a}")).1).unwrap();
        if status["slots"][2]["state"] != "thinking" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a detached analysis went on: {status}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        gui.post("/api/stop", &format!(r#"{{"session":"{b}","slot":"A"}}"#))
            .0,
        200
    );
    for (body, code) in [
        (format!(r#"{{"channel":"c99-0","session":"{a}"}}"#), 404),
        (format!(r#"{{"session":"{a}"}}"#), 400),
        (
            format!(r#"{{"channel":"{channel}","session":"nope"}}"#),
            404,
        ),
        (format!(r#"{{"channel":7,"session":"{a}"}}"#), 400),
    ] {
        let (status, text) = gui.post("/api/listen", &body);
        assert_eq!(status, code, "{body}: {text}");
    }
}

/// An engine given endgame tables on the command line (`option.TablebasePath`
/// in its `--engine` spec) answers a table position from them: the `info`
/// event carries its `tbhits` and the table's mate score, which the page
/// shows as the tablebase value.
#[test]
fn a_table_value_reaches_the_page_as_the_engine_reports_it() {
    let dir = std::env::temp_dir().join(format!("yote-gui-tb-{}", std::process::id()));
    let made = Command::new(YOTE)
        .args(["tb", "generate", "--pieces", "4", "--dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let engine = format!(
        "name=tables,cmd={YOTE},option.TablebasePath={}",
        dir.display()
    );
    let gui = Gui::start(&["--engine", &engine]);
    let config: serde_json::Value = serde_json::from_str(&gui.get("/api/config").1).unwrap();
    assert_eq!(config["engines"][1]["name"], "tables");
    let session = gui.session();
    // White to move jumps d3 and wins at once.
    let analyse =
        format!(r#"{{"session":"{session}","engine":1,"fen":"6/6/2WB2/6/W5 w 0 1 0 1"}}"#);
    let events = gui.stream(
        &format!("/api/events?session={session}"),
        Duration::from_secs(20),
        "\"tbhits\":1",
        || assert_eq!(gui.post("/api/analyse", &analyse).0, 200),
    );
    let info = events
        .split("event: info\ndata: ")
        .skip(1)
        .map(|e| serde_json::from_str::<serde_json::Value>(e.lines().next().unwrap()).unwrap())
        .find(|i| i["tbhits"] == 1)
        .unwrap_or_else(|| panic!("no table line: {events}"));
    // Distances to the next capture: a table win, the capture 1 ply away.
    assert_eq!(info["score"]["kind"], "cp", "{info}");
    assert_eq!(info["score"]["value"], 30744 - 1, "{info}");
    assert_eq!(info["nodes"], 1, "{info}");
    assert!(info["pv"].as_str().unwrap().starts_with("c3e3"), "{info}");
    let stop = format!(r#"{{"session":"{session}","slot":"A"}}"#);
    assert_eq!(gui.post("/api/stop", &stop).0, 200);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The match runner's sidecar (`FILE.live`, one JSON line per running
/// game) is followed too: a `live` event with each game's board replayed,
/// its players and ply count; a game already in the records (its run and
/// number) is not shown as running, one of another run's number is; a line that does not replay says why; a line's clocks
/// come with the mover's counted down to now, and a line without clocks
/// (an older runner's) still shows; the sidecar's removal (the match
/// ended) sends an empty list.
#[test]
fn games_in_progress_are_watched_from_the_sidecar() {
    let dir = std::env::temp_dir().join(format!("yote-gui-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("match.pgn");
    let sidecar = dir.join("match.pgn.live");
    std::fs::write(
        &records,
        "[White \"a\"]\n[Black \"b\"]\n[Run \"r2\"]\n[Game \"1\"]\n[Result \"1-0\"]\n\n1. @c3 @d4 1-0\n\n[White \"a\"]\n[Black \"b\"]\n[Run \"r1\"]\n[Game \"2\"]\n[Result \"1-0\"]\n\n1. @c3 @d4 1-0\n",
    )
    .unwrap();
    std::fs::write(&sidecar, "").unwrap();
    let gui = Gui::start(&["--records", records.to_str().unwrap()]);
    // Games 1 to 3 as a runner before clocks wrote them; game 4 with
    // its clocks, read 1 s ago as Black started thinking.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let running = concat!(
        r#"{"game":1,"run":"r2","white":"a","black":"b","variant":"standard","fen":"","moves":["@a1"]}"#,
        "\n",
        r#"{"game":2,"run":"r2","white":"b","black":"a","variant":"standard","fen":"","moves":["@c3","@d4","@e5"]}"#,
        "\n",
        r#"{"game":3,"run":"r2","white":"a","black":"b","variant":"standard","fen":"","moves":["@c3","@c3"]}"#,
        "\n",
    )
    .to_string()
        + &format!(
            r#"{{"game":4,"run":"r2","white":"a","black":"b","variant":"standard","fen":"","moves":["@c3"],"controls":["10+0.1","10+0.1"],"clock":[9900,10000],"clock_at":{}}}"#,
            now - 1000
        )
        + "\n";
    let events = gui.stream(
        "/api/watch?records=f0",
        Duration::from_secs(20),
        "event: live\ndata: {\"games\":[]}",
        || {
            std::thread::sleep(Duration::from_millis(400));
            std::fs::write(&sidecar, &running).unwrap();
            std::thread::sleep(Duration::from_millis(700));
            std::fs::remove_file(&sidecar).unwrap();
        },
    );
    let live: Vec<serde_json::Value> = events
        .split("event: live\ndata: ")
        .skip(1)
        .map(|e| serde_json::from_str(e.lines().next().unwrap()).unwrap())
        .collect();
    assert_eq!(live.len(), 2, "{events}");
    let games = live[0]["games"].as_array().unwrap();
    let numbers: Vec<u64> = games.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [2, 3, 4], "game 1 of run r2 is finished: {events}");
    assert_eq!(
        games[0]["clock"],
        serde_json::Value::Null,
        "no clocks in an old line"
    );
    let clock = &games[2]["clock"];
    assert_eq!(
        (clock["running"].as_str(), clock["W"].as_u64()),
        (Some("B"), Some(9900)),
        "{clock}"
    );
    let black = clock["B"].as_u64().unwrap();
    assert!(
        (8_000..=9_000).contains(&black),
        "Black's clock less the second since: {clock}"
    );
    assert_eq!(clock["controls"]["W"], "10+0.1");
    let second = &games[0];
    assert_eq!(
        (second["white"].as_str(), second["black"].as_str()),
        (Some("b"), Some("a"))
    );
    assert_eq!(second["plies"], 3);
    assert_eq!(second["last"], "@e5");
    let cells = second["board"]["cells"].as_str().unwrap();
    assert_eq!(cells.matches('W').count(), 2, "{second}");
    assert_eq!(cells.matches('B').count(), 1, "{second}");
    assert!(
        games[1]["error"].as_str().unwrap().contains("move 2"),
        "{}",
        games[1]
    );
    assert_eq!(live[1]["games"].as_array().unwrap().len(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_non_loopback_host_is_warned_about() {
    let mut child = Command::new(YOTE)
        .args(["gui", "--port", "0", "--host", "0.0.0.0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.contains("warning") && line.contains("0.0.0.0"),
        "{line}"
    );
    let out = Command::new(YOTE)
        .args(["gui", "--records", "/no/such/file"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
}

/// The real-browser suite: headless Chromium driven by Selenium plays a
/// game by clicks, analyses, reviews, watches, and survives a killed
/// engine. Skipped (with how to install) where Chromium is missing, except
/// under CI=true, where it must run.
#[test]
fn browser_suite() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let missing: Vec<&str> = [
        ("/usr/bin/chromium", "chromium"),
        ("/usr/bin/chromedriver", "chromium-driver"),
    ]
    .iter()
    .filter(|(path, _)| !Path::new(path).exists())
    .map(|(_, package)| *package)
    .collect();
    let selenium = Command::new("python3")
        .args(["-c", "import selenium"])
        .status()
        .is_ok_and(|s| s.success());
    if !missing.is_empty() || !selenium {
        let why = format!(
            "browser suite skipped: missing {}{} (apt-get install -y chromium chromium-driver; pip install selenium)",
            missing.join(", "),
            if selenium { "" } else { " python selenium" }
        );
        assert!(!ci, "{why}; CI=true requires it");
        eprintln!("{why}");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target/gui-screenshots");
    let status = Command::new("python3")
        .arg(root.join("tests/browser/gui_suite.py"))
        .args(["--yote", YOTE, "--out", out.to_str().unwrap()])
        .arg("--records")
        .arg(data("gui-analysed.pgn"))
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the browser suite failed (screenshots in {})",
        out.display()
    );
}
