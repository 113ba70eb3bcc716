//! The on-disk form of one class: a text header naming the format, the rule
//! set, the class, the size and a CRC-32 of the values, then the values (one
//! or two bytes each, little-endian). Files are written under a temporary
//! name and renamed, so an interrupted run never leaves a half file.

use super::class::Class;
use super::index::ClassIndex;
use super::table::{Codes, Table};
use crate::rules::Variant;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: &str = "yote-tablebase";
pub const FORMAT_VERSION: u32 = 1;
pub const EXTENSION: &str = "ytb";

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

pub fn file_name(class: Class) -> String {
    format!("{}.{EXTENSION}", class.file_stem())
}

pub fn path(dir: &Path, class: Class) -> PathBuf {
    dir.join(file_name(class))
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

fn data_bytes(codes: &Codes) -> Vec<u8> {
    match codes {
        Codes::Narrow(v) => v.clone(),
        Codes::Wide(v) => v.iter().flat_map(|c| c.to_le_bytes()).collect(),
    }
}

/// Writes `table` into `dir` (atomically: temporary file, then rename).
pub fn write(dir: &Path, rules: &str, table: &Table) -> std::io::Result<PathBuf> {
    let data = data_bytes(&table.codes);
    let header = format!(
        "{MAGIC}\nformat {FORMAT_VERSION}\nrules {rules}\nclass {}\npositions {}\nwidth {}\ncrc32 {:08x}\n\n",
        table.class(),
        table.codes.len(),
        table.codes.width(),
        crc32fast::hash(&data)
    );
    let target = path(dir, table.class());
    let temporary = target.with_extension(format!("{EXTENSION}.part"));
    {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&temporary)?);
        file.write_all(header.as_bytes())?;
        file.write_all(&data)?;
        file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    }
    std::fs::rename(&temporary, &target)?;
    Ok(target)
}

/// The rules and class a table file names in its header (not checked
/// further: `read` does that).
pub fn read_identity(path: &Path) -> Result<(String, Class), TableFileError> {
    let mut reader = BufReader::new(
        std::fs::File::open(path).map_err(|e| TableFileError::Io(path.to_path_buf(), e))?,
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

/// Reads and checks the table of `class` for `rules` (a `table_rules` text)
/// on a board of `cells` cells.
pub fn read(dir: &Path, rules: &str, class: Class, cells: u8) -> Result<Table, TableFileError> {
    let path = path(dir, class);
    let io = |e| TableFileError::Io(path.clone(), e);
    let malformed = |what| TableFileError::Malformed {
        path: path.clone(),
        what,
    };
    let mut reader = BufReader::new(std::fs::File::open(&path).map_err(io)?);
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
    if version != FORMAT_VERSION.to_string() {
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
    Ok(Table { index, codes })
}
