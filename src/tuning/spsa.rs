//! `yote spsa`: tunes the search parameters (`search::params`) by SPSA
//! through the match runner, as Fishtest does.
//!
//! Every iteration draws a random sign Δ_i = ±1 per parameter, starts two
//! copies of the engine with `SearchParams` set to θ + c_k·Δ and θ − c_k·Δ
//! (clamped to the ranges, rounded to integers), plays them `--pairs` game
//! pairs, and moves θ towards the winner:
//!
//! ```text
//! θ_i += a_k / c_k,i · (wins − losses of θ + cΔ) · Δ_i      (then clamped)
//! c_k,i = c_i / (k + 1)^0.101,   a_k,i = a_i / (A + k + 1)^0.602
//! ```
//!
//! where k counts the game pairs played before the iteration (so that a
//! run with 4 pairs per iteration follows the same schedule as one with 1,
//! as Fishtest's batches do), N is the run's total of pairs, A = N / 10,
//! and each parameter's `c_end` and `r_end` fix c_i = c_end · N^0.101 and
//! a_i = r_end · c_end² · (A + N)^0.602, so that at the end of the run the
//! perturbation is c_end and the rate r_end.
//!
//! Deterministic from `--seed`: iteration k's signs and match seed come
//! from a generator derived from the seed and k alone, and the match runner
//! plays the same games from the same seed at fixed nodes or depth (with
//! one search thread), whatever `--concurrency`. So a run resumed from its
//! state file ends exactly where an uninterrupted one does.

use crate::client::interrupt;
use crate::rng::SplitMix64;
use crate::search::params::{self, PARAMS, Param};
use crate::tournament::cli::MoveLimits;
use crate::tournament::{self, MatchConfig};
use anyhow::{Context, Result, bail, ensure};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const ALPHA: f64 = 0.602;
const GAMMA: f64 = 0.101;
/// A, the rate's warm-up, as a share of the run's game pairs (OpenBench's
/// default A-ratio).
const A_RATIO: f64 = 0.1;
/// The name of the engine set to θ + cΔ (its results drive the update)
/// and of its mirror.
const PLUS: &str = "plus";
const MINUS: &str = "minus";
const STATE_HEADER: &str = "yote spsa state";

#[derive(clap::Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("limit").required(true)))]
pub struct SpsaArgs {
    /// The engine to tune: a program and its arguments, split at spaces
    /// (as `cmd=` of `yote match`). Both players are this engine.
    #[arg(long)]
    pub engine: String,
    /// Parameters to tune, comma-separated (default: all that the limit can
    /// move; the time-use ones only with --tc).
    #[arg(long, value_delimiter = ',')]
    pub params: Vec<String>,
    /// SPSA iterations.
    #[arg(long, default_value_t = 200)]
    pub iterations: u64,
    /// Game pairs per iteration (one opening, both colours, per pair).
    #[arg(long, default_value_t = 1)]
    pub pairs: u64,
    #[command(flatten)]
    pub limits: MoveLimits,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Rules, as for `yote match`.
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Plies of the random balanced openings.
    #[arg(long, default_value_t = 4)]
    pub opening_plies: usize,
    /// Seed of the signs and of every iteration's openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The run's state, rewritten after every iteration.
    #[arg(long, default_value = "spsa.state")]
    pub state: PathBuf,
    /// Continue the run recorded in --state (same flags).
    #[arg(long)]
    pub resume: bool,
    /// Play at most this many iterations now, then save and stop (resume
    /// later with --resume).
    #[arg(long, value_name = "N")]
    pub stop_after: Option<u64>,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// The SPSA state of one run: θ and how far it got.
#[derive(Clone, Debug, PartialEq)]
pub struct Spsa {
    pub params: Vec<&'static Param>,
    pub theta: Vec<f64>,
    /// Game pairs played so far (k of the gain sequences).
    pub pairs_done: u64,
    /// The run's total of game pairs (N).
    pub total_pairs: u64,
}

/// One iteration's perturbation: the signs and the two players' values.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    pub signs: Vec<f64>,
    /// c_k per parameter.
    pub c: Vec<f64>,
    pub plus: Vec<i32>,
    pub minus: Vec<i32>,
}

impl Spsa {
    /// θ at the parameters' defaults.
    pub fn new(params: Vec<&'static Param>, total_pairs: u64) -> Spsa {
        Spsa {
            theta: params.iter().map(|p| f64::from(p.default)).collect(),
            params,
            pairs_done: 0,
            total_pairs,
        }
    }

