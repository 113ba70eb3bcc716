//! The page's files, embedded in the binary: no CDN, no build step.

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

pub fn find(name: &str) -> Option<(&'static str, &'static [u8])> {
    ASSETS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, kind, bytes)| (*kind, *bytes))
}

/// Bytes of every asset and the page, for the size budget.
pub fn total_bytes() -> usize {
    INDEX.len() + ASSETS.iter().map(|(_, _, b)| b.len()).sum::<usize>()
}
