//! Every example session of protocol.md ("## Example sessions"), run
//! against the real engine, so the document cannot drift from it.
//!
//! In a fenced block, `> ` lines are sent and `< ` lines expected. An
//! expected line that is `…` alone (or a bare `…` line) stands for any
//! number of lines; a `…` inside a line matches any text; an annotation
//! after two or more spaces in parentheses is the reader's, not the
//! engine's; `info` lines with search figures are compared by shape (the
//! same keywords, any numbers, the documented PV a prefix of the engine's).
//! Blocks with no `> ` line (shell commands) are not sessions.
//!
//! Each command's expected lines are read before the next one is sent, so
//! a session that waits for a `bestmove` waits here too. A command that
//! expects nothing is followed by `isready`, and must print nothing
//! before `readyok` (lines left over from a search still running, after
//! an open `…`, are allowed).

mod support;

use support::Engine;

const PROTOCOL_MD: &str = include_str!("../protocol.md");
const ELLIPSIS: &str = "…";

/// One expected output line, or `…`: any number of lines.
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    Any,
    Line(String),
}

#[derive(Debug)]
struct Step {
    send: String,
    expect: Vec<Expect>,
}

#[derive(Debug)]
struct Session {
    title: String,
    steps: Vec<Step>,
}

/// The fenced blocks of the "Example sessions" section that hold a
/// session, each titled by the `###` heading above it.
fn sessions(markdown: &str) -> Vec<Session> {
    let section = markdown
        .split("\n## ")
        .find(|s| s.starts_with("Example sessions"))
        .expect("protocol.md has a \"## Example sessions\" section");
    let mut found = Vec::new();
    let mut title = String::from("Example sessions");
    let mut block: Option<Vec<&str>> = None;
    for line in section.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            title = heading.to_string();
        } else if line.starts_with("```") {
            match block.take() {
                Some(lines) => {
                    if lines.iter().any(|l| l.starts_with("> ")) {
                        found.push(Session {
                            title: title.clone(),
                            steps: steps(&title, &lines),
                        });
                    }
                }
                None => block = Some(Vec::new()),
            }
        } else if let Some(lines) = block.as_mut() {
            lines.push(line);
        }
    }
    found
}

fn steps(title: &str, lines: &[&str]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for line in lines {
        let expect = if let Some(sent) = line.strip_prefix("> ") {
            steps.push(Step {
                send: without_annotation(sent).to_string(),
                expect: Vec::new(),
            });
            continue;
        } else if let Some(expected) = line.strip_prefix("< ") {
            match without_annotation(expected) {
                ELLIPSIS => Expect::Any,
                text => Expect::Line(text.to_string()),
            }
        } else if line.trim() == ELLIPSIS {
            Expect::Any
        } else {
            panic!("{title}: a session line must start with \"> \" or \"< \": {line:?}");
        };
        match steps.last_mut() {
            Some(step) => step.expect.push(expect),
            None => panic!("{title}: an expected line before anything is sent: {line:?}"),
        }
    }
    steps
}

/// Drops a reader's note: two or more spaces, then `(…)` to the end.
fn without_annotation(line: &str) -> &str {
    let trimmed = line.trim_end();
    if trimmed.ends_with(')')
        && let Some(open) = trimmed.rfind("  (")
    {
        return trimmed[..open].trim_end();
    }
    trimmed
}

/// Whether an engine line matches a documented one.
fn line_matches(expected: &str, actual: &str) -> bool {
    if expected.starts_with("info depth ") && actual.starts_with("info depth ") {
        return same_shape(expected, actual);
    }
    wildcard_matches(expected, actual)
}

