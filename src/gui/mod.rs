//! `yote gui`: a Yoté front end in the browser, served from this process.
//!
//! The page plays, analyses, reviews and watches games; the server behind it
//! speaks to engines only over UGI (the match runner's `engine_process`),
//! answers rule questions (legal moves, game end) with `rules`, and reads
//! games with `client::records`. Nothing the page sends can start a
//! process or open a file the command line did not name.

pub mod assets;
pub mod board;
pub mod engines;
pub mod live;
pub mod records;
pub mod routes;
pub mod server;
pub mod watch;

use crate::client::engine_config;
use crate::client::engine_process::EngineConfig;
use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct GuiArgs {
    /// A UGI engine the page may play with: a command line (`./other-engine
    /// --uci-ish`) or a match-runner spec (`name=x,cmd=prog args,proto=uci`).
    /// Repeatable; this binary itself is always the first engine.
    #[arg(long = "engine", value_name = "CMD")]
    pub engines: Vec<String>,
    /// Port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to bind. Anything but 127.0.0.1/localhost/::1 exposes the
    /// server (and the engines it runs) to the network, and is warned about.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// A records file the page may open in Review and follow in Watch
    /// (the match runner's `--pgn` output or `yote analyse` output).
    #[arg(long = "records", value_name = "FILE")]
    pub records: Vec<PathBuf>,
    /// Open the page in the default browser (xdg-open); where there is
    /// none, one line says so with the URL.
    #[arg(long)]
    pub open: bool,
    /// Connections served at once; past it a connection is answered 503.
    /// Lowered, if need be, to fit the descriptor limit (`ulimit -n`).
    #[arg(long, value_name = "N", default_value_t = server::DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Engine processes running at once, for all pages together; past it
    /// an idle engine of another page is stopped, or the page is told.
    #[arg(long, value_name = "N", default_value_t = engines::DEFAULT_MAX_ENGINES)]
    pub max_engines: usize,
}

/// What the command line allows the page to use; nothing else is reachable.
pub struct GuiConfig {
    pub engines: Vec<EngineConfig>,
    pub records: Vec<PathBuf>,
}

impl GuiConfig {
    pub fn from_args(args: &GuiArgs) -> Result<GuiConfig> {
        let own = std::env::current_exe().context("finding this program to run as the engine")?;
        let mut engines = vec![engine_config(
            &format!("name=yote,cmd={}", escape(&own.to_string_lossy())),
            0,
        )?];
        for (i, cmd) in args.engines.iter().enumerate() {
            let spec = if cmd.contains("cmd=") {
                cmd.clone()
            } else {
                let program = cmd.split_whitespace().next().unwrap_or_default();
                let name = program.rsplit('/').next().unwrap_or(program);
                format!("name={},cmd={}", escape(name), escape(cmd))
            };
            let mut config =
                engine_config(&spec, i + 1).with_context(|| format!("--engine '{cmd}'"))?;
            if engines.iter().any(|e| e.name == config.name) {
                config.name = format!("{}-{}", config.name, i + 2);
            }
            engines.push(config);
        }
        for path in &args.records {
            if !path.is_file() {
                bail!("--records {}: no such file", path.display());
            }
        }
        Ok(GuiConfig {
            engines,
            records: args.records.clone(),
        })
    }
}

/// A value for the match runner's `k=v,k=v` spec.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(',', "\\,")
}

pub fn run(args: GuiArgs) -> Result<()> {
    let config = GuiConfig::from_args(&args)?;
    let loopback = ["127.0.0.1", "localhost", "::1"].contains(&args.host.as_str());
    if !loopback {
        eprintln!(
            "warning: listening on {}: anyone who can reach this address can use the page, and the engines it runs",
            args.host
        );
    }
    let limits = server::Limits {
        max_connections: args.max_connections,
        max_engines: args.max_engines,
    };
    let server = server::Server::bind(&args.host, args.port, config, limits)?;
    let url = server.url();
    println!("yote gui: {url}");
    if args.open {
        open_browser(&url);
    }
    server.serve()
}

/// Opens `url` in the default browser, quietly: xdg-open's own messages go
/// nowhere, and where no browser can be shown (no display) or it fails,
/// one line says so with the URL.
fn open_browser(url: &str) {
    let shown = ["DISPLAY", "WAYLAND_DISPLAY", "BROWSER"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
    let opener = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("xdg-open"))
            .find(|p| p.is_file())
    });
    let (true, Some(opener)) = (shown, opener) else {
        eprintln!("yote gui: no browser to open here; open {url} in one");
        return;
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let url = url.to_string();
    match spawned {
        Ok(mut child) => {
            std::thread::spawn(move || {
                if !child.wait().is_ok_and(|s| s.success()) {
                    eprintln!("yote gui: could not open a browser; open {url} in one");
                }
            });
        }
        Err(_) => eprintln!("yote gui: could not open a browser; open {url} in one"),
    }
}
