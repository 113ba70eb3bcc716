//! The on-disk format, version 2: per class a win/draw/loss file (`.ytw`,
//! what the search probes) and a distance file (what the root, the
//! no-capture rule and the tools need): `.ytz`, the distance to the next
//! capture (DTZ), or `.ytd`, the distance to the end (DTM); each cut into
//! blocks of positions that are compressed and checked on their own, so a
//! probe decodes one small block.
//!
//! A file is a text header (the same identity lines as version 1, then the
//! layout and a CRC-32 of the header itself), the block index — `blocks + 1`
//! offsets (u64, little-endian) into the data and one CRC-32 (u32) of each
//! compressed block — and the blocks' data, one Zstandard frame each (raw
//! deflate in the first format-2 files, still read). Its length follows
//! from the header, so a reader compares it with the file's size before it
//! maps or reads anything else.
//!
//! The win/draw/loss values take a byte each (0 draw, 1 win, 2 loss; the
//! first files packed them 2 bits each, four to a byte) before
//! compression. The distance file holds the version-1 code
//! of each position (2d+1 win in d, 2d+2 loss in d, one or two bytes); a
//! draw's code is never read (the win/draw/loss file says draw), so draws
//! repeat the code before them, which lengthens the runs the compressor
//! sees (Syzygy's "don't care" trick). A file with `losses derived` stores
//! the wins only: a loss is one ply from wins of the other side (every move
//! of a lost position leads to one), so its distance is found by probing
//! its children, and its code is a "don't care" too — that halves the
//! distance files, where the losing side of lopsided material was most of
//! the bytes.

use super::class::Class;
use super::value::Codes;
use super::value::{MAX_DISTANCE, Metric, Value};
use std::path::{Path, PathBuf};

pub const MAGIC: &str = "yote-tablebase";
pub const FORMAT_VERSION: u32 = 2;
/// Headers are short; a reader looks no further for the blank line.
pub const MAX_HEADER: usize = 4096;
const INDEX_ENTRY: u64 = 8 + 4;

/// The files of a class: win/draw/loss, and the distance in one metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Wdl,
    Distance(Metric),
}

impl Kind {
    /// The two files of a class whose distances are in `metric`.
    pub fn both(metric: Metric) -> [Kind; 2] {
        [Kind::Wdl, Kind::Distance(metric)]
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Wdl => "wdl",
            Kind::Distance(metric) => metric.name(),
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Kind::Wdl => "ytw",
            Kind::Distance(Metric::Dtm) => "ytd",
            Kind::Distance(Metric::Dtz) => "ytz",
        }
    }

    /// Positions per block: 32 KiB of win/draw/loss symbols (8 % smaller
    /// than 16 KiB on the largest classes, which took the ≤ 8 set under
    /// its size target), 8 or 16 KiB of codes (sizes measured in
    /// docs/tablebases.md: larger blocks cost more per probe that misses
    /// the block cache).
    pub fn block_positions(self) -> u64 {
        match self {
            Kind::Wdl => 32_768,
            Kind::Distance(_) => 8_192,
        }
    }

    /// Zstandard level (measured in docs/tablebases.md): 19 for the
    /// win/draw/loss blocks, which the search reads; less for the distances,
    /// where 19 cost much more time for little.
    fn level(self) -> i32 {
        match self {
            Kind::Wdl => 19,
            Kind::Distance(_) => DISTANCE_LEVEL,
        }
    }
}

const DISTANCE_LEVEL: i32 = 15;

/// How a file's blocks are compressed: Zstandard, one byte per value
/// (what is written), or raw deflate with win/draw/loss symbols four to a
/// byte (the first format-2 files, still read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    Deflate,
    Zstd,
}

impl Compression {
    fn name(self) -> &'static str {
        match self {
            Compression::Deflate => "deflate",
            Compression::Zstd => "zstd",
        }
    }
}

pub fn file_name(class: Class, kind: Kind) -> String {
    format!("{}.{}", class.file_stem(), kind.extension())
}

pub fn path(dir: &Path, class: Class, kind: Kind) -> PathBuf {
    dir.join(file_name(class, kind))
}

/// What a file's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: Kind,
    pub rules: String,
    pub class: Class,
    pub positions: u64,
    /// Bytes per decoded value: 0 for 2-bit values, else 1 or 2.
    pub width: u8,
    pub compression: Compression,
    /// The longest distance stored (0 in a win/draw/loss file): a class
    /// whose longest is within reach of the no-capture limit needs no
    /// distance read.
    pub longest: u16,
    /// Losses' distances are not stored (a distance file of wins only):
    /// one ply of search over the children gives them.
    pub losses_derived: bool,
    pub block_positions: u64,
    pub blocks: u64,
    pub data_bytes: u64,
    pub index_crc: u32,
    /// Length of the header text, blank line included.
    pub length: usize,
}