    fn big_a(&self) -> f64 {
        A_RATIO * self.total_pairs as f64
    }

    /// c_k of parameter `i` at the current k.
    pub fn c_k(&self, i: usize) -> f64 {
        let n = self.total_pairs as f64;
        let c = self.params[i].c_end * n.powf(GAMMA);
        c / (self.pairs_done as f64 + 1.0).powf(GAMMA)
    }

    /// a_k of parameter `i` at the current k.
    pub fn a_k(&self, i: usize) -> f64 {
        let (n, big_a) = (self.total_pairs as f64, self.big_a());
        let p = self.params[i];
        let a = p.r_end * p.c_end * p.c_end * (big_a + n).powf(ALPHA);
        a / (big_a + self.pairs_done as f64 + 1.0).powf(ALPHA)
    }

    /// The two players of this iteration for the given signs (±1 each).
    pub fn perturb(&self, signs: &[f64]) -> Perturbation {
        let c: Vec<f64> = (0..self.params.len()).map(|i| self.c_k(i)).collect();
        let value = |i: usize, sign: f64| {
            let p = self.params[i];
            let v = (self.theta[i] + sign * c[i]).clamp(f64::from(p.min), f64::from(p.max));
            v.round() as i32
        };
        Perturbation {
            plus: (0..c.len()).map(|i| value(i, signs[i])).collect(),
            minus: (0..c.len()).map(|i| value(i, -signs[i])).collect(),
            signs: signs.to_vec(),
            c,
        }
    }

    /// Moves θ by the iteration's result: `wins − losses` of the θ + cΔ
    /// player over `pairs` game pairs.
    pub fn update(&mut self, perturbation: &Perturbation, wins_minus_losses: i64, pairs: u64) {
        for i in 0..self.params.len() {
            let p = self.params[i];
            let step =
                self.a_k(i) / perturbation.c[i] * wins_minus_losses as f64 * perturbation.signs[i];
            self.theta[i] = (self.theta[i] + step).clamp(f64::from(p.min), f64::from(p.max));
        }
        self.pairs_done += pairs;
    }

    /// `name=θ` items separated by spaces, θ with `decimals` or in full
    /// (the shortest text that reads back to the same number).
    pub fn theta_text(&self, decimals: Option<usize>) -> String {
        let items: Vec<String> = self
            .params
            .iter()
            .zip(&self.theta)
            .map(|(p, t)| match decimals {
                Some(n) => format!("{}={t:.n$}", p.name),
                None => format!("{}={t}", p.name),
            })
            .collect();
        items.join(" ")
    }

    /// θ rounded, as the engine takes it.
    pub fn rounded(&self) -> Vec<i32> {
        self.theta.iter().map(|t| t.round() as i32).collect()
    }
}

/// Iteration `k`'s signs (one per parameter) and the seed of its match,
/// from the run's seed and k alone.
pub fn draw(seed: u64, k: u64, count: usize) -> (Vec<f64>, u64) {
    let mut rng = SplitMix64::derived(seed, k);
    let match_seed = rng.next_u64();
    let signs = (0..count)
        .map(|_| if rng.next_u64() >> 63 == 1 { 1.0 } else { -1.0 })
        .collect();
    (signs, match_seed)
}

/// `name=value` items for the `SearchParams` option.
pub fn option_text(params: &[&Param], values: &[i32]) -> String {
    let items: Vec<String> = params
        .iter()
        .zip(values)
        .map(|(p, v)| format!("{}={v}", p.name))
        .collect();
    items.join(",")
}

/// The parameters to tune: those named, or every one the limit can move.
fn chosen_params(args: &SpsaArgs) -> Result<Vec<&'static Param>> {
    let clock = args.limits.tc.is_some();
    if args.params.is_empty() {
        return Ok(PARAMS.iter().filter(|p| clock || !p.time_use).collect());
    }
    let mut chosen: Vec<&'static Param> = Vec::new();
    for name in args
        .params
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
    {
        let Some(p) = params::find(name) else {
            let names: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
            bail!(
                "--params: unknown parameter '{name}' (known: {})",
                names.join(", ")
            );
        };
        ensure!(
            clock || !p.time_use,
            "--params: {name} is a time-use parameter: it only matters with a clock (--tc)"
        );
        ensure!(
            !chosen.iter().any(|c| c.name == p.name),
            "--params: {name} twice"
        );
        chosen.push(p);
    }
    ensure!(!chosen.is_empty(), "--params names no parameter");
    Ok(chosen)
}

