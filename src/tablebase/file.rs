//! The files of a class: their names, the rules they are for, why one is
//! refused, writing a solved class (both files of format 2, under a
//! temporary name then renamed, so an interrupted run never leaves a half
//! file), finding and checking a class's files for probing in place, and
//! reading version-1 files (one byte or two per position, uncompressed)
//! for `tb pack`, which converts them. The layout of format 2 is
//! `format.rs`; probing it is `mapped.rs`.

use super::class::Class;
use super::format::{self, Kind, TableBytesError};
use super::index::ClassIndex;
use super::mapped::{self, MappedClass};
use super::table::Table;
use super::value::Codes;
use super::value::Metric;
use crate::rules::Variant;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: &str = format::MAGIC;
pub const FORMAT_VERSION: u32 = format::FORMAT_VERSION;
/// Version 1's extension: one file per class.
pub const LEGACY_EXTENSION: &str = "ytb";
const LEGACY_VERSION: u32 = 1;

/// The rules a table depends on: every rule but the piece count (a class
/// only names its own pieces) and the history rules, with how the
/// no-capture limit is judged (never in a table).
pub fn table_rules(variant: &Variant) -> String {
    variant
        .spec()
        .split(',')
        .filter(|item| {
            ![
                "pieces=",
                "no_capture_draw=",
                "no_capture_outcome=",
                "repetition_draw=",
            ]
            .iter()
            .any(|key| item.starts_with(key))
        })
        .collect::<Vec<_>>()
        .join(",")
}

pub fn legacy_path(dir: &Path, class: Class) -> PathBuf {
    dir.join(format!("{}.{LEGACY_EXTENSION}", class.file_stem()))
}

/// The win/draw/loss file of `class` in `dir` (the one probes need).
pub fn path(dir: &Path, class: Class) -> PathBuf {
    format::path(dir, class, Kind::Wdl)
}

/// Why a table file was refused.
#[derive(Debug)]
pub enum TableFileError {
    Io(PathBuf, std::io::Error),
    NotATable(PathBuf),
    Version {
        path: PathBuf,
        found: String,
    },
    WrongRules {
        path: PathBuf,
        found: String,
        expected: String,
    },
    WrongClass {
        path: PathBuf,
        found: String,
        expected: Class,
    },
    Malformed {
        path: PathBuf,
        what: &'static str,
    },
    Checksum {
        path: PathBuf,
        stored: u32,
        computed: u32,
    },
    /// A version-1 file where version 2 is wanted.
    OldFormat(PathBuf),
    /// The class's distances are in another metric than the set's.
    OtherMetric {
        path: PathBuf,
        found: Metric,
        wanted: Metric,
    },
    Format(PathBuf, TableBytesError),
    /// A symbolic link whose target does not exist (a loop is an `Io`
    /// error of its own).
    BrokenLink(PathBuf),
    /// A win/draw/loss file without its distance file: the class cannot
    /// be probed (the root and the no-capture rule read distances).
    MissingPartner {
        path: PathBuf,
        partner: PathBuf,
    },
}