/// Why a file's bytes were refused (the caller adds the path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableBytesError {
    NotATable,
    Version(String),
    Malformed(&'static str),
    /// Block `n`'s checksum or decoding failed.
    Block(u64),
}

impl std::fmt::Display for TableBytesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableBytesError::NotATable => f.write_str("not a yote tablebase file"),
            TableBytesError::Version(v) => write!(
                f,
                "format version {v}, this program reads version {FORMAT_VERSION}"
            ),
            TableBytesError::Malformed(what) => write!(f, "damaged header or data ({what})"),
            TableBytesError::Block(n) => write!(f, "damaged: block {n} fails its checksum"),
        }
    }
}

impl std::error::Error for TableBytesError {}

impl Header {
    /// Bytes of one decoded block.
    pub fn block_bytes(&self) -> usize {
        match self.width {
            0 => self.block_positions.div_ceil(4) as usize,
            w => (self.block_positions * u64::from(w)) as usize,
        }
    }

    /// The whole file's length, as the header lays it out.
    pub fn file_length(&self) -> u64 {
        self.length as u64 + 8 + self.blocks * INDEX_ENTRY + self.data_bytes
    }

    fn index_range(&self) -> std::ops::Range<usize> {
        self.length..self.length + 8 + (self.blocks * INDEX_ENTRY) as usize
    }

    fn text(&self) -> String {
        let c = self.class;
        let body = format!(
            "{MAGIC}\nformat {FORMAT_VERSION}\nkind {}\nrules {}\nclass {}\npositions {}\nwidth {}\nlongest {}\nlosses {}\nblock {}\nblocks {}\ncompression {}\ndata {}\nindex-crc32 {:08x}\n",
            self.kind.name(),
            self.rules,
            c,
            self.positions,
            self.width,
            self.longest,
            if self.losses_derived {
                "derived"
            } else {
                "stored"
            },
            self.block_positions,
            self.blocks,
            self.compression.name(),
            self.data_bytes,
            self.index_crc
        );
        format!(
            "{body}header-crc32 {:08x}\n\n",
            crc32fast::hash(body.as_bytes())
        )
    }
}

/// Reads the header at the start of `bytes` (at least the header; the
/// whole file or its first `MAX_HEADER` bytes).
pub fn parse_header(bytes: &[u8]) -> Result<Header, TableBytesError> {
    let window = &bytes[..bytes.len().min(MAX_HEADER)];
    if !window.starts_with(MAGIC.as_bytes()) {
        return Err(TableBytesError::NotATable);
    }
    let end = window
        .windows(2)
        .position(|w| w == b"\n\n")
        .ok_or(TableBytesError::Malformed("header cut short"))?;
    let text = std::str::from_utf8(&window[..end + 1])
        .map_err(|_| TableBytesError::Malformed("header is not text"))?;
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
    };
    let version = field("format").ok_or(TableBytesError::Malformed("no format line"))?;
    if version != FORMAT_VERSION.to_string() {
        return Err(TableBytesError::Version(version.to_string()));
    }
    let crc_line = text
        .rfind("header-crc32 ")
        .ok_or(TableBytesError::Malformed("no header checksum"))?;
    let stored = field("header-crc32").and_then(|t| u32::from_str_radix(t, 16).ok());
    if stored != Some(crc32fast::hash(&text.as_bytes()[..crc_line])) {
        return Err(TableBytesError::Malformed("header checksum"));
    }
    let number = |key, what| {
        field(key)
            .and_then(|t| t.parse::<u64>().ok())
            .ok_or(TableBytesError::Malformed(what))
    };
    let kind = match field("kind") {
        Some("wdl") => Kind::Wdl,
        // The first files of format 2 named their distance to the end so.
        Some("distance") => Kind::Distance(Metric::Dtm),
        Some(name) => {
            Kind::Distance(Metric::parse(name).ok_or(TableBytesError::Malformed("kind"))?)
        }
        None => return Err(TableBytesError::Malformed("kind")),
    };
    let class_numbers: Vec<u8> = field("class")
        .unwrap_or("")
        .split(' ')
        .filter_map(|x| x.parse().ok())
        .collect();
    let [a, b, c, d] = class_numbers[..] else {
        return Err(TableBytesError::Malformed("class"));
    };
    let header = Header {
        kind,
        rules: field("rules")
            .ok_or(TableBytesError::Malformed("no rules line"))?
            .to_string(),
        class: Class::new(a, b, c, d),
        positions: number("positions", "position count")?,
        width: number("width", "value width")?.min(3) as u8,
        compression: match field("compression") {
            Some("deflate") => Compression::Deflate,
            Some("zstd") => Compression::Zstd,
            _ => return Err(TableBytesError::Malformed("compression")),
        },
        // Files written before the field: any distance may be there.
        longest: field("longest")
            .map_or(Some(MAX_DISTANCE), |t| t.parse::<u16>().ok())
            .ok_or(TableBytesError::Malformed("longest distance"))?,
        losses_derived: match field("losses") {
            None | Some("stored") => false,
            Some("derived") => true,
            Some(_) => return Err(TableBytesError::Malformed("losses")),
        },
        block_positions: number("block", "block size")?,
        blocks: number("blocks", "block count")?,
        data_bytes: number("data", "data length")?,
        index_crc: field("index-crc32")
            .and_then(|t| u32::from_str_radix(t, 16).ok())
            .ok_or(TableBytesError::Malformed("index checksum"))?,
        length: end + 2,
    };
    let width_ok = match kind {
        Kind::Wdl => match header.compression {
            Compression::Deflate => header.width == 0,
            Compression::Zstd => header.width == 1,
        },
        Kind::Distance(_) => matches!(header.width, 1 | 2),
    };
    if !width_ok
        || header.block_positions == 0
        || header.block_positions > 1 << 20
        || header.blocks != header.positions.div_ceil(header.block_positions)
    {
        return Err(TableBytesError::Malformed("layout"));
    }
    Ok(header)
}