/// `…` inside the documented line matches any text.
fn wildcard_matches(expected: &str, actual: &str) -> bool {
    let mut parts = expected.split(ELLIPSIS);
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// An `info` line of search figures: the same keywords in the same order,
/// any integers where the document has integers, and the documented PV a
/// prefix of the engine's (a `…` token ends the comparison there).
fn same_shape(expected: &str, actual: &str) -> bool {
    let mut actual = actual.split(' ');
    let mut in_pv = false;
    for want in expected.split(' ') {
        if want == ELLIPSIS {
            return true;
        }
        let Some(got) = actual.next() else {
            return false;
        };
        in_pv |= want == "pv";
        let a_figure = !in_pv && want.parse::<i64>().is_ok() && got.parse::<i64>().is_ok();
        if want != got && !a_figure {
            return false;
        }
    }
    in_pv || actual.next().is_none()
}

/// Whether `lines` match `pattern` as a whole (`Any` takes any run).
fn sequence_matches(pattern: &[Expect], lines: &[String]) -> bool {
    match pattern.split_first() {
        None => lines.is_empty(),
        Some((Expect::Any, rest)) => (0..=lines.len()).any(|i| sequence_matches(rest, &lines[i..])),
        Some((Expect::Line(want), rest)) => {
            !lines.is_empty()
                && line_matches(want, &lines[0])
                && sequence_matches(rest, &lines[1..])
        }
    }
}

/// Whether some prefix of `lines` matches `pattern` (for a step that ends
/// in `…`: its fixed lines have come, the rest may follow later).
fn prefix_matches(pattern: &[Expect], lines: &[String]) -> bool {
    (0..=lines.len()).any(|i| sequence_matches(pattern, &lines[..i]))
}

/// Runs one session; the first step whose output differs is the error.
fn run(session: &Session) -> Result<(), String> {
    let mut engine = Engine::start();
    // After a step ending in `…`, its search may still be printing.
    let mut open = false;
    for (number, step) in session.steps.iter().enumerate() {
        let mut pattern = Vec::new();
        if open {
            pattern.push(Expect::Any);
        }
        pattern.extend(step.expect.iter().cloned());
        engine.send(&step.send);
        let fail = |seen: &[String], why: &str| {
            format!(
                "protocol.md, \"{}\", step {} (`> {}`){why}: expected {:#?}\nthe engine printed {:#?}",
                session.title,
                number + 1,
                step.send,
                step.expect,
                shortened(seen)
            )
        };
        let mut seen = Vec::new();
        match step.expect.last() {
            None => {
                seen = engine.sync();
                if !sequence_matches(&pattern, &seen) {
                    return Err(fail(&seen, ""));
                }
            }
            Some(Expect::Any) => {
                let fixed = &pattern[..pattern.len() - 1];
                read_until(&mut engine, &mut seen, |seen| prefix_matches(fixed, seen))
                    .map_err(|why| fail(&seen, &why))?;
                open = true;
            }
            Some(Expect::Line(_)) => {
                read_until(&mut engine, &mut seen, |seen| {
                    sequence_matches(&pattern, seen)
                })
                .map_err(|why| fail(&seen, &why))?;
                open = false;
            }
        }
    }
    engine.send("quit");
    Ok(())
}

/// The lines an error shows: a search left running prints hundreds.
fn shortened(seen: &[String]) -> Vec<&str> {
    const SHOWN: usize = 12;
    let mut shown: Vec<&str> = seen.iter().take(SHOWN).map(String::as_str).collect();
    if seen.len() > SHOWN + 3 {
        shown.push("[…]");
        shown.extend(seen[seen.len() - 3..].iter().map(String::as_str));
    } else {
        shown.extend(seen.iter().skip(SHOWN).map(String::as_str));
    }
    shown
}

/// Reads lines into `seen` until `done` holds (or fails after a while).
fn read_until(
    engine: &mut Engine,
    seen: &mut Vec<String>,
    done: impl Fn(&[String]) -> bool,
) -> Result<(), String> {
    let deadline = std::time::Instant::now() + support::PATIENCE;
    while !done(seen) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match engine.next(left) {
            Some(line) => seen.push(line),
            None => return Err(" (no match within the time allowed)".to_string()),
        }
    }
    Ok(())
}