/// The match runner's flags for the limit.
fn limit_flags(args: &SpsaArgs) -> Vec<String> {
    let mut flags = Vec::new();
    let mut add = |flag: &str, value: Option<String>| {
        if let Some(v) = value {
            flags.push(flag.to_string());
            flags.push(v);
        }
    };
    add("--tc", args.limits.tc.clone());
    add("--movetime", args.limits.movetime.map(|v| v.to_string()));
    add("--nodes", args.limits.nodes.map(|v| v.to_string()));
    add("--depth", args.limits.depth.map(|v| v.to_string()));
    flags
}

/// Escapes a value for a match runner engine spec.
fn spec_value(text: &str) -> String {
    text.replace('\\', "\\\\").replace(',', "\\,")
}

/// Everything that decides the run's games and steps (not concurrency or
/// output), to refuse resuming a state made with other settings.
fn fingerprint(args: &SpsaArgs, params: &[&Param]) -> String {
    let specs: Vec<String> = params
        .iter()
        .map(|p| p.source_row(p.default).trim().to_string())
        .collect();
    format!(
        "engine={:?} params=[{}] iterations={} pairs={} limit={:?} timeout_margin={} variant={:?} opening_plies={} seed={}",
        args.engine,
        specs.join(" "),
        args.iterations,
        args.pairs,
        limit_flags(args),
        args.limits.timeout_margin,
        args.variant,
        args.opening_plies,
        args.seed
    )
}

/// The saved run: settings, θ and the running totals.
#[derive(Clone, Debug, PartialEq)]
struct State {
    settings: String,
    iterations_done: u64,
    spsa: Spsa,
    /// Wins, draws and losses of the θ + cΔ player over the whole run.
    totals: [u64; 3],
}

impl State {
    fn text(&self) -> String {
        let [w, d, l] = self.totals;
        format!(
            "{STATE_HEADER} (continue with the same flags and --resume)\nsettings {}\niterations {}\npairs {}\ngames {w} {d} {l}\ntheta {}\n",
            self.settings,
            self.iterations_done,
            self.spsa.pairs_done,
            self.spsa.theta_text(None)
        )
    }

    /// Reads a state written by `text` for a run with `settings`.
    fn parse(text: &str, settings: &str, fresh: Spsa) -> Result<State> {
        let mut lines = text.lines();
        ensure!(
            lines.next().is_some_and(|l| l.starts_with(STATE_HEADER)),
            "not a yote spsa state file"
        );
        let mut field = |key: &str| -> Result<&str> {
            lines
                .next()
                .and_then(|l| l.strip_prefix(key)?.strip_prefix(' '))
                .with_context(|| format!("no '{key}' line"))
        };
        let saved = field("settings")?;
        ensure!(
            saved == settings,
            "it was made with other settings:\n  saved: {saved}\n  now:   {settings}"
        );
        let iterations_done = field("iterations")?.parse()?;
        let pairs_done = field("pairs")?.parse()?;
        let totals: Vec<u64> = field("games")?
            .split(' ')
            .map(str::parse)
            .collect::<Result<_, _>>()?;
        let totals: [u64; 3] = totals.try_into().ok().context("'games' wants W D L")?;
        let mut spsa = fresh;
        let items: Vec<&str> = field("theta")?.split(' ').collect();
        ensure!(
            items.len() == spsa.params.len(),
            "theta has {} values",
            items.len()
        );
        for ((p, t), item) in spsa.params.iter().zip(&mut spsa.theta).zip(items) {
            let value = item
                .strip_prefix(p.name)
                .and_then(|v| v.strip_prefix('='))
                .with_context(|| format!("theta: '{item}' is not {}=value", p.name))?;
            *t = value.parse()?;
        }
        spsa.pairs_done = pairs_done;
        Ok(State {
            settings: settings.to_string(),
            iterations_done,
            spsa,
            totals,
        })
    }

    /// Writes the state whole or not at all, so an interruption never
    /// leaves half a state.
    fn save(&self, path: &Path) -> Result<()> {
        crate::textfile::write_atomically(path, &self.text())
            .with_context(|| format!("writing {}", path.display()))
    }
}