impl TableFileError {
    /// The file had no table of this class: a gap, not damage.
    pub fn is_missing(&self) -> bool {
        matches!(self, TableFileError::Io(_, e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

impl fmt::Display for TableFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableFileError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TableFileError::NotATable(p) => write!(f, "{}: not a yote tablebase file", p.display()),
            TableFileError::Version { path, found } => write!(
                f,
                "{}: format version {found}, this program reads version {FORMAT_VERSION}",
                path.display()
            ),
            TableFileError::OldFormat(p) => write!(
                f,
                "{}: format version {LEGACY_VERSION} (uncompressed), this program probes version {FORMAT_VERSION}; convert the directory with `yote tb pack --from {} --to NEWDIR`",
                p.display(),
                p.parent().unwrap_or(Path::new(".")).display()
            ),
            TableFileError::Format(p, e) => write!(f, "{}: {e}", p.display()),
            TableFileError::BrokenLink(p) => write!(
                f,
                "{}: a symbolic link to a file that does not exist",
                p.display()
            ),
            TableFileError::MissingPartner { path, partner } => write!(
                f,
                "{}: missing, the distance file of {} (a class is probed with both files)",
                partner.display(),
                path.display()
            ),
            TableFileError::OtherMetric {
                path,
                found,
                wanted,
            } => write!(
                f,
                "{}: distances in metric {found}, where these tables are {wanted} (one metric per directory)",
                path.display()
            ),
            TableFileError::WrongRules {
                path,
                found,
                expected,
            } => write!(
                f,
                "{}: made for other rules ({found}), not these ({expected})",
                path.display()
            ),
            TableFileError::WrongClass {
                path,
                found,
                expected,
            } => write!(
                f,
                "{}: holds class {found}, expected class {expected}",
                path.display()
            ),
            TableFileError::Malformed { path, what } => {
                write!(f, "{}: damaged header or data ({what})", path.display())
            }
            TableFileError::Checksum {
                path,
                stored,
                computed,
            } => write!(
                f,
                "{}: damaged, checksum {computed:08x} does not match the stored {stored:08x}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for TableFileError {}

/// How a class's distances are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub metric: Metric,
    /// Wins only, the losses' distances found by one ply of search.
    pub losses_derived: bool,
}

/// Writes both files of `table` (in memory, every value in it) into `dir`,
/// atomically each: a temporary file, then a rename. The distance file
/// goes first, so a win/draw/loss file (which makes a class count as
/// present) always has its partner.
pub fn write(
    dir: &Path,
    rules: &str,
    table: &Table,
    layout: Layout,
    threads: usize,
) -> std::io::Result<PathBuf> {
    assert!(!table.losses_derived, "a table is written from every value");
    let codes = table
        .codes()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    for kind in [Kind::Distance(layout.metric), Kind::Wdl] {
        let derived = layout.losses_derived;
        let bytes = format::encode(rules, table.class(), &codes, kind, derived, threads);
        write_atomically(&format::path(dir, table.class(), kind), &bytes)?;
    }
    Ok(path(dir, table.class()))
}

fn write_atomically(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temporary = target.as_os_str().to_owned();
    temporary.push(".part");
    let temporary = PathBuf::from(temporary);
    {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&temporary)?);
        file.write_all(bytes)?;
        file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    }
    std::fs::rename(&temporary, target)
}

/// The metric of the distance file `class` has in `dir`, if any (DTZ
/// first).
pub fn metric_in(dir: &Path, class: Class) -> Option<Metric> {
    [Metric::Dtz, Metric::Dtm]
        .into_iter()
        .find(|&m| format::path(dir, class, Kind::Distance(m)).exists())
}

/// Checks the headers of `class`'s two files in `dir` (identity, and size
/// against the header, reading nothing else) and returns the table to be
/// probed in place, its distances in `metric`. A version-1 file there is
/// refused with how to convert it, a distance file of the other metric
/// as such.
pub fn find(
    dir: &Path,
    rules: &str,
    class: Class,
    cells: u8,
    metric: Metric,
) -> Result<Table, TableFileError> {
    let wdl_path = path(dir, class);
    if !present(&wdl_path)? {
        let legacy = legacy_path(dir, class);
        if legacy.exists() {
            return Err(TableFileError::OldFormat(legacy));
        }
        return Err(TableFileError::Io(
            wdl_path,
            std::io::ErrorKind::NotFound.into(),
        ));
    }
    let partner = format::path(dir, class, Kind::Distance(metric));
    if metric_in(dir, class).is_none() && !present(&partner)? {
        return Err(TableFileError::MissingPartner {
            path: wdl_path,
            partner,
        });
    }
    match metric_in(dir, class) {
        Some(found) if found != metric => {
            return Err(TableFileError::OtherMetric {
                path: format::path(dir, class, Kind::Distance(found)),
                found,
                wanted: metric,
            });
        }
        _ => {}
    }
    let index = ClassIndex::new(class, cells);
    let mut distance = None;
    for kind in Kind::both(metric) {
        let path = format::path(dir, class, kind);
        let header = mapped::read_header(&path).map_err(|why| match why {
            mapped::HeaderError::Io(e) => TableFileError::Io(path.clone(), e),
            mapped::HeaderError::Format(e) => TableFileError::Format(path.clone(), e),
        })?;
        check_identity(&path, &header, rules, class, index.size(), kind)?;
        distance = Some(header);
    }
    let distance = distance.expect("the distance file was read");
    let files = MappedClass::new(dir, rules, class, &distance);
    Ok(Table {
        index,
        losses_derived: distance.losses_derived,
        store: super::table::Store::Mapped(Box::new(files)),
    })
}

/// Whether a table file is there: false only when nothing at all has that
/// name (a class not generated, a gap). A symbolic link loop or a link to
/// nothing is an error, so that loading says why the class is not probed.
fn present(path: &Path) -> Result<bool, TableFileError> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Err(TableFileError::Io(
            path.to_path_buf(),
            mapped::not_regular(),
        )),
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match std::fs::symlink_metadata(path) {
                Ok(_) => Err(TableFileError::BrokenLink(path.to_path_buf())),
                Err(_) => Ok(false),
            }
        }
        Err(e) => Err(TableFileError::Io(path.to_path_buf(), e)),
    }
}

