//! The engine's state between commands — options, rules, the current game,
//! the searcher — and what each command does to it.
//!
//! Every command either succeeds completely or changes nothing and says why
//! in one `info string error: …` line; that is what lets a GUI recover from
//! its own mistakes without restarting the engine.

use super::command::{Command, GoParams, PositionBase, Query};
use super::display;
use super::options::{OptionTable, OptionValue};
use super::output::Output;
use super::searching::SearchControl;
use super::settings::{
    self, CLEAR_HASH, PONDER, RulesError, SetOptionError, TABLEBASE_PATH, TABLEBASE_PIECES,
};

const THREADS: &str = "Threads";
use crate::rules::{
    self, Game, MAX_MOVES, Move, MoveError, Outcome, PerftError, Player, Position, PositionError,
    Rules, Variant, VariantError,
};
use crate::search::tables::{self, Tables};
use crate::search::{Limits, SearchOptions, SearchRequest, Signals, bench, driver};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// A rule option set on its own: its name, its `Variant::set` key and its
/// value as `Variant::set` reads it.
#[derive(Clone, Debug)]
struct RuleOption {
    name: String,
    key: &'static str,
    value: String,
}

/// Whether the input loop goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

pub struct Session {
    out: Output,
    options: OptionTable,
    rules: Rules,
    game: Game,
    /// The `position` command that built `game`: None until one (and again
    /// after a rule change or a new game), so `go` can point out that it
    /// searches the start position, and so that a command that only adds
    /// moves to the last one (what tournament managers send every ply)
    /// replays just the new moves.
    given: Option<(PositionBase, Vec<String>)>,
    /// Why the last `position` was refused, until a valid one arrives (or a
    /// new game or rule change starts afresh). Meanwhile the engine refuses
    /// to move rather than answer for a position the client did not mean:
    /// a client that ignores `info string` must still see that something
    /// is wrong.
    rejected: Option<String>,
    /// The rules the last `Variant`, `VariantSpec` or `UCI_Variant` gave
    /// (standard until one arrives), before the rule options below.
    preset: Variant,
    /// The rule options set one by one, in the order they came: they apply
    /// on top of `preset` whichever arrived first, because managers send
    /// options in an order of their own (cutegames sent `WinCondition`
    /// before `UCI_Variant`, which reset it; issue 40). A spec that names
    /// a rule itself (`standard,win=one-left`) takes that rule back.
    rule_options: Vec<RuleOption>,
    search: SearchControl,
    /// Endgame tables for the current rules, from TablebasePath.
    tables: Tables,
    /// Raised by the input reader when `stop`, `quit` or the end of input
    /// follows the command being executed: ends `perft` and `bench`.
    interrupt: Arc<Signals>,
}

impl Session {
    /// A session whose foreground commands are never interrupted.
    pub fn new(out: Output) -> Session {
        Session::with_interrupt(out, Arc::default())
    }

    pub fn with_interrupt(out: Output, interrupt: Arc<Signals>) -> Session {
        let options = settings::option_table();
        let rules = Rules::standard();
        Session {
            search: SearchControl::new(settings::search_options(&options), out.clone()),
            game: Game::new(rules.clone()),
            out,
            options,
            rules,
            given: None,
            preset: Variant::STANDARD,
            rule_options: Vec::new(),
            tables: Tables::default(),
            rejected: None,
            interrupt,
        }
    }

    /// Executes one input line.
    pub fn handle(&mut self, line: &str) -> Flow {
        log::debug!("<< {line}");
        let flow = match super::command::parse(line) {
            Ok(command) => self.execute(command),
            Err(e) => {
                match line.split_whitespace().next() {
                    Some("position") => self.reject_position(&e.to_string()),
                    Some("query") => self.out.query_error(&e.to_string()),
                    _ => self.out.error(&e.to_string()),
                }
                Flow::Continue
            }
        };
        // `d` and `eval` probe tables too; a search reports its own.
        self.out.table_refusals();
        flow
    }