/// Checks a whole file's bytes against their header (length, index
/// checksum, block offsets) and returns the header.
pub fn check(bytes: &[u8]) -> Result<Header, TableBytesError> {
    let header = parse_header(bytes)?;
    if bytes.len() as u64 != header.file_length() {
        return Err(TableBytesError::Malformed("file length"));
    }
    if crc32fast::hash(&bytes[header.index_range()]) != header.index_crc {
        return Err(TableBytesError::Malformed("index checksum"));
    }
    let blocks = Blocks::new(&header, bytes);
    let mut last = blocks.offset(0)?;
    if last != 0 {
        return Err(TableBytesError::Malformed("block offsets"));
    }
    for n in 1..=header.blocks {
        let next = blocks.offset(n)?;
        if next < last {
            return Err(TableBytesError::Malformed("block offsets"));
        }
        last = next;
    }
    if last != header.data_bytes {
        return Err(TableBytesError::Malformed("block offsets"));
    }
    Ok(header)
}

/// A checked file's blocks.
pub struct Blocks<'a> {
    pub header: &'a Header,
    bytes: &'a [u8],
}

impl<'a> Blocks<'a> {
    /// `bytes` must have passed `check`, which gave `header`.
    pub fn new(header: &'a Header, bytes: &'a [u8]) -> Blocks<'a> {
        Blocks { header, bytes }
    }

    /// `len` bytes at `at`, or an error where they are not all there: what
    /// is read from a mapped file is checked at use, never trusted from an
    /// earlier look (the file may have been rewritten in place since).
    fn bytes_at(&self, at: u64, len: u64) -> Result<&'a [u8], TableBytesError> {
        let end = at
            .checked_add(len)
            .ok_or(TableBytesError::Malformed("block offsets"))?;
        let outside = || TableBytesError::Malformed("block offsets");
        let range = usize::try_from(at).map_err(|_| outside())?
            ..usize::try_from(end).map_err(|_| outside())?;
        self.bytes.get(range).ok_or_else(outside)
    }

    fn offset(&self, n: u64) -> Result<u64, TableBytesError> {
        let at = self.header.length as u64 + 8 * n;
        let bytes = self.bytes_at(at, 8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    fn stored_crc(&self, n: u64) -> Result<u32, TableBytesError> {
        let at = self.header.length as u64 + 8 * (self.header.blocks + 1) + 4 * n;
        let bytes = self.bytes_at(at, 4)?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")))
    }

    /// Decodes block `n` into `out` (resized to the block's bytes), after
    /// checking its place and its CRC-32.
    pub fn decode(&self, n: u64, out: &mut Vec<u8>) -> Result<(), TableBytesError> {
        if n >= self.header.blocks {
            return Err(TableBytesError::Block(n));
        }
        let data_start = self.header.index_range().end as u64;
        let (from, to) = (self.offset(n)?, self.offset(n + 1)?);
        let len = to.checked_sub(from).ok_or(TableBytesError::Block(n))?;
        let data = self.bytes_at(data_start.saturating_add(from), len)?;
        if crc32fast::hash(data) != self.stored_crc(n)? {
            return Err(TableBytesError::Block(n));
        }
        out.clear();
        out.resize(self.header.block_bytes(), 0);
        let written = match self.header.compression {
            Compression::Zstd => unzstd(data, out),
            Compression::Deflate => inflate(data, out),
        }
        .ok_or(TableBytesError::Block(n))?;
        if written != self.expected_bytes(n) {
            return Err(TableBytesError::Block(n));
        }
        Ok(())
    }

    /// Bytes block `n` decodes to (the last one may be short).
    fn expected_bytes(&self, n: u64) -> usize {
        let h = &self.header;
        let positions = (h.positions - n * h.block_positions).min(h.block_positions);
        match h.width {
            0 => positions.div_ceil(4) as usize,
            w => (positions * u64::from(w)) as usize,
        }
    }

    /// Every block checked and decoded, in order.
    pub fn decode_all(&self) -> Result<Vec<u8>, TableBytesError> {
        let mut all = Vec::new();
        let mut block = Vec::new();
        for n in 0..self.header.blocks {
            self.decode(n, &mut block)?;
            all.extend_from_slice(&block[..self.expected_bytes(n)]);
        }
        Ok(all)
    }
}

/// Decompresses one Zstandard block into `out`; the bytes written, or None
/// when it is not a whole frame that fits. The decompression context is the
/// thread's own.
fn unzstd(data: &[u8], out: &mut [u8]) -> Option<usize> {
    thread_local! {
        static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    CONTEXT.with(|context| {
        let mut context = context.borrow_mut();
        if context.is_none() {
            *context = zstd::bulk::Decompressor::new().ok();
        }
        context.as_mut()?.decompress_to_buffer(data, out).ok()
    })
}

/// Inflates one raw-deflate block into `out`; the bytes written, or None
/// when the data is not a whole deflate stream that fits. The decompressor
/// (11 KiB of state) is the thread's own, reset per block: a fresh one per
/// probe that misses the block cache cost an allocation and its setup.
fn inflate(data: &[u8], out: &mut [u8]) -> Option<usize> {
    use miniz_oxide::inflate::TINFLStatus;
    use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
    thread_local! {
        static STATE: std::cell::RefCell<Box<DecompressorOxide>> =
            std::cell::RefCell::new(Box::default());
    }
    STATE.with(|state| {
        let mut state = state.borrow_mut();
        state.init();
        let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        let (status, read, written) = decompress(&mut state, data, out, 0, flags);
        (status == TINFLStatus::Done && read == data.len()).then_some(written)
    })
}

/// The 2-bit symbol of a value.
#[inline(always)]
pub fn wdl_symbol(code: u16) -> u8 {
    match code {
        0 => 0,
        c if c & 1 == 1 => 1,
        _ => 2,
    }
}

/// Win/draw/loss symbols of a byte each packed four to a byte, as width 0
/// reads them (the block cache keeps blocks so: four times the positions
/// in the same memory).
pub fn pack_symbols(bytes: &[u8], out: &mut Vec<u8>) {
    let pack = |four: &[u8]| four.iter().rev().fold(0u8, |acc, &s| acc << 2 | (s & 3));
    out.clear();
    out.reserve(bytes.len().div_ceil(4));
    // Four symbols at a time in one word: this runs on every block the
    // search decodes, and byte by byte it cost more than the decoding.
    let words = bytes.chunks_exact(4);
    let rest = words.remainder();
    out.extend(words.map(|four| {
        let x = u32::from_le_bytes([four[0], four[1], four[2], four[3]]) & 0x0303_0303;
        (x | x >> 6 | x >> 12 | x >> 18) as u8
    }));
    if !rest.is_empty() {
        out.push(pack(rest));
    }
}

/// The symbol of position `i` in decoded win/draw/loss bytes of `width`
/// (0: four 2-bit symbols to a byte, 1: a byte each).
#[inline(always)]
pub fn symbol_at(bytes: &[u8], width: u8, i: usize) -> u8 {
    match width {
        0 => (bytes[i / 4] >> (2 * (i % 4))) & 3,
        _ => bytes[i],
    }
}

/// A value from its 2-bit symbol and (for a win or loss) its code. A
/// loss of a file whose losses are derived reads `Loss(0)`, its distance
/// to be found by the caller.
pub fn value_of(
    symbol: u8,
    losses_derived: bool,
    code: impl FnOnce() -> Option<u16>,
) -> Option<Value> {
    match symbol {
        0 => Some(Value::Draw),
        2 if losses_derived => Some(Value::Loss(0)),
        1 | 2 => {
            let value = Value::decode(code()?);
            let agrees = matches!((symbol, value), (1, Value::Win(_)) | (2, Value::Loss(_)));
            agrees.then_some(value)
        }
        _ => None,
    }
}

/// `symbol_at` in a decoded block, as the block cache hands it over.
#[inline(always)]
pub fn symbol_at_block(bytes: &[u8], i: usize, width: u8) -> u8 {
    symbol_at(bytes, width, i)
}

/// The code at position `i` of decoded distance bytes of `width` bytes.
#[inline(always)]
pub fn code_at(bytes: &[u8], width: u8, i: usize) -> u16 {
    match width {
        1 => u16::from(bytes[i]),
        _ => u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]),
    }
}