fn check_identity(
    path: &Path,
    header: &format::Header,
    rules: &str,
    class: Class,
    positions: u64,
    kind: Kind,
) -> Result<(), TableFileError> {
    if header.rules != rules {
        return Err(TableFileError::WrongRules {
            path: path.to_path_buf(),
            found: header.rules.clone(),
            expected: rules.to_string(),
        });
    }
    if header.class != class {
        return Err(TableFileError::WrongClass {
            path: path.to_path_buf(),
            found: header.class.to_string(),
            expected: class,
        });
    }
    if header.positions != positions || header.kind != kind {
        return Err(TableFileError::Malformed {
            path: path.to_path_buf(),
            what: "position count or kind",
        });
    }
    Ok(())
}

/// Reads both files of `class` whole, every block checked, into memory
/// (generation resuming, `tb stats`, `tb verify`).
pub fn read(
    dir: &Path,
    rules: &str,
    class: Class,
    cells: u8,
    metric: Metric,
) -> Result<Table, TableFileError> {
    let table = find(dir, rules, class, cells, metric)?;
    let codes = table
        .codes()
        .map_err(|e| TableFileError::Format(path(dir, class), e))?
        .into_owned();
    Ok(Table {
        losses_derived: table.losses_derived,
        ..Table::in_memory(table.index, codes)
    })
}

/// Writes `table` in format version 1 (what `tb pack` converts; kept so
/// that conversion can be tested from files this program made).
pub fn write_legacy(dir: &Path, rules: &str, table: &Table) -> std::io::Result<PathBuf> {
    let codes = table
        .codes()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let data: Vec<u8> = match &*codes {
        Codes::Narrow(v) => v.clone(),
        Codes::Wide(v) => v.iter().flat_map(|c| c.to_le_bytes()).collect(),
    };
    let header = format!(
        "{MAGIC}\nformat {LEGACY_VERSION}\nrules {rules}\nclass {}\npositions {}\nwidth {}\ncrc32 {:08x}\n\n",
        table.class(),
        codes.len(),
        codes.width(),
        crc32fast::hash(&data)
    );
    let target = legacy_path(dir, table.class());
    write_atomically(&target, &[header.into_bytes(), data].concat())?;
    Ok(target)
}