    fn execute(&mut self, command: Command) -> Flow {
        match command {
            Command::Uci => self.handshake("uciok"),
            Command::Ugi => self.handshake("ugiok"),
            Command::IsReady => self.out.line("readyok"),
            Command::NewGame => self.new_game(),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { base, moves } => self.set_position(&base, &moves),
            Command::Go(params) => self.go(&params),
            Command::Stop => self.search.stop(),
            Command::PonderHit => self.search.ponderhit(),
            Command::Quit => return Flow::Quit,
            Command::Query(query) => self.query(&query),
            Command::Display if self.refused("d") => {}
            Command::Display => self.print_with_table(display::describe(&self.game)),
            Command::Eval if self.refused("eval") => {}
            Command::Eval => {
                let features = self.search_options().features;
                let network = features.network_use(self.game.rules().variant());
                self.print_with_table(display::eval_report(&self.game, network))
            }
            Command::Moves if self.refused("moves") => {}
            Command::Moves => self.moves(),
            Command::Bench { depth } => self.bench(depth.unwrap_or(bench::DEFAULT_DEPTH)),
            Command::Perft { .. } if self.refused("perft") => {}
            Command::Perft { depth } => self.perft(depth),
            Command::Empty => {}
        }
        Flow::Continue
    }

    /// Stops a running search (printing its `bestmove`) before exiting.
    pub fn quit(&mut self) {
        self.search.shutdown();
    }

    /// Ends a one-shot run: lets a limited search finish first.
    pub fn finish_commands(&mut self) {
        self.search.finish_commands();
    }

    /// After a rejected `position`: says so for `what` and returns true.
    fn refused(&self, what: &str) -> bool {
        match &self.rejected {
            Some(why) => {
                self.out
                    .error(&format!("{what}: no valid position ({why})"));
                true
            }
            None => false,
        }
    }

    fn print(&self, lines: Vec<String>) {
        self.out.lines(lines.iter().map(String::as_str));
    }

    fn handshake(&self, ok: &str) {
        let mut lines = vec![
            format!("id name Yote {}", env!("CARGO_PKG_VERSION")),
            "id author the Yote engine developers".to_string(),
        ];
        lines.extend(self.options.describe_all());
        lines.push(ok.to_string());
        self.print(lines);
    }

    fn new_game(&mut self) {
        self.search.clear();
        self.game = Game::new(self.rules.clone());
        self.given = None;
        self.rejected = None;
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let Some(def) = self.options.find(name) else {
            return self.out.error(&format!("unknown option {name:?}"));
        };
        let canonical = def.name.clone();
        let result = if settings::sets_every_rule(&canonical) {
            self.set_variant(&canonical, value)
        } else if let Some(key) = settings::rule_key(&canonical) {
            def.parse_value(value)
                .map_err(SetOptionError::Value)
                .and_then(|parsed| self.set_rule(&canonical, key, &parsed))
        } else {
            self.set_engine_option(&canonical, value)
        };
        if let Err(e) = result {
            self.out.error(&e.to_string());
        }
    }

    /// A preset or a whole rule spec: every rule it does not name is reset,
    /// except those set by their own options, which stay on top of it.
    fn set_variant(&mut self, option: &str, value: Option<&str>) -> Result<(), SetOptionError> {
        let preset = settings::variant_value(option, value)?;
        let spec = value.unwrap_or("").trim();
        let named = settings::named_rule_keys(spec);
        let kept: Vec<RuleOption> = self
            .rule_options
            .iter()
            .filter(|o| !named.contains(&o.key))
            .cloned()
            .collect();
        let variant = with_rule_options(preset, &kept)
            .map_err(|e| settings::invalid_rules(option, RulesError::Invalid(e)))?;
        let warning = settings::variant_reset_warning(option, self.rules.variant(), &variant, spec);
        let overridden: Vec<String> = kept
            .iter()
            .filter(|o| settings::rule_text(&preset, o.key) != o.value)
            .map(|o| format!("{} {}", o.name, o.value))
            .collect();
        self.change_rules(variant)
            .map_err(|e| settings::invalid_rules(option, e))?;
        self.preset = preset;
        self.rule_options = kept;
        if !overridden.is_empty() {
            self.out.info_string(&format!(
                "{option} {spec}: kept {}, set by their own options, which apply on top of any preset (to drop one, name it in the value: setoption name VariantSpec value {spec},<key>=<value>)",
                overridden.join(", ")
            ));
        }
        if let Some(warning) = warning {
            self.out.info_string(&warning);
        }
        Ok(())
    }

    /// One rule, kept on top of the preset whatever comes later.
    fn set_rule(
        &mut self,
        name: &str,
        key: &'static str,
        parsed: &OptionValue,
    ) -> Result<(), SetOptionError> {
        let mut options = self.rule_options.clone();
        options.retain(|o| o.key != key);
        options.push(RuleOption {
            name: name.to_string(),
            key,
            value: settings::value_text(parsed),
        });
        let variant = with_rule_options(self.preset, &options)
            .map_err(|e| settings::invalid_rules(name, RulesError::Invalid(e)))?;
        self.change_rules(variant)
            .map_err(|e| settings::invalid_rules(name, e))?;
        self.rule_options = options;
        Ok(())
    }