/// The raw bytes of one kind for `codes`, before cutting into blocks
/// (without the losses' distances when they are derived).
fn raw_values(codes: &Codes, kind: Kind, losses_derived: bool) -> Vec<u8> {
    let stored = |code: u16| code != 0 && !(losses_derived && code & 1 == 0);
    let n = codes.len();
    match kind {
        // A byte a symbol: Zstandard finds the runs and repeats that
        // symbols packed four to a byte hide (26 % smaller, docs).
        Kind::Wdl => (0..n).map(|i| wdl_symbol(codes.get(i))).collect(),
        Kind::Distance(_) => {
            let block = kind.block_positions() as usize;
            let mut out = Vec::with_capacity(n * codes.width());
            for start in (0..n).step_by(block) {
                let end = (start + block).min(n);
                // A draw repeats the code before it (the block's first
                // decisive code at the block's start): blocks stay
                // independent and runs stay long.
                let mut fill = (start..end).map(|i| codes.get(i)).find(|&c| stored(c));
                for i in start..end {
                    let code = codes.get(i);
                    if stored(code) {
                        fill = Some(code);
                    }
                    let stored = fill.unwrap_or(0);
                    match codes.width() {
                        1 => out.push(stored as u8),
                        _ => out.extend_from_slice(&stored.to_le_bytes()),
                    }
                }
            }
            out
        }
    }
}

