//! How the long data jobs (`datagen`, `relabel`) survive being killed: the
//! output file is only appended to, and a small progress file beside it
//! (`OUT.progress`, named numbers) says how much of the output is whole. A
//! rerun reopens the output at that length, cutting off a tail written
//! after the last progress record.

use anyhow::{Context, Result, bail};
use std::io::Seek;
use std::path::{Path, PathBuf};

/// The progress file of the output `out`.
pub fn progress_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".progress");
    PathBuf::from(name)
}

/// The numbers `names` from `out`'s progress file, in that order; None when
/// there is no progress file (a fresh run).
pub fn read_progress<const N: usize>(out: &Path, names: [&str; N]) -> Result<Option<[u64; N]>> {
    let path = progress_path(out);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut values = [0; N];
    for (value, name) in values.iter_mut().zip(names) {
        *value = text
            .split_whitespace()
            .skip_while(|w| *w != name)
            .nth(1)
            .and_then(|v| v.parse().ok())
            .with_context(|| format!("{}: no number after {name:?}", path.display()))?;
    }
    Ok(Some(values))
}

/// Writes `out`'s progress file atomically, so a kill leaves the old
/// record or the new one, never half of one.
pub fn write_progress(out: &Path, fields: &[(&str, u64)]) -> Result<()> {
    let path = progress_path(out);
    let text: Vec<String> = fields.iter().map(|(k, v)| format!("{k} {v}")).collect();
    crate::textfile::write_atomically(&path, &(text.join(" ") + "\n"))
        .with_context(|| format!("writing {}", path.display()))
}

/// The output opened for appending after the `vouched` bytes its progress
/// file records (None: no progress file, a fresh run).
pub fn open_output(path: &Path, vouched: Option<u64>) -> Result<std::fs::File> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let len = file.metadata()?.len();
    let bytes = vouched.unwrap_or(0);
    if len < bytes {
        bail!(
            "{}: {len} bytes, but its progress file records {bytes}; the file was cut short",
            path.display(),
        );
    }
    if vouched.is_none() && len > 0 {
        bail!(
            "{}: has data but no progress file beside it; remove it or name another --out",
            path.display()
        );
    }
    file.set_len(bytes)?;
    file.seek(std::io::SeekFrom::End(0))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_back_what_was_written_and_a_missing_field_is_named() {
        let dir = std::env::temp_dir().join(format!("yote-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("data.nnue");
        assert_eq!(read_progress(&out, ["games"]).unwrap(), None);
        write_progress(&out, &[("games", 7), ("bytes", 120)]).unwrap();
        assert_eq!(
            std::fs::read_to_string(progress_path(&out)).unwrap(),
            "games 7 bytes 120\n"
        );
        assert_eq!(
            read_progress(&out, ["bytes", "games"]).unwrap(),
            Some([120, 7])
        );
        let err = read_progress(&out, ["lines"]).unwrap_err().to_string();
        assert!(err.contains("no number after \"lines\""), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_output_is_cut_to_what_the_progress_vouches_for() {
        let dir = std::env::temp_dir().join(format!("yote-resume-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("data.nnue");
        std::fs::write(&out, "whole\ntorn").unwrap();
        let err = open_output(&out, None).unwrap_err().to_string();
        assert!(err.contains("no progress file"), "{err}");
        assert!(open_output(&out, Some(99)).is_err(), "cut short");
        drop(open_output(&out, Some(6)).unwrap());
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "whole\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