#[test]
fn every_example_session_of_protocol_md_runs_as_documented() {
    let all = sessions(PROTOCOL_MD);
    assert!(
        all.len() >= 4,
        "only {} example sessions found in protocol.md",
        all.len()
    );
    let failures: Vec<String> = all.iter().filter_map(|s| run(s).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The matcher itself: each rule the module documentation states.
#[test]
fn the_session_matcher_follows_its_rules() {
    assert_eq!(
        without_annotation("bestmove c1c3xf2      (the adapter plays c1c3)"),
        "bestmove c1c3xf2"
    );
    assert_eq!(without_annotation("ugiok (or uciok)"), "ugiok (or uciok)");
    assert!(line_matches(
        "info string variant rows=5,…,x=1 startpos …",
        "info string variant rows=5,a=1,x=1 startpos 6/6 w"
    ));
    assert!(!line_matches(
        "info string variant rows=5,…,x=1",
        "info string variant rows=6,x=1"
    ));
    let doc = "info depth 1 seldepth 1 multipv 1 score cp 200 nodes 30 nps 30000 time 0 hashfull 0 pv d3b3xc4";
    assert!(line_matches(
        doc,
        "info depth 3 seldepth 5 multipv 1 score cp -14 nodes 9 nps 1 time 2 hashfull 0 pv d3b3xc4 @a1"
    ));
    assert!(!line_matches(
        doc,
        "info depth 3 seldepth 5 multipv 1 score mate 2 nodes 9 nps 1 time 2 hashfull 0 pv d3b3xc4"
    ));
    assert!(!line_matches(
        doc,
        "info depth 3 seldepth 5 multipv 1 score cp 5 nodes 9 nps 1 time 2 hashfull 0 pv @a1"
    ));
    assert!(!line_matches(
        doc,
        "info depth 3 seldepth 5 multipv 1 score cp 5 nodes 9 nps 1 time 2 pv d3b3xc4"
    ));
    let any = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let pattern = [
        Expect::Line("a".into()),
        Expect::Any,
        Expect::Line("z".into()),
    ];
    assert!(sequence_matches(&pattern, &any(&["a", "z"])));
    assert!(sequence_matches(&pattern, &any(&["a", "b", "c", "z"])));
    assert!(!sequence_matches(&pattern, &any(&["a", "b"])));
    assert!(!sequence_matches(&pattern, &any(&["a", "z", "extra"])));
    let parsed = sessions(
        "\n## Example sessions\n\n### One\n\n```\n> isready\n< readyok\n> go\n< …\n…\n```\n\n```\npython3 x.py\n```\n## Next\n",
    );
    assert_eq!(parsed.len(), 1);
    assert_eq!(parsed[0].title, "One");
    assert_eq!(parsed[0].steps[1].expect, vec![Expect::Any, Expect::Any]);
}

/// The rows of protocol.md's option tables: (name, type, default), the
/// backticks taken off.
fn documented_options(markdown: &str) -> Vec<(String, String, String, String)> {
    let section = markdown
        .split("\n## ")
        .find(|s| s.starts_with("Options"))
        .expect("protocol.md has a \"## Options\" section");
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|row| {
            let cells: Vec<&str> = row
                .split(" | ")
                .map(|c| c.trim_matches(['|', ' ']))
                .collect();
            let bare = |cell: &str| cell.trim_matches('`').to_string();
            (
                bare(cells[0]),
                bare(cells[1]),
                bare(cells[2]),
                row.to_string(),
            )
        })
        .collect()
}

/// Issue 17: the option tables said `empty` where the engine announces
/// `<empty>`, and the SearchParams row missed parameters. Every option the
/// engine announces has a row with its type and default, every row is an
/// option, and the SearchFeatures and SearchParams rows list every name
/// with its default (and range).
#[test]
fn the_option_tables_match_what_the_engine_announces() {
    let mut e = Engine::start();
    e.send("uci");
    let announced: Vec<(String, String, String)> = e
        .until(|l| l == "uciok")
        .iter()
        .filter_map(|l| l.strip_prefix("option name "))
        .map(|rest| {
            let (name, rest) = rest.split_once(" type ").unwrap();
            let (kind, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            let default = rest.strip_prefix("default ").unwrap_or_default();
            let default = default
                .split(" min ")
                .next()
                .unwrap()
                .split(" var ")
                .next()
                .unwrap();
            (name.to_string(), kind.to_string(), default.to_string())
        })
        .collect();
    let documented = documented_options(PROTOCOL_MD);
    let doc_names: Vec<&str> = documented.iter().map(|d| d.0.as_str()).collect();
    let names: Vec<&str> = announced.iter().map(|a| a.0.as_str()).collect();
    assert_eq!(
        doc_names, names,
        "the tables list the options in the engine's order"
    );
    for ((name, kind, default), (_, doc_kind, doc_default, _)) in announced.iter().zip(&documented)
    {
        assert_eq!((kind, default), (doc_kind, doc_default), "option {name}");
    }
    let row = |name: &str| &documented.iter().find(|d| d.0 == name).unwrap().3;
    let features = row("SearchFeatures");
    let known = yote::search::alphabeta::Features::parse("-nosuch")
        .unwrap_err()
        .to_string();
    let known = known.split("known: ").nth(1).unwrap().trim_end_matches(')');
    for name in known.split(", ") {
        let on = yote::search::alphabeta::Features::parse(&format!("+{name}")).unwrap()
            == yote::search::alphabeta::Features::default();
        let written = if on {
            format!("`{name}`")
        } else {
            format!("`{name}` (off by default)")
        };
        assert!(features.contains(&written), "SearchFeatures row: {written}");
    }
    let params = row("SearchParams");
    for p in yote::search::params::PARAMS {
        let number = |n: i32| n.to_string().replace('-', "−");
        let written = format!(
            "`{}` {} ({}–{})",
            p.name,
            number(p.default),
            number(p.min),
            number(p.max)
        );
        assert!(params.contains(&written), "SearchParams row: {written}");
    }
}