    /// Installs new rules (if valid), shows them to the GUI and resets the
    /// game to their start position.
    fn change_rules(&mut self, variant: Variant) -> Result<(), RulesError> {
        let rules = Rules::new(variant).map_err(RulesError::Invalid)?;
        // Tables depend on every rule but the history rules, and on the
        // piece count for which classes are looked for: NoCaptureDraw and
        // the like change only what the prober trusts, not the tables.
        let tables_change = tables::tables_differ(self.rules.variant(), &variant);
        settings::sync_rule_options(&mut self.options, &variant).map_err(RulesError::NotShown)?;
        self.game = Game::new(rules.clone());
        self.given = None;
        self.rejected = None;
        self.out.info_string(&format!(
            "variant {} startpos {}",
            settings::variant_spec(&variant),
            rules.position_text(&rules.start_position())
        ));
        self.rules = rules;
        let path = self.options.get_text(TABLEBASE_PATH).unwrap_or_default();
        if tables_change && !path.is_empty() && path != "<empty>" {
            self.load_tables();
        }
        Ok(())
    }

    /// Loads the tables TablebasePath names for the current rules, reports
    /// what was loaded and every file refused, and hands them to the search.
    ///
    /// Loading reads only directories and file headers, but a directory can
    /// hang (a dead network mount): it runs on a thread of its own, and a
    /// `quit` or the end of input arriving meanwhile abandons it (the
    /// tables are then off), so the engine always obeys them.
    fn load_tables(&mut self) {
        let path = self.options.get_text(TABLEBASE_PATH).unwrap_or_default();
        let (dirs, too_many) = tables::path_list(path);
        if let Some(e) = too_many {
            self.out.error(&e);
        }
        let pieces = self.options.get_int(TABLEBASE_PIECES).unwrap_or(0).max(0) as u32;
        let rules = self.rules.clone();
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(Tables::load_from(&dirs, pieces, &rules));
        });
        let loaded = loop {
            match receive.recv_timeout(std::time::Duration::from_millis(10)) {
                Ok(loaded) => break Some(loaded),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                    if !self.interrupt.quitting.load(Ordering::Relaxed) => {}
                Err(_) => break None,
            }
        };
        let Some((tables, summary, errors)) = loaded else {
            self.out
                .error("tablebase loading abandoned (quit); tablebases off");
            self.tables = Tables::default();
            self.search.set_options(self.search_options());
            return;
        };
        for e in &errors {
            self.out.error(e);
        }
        self.out.info_string(&summary);
        self.tables = tables;
        self.search.set_options(self.search_options());
    }

    fn search_options(&self) -> SearchOptions {
        SearchOptions {
            tables: self.tables.clone(),
            ..settings::search_options(&self.options)
        }
    }

    /// `d` and `eval`, with the table's value of the position when it has one.
    fn print_with_table(&self, mut lines: Vec<String>) {
        if let Some(line) = display::table_line(&self.tables, &self.game) {
            lines.push(line);
        }
        self.print(lines);
    }

    fn set_engine_option(&mut self, name: &str, value: Option<&str>) -> Result<(), SetOptionError> {
        settings::check_engine_option(name, value)?;
        let stored = self
            .options
            .set(name, value)
            .map_err(SetOptionError::Value)?;
        if let OptionValue::Int(n) = stored
            && name == THREADS
        {
            let used = driver::effective_threads(n as usize);
            if used < n as usize {
                self.out.info_string(&format!(
                    "Threads {n}: this machine has {used} cores; searches use {used} threads"
                ));
            }
        }
        if name == CLEAR_HASH && stored == OptionValue::Pressed {
            self.search.clear();
        } else if name == TABLEBASE_PATH || name == TABLEBASE_PIECES {
            self.load_tables();
        } else {
            self.search.set_options(self.search_options());
        }
        Ok(())
    }

    /// All or nothing: the new game is built aside and installed only when
    /// every move is legal. A running search keeps its own copy of the old
    /// position, so this is safe at any time.
    fn set_position(&mut self, base: &PositionBase, moves: &[String]) {
        match self.build_game(base, moves) {
            Ok((game, note)) => {
                self.game = game;
                self.given = Some((base.clone(), moves.to_vec()));
                self.rejected = None;
                if let Some(note) = note {
                    self.out.info_string(&note);
                }
            }
            Err(e) => self.reject_position(&e.to_string()),
        }
    }

    /// A `position` command failed: the engine answers for no position
    /// until a valid one arrives (see `rejected`).
    fn reject_position(&mut self, why: &str) {
        self.out
            .error(&format!("{why}; no moves until a valid position"));
        self.rejected = Some(format!("the last position was rejected: {why}"));
    }

    /// The game a `position` command sets, and a note on what was read
    /// otherwise than written.
    fn build_game(
        &self,
        base: &PositionBase,
        moves: &[String],
    ) -> Result<(Game, Option<String>), PositionRefused> {
        let (start, note) = match base {
            PositionBase::StartPos => (self.rules.start_position(), None),
            PositionBase::Fen(text) => {
                self.read_position(text)
                    .map_err(|error| PositionRefused::Fen {
                        text: text.clone(),
                        error,
                    })?
            }
        };
        let mut game = Game::from_position(self.rules.clone(), start);
        let mut played = 0;
        if let Some((given_base, given_moves)) = &self.given
            && given_base == base
            && moves.starts_with(given_moves)
        {
            game = self.game.clone();
            played = given_moves.len();
        }
        for (i, text) in moves.iter().enumerate().skip(played) {
            let mv = game
                .parse_move(text)
                .map_err(|error| PositionRefused::Move {
                    number: i + 1,
                    error,
                })?;
            game.play(&mv);
        }
        Ok((game, note))
    }

    /// A position text, where owed removals (`x<k>`) with plies since
    /// capture above 0 read as 0: removals are owed only right after a
    /// jump, which reset the counter, and a GUI whose counter resets at the
    /// removal instead writes its own count (issue 40). Said in the note.
    fn read_position(&self, text: &str) -> Result<(Position, Option<String>), PositionError> {
        match self.rules.parse_position(text) {
            Err(PositionError::OwedWithoutCapture { plies }) => {
                let mut fields: Vec<&str> = text.split_whitespace().collect();
                let owed = fields.last().copied().unwrap_or_default().to_string();
                if let Some(field) = fields.get_mut(4) {
                    *field = "0";
                }
                let pos = self.rules.parse_position(&fields.join(" "))?;
                let note = format!(
                    "position fen: removals are owed ({owed}), so the last move was a capture: plies since capture {plies} read as 0"
                );
                Ok((pos, Some(note)))
            }
            other => other.map(|pos| (pos, None)),
        }
    }

    fn go(&mut self, params: &GoParams) {
        // The whole `go` is checked before the running search is touched:
        // a refused one changes nothing (a `searchmoves` move that is not
        // legal once stopped an infinite or pondering search).
        let searchmoves = match self.valid_searchmoves(params) {
            Ok(moves) => moves,
            Err(e) => return self.out.error(&e.to_string()),
        };
        // The old search's `bestmove` comes first, so a client that sent
        // `stop` and `go` at once reads the answer to each in order.
        if self.search.is_active() && !self.search.stop_and_wait() {
            self.out
                .info_string("go: the running search was stopped to start this one");
        }
        if let Some(depth) = params.perft {
            return self.perft(depth);
        }
        if self.refused("go") {
            return self.out.line("bestmove (none)");
        }
        if self.given.is_none() {
            self.out
                .info_string("no position given: searching the current (start) position");
        }
        if let Some(end) = self.game.status() {
            self.out.info_string(&format!("game over: {end}"));
            return self.out.line("bestmove (none)");
        }
        let ponder = self.options.get_bool(PONDER).unwrap_or(false);
        // The removals of the engine's own capture, played by a front end
        // as a turn of their own: the pieces it chose, with no new search
        // (which could choose others). `infinite` and `ponder` are searches
        // a client stops itself: they search.
        if !params.infinite
            && !params.ponder
            && self
                .search
                .finish_own_capture(&self.game, &searchmoves, ponder)
        {
            return;
        }
        let (limits, clock_note) = limits(params, self.game.position().side_to_move());
        if let Some(note) = clock_note {
            self.out.info_string(&note);
        }
        #[allow(clippy::needless_update)] // see `limits`
        let request = SearchRequest {
            limits,
            searchmoves,
            ..SearchRequest::default()
        };
        self.search.go(&self.game, request, ponder);
    }

    /// The `searchmoves` of a `go` that will search (a `go perft`, or one
    /// after a rejected position, searches nothing and has none to check).
    fn valid_searchmoves(&self, params: &GoParams) -> Result<Vec<Move>, SearchMovesError> {
        if params.perft.is_some() || self.rejected.is_some() {
            return Ok(Vec::new());
        }
        self.searchmoves(&params.searchmoves)
    }

    fn searchmoves(&self, texts: &[String]) -> Result<Vec<Move>, SearchMovesError> {
        let mut moves = Vec::with_capacity(texts.len());
        for text in texts {
            let mv = self
                .rules
                .parse_move(self.game.position(), text)
                .map_err(SearchMovesError::Move)?;
            if mv.owed_after() > 0 {
                return Err(SearchMovesError::Partial {
                    text: text.clone(),
                    owed: mv.owed_after(),
                });
            }
            if !moves.contains(&mv) {
                moves.push(mv);
            }
        }
        Ok(moves)
    }

    /// Exactly one `response` line, whatever the question and the state.
    fn query(&self, query: &Query) {
        match self.answer(query) {
            Ok(answer) => self.out.line(&format!("response {answer}")),
            Err(e) => self.out.query_error(&e.to_string()),
        }
    }

    fn answer(&self, query: &Query) -> Result<String, TooManyMoves> {
        if self.rejected.is_some() {
            // Consistent with `go` answering `bestmove (none)`: no game goes
            // on, none has a result, no move is legal.
            return Ok(match query {
                Query::GameOver => "true",
                Query::IsLegal(_) => "false",
                Query::P1Turn | Query::Result | Query::Fen | Query::Moves => "none",
            }
            .to_string());
        }
        let status = self.game.status();
        Ok(match query {
            Query::GameOver => status.is_some().to_string(),
            Query::P1Turn => (self.game.position().side_to_move() == Player::White).to_string(),
            Query::Result => match status.map(|end| end.outcome) {
                None => "none",
                Some(Outcome::Win(Player::White)) => "p1win",
                Some(Outcome::Win(Player::Black)) => "p2win",
                Some(Outcome::Draw) => "draw",
            }
            .to_string(),
            Query::Fen => self.rules.position_text(self.game.position()),
            Query::IsLegal(text) => self.game.parse_move(text).is_ok().to_string(),
            Query::Moves => match display::legal_move_texts(&self.game) {
                Ok(moves) if moves.is_empty() => "none".to_string(),
                Ok(moves) => moves.join(" "),
                Err(count) => {
                    return Err(TooManyMoves {
                        command: "query moves",
                        count,
                    });
                }
            },
        })
    }

    fn moves(&self) {
        match display::legal_move_texts(&self.game) {
            Err(count) => self.out.error(
                &TooManyMoves {
                    command: "moves",
                    count,
                }
                .to_string(),
            ),
            Ok(moves) if moves.is_empty() => {
                let why = self
                    .game
                    .status()
                    .map_or("none".to_string(), |end| end.to_string());
                self.out.info_string(&format!("no legal moves: {why}"));
            }
            Ok(moves) => self.out.line(&moves.join(" ")),
        }
    }

    /// Runs in the foreground like Stockfish's: the output is one block and
    /// the next command is executed only once it is done; `stop`, `quit` and
    /// the end of input end it early (with an error line, no counts).
    fn perft(&self, depth: u32) {
        let start = Instant::now();
        let pos = self.game.position();
        let stop = || self.interrupt.stop.load(Ordering::Relaxed);
        let split = match rules::divide_until(&self.rules, pos, depth, &stop) {
            Ok(split) => split,
            Err(PerftError::TooManyMoves) if depth == 1 => {
                return self.out.error(&format!(
                    "perft 1: {} legal moves, too many to list one by one (the limit is {MAX_MOVES})",
                    self.rules.count_legal_moves(pos)
                ));
            }
            Err(e) => return self.out.error(&format!("perft {depth}: {e}")),
        };
        let total: u64 = if depth == 0 {
            1
        } else {
            split.iter().map(|(_, n)| n).sum()
        };
        let mut lines: Vec<String> = split
            .iter()
            .map(|(mv, n)| format!("{}: {n}", self.rules.move_text(mv)))
            .collect();
        lines.push(String::new());
        lines.push(format!("Nodes searched: {total}"));
        self.print(lines);
        log::info!("perft {depth}: {:.3} s", start.elapsed().as_secs_f64());
    }

    fn bench(&self, depth: u32) {
        let Some(report) = bench::run_until(depth, &self.interrupt) else {
            return self.out.error("bench: stopped");
        };
        self.print(vec![
            format!("Nodes searched: {}", report.nodes),
            format!("Nodes/second: {}", report.nodes_per_second()),
        ]);
    }
}

