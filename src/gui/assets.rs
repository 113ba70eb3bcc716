//! The page's files, embedded in the binary: no CDN, no build step. Each
//! is served compressed where the browser accepts it (zstd, else zlib
//! `deflate`: both codecs are already in the crate for the tablebases) and
//! with an ETag, so a reload costs a 304 per file and no bytes.

use std::hash::{DefaultHasher, Hasher};
use std::sync::OnceLock;

/// `(path under /assets/, content type, bytes)`.
pub const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "style.css",
        "text/css; charset=utf-8",
        include_bytes!("assets/style.css"),
    ),
    ("app.js", JS, include_bytes!("assets/app.js")),
    ("api.js", JS, include_bytes!("assets/api.js")),
    ("board.js", JS, include_bytes!("assets/board.js")),
    ("play.js", JS, include_bytes!("assets/play.js")),
    ("analyse.js", JS, include_bytes!("assets/analyse.js")),
    ("review.js", JS, include_bytes!("assets/review.js")),
    ("watch.js", JS, include_bytes!("assets/watch.js")),
    ("tree.js", JS, include_bytes!("assets/tree.js")),
    ("moves.js", JS, include_bytes!("assets/moves.js")),
    ("score.js", JS, include_bytes!("assets/score.js")),
    ("dialog.js", JS, include_bytes!("assets/dialog.js")),
    ("settings.js", JS, include_bytes!("assets/settings.js")),
    (
        "events-worker.js",
        JS,
        include_bytes!("assets/events-worker.js"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_bytes!("assets/favicon.svg"),
    ),
];

const JS: &str = "text/javascript; charset=utf-8";

pub const INDEX: &str = include_str!("assets/index.html");

/// The page itself, served at `/`.
pub const INDEX_NAME: &str = "index.html";

/// zstd level: near its best ratio on text this small, still quick to make.
const ZSTD_LEVEL: i32 = 19;

/// A content coding the server can send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    Identity,
    Zstd,
    Deflate,
}

impl Coding {
    /// The header value, None for identity.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Coding::Identity => None,
            Coding::Zstd => Some("zstd"),
            Coding::Deflate => Some("deflate"),
        }
    }

    /// The best coding an `Accept-Encoding` value allows.
    pub fn pick(accept: &str) -> Coding {
        let accepted = |name: &str| {
            accept.split(',').any(|item| {
                let mut parts = item.split(';').map(str::trim);
                let token = parts.next().unwrap_or("");
                let refused = parts.any(|p| {
                    p.strip_prefix("q=")
                        .and_then(|q| q.parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                token.eq_ignore_ascii_case(name) && !refused
            })
        };
        if accepted("zstd") {
            Coding::Zstd
        } else if accepted("deflate") {
            Coding::Deflate
        } else {
            Coding::Identity
        }
    }
}

/// One file as served: its type, its bytes in each coding (made once, on
/// first use) and their ETags.
pub struct Asset {
    pub kind: &'static str,
    pub bytes: &'static [u8],
    hash: u64,
    zstd: OnceLock<Vec<u8>>,
    deflate: OnceLock<Vec<u8>>,
}

impl Asset {
    fn new(kind: &'static str, bytes: &'static [u8]) -> Asset {
        let mut hasher = DefaultHasher::new();
        hasher.write(bytes);
        Asset {
            kind,
            bytes,
            hash: hasher.finish(),
            zstd: OnceLock::new(),
            deflate: OnceLock::new(),
        }
    }

    /// The bytes in `coding`; identity where compressing did not help.
    pub fn encoded(&self, coding: Coding) -> (Coding, &[u8]) {
        let packed: &[u8] = match coding {
            Coding::Identity => return (Coding::Identity, self.bytes),
            Coding::Zstd => self.zstd.get_or_init(|| {
                // The bulk API knows the size, so the window (and the
                // compressor's memory) fits the file, not level 19's default.
                zstd::bulk::compress(self.bytes, ZSTD_LEVEL).unwrap_or_else(|_| self.bytes.to_vec())
            }),
            Coding::Deflate => self
                .deflate
                .get_or_init(|| miniz_oxide::deflate::compress_to_vec_zlib(self.bytes, 9)),
        };
        if packed.len() < self.bytes.len() {
            (coding, packed)
        } else {
            (Coding::Identity, self.bytes)
        }
    }

    /// A strong ETag per representation: the content's hash and coding.
    pub fn etag(&self, coding: Coding) -> String {
        match coding.header() {
            Some(name) => format!("\"{:016x}-{name}\"", self.hash),
            None => format!("\"{:016x}\"", self.hash),
        }
    }
}

fn table() -> &'static Vec<(&'static str, Asset)> {
    static TABLE: OnceLock<Vec<(&'static str, Asset)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let page = (
            INDEX_NAME,
            Asset::new("text/html; charset=utf-8", INDEX.as_bytes()),
        );
        let files = ASSETS
            .iter()
            .map(|(name, kind, bytes)| (*name, Asset::new(kind, bytes)));
        std::iter::once(page).chain(files).collect()
    })
}

/// The asset `name` (a path under /assets/, or [`INDEX_NAME`]).
pub fn find(name: &str) -> Option<&'static Asset> {
    table().iter().find(|(n, _)| *n == name).map(|(_, a)| a)
}

/// Compresses every asset now, so that no page load waits for it.
pub fn warm() {
    for (_, asset) in table() {
        asset.encoded(Coding::Zstd);
        asset.encoded(Coding::Deflate);
    }
}

/// Bytes of every asset and the page, for the size budget.
pub fn total_bytes() -> usize {
    INDEX.len() + ASSETS.iter().map(|(_, _, b)| b.len()).sum::<usize>()
}