/// The rules and class a table file names in its header (not checked
/// further: `read` does that).
pub fn read_identity(path: &Path) -> Result<(String, Class), TableFileError> {
    let mut reader = BufReader::new(
        mapped::open_regular(path).map_err(|e| TableFileError::Io(path.to_path_buf(), e))?,
    );
    let mut rules = None;
    let mut class = None;
    for _ in 0..8 {
        let mut line = String::new();
        let n = (&mut reader)
            .take(4096)
            .read_line(&mut line)
            .map_err(|e| TableFileError::Io(path.to_path_buf(), e))?;
        let line = line.trim_end();
        if n == 0 || line.is_empty() {
            break;
        }
        if let Some(r) = line.strip_prefix("rules ") {
            rules = Some(r.to_string());
        }
        if let Some(c) = line.strip_prefix("class ") {
            let n: Vec<u8> = c.split(' ').filter_map(|x| x.parse().ok()).collect();
            if let [a, b, c, d] = n[..] {
                class = Some(Class::new(a, b, c, d));
            }
        }
    }
    match (rules, class) {
        (Some(r), Some(c)) => Ok((r, c)),
        _ => Err(TableFileError::NotATable(path.to_path_buf())),
    }
}

/// Reads and checks the version-1 table of `class` for `rules` (a
/// `table_rules` text) on a board of `cells` cells.
pub fn read_legacy(
    dir: &Path,
    rules: &str,
    class: Class,
    cells: u8,
) -> Result<Table, TableFileError> {
    let path = legacy_path(dir, class);
    let io = |e| TableFileError::Io(path.clone(), e);
    let malformed = |what| TableFileError::Malformed {
        path: path.clone(),
        what,
    };
    let file = mapped::open_regular(&path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    let mut reader = BufReader::new(file);
    let mut fields = Vec::new();
    loop {
        let mut line = String::new();
        // A header line is short: a longer one means this is no table.
        let n = (&mut reader).take(4096).read_line(&mut line).map_err(io)?;
        if n == 0 || !line.ends_with('\n') {
            return Err(if fields.is_empty() {
                TableFileError::NotATable(path.clone())
            } else {
                malformed("header cut short")
            });
        }
        let line = line.trim_end_matches('\n').to_string();
        if line.is_empty() {
            break;
        }
        if fields.is_empty() && line != MAGIC {
            return Err(TableFileError::NotATable(path.clone()));
        }
        fields.push(line);
    }
    let field = |key: &str| {
        fields
            .iter()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
            .map(str::to_string)
    };
    let version = field("format").ok_or_else(|| malformed("no format line"))?;
    if version != LEGACY_VERSION.to_string() {
        return Err(TableFileError::Version {
            path,
            found: version,
        });
    }
    let found_rules = field("rules").ok_or_else(|| malformed("no rules line"))?;
    if found_rules != rules {
        return Err(TableFileError::WrongRules {
            path,
            found: found_rules,
            expected: rules.to_string(),
        });
    }
    let found_class = field("class").ok_or_else(|| malformed("no class line"))?;
    if found_class != class.to_string() {
        return Err(TableFileError::WrongClass {
            path,
            found: found_class,
            expected: class,
        });
    }
    let number = |key, what| {
        field(key)
            .and_then(|t| t.parse::<u64>().ok())
            .ok_or_else(|| malformed(what))
    };
    let positions = number("positions", "no position count")?;
    let width = number("width", "no value width")?;
    let stored = field("crc32")
        .and_then(|t| u32::from_str_radix(&t, 16).ok())
        .ok_or_else(|| malformed("no checksum"))?;
    let index = ClassIndex::new(class, cells);
    if positions != index.size() || !(1..=2).contains(&width) {
        return Err(malformed("position count or width"));
    }
    // The size is checked before anything past the header is read: a
    // long tail would otherwise be read whole before its refusal.
    if size.checked_sub(positions * width) != Some(reader.stream_position().map_err(io)?) {
        return Err(malformed("data length"));
    }
    let mut data = Vec::with_capacity((positions * width) as usize);
    reader.read_to_end(&mut data).map_err(io)?;
    if data.len() as u64 != positions * width {
        return Err(malformed("data length"));
    }
    let computed = crc32fast::hash(&data);
    if computed != stored {
        return Err(TableFileError::Checksum {
            path,
            stored,
            computed,
        });
    }
    let codes = if width == 1 {
        Codes::Narrow(data)
    } else {
        Codes::Wide(
            data.chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect(),
        )
    };
    Ok(Table::in_memory(index, codes))
}