/// `preset` with the rule options set one by one on top, in their order.
fn with_rule_options(preset: Variant, options: &[RuleOption]) -> Result<Variant, VariantError> {
    let mut variant = preset;
    for option in options {
        variant.set(option.key, &option.value)?;
    }
    variant.validate()?;
    Ok(variant)
}

/// A position with more legal moves than a move list holds: `command`
/// cannot list them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooManyMoves {
    pub command: &'static str,
    pub count: u64,
}

impl std::fmt::Display for TooManyMoves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let TooManyMoves { command, count } = self;
        write!(
            f,
            "{command}: {count} legal moves, too many to list (the limit is {MAX_MOVES})"
        )
    }
}

impl std::error::Error for TooManyMoves {}

/// Reads one move against the running game (`Game::parse_move`: the game
/// not over by any rule, the move legal, a part of a capture accepted).
/// Why a `position` command was refused (the position stays as it was).
#[derive(Debug)]
enum PositionRefused {
    Fen {
        text: String,
        error: PositionError,
    },
    /// Move `number` (from 1) of the list.
    Move {
        number: usize,
        error: MoveError,
    },
}

impl std::fmt::Display for PositionRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PositionRefused::Fen { text, error } => write!(f, "position fen {text:?}: {error}"),
            PositionRefused::Move { number, error } => {
                write!(f, "position: move {number}: {error}")
            }
        }
    }
}