/// The complete bytes of the `kind` file of a class, its blocks compressed
/// on `threads` threads; a distance file without the losses' distances
/// when `losses_derived`.
pub fn encode(
    rules: &str,
    class: Class,
    codes: &Codes,
    kind: Kind,
    losses_derived: bool,
    threads: usize,
) -> Vec<u8> {
    let losses_derived = losses_derived && kind != Kind::Wdl;
    let raw = raw_values(codes, kind, losses_derived);
    let width = match kind {
        Kind::Wdl => 1,
        Kind::Distance(_) => codes.width() as u8,
    };
    let longest = match kind {
        Kind::Wdl => 0,
        Kind::Distance(_) => (0..codes.len())
            .map(|i| Value::decode(codes.get(i)).distance())
            .max()
            .unwrap_or(0),
    };
    let block_bytes = match width {
        0 => kind.block_positions() as usize / 4,
        w => kind.block_positions() as usize * usize::from(w),
    };
    let chunks: Vec<&[u8]> = raw.chunks(block_bytes.max(1)).collect();
    let compressed = compress_all(&chunks, kind.level(), threads);
    let mut offsets = Vec::with_capacity(8 * (compressed.len() + 1));
    let mut crcs = Vec::with_capacity(4 * compressed.len());
    let mut offset = 0u64;
    for block in &compressed {
        offsets.extend_from_slice(&offset.to_le_bytes());
        crcs.extend_from_slice(&crc32fast::hash(block).to_le_bytes());
        offset += block.len() as u64;
    }
    offsets.extend_from_slice(&offset.to_le_bytes());
    let index = [offsets, crcs].concat();
    let mut header = Header {
        kind,
        rules: rules.to_string(),
        class,
        positions: codes.len() as u64,
        width,
        compression: Compression::Zstd,
        longest,
        losses_derived,
        block_positions: kind.block_positions(),
        blocks: compressed.len() as u64,
        data_bytes: offset,
        index_crc: crc32fast::hash(&index),
        length: 0,
    };
    let text = header.text();
    header.length = text.len();
    let mut out = Vec::with_capacity(header.file_length() as usize);
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&index);
    for block in compressed {
        out.extend_from_slice(&block);
    }
    out
}

