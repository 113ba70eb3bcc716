//! The match runner: engine-vs-engine tournaments refereed by the rules.

/// Command-line arguments of `yote match`.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {}

pub fn run(_args: MatchArgs) -> anyhow::Result<()> {
    anyhow::bail!("the match runner is not built yet")
}
