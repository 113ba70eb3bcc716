//! The house's layering, read off the source: each room imports only the
//! rooms below it, only the match runner's users reach into `tournament`,
//! and the tablebase probe never links the solver. A new import across
//! these lines fails here with the file and the room it reached.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Each room of src/ and the rooms it may import (`crate::<room>`).
const ROOMS: &[(&str, &[&str])] = &[
    ("rules", &[]),
    ("rng", &[]),
    ("prefetch", &[]),
    ("textfile", &[]),
    ("tablebase", &["rules", "prefetch"]),
    ("eval", &["rules", "rng"]),
    ("search", &["eval", "tablebase", "rules", "rng", "prefetch"]),
    ("protocol", &["search", "eval", "tablebase", "rules"]),
    ("client", &["rules", "textfile"]),
    ("results", &["client"]),
    (
        "tournament",
        &["results", "client", "rules", "rng", "textfile"],
    ),
    (
        "analysis",
        &["client", "search", "tablebase", "rules", "textfile"],
    ),
    ("gui", &["analysis", "results", "client", "rules"]),
    (
        "tuning",
        &[
            "tournament",
            "analysis",
            "client",
            "search",
            "eval",
            "tablebase",
            "rules",
            "rng",
            "textfile",
        ],
    ),
    ("python", &["rules"]),
];

/// Files outside src/tournament/ that may use the match runner: the
/// command line, and the tuner, which plays matches to measure a step.
const RUNNER_USERS: &[&str] = &["src/main.rs", "src/tuning/spsa.rs"];

/// The tablebase's probe side and solve side (see src/tablebase/mod.rs).
const PROBE_SIDE: &[&str] = &[
    "class", "index", "value", "format", "mapped", "file", "table", "perfect",
];
const SOLVE_SIDE: &[&str] = &["retrograde", "generate", "bound", "verify", "cli"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every .rs file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable src/") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The file's code without its unit tests (`#[cfg(test)] mod tests`, which
/// may use a higher room to check a lower one) and without comments.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        code += line;
        code.push('\n');
    }
    code
}

/// The rooms named as `crate::<room>` in `code`.
fn crate_rooms(code: &str) -> BTreeSet<String> {
    code.match_indices("crate::")
        .map(|(i, _)| {
            code[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|room| !room.is_empty())
        .collect()
}

/// The sibling modules a file names through `super::` (also in grouped
/// imports: `use super::{a, b::C}`).
fn super_modules(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = BTreeSet::new();
    for (i, _) in code.match_indices("super::") {
        let rest = &code[i + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(group.split(',').map(ident));
        } else {
            names.insert(ident(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

fn relative(path: &Path) -> String {
    path.strip_prefix(src().parent().unwrap())
        .unwrap()
        .display()
        .to_string()
}

/// The room a file is in: its folder under src/, or its own name.
fn room_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

#[test]
fn every_room_imports_only_rooms_below_it() {
    let allowed: BTreeMap<&str, &[&str]> = ROOMS.iter().copied().collect();
    let mut wrong = Vec::new();
    let mut seen_rooms = BTreeSet::new();
    for path in rust_files(&src()) {
        let room = room_of(&path);
        if room == "main" || room == "lib" {
            continue; // the top: the binary and the crate's index
        }
        seen_rooms.insert(room.clone());
        let Some(below) = allowed.get(room.as_str()) else {
            wrong.push(format!(
                "{}: room '{room}' is not in this test's map",
                relative(&path)
            ));
            continue;
        };
        let code = code_of(&fs::read_to_string(&path).unwrap());
        for used in crate_rooms(&code) {
            if used != room && !below.contains(&used.as_str()) {
                wrong.push(format!("{} imports crate::{used}", relative(&path)));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports across the layers:\n{}",
        wrong.join("\n")
    );
    for (room, _) in ROOMS {
        assert!(
            seen_rooms.contains(*room),
            "room '{room}' has no file in src/"
        );
    }
}

#[test]
fn only_the_runners_users_import_tournament() {
    let mut wrong = Vec::new();
    for path in rust_files(&src()) {
        let rel = relative(&path);
        if rel.starts_with("src/tournament/") || RUNNER_USERS.contains(&rel.as_str()) {
            continue;
        }
        let code = code_of(&fs::read_to_string(&path).unwrap());
        if code.contains("tournament::") {
            wrong.push(rel);
        }
    }
    assert!(
        wrong.is_empty(),
        "these files import the match runner (shared pieces belong in client/ or results/):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_tablebase_probe_never_imports_the_solver() {
    let dir = src().join("tablebase");
    let mut wrong = Vec::new();
    for module in PROBE_SIDE {
        let path = dir.join(format!("{module}.rs"));
        let code = code_of(&fs::read_to_string(&path).expect("probe-side file exists"));
        let named: BTreeSet<String> = super_modules(&code)
            .into_iter()
            .chain(
                code.match_indices("crate::tablebase::")
                    .flat_map(|(i, _)| super_modules(&format!("super::{}", &code[i + 18..]))),
            )
            .collect();
        for solver in SOLVE_SIDE {
            if named.contains(*solver) {
                wrong.push(format!("tablebase/{module}.rs imports {solver}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_readers_of_imports_see_grouped_and_plain_forms() {
    // The checks above are only as good as these readers.
    let code = code_of(
        "use super::{class::Class, retrograde};\nuse super::value::Wdl;\n\
         // use crate::gui;\nfn f() { crate::rules::Rules::default(); }\n\
         #[cfg(test)]\nmod tests { use crate::search; }\n",
    );
    assert_eq!(
        super_modules(&code),
        ["class", "retrograde", "value"]
            .map(String::from)
            .into_iter()
            .collect()
    );
    assert_eq!(
        crate_rooms(&code),
        ["rules"].map(String::from).into_iter().collect()
    );
}