impl std::error::Error for PositionRefused {}

/// Why a `go searchmoves` list was refused (nothing is searched).
#[derive(Debug)]
enum SearchMovesError {
    Move(MoveError),
    /// A capture's jump without all its removals.
    Partial {
        text: String,
        owed: u32,
    },
}

impl std::fmt::Display for SearchMovesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SearchMovesError::Move(e) => write!(f, "go searchmoves: {e}"),
            SearchMovesError::Partial { text, owed } => write!(
                f,
                "go searchmoves: {text} is a capture without its {owed} removal(s); list whole moves"
            ),
        }
    }
}

impl std::error::Error for SearchMovesError {}

/// The side to move's clock from either dialect's names, and a note when
/// that clock was missing and another had to stand in for it.
// The search API may grow fields (additively); they keep their defaults.
#[allow(clippy::needless_update)]
fn limits(params: &GoParams, side: Player) -> (Limits, Option<String>) {
    let (time, inc, note) = side_clock(params, side);
    let limits = Limits {
        time,
        inc,
        movestogo: params.movestogo,
        movetime: params.movetime,
        depth: params.depth,
        nodes: params.nodes,
        mate: params.mate,
        infinite: params.infinite,
        ponder: params.ponder,
        ..Limits::default()
    };
    (limits, note)
}