/// `yote spsa`.
pub fn run(args: SpsaArgs) -> Result<()> {
    ensure!(args.iterations >= 1, "--iterations must be at least 1");
    ensure!(args.pairs >= 1, "--pairs must be at least 1");
    let total_pairs = args
        .iterations
        .checked_mul(args.pairs)
        .context("--iterations × --pairs is too large")?;
    let params = chosen_params(&args)?;
    if args.params.is_empty() && args.limits.tc.is_none() && !args.quiet {
        eprintln!("time-use parameters left out: they only matter with a clock (--tc)");
    }
    let settings = fingerprint(&args, &params);
    let fresh = Spsa::new(params, total_pairs);
    let mut state = if args.resume {
        let text = crate::textfile::read(&args.state)
            .with_context(|| format!("--resume: reading {}", args.state.display()))?;
        State::parse(&text, &settings, fresh)
            .with_context(|| format!("--resume: {}", args.state.display()))?
    } else {
        ensure!(
            !args.state.exists(),
            "{} exists: continue that run with --resume, or remove it or choose another --state",
            args.state.display()
        );
        State {
            settings,
            iterations_done: 0,
            spsa: fresh,
            totals: [0; 3],
        }
    };
    state.save(&args.state)?;
    let outcome = play(&args, &mut state)?;
    print!("{}", report(&state, args.iterations));
    match outcome {
        Stop::Finished => {}
        Stop::Paused => println!(
            "paused after {} of {} iterations: continue with the same flags and --resume",
            state.iterations_done, args.iterations
        ),
        Stop::Interrupted => {
            println!(
                "interrupted after {} of {} iterations (the iteration in play is dropped and replayed): continue with the same flags and --resume",
                state.iterations_done, args.iterations
            );
            let _ = std::io::stdout().flush();
            std::process::exit(interrupt::exit_code().unwrap_or(130));
        }
    }
    Ok(())
}

enum Stop {
    Finished,
    Paused,
    Interrupted,
}

/// Plays the iterations left (or `--stop-after` of them), saving the state
/// after each.
fn play(args: &SpsaArgs, state: &mut State) -> Result<Stop> {
    let last = match args.stop_after {
        Some(n) => (state.iterations_done + n).min(args.iterations),
        None => args.iterations,
    };
    let mut progress = Progress::new(args, state);
    while state.iterations_done < last {
        if interrupt::requested() {
            return Ok(Stop::Interrupted);
        }
        let k = state.iterations_done;
        let spsa = &state.spsa;
        let (signs, match_seed) = draw(args.seed, k, spsa.params.len());
        let perturbation = spsa.perturb(&signs);
        let config = match_config(args, &spsa.params, &perturbation, match_seed)?;
        let report = match tournament::run_match(&config, &mut |_| {}) {
            // A signal while the runner starts its engines is an error there.
            Err(_) if interrupt::requested() => return Ok(Stop::Interrupted),
            result => result?,
        };
        if report.interrupted {
            return Ok(Stop::Interrupted);
        }
        let tally = &report.tallies[0];
        ensure!(
            tally.a == PLUS,
            "the match runner reported {} first",
            tally.a
        );
        let g = &tally.games;
        state
            .spsa
            .update(&perturbation, g.wins as i64 - g.losses as i64, args.pairs);
        state.iterations_done += 1;
        for (total, n) in state.totals.iter_mut().zip([g.wins, g.draws, g.losses]) {
            *total += n;
        }
        state.save(&args.state)?;
        progress.iteration(state, [g.wins, g.draws, g.losses]);
    }
    progress.finish();
    Ok(if state.iterations_done < args.iterations {
        Stop::Paused
    } else {
        Stop::Finished
    })
}

/// One iteration's match: θ + cΔ against θ − cΔ.
fn match_config(
    args: &SpsaArgs,
    params: &[&Param],
    perturbation: &Perturbation,
    seed: u64,
) -> Result<MatchConfig> {
    let engine = |name: &str, values: &[i32]| {
        format!(
            "name={name},cmd={},option.SearchParams={}",
            spec_value(&args.engine),
            spec_value(&option_text(params, values))
        )
    };
    let mut flags = vec![
        "--engine".to_string(),
        engine(PLUS, &perturbation.plus),
        "--engine".to_string(),
        engine(MINUS, &perturbation.minus),
        "--games".to_string(),
        (2 * args.pairs).to_string(),
        "--concurrency".to_string(),
        args.concurrency.to_string(),
        "--variant".to_string(),
        args.variant.clone(),
        "--opening-plies".to_string(),
        args.opening_plies.to_string(),
        "--timeout-margin".to_string(),
        args.limits.timeout_margin.to_string(),
        "--seed".to_string(),
        seed.to_string(),
        "--quiet".to_string(),
    ];
    flags.extend(limit_flags(args));
    let match_args = tournament::parse_args(&flags).context("the iteration's match")?;
    MatchConfig::from_args(&match_args).context("the iteration's match")
}

