//! Reading a record's `Run` tag (written by the match runner's `RunId`):
//! which run a game belongs to, so that rescoring pairs games only within
//! a run and finds what a sharded match is missing.

use anyhow::{Result, bail};

/// A `Run` tag read back, its checksum verified.
#[derive(Debug, PartialEq, Eq)]
pub struct RunTag<'a> {
    pub started: &'a str,
    /// Everything after the start time, but the checksum.
    pub settings: &'a str,
}

/// Reads a `Run` tag: `<start> <settings> check=<crc32>`, or the three words
/// `<start> seed=<seed> config=<fingerprint>` of records written before
/// checksums. Anything else is damage.
pub fn parse_run_tag(tag: &str) -> Result<RunTag<'_>> {
    let body = match tag.rsplit_once(" check=") {
        Some((body, check)) => {
            let sum = u32::from_str_radix(check, 16)
                .ok()
                .filter(|_| check.len() == 8);
            if sum != Some(crc32fast::hash(body.as_bytes())) {
                bail!("Run tag '{tag}' does not match its checksum: the record is damaged");
            }
            body
        }
        None => {
            let words: Vec<&str> = tag.split(' ').collect();
            let legacy = matches!(words.as_slice(), [_, seed, config]
                if seed.starts_with("seed=") && config.starts_with("config="));
            if !legacy {
                bail!("malformed Run tag '{tag}': the record is damaged");
            }
            tag
        }
    };
    let Some((started, settings)) = body.split_once(' ') else {
        bail!("malformed Run tag '{tag}': the record is damaged");
    };
    Ok(RunTag { started, settings })
}
