//! Probing files in place: each file is opened and memory-mapped on its
//! first probe (so engines start at once and share its pages through the
//! page cache), and a probe decodes one block into a cache shared by the
//! process, so the search's nearby probes decode nothing.
//!
//! A file that fails any check (header, length, index, a block's checksum)
//! is logged once and never probed again: the search then does without it.
//! The checks are made where the bytes are used, not only once at mapping:
//! a file overwritten in place (`cp other.ytw 3-2-0-0.ytw`) changes what
//! the mapping shows under a search that trusted it (issue 39).

use super::class::Class;
use super::format::{self, Blocks, Header, Kind, TableBytesError};
use super::value::Codes;
use super::value::Value;
use memmap2::Mmap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard};

/// `TablebaseCache`'s default, in MiB: the decoded win/draw/loss blocks a
/// process keeps, allocated as blocks are decoded. A block that misses
/// the cache costs a Zstandard decode (15-20 µs for 32 768 positions), so
/// the search can afford to probe near the leaves and in the quiescence
/// search only when most probes hit: with the ≤ 8 set and probing
/// everywhere, 32 MiB lost 35 Elo to version-1 files in memory, 256 MiB
/// came within 5 ± 6 of them (docs/tablebases.md).
pub const DEFAULT_CACHE_MB: usize = 256;
/// The largest `TablebaseCache`.
pub const MAX_CACHE_MB: usize = 16_384;
/// Bytes a cached win/draw/loss block of today's files takes: 32 768
/// positions, four to a byte.
const WDL_SLOT_BYTES: usize = 8 * 1024;
/// Distance blocks kept (up to 16 KiB each): only the root and a
/// no-capture limit read distances.
const DISTANCE_SLOTS: usize = 64;

