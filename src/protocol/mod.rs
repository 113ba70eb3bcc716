//! The UGI/UCI line protocol on stdin/stdout.

/// Runs the engine protocol on stdin/stdout until `quit` or end of input.
pub fn run_stdio() -> anyhow::Result<()> {
    anyhow::bail!("the protocol loop is not built yet")
}