/// The time and increment of the side to move. A `go` that names any clock
/// is a timed search, so it never runs unbounded: when the side to move's
/// own time is missing (a client that sent the wrong side's clock), the
/// other side's time stands in, or failing that an increment.
fn side_clock(params: &GoParams, side: Player) -> (Option<u64>, u64, Option<String>) {
    let ((time, inc), (other_time, other_inc)) = match side {
        Player::White => ((params.p1time, params.p1inc), (params.p2time, params.p2inc)),
        Player::Black => ((params.p2time, params.p2inc), (params.p1time, params.p1inc)),
    };
    if time.is_some() || params.infinite {
        return (time, inc.unwrap_or(0), None);
    }
    let (stand_in, whose) = match (other_time, inc, other_inc) {
        (Some(t), _, _) => (t, format!("{}'s time", !side)),
        (None, Some(i), _) => (i, format!("{side}'s increment")),
        (None, None, Some(i)) => (i, format!("{}'s increment", !side)),
        (None, None, None) => return (None, 0, None),
    };
    let note = format!("go: no time given for {side}; using {whose}, {stand_in} ms, as its clock");
    (Some(stand_in), inc.or(other_inc).unwrap_or(0), Some(note))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// protocol.md pins this text for `moves` and `query moves`.
    #[test]
    fn too_many_moves_says_the_count_and_the_limit() {
        let e = TooManyMoves {
            command: "query moves",
            count: 70_000,
        };
        assert_eq!(
            e.to_string(),
            "query moves: 70000 legal moves, too many to list (the limit is 65536)"
        );
    }
}
