//! Reading the text files people give the tools (openings, move lists,
//! records, SPSA states): one place that knows editors may start a file
//! with a byte-order mark, which is not text and must not reach a parser
//! (a move list saved by Notepad had its first move reported malformed).
//! And writing the small state files others read while a job runs
//! (progress records, the live-games sidecar, SPSA states) so that none
//! is seen half written.

use std::path::{Path, PathBuf};

/// The byte-order mark as UTF-8 decodes it.
const BOM: char = '\u{feff}';

/// `text` without a leading byte-order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// The file's text, without a leading byte-order mark.
pub fn read(path: &Path) -> std::io::Result<String> {
    let mut text = std::fs::read_to_string(path)?;
    if text.starts_with(BOM) {
        text.drain(..BOM.len_utf8());
    }
    Ok(text)
}

/// Writes `text` to `PATH.tmp`, then renames it over `path`: a reader, or
/// a rerun after a kill, sees the old text or the new, never a mix.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_mark_is_dropped_and_nothing_else() {
        assert_eq!(without_bom("\u{feff}@c3 @d3"), "@c3 @d3");
        assert_eq!(without_bom("@c3 \u{feff}"), "@c3 \u{feff}");
        assert_eq!(without_bom(""), "");
        let path = std::env::temp_dir().join(format!("yote-bom-{}.txt", std::process::id()));
        std::fs::write(&path, "\u{feff}\u{feff}x\n").unwrap();
        let read_back = read(&path);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read_back.unwrap(), "\u{feff}x\n");
    }
}