/// The end-of-run text: every parameter's start and tuned value, then the
/// tuned set ready to paste as an option and as Rust defaults.
fn report(state: &State, iterations: u64) -> String {
    let spsa = &state.spsa;
    let [w, d, l] = state.totals;
    let mut out = format!(
        "spsa: {} of {iterations} iterations, {} game pairs; θ+cΔ against θ−cΔ +{w} ={d} -{l}\n",
        state.iterations_done, spsa.pairs_done
    );
    out += &format!(
        "{:<22} {:>7} {:>9} {:>7}\n",
        "parameter", "default", "theta", "tuned"
    );
    let rounded = spsa.rounded();
    for ((p, t), r) in spsa.params.iter().zip(&spsa.theta).zip(&rounded) {
        out += &format!("{:<22} {:>7} {:>9.2} {:>7}\n", p.name, p.default, t, r);
    }
    let text = option_text(&spsa.params, &rounded);
    out += &format!("\nsetoption name SearchParams value {text}\n");
    out += &format!(
        "yote match engine item: option.SearchParams={}\n",
        spec_value(&text)
    );
    out += "\nRust defaults (rows of src/search/params.rs):\n";
    for (p, r) in spsa.params.iter().zip(&rounded) {
        out += &p.source_row(*r);
        out += "\n";
    }
    out
}

/// Progress on stderr: a bar on a terminal, and a line with θ every few
/// iterations (every one on a terminal's bar, into a log every 2 %).
struct Progress {
    bar: ProgressBar,
    started: Instant,
    /// Iterations done when this invocation started.
    first: u64,
    total: u64,
    every: u64,
    enabled: bool,
}