fn compress_all(chunks: &[&[u8]], level: i32, threads: usize) -> Vec<Vec<u8>> {
    let per_thread = chunks.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = chunks
            .chunks(per_thread)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|c| zstd::bulk::compress(c, level).expect("compressing memory"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("compression does not panic"))
            .collect()
    })
}

/// Decodes both files' bytes back into the codes of every position (a
/// derived loss as `Loss(0)`).
pub fn decode_codes(wdl: &Blocks, distance: &Blocks) -> Result<Codes, TableBytesError> {
    let n = wdl.header.positions as usize;
    if distance.header.positions as usize != n {
        return Err(TableBytesError::Malformed("the two files' position counts"));
    }
    let symbols = wdl.decode_all()?;
    let codes = distance.decode_all()?;
    let width = distance.header.width;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let derived = distance.header.losses_derived;
        let value = value_of(symbol_at(&symbols, wdl.header.width, i), derived, || {
            Some(code_at(&codes, width, i))
        })
        .ok_or(TableBytesError::Malformed(
            "win/draw/loss and distance disagree",
        ))?;
        out.push(value.encode());
    }
    Ok(match width {
        1 => Codes::Narrow(out.into_iter().map(|c| c as u8).collect()),
        _ => Codes::Wide(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Codes {
        Codes::Wide(
            (0..40_000u32)
                .map(|i| match i % 7 {
                    0 | 1 => 0,
                    2..=4 => Value::Win((i % 300) as u16).encode(),
                    _ => Value::Loss((i % 11) as u16).encode(),
                })
                .collect(),
        )
    }

    #[test]
    fn both_files_decode_back_to_the_codes() {
        let codes = sample();
        let class = Class::new(2, 2, 0, 0);
        let wdl = encode("r", class, &codes, Kind::Wdl, false, 2);
        let distance = encode("r", class, &codes, Kind::Distance(Metric::Dtz), false, 2);
        let (hw, hd) = (check(&wdl).unwrap(), check(&distance).unwrap());
        let (w, d) = (Blocks::new(&hw, &wdl), Blocks::new(&hd, &distance));
        assert_eq!(w.header.blocks, 2);
        assert_eq!(decode_codes(&w, &d).unwrap(), codes);
    }

    #[test]
    fn packed_symbols_read_back_as_the_bytes_were() {
        // Lengths that leave every remainder of a word.
        for len in [0usize, 1, 2, 3, 4, 5, 6, 7, 1001] {
            let bytes: Vec<u8> = (0..len).map(|i| ((i * 7 + i / 3) % 3) as u8).collect();
            let mut packed = Vec::new();
            pack_symbols(&bytes, &mut packed);
            assert_eq!(packed.len(), len.div_ceil(4));
            for (i, &b) in bytes.iter().enumerate() {
                assert_eq!(symbol_at(&packed, 0, i), b, "symbol {i} of {len}");
            }
        }
    }

    #[test]
    fn a_flipped_bit_is_refused_where_it_is_read() {
        let codes = sample();
        let wdl = encode("r", Class::new(2, 2, 0, 0), &codes, Kind::Wdl, false, 1);
        let header = parse_header(&wdl).unwrap();
        let mut block = Vec::new();
        // A bit in the last block's data: the first block still decodes.
        let mut damaged = wdl.clone();
        let last = damaged.len() - 3;
        damaged[last] ^= 0x10;
        let checked = check(&damaged).unwrap();
        let blocks = Blocks::new(&checked, &damaged);
        assert!(blocks.decode(0, &mut block).is_ok());
        assert_eq!(
            blocks.decode(header.blocks - 1, &mut block),
            Err(TableBytesError::Block(header.blocks - 1))
        );
        // In the header, the index, or the length: the file is refused.
        for at in [20, header.length + 3] {
            let mut damaged = wdl.clone();
            damaged[at] ^= 0x01;
            assert!(check(&damaged).is_err(), "flip at {at}");
        }
        assert!(check(&wdl[..wdl.len() - 1]).is_err());
        let mut longer = wdl.clone();
        longer.push(0);
        assert_eq!(
            check(&longer).err(),
            Some(TableBytesError::Malformed("file length"))
        );
    }
}