/// Files refused while probing, not yet reported: the search runs on its
/// own thread and knows no protocol, so the engine collects these (with
/// `take_refusals`) and tells its client in an `info string`. A file is
/// refused once, so this holds at most one line per file.
static REFUSALS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The refusals of mapped files since the last call, one line each.
pub fn take_refusals() -> Vec<String> {
    std::mem::take(&mut *REFUSALS.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Numbers every file opened by this process, so cached blocks of a file
/// that was replaced (tables reloaded) are never mistaken for its blocks.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Why a FIFO, a device or a directory named like a table is not read.
pub fn not_regular() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file")
}

/// Opens a path for reading only if it is a regular file, and without
/// blocking: a FIFO or a device named like a table would hang `open`.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    // The path may have been swapped for a FIFO between the two looks.
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

#[derive(Debug)]
pub enum HeaderError {
    Io(std::io::Error),
    Format(TableBytesError),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderError::Io(e) => e.fmt(f),
            HeaderError::Format(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for HeaderError {}

/// Reads and checks the header of a file without reading further, and
/// compares the file's size with the length the header gives it.
pub fn read_header(path: &Path) -> Result<Header, HeaderError> {
    let file = open_regular(path).map_err(HeaderError::Io)?;
    let size = file.metadata().map_err(HeaderError::Io)?.len();
    let mut start = Vec::with_capacity(format::MAX_HEADER);
    file.take(format::MAX_HEADER as u64)
        .read_to_end(&mut start)
        .map_err(HeaderError::Io)?;
    let header = format::parse_header(&start).map_err(HeaderError::Format)?;
    if header.file_length() != size {
        return Err(HeaderError::Format(TableBytesError::Malformed(
            "file size differs from the header's",
        )));
    }
    Ok(header)
}

/// One file, mapped on first use.
pub struct LazyFile {
    path: PathBuf,
    id: u64,
    rules: String,
    class: Class,
    kind: Kind,
    map: OnceLock<Option<Mapped>>,
    damaged: AtomicBool,
}

/// A file as mapped: what was checked then, to be checked again at use.
struct Mapped {
    map: Mmap,
    header: Header,
    /// Kept open to compare its size with the mapping's before a read: a
    /// file cut shorter under the mapping would fault on its lost pages.
    file: std::fs::File,
    header_crc: u32,
}

impl Mapped {
    /// Whether the file still is what was mapped: the same length, the same
    /// header bytes. A probe decodes a block only after this holds (the
    /// block's own CRC-32 then vouches for the data).
    fn unchanged(&self) -> Result<(), MappedError> {
        let size = self.file.metadata().map_err(MappedError::Io)?.len();
        if size != self.map.len() as u64 {
            return Err(MappedError::Resized {
                now: size,
                mapped: self.map.len(),
            });
        }
        let head = self
            .map
            .get(..self.header.length)
            .ok_or(MappedError::ShorterThanHeader)?;
        if crc32fast::hash(head) != self.header_crc {
            return Err(MappedError::AnotherHeader);
        }
        Ok(())
    }
}

/// Why a file that loaded is refused once it is used: it cannot be
/// mapped, or it is no longer the file that was loaded.
#[derive(Debug)]
pub enum MappedError {
    /// The file could not be opened, measured or mapped.
    Io(std::io::Error),
    Header(HeaderError),
    /// Its header names other rules, another class or kind than at loading.
    HeaderChanged,
    Bytes(TableBytesError),
    /// Its length is no longer the mapping's.
    Resized {
        now: u64,
        mapped: usize,
    },
    ShorterThanHeader,
    /// Its header bytes are no longer those mapped.
    AnotherHeader,
}

impl std::fmt::Display for MappedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const CHANGED: &str = "it changed under the engine";
        match self {
            MappedError::Io(e) => e.fmt(f),
            MappedError::Header(e) => e.fmt(f),
            MappedError::HeaderChanged => f.write_str("its header changed since it was loaded"),
            MappedError::Bytes(e) => e.fmt(f),
            MappedError::Resized { now, mapped } => {
                write!(f, "{CHANGED} (now {now} bytes, {mapped} when mapped)")
            }
            MappedError::ShorterThanHeader => write!(f, "{CHANGED} (shorter than its header)"),
            MappedError::AnotherHeader => write!(f, "{CHANGED} (another header)"),
        }
    }
}

impl std::error::Error for MappedError {}

impl LazyFile {
    pub fn new(path: PathBuf, rules: &str, class: Class, kind: Kind) -> LazyFile {
        LazyFile {
            path,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            rules: rules.to_string(),
            class,
            kind,
            map: OnceLock::new(),
            damaged: AtomicBool::new(false),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn refuse(&self, why: impl std::fmt::Display) {
        if !self.damaged.swap(true, Ordering::Relaxed) {
            let line = format!(
                "tablebase file {} refused: {why}; it is no longer probed (set TablebasePath again to reload)",
                self.path.display()
            );
            log::error!("{line}");
            REFUSALS
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(line);
        }
    }

    /// The mapped, checked file, None once it has been refused.
    fn mapped(&self) -> Option<&Mapped> {
        if self.damaged.load(Ordering::Relaxed) {
            return None;
        }
        let map = self.map.get_or_init(|| match self.open() {
            Ok(map) => Some(map),
            Err(why) => {
                self.refuse(why);
                None
            }
        });
        map.as_ref()
    }

    fn open(&self) -> Result<Mapped, MappedError> {
        let header = read_header(&self.path).map_err(MappedError::Header)?;
        if header.rules != self.rules || header.class != self.class || header.kind != self.kind {
            return Err(MappedError::HeaderChanged);
        }
        let file = open_regular(&self.path).map_err(MappedError::Io)?;
        // SAFETY: the map is read only. The tables are meant to be replaced
        // by a new file and a rename, never written in place; a file that is
        // written in place anyway is caught where it is read (`unchanged`,
        // the bounds of every offset, the CRC-32 of every block), except
        // in the instant between that check and the read.
        let map = unsafe { Mmap::map(&file) }.map_err(MappedError::Io)?;
        let header = format::check(&map).map_err(MappedError::Bytes)?;
        let header_crc = crc32fast::hash(&map[..header.length]);
        Ok(Mapped {
            map,
            header,
            file,
            header_crc,
        })
    }

    /// Runs `read` on the decoded block holding position `i`, from the
    /// process's block cache when it is there; otherwise the block is
    /// decoded into the cache when `decode` allows, and None when not.
    fn with_block<T>(
        &self,
        i: u64,
        decode: Decode,
        read: impl FnOnce(&[u8], usize, u8) -> T,
    ) -> Option<T> {
        // The file's own block size: files of the first format 2 have
        // smaller blocks than the ones written now.
        let mapped = self.mapped()?;
        let blocks = Blocks::new(&mapped.header, &mapped.map);
        let block_positions = blocks.header.block_positions;
        let (n, within) = (i / block_positions, (i % block_positions) as usize);
        let key = self.id << 32 | n;
        let cache = block_cache();
        let slots = match self.kind {
            Kind::Wdl => &cache.wdl,
            Kind::Distance(_) => &cache.distance,
        };
        let at = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize % slots.len();
        // A slot is only ever left with key 0 or a whole decoded block, so
        // one poisoned by a panic elsewhere is still sound.
        let mut slot = slots[at].lock().unwrap_or_else(PoisonError::into_inner);
        if slot.key != key {
            if decode == Decode::CachedOnly {
                return None;
            }
            slot.key = 0;
            if let Err(why) = mapped.unchanged() {
                self.refuse(why);
                return None;
            }
            if let Err(e) = self.decode_into(&blocks, n, &mut slot) {
                self.refuse(e);
                return None;
            }
            slot.key = key;
        }
        Some(read(&slot.data, within, slot.width))
    }

    /// Decodes block `n` into `slot`, win/draw/loss symbols packed four to
    /// a byte.
    fn decode_into(&self, blocks: &Blocks, n: u64, slot: &mut Slot) -> Result<(), TableBytesError> {
        let width = blocks.header.width;
        if self.kind != Kind::Wdl || width == 0 {
            slot.width = width;
            return blocks.decode(n, &mut slot.data);
        }
        thread_local! {
            static BYTES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        BYTES.with(|bytes| {
            let mut bytes = bytes.borrow_mut();
            blocks.decode(n, &mut bytes)?;
            format::pack_symbols(&bytes, &mut slot.data);
            slot.width = 0;
            Ok(())
        })
    }

    /// Runs `read` on the whole file's checked blocks (the tools that read
    /// every position).
    fn with_all<T>(&self, read: impl FnOnce(Blocks) -> T) -> Result<T, TableBytesError> {
        let file =
            open_regular(&self.path).map_err(|_| TableBytesError::Malformed("cannot be read"))?;
        // SAFETY: as in `open`.
        let map = unsafe { Mmap::map(&file) }
            .map_err(|_| TableBytesError::Malformed("cannot be mapped"))?;
        let header = format::check(&map)?;
        Ok(read(Blocks::new(&header, &map)))
    }
}

/// Whether a probe may decode a block that is not in the cache. A decode
/// costs as much as a few hundred nodes of search, so the search asks only
/// for cached blocks where little depth is left (`Prober::leaf_score`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decode {
    Always,
    CachedOnly,
}

#[derive(Default)]
struct Slot {
    key: u64,
    width: u8,
    data: Vec<u8>,
}

struct BlockCache {
    mb: usize,
    wdl: Box<[Mutex<Slot>]>,
    distance: Box<[Mutex<Slot>]>,
}

impl BlockCache {
    fn new(mb: usize) -> BlockCache {
        let slots = |n| (0..n).map(|_| Mutex::new(Slot::default())).collect();
        BlockCache {
            mb,
            wdl: slots((mb << 20) / WDL_SLOT_BYTES),
            distance: slots(DISTANCE_SLOTS),
        }
    }
}

fn cache_lock() -> &'static RwLock<BlockCache> {
    static CACHE: OnceLock<RwLock<BlockCache>> = OnceLock::new();
    CACHE.get_or_init(|| RwLock::new(BlockCache::new(DEFAULT_CACHE_MB)))
}

/// The process's block cache, for one probe. Only `set_cache_mb` writes,
/// between searches, so readers never wait.
fn block_cache() -> RwLockReadGuard<'static, BlockCache> {
    cache_lock().read().unwrap_or_else(PoisonError::into_inner)
}

/// Sizes the process's block cache (`TablebaseCache`), emptying it when
/// the size changes; `mb` is clamped to 1..=`MAX_CACHE_MB`.
pub fn set_cache_mb(mb: usize) {
    let mb = mb.clamp(1, MAX_CACHE_MB);
    let mut cache = cache_lock().write().unwrap_or_else(PoisonError::into_inner);
    if cache.mb != mb {
        *cache = BlockCache::new(mb);
    }
}

/// A class in files: the win/draw/loss file and the distance file.
pub struct MappedClass {
    pub wdl: LazyFile,
    pub distance: LazyFile,
    /// The longest distance, from the distance file's header.
    pub longest: u16,
    /// The distance file holds the wins only.
    pub losses_derived: bool,
}

impl MappedClass {
    /// The files of `class` in `dir`, as their headers describe them.
    pub fn new(dir: &Path, rules: &str, class: Class, distance: &Header) -> MappedClass {
        let file = |kind| LazyFile::new(format::path(dir, class, kind), rules, class, kind);
        MappedClass {
            wdl: file(Kind::Wdl),
            distance: file(distance.kind),
            longest: distance.longest,
            losses_derived: distance.losses_derived,
        }
    }

    /// Win, draw or loss of position `i` with no distance (Win(0), Loss(0));
    /// with `Decode::CachedOnly`, None unless its block is in the cache.
    #[inline]
    pub fn wdl(&self, i: u64, decode: Decode) -> Option<u8> {
        self.wdl.with_block(i, decode, format::symbol_at_block)
    }

    /// The exact value of position `i`: the distance file is read only for
    /// a win or a stored loss (a derived loss reads `Loss(0)`).
    #[inline]
    pub fn value(&self, i: u64) -> Option<Value> {
        let symbol = self.wdl(i, Decode::Always)?;
        let value = format::value_of(symbol, self.losses_derived, || {
            self.distance
                .with_block(i, Decode::Always, |bytes, within, width| {
                    format::code_at(bytes, width, within)
                })
        });
        if value.is_none() && symbol != 0 {
            self.distance
                .refuse("a distance disagrees with the win/draw/loss file");
        }
        value
    }

    /// Every position's code, both files decoded whole.
    pub fn decode_all(&self) -> Result<Codes, TableBytesError> {
        self.wdl.with_all(|wdl| {
            self.distance
                .with_all(|distance| format::decode_codes(&wdl, &distance))
        })??
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusal line quotes these: they say how the file changed.
    #[test]
    fn a_changed_file_is_refused_with_what_changed() {
        let text = |e: MappedError| e.to_string();
        assert_eq!(
            text(MappedError::Resized {
                now: 10,
                mapped: 20
            }),
            "it changed under the engine (now 10 bytes, 20 when mapped)"
        );
        assert_eq!(
            text(MappedError::ShorterThanHeader),
            "it changed under the engine (shorter than its header)"
        );
        assert_eq!(
            text(MappedError::AnotherHeader),
            "it changed under the engine (another header)"
        );
        assert_eq!(
            text(MappedError::HeaderChanged),
            "its header changed since it was loaded"
        );
        assert_eq!(
            text(MappedError::Bytes(TableBytesError::NotATable)),
            "not a yote tablebase file"
        );
    }
}