impl Progress {
    fn new(args: &SpsaArgs, state: &State) -> Progress {
        let enabled = !args.quiet;
        let bar = if enabled && std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(args.iterations);
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} iterations, ETA {eta} {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar.set_position(state.iterations_done);
            bar
        } else {
            ProgressBar::hidden()
        };
        Progress {
            bar,
            started: Instant::now(),
            first: state.iterations_done,
            total: args.iterations,
            every: (args.iterations / 50).max(1),
            enabled,
        }
    }

    fn iteration(&mut self, state: &State, [w, d, l]: [u64; 3]) {
        self.bar.set_position(state.iterations_done);
        let done = state.iterations_done;
        if !self.enabled || (!done.is_multiple_of(self.every) && done != self.total) {
            return;
        }
        let elapsed = self.started.elapsed();
        let per = elapsed.as_secs_f64() / (done - self.first).max(1) as f64;
        let left = Duration::from_secs_f64(per * (self.total - done) as f64);
        let [tw, td, tl] = state.totals;
        let line = format!(
            "spsa {done}/{}: +{w} ={d} -{l} (run +{tw} ={td} -{tl}); theta {}; {:.0} s elapsed, {:.2} s per iteration, ETA {:.0} s",
            self.total,
            state.spsa.theta_text(Some(2)),
            elapsed.as_secs_f64(),
            per,
            left.as_secs_f64()
        );
        self.bar.suspend(|| eprintln!("{line}"));
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::SearchParams;

    fn param(name: &str) -> &'static Param {
        params::find(name).unwrap()
    }

    /// Worked by hand for one parameter (aspiration_delta: c_end 4, r_end
    /// 0.002) in a run of N = 100 pairs, so A = 10:
    /// c = 4 · 100^0.101 = 6.368835, a = 0.002 · 16 · 110^0.602 = 0.542086.
    /// k = 0: c_0 = c = 6.368835, a_0 = a / 11^0.602 = 0.127982; a win
    /// margin of 2 with Δ = +1 moves θ by a_0 / c_0 · 2 = 0.040190.
    /// k = 1: c_1 = c / 2^0.101 = 5.938216, a_1 = a / 12^0.602 = 0.121451;
    /// a loss margin of 1 with Δ = −1 moves θ by +0.020452.
    #[test]
    fn the_update_follows_the_fishtest_formulas() {
        let mut spsa = Spsa::new(vec![param("aspiration_delta")], 100);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-6;
        assert!(close(spsa.c_k(0), 6.368_835), "{}", spsa.c_k(0));
        assert!(close(spsa.a_k(0), 0.127_982), "{}", spsa.a_k(0));
        let first = spsa.perturb(&[1.0]);
        // 30 ± 6.37, rounded.
        assert_eq!((&first.plus, &first.minus), (&vec![36], &vec![24]));
        spsa.update(&first, 2, 1);
        assert!(close(spsa.theta[0], 30.040_190), "{}", spsa.theta[0]);
        assert_eq!(spsa.pairs_done, 1);
        assert!(close(spsa.c_k(0), 5.938_216), "{}", spsa.c_k(0));
        assert!(close(spsa.a_k(0), 0.121_451), "{}", spsa.a_k(0));
        let second = spsa.perturb(&[-1.0]);
        spsa.update(&second, -1, 1);
        assert!(close(spsa.theta[0], 30.060_643), "{}", spsa.theta[0]);
        // At the end of the run the gains are c_end and r_end · c_end².
        spsa.pairs_done = 99;
        assert!(close(spsa.c_k(0), 4.0) && close(spsa.a_k(0), 0.032));
        // A draw margin does not move θ.
        let before = spsa.theta.clone();
        spsa.update(&spsa.perturb(&[1.0]), 0, 1);
        assert_eq!(spsa.theta, before);
    }

    #[test]
    fn values_and_theta_stay_inside_the_ranges() {
        // qs_removals: 1..=8, c_end 1. At θ = 1 the minus player is clamped
        // to the range.
        let mut spsa = Spsa::new(vec![param("qs_removals"), param("lmr_base")], 1);
        spsa.theta = vec![1.0, 199.6];
        let p = spsa.perturb(&[1.0, 1.0]);
        assert_eq!(p.minus[0], 1);
        assert_eq!(p.plus[1], 200);
        // A huge margin drives θ to the ends, never past them.
        spsa.update(&p, -100_000, 1);
        assert_eq!(spsa.theta[0], 1.0);
        assert_eq!(spsa.theta[1], -100.0);
        spsa.update(&spsa.perturb(&[1.0, 1.0]), 100_000, 1);
        assert_eq!(spsa.theta, vec![8.0, 200.0]);
        assert_eq!(spsa.rounded(), vec![8, 200]);
    }

    #[test]
    fn signs_and_seeds_replay_and_differ_between_iterations() {
        let (a, seed_a) = draw(7, 3, 16);
        assert_eq!(draw(7, 3, 16), (a.clone(), seed_a));
        assert!(a.iter().all(|s| *s == 1.0 || *s == -1.0));
        let (b, seed_b) = draw(7, 4, 16);
        assert!(a != b && seed_a != seed_b);
        // Both signs come up.
        let all: Vec<f64> = (0..20).flat_map(|k| draw(1, k, 16).0).collect();
        let plus = all.iter().filter(|s| **s > 0.0).count();
        assert!((120..200).contains(&plus), "{plus} of 320");
    }

    #[test]
    fn option_text_is_what_the_engine_option_reads() {
        let ps = [param("lmr_divisor"), param("qs_removals")];
        let text = option_text(&ps, &[200, 3]);
        assert_eq!(text, "lmr_divisor=200,qs_removals=3");
        let parsed = SearchParams::parse(&text).unwrap();
        assert_eq!(parsed.get("lmr_divisor"), Some(200));
        assert_eq!(spec_value(&text), r"lmr_divisor=200\,qs_removals=3");
    }

    #[test]
    fn the_state_round_trips_and_refuses_other_settings() {
        let mut spsa = Spsa::new(vec![param("aspiration_delta"), param("lmr_base")], 40);
        spsa.theta = vec![31.123_456_789_012_34, -7.5];
        spsa.pairs_done = 12;
        let state = State {
            settings: "x=1".into(),
            iterations_done: 6,
            spsa: spsa.clone(),
            totals: [5, 4, 3],
        };
        let fresh = || Spsa::new(spsa.params.clone(), 40);
        let back = State::parse(&state.text(), "x=1", fresh()).unwrap();
        assert_eq!(back, state);
        let err = State::parse(&state.text(), "x=2", fresh()).unwrap_err();
        assert!(format!("{err:#}").contains("other settings"), "{err:#}");
        assert!(State::parse("garbage", "x=1", fresh()).is_err());
        let cut = &state.text()[..state.text().len() - 12];
        assert!(State::parse(cut, "x=1", fresh()).is_err());
    }
}
