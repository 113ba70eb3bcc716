//! The native part of the `yote` Python package (`yote._yote`): a `Board`
//! with the rules in the process, as python-chess has `chess.Board`.
//!
//! Glue only. Every question of legality, move text and game end is
//! answered by `crate::rules` (the same code `yote perft` and the engine
//! run); this file turns its values into Python objects and its errors into
//! Python exceptions. Built only with the `python` feature (maturin turns it
//! on), so a plain `cargo build` needs neither Python nor PyO3.

use crate::rules::{
    self, Bitboard, EndReason, Game, GameEnd, MoveError, MoveList, Outcome, PerftError, Player,
    Position, Rules, Variant,
};
use pyo3::IntoPyObjectExt;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyIndexError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::fmt::Write;
use std::sync::Arc;

pyo3::create_exception!(
    _yote,
    IllegalMoveError,
    PyValueError,
    "A move that is malformed or not legal in the board's position."
);

/// Player 1, who moves first (python-chess's `chess.WHITE`).
const WHITE: bool = true;

fn colour(player: Player) -> bool {
    player == Player::White
}

fn illegal(e: &MoveError) -> PyErr {
    IllegalMoveError::new_err(e.to_string())
}

// ---------------------------------------------------------------------------
// Move

/// One move, complete with the pieces it removes, as the rules library made
/// it for one board. Equal to another move, or to a string, with the same
/// text; hashes as its text, so `"@c3" in board.legal_moves` works.
#[pyclass(module = "yote", name = "Move", frozen)]
#[derive(Clone)]
pub struct PyMove {
    mv: rules::Move,
    rules: Arc<Rules>,
    text: String,
}

impl PyMove {
    fn new(mv: rules::Move, rules: &Arc<Rules>) -> PyMove {
        PyMove {
            text: rules.move_text(&mv),
            mv,
            rules: Arc::clone(rules),
        }
    }

    fn cell(&self, cell: u8) -> String {
        self.rules.geometry().cell_name(cell).to_string()
    }

    fn cells(&self, set: Bitboard) -> Vec<String> {
        set.into_iter().map(|c| self.cell(c)).collect()
    }
}

#[pymethods]
impl PyMove {
    /// The move in the engine's notation (`@c3`, `c3c4`, `c3c5xd4`, `xa1`).
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// `"place"`, `"step"`, `"jump"` or `"removal"` (a removal-only move,
    /// the second half of a capture played in two turns).
    #[getter]
    fn kind(&self) -> &'static str {
        if self.mv.is_placement() {
            "place"
        } else if self.mv.is_removal_only() {
            "removal"
        } else if self.mv.is_jump() {
            "jump"
        } else {
            "step"
        }
    }

    /// The start cell (`"c3"`); `None` for a placement or a removal.
    #[getter(from_square)]
    fn start_square(&self) -> Option<String> {
        (!self.mv.is_placement() && !self.mv.is_removal_only()).then(|| self.cell(self.mv.from()))
    }

    /// The target cell (the last landing of a jump); `None` for a removal.
    #[getter]
    fn to_square(&self) -> Option<String> {
        (!self.mv.is_removal_only()).then(|| self.cell(self.mv.to()))
    }

    /// The cells a jump lands on, in order.
    #[getter]
    fn landings(&self) -> Vec<String> {
        self.mv
            .landings(self.rules.geometry())
            .map(|c| self.cell(c))
            .collect()
    }

    /// The enemy pieces jumped over.
    #[getter]
    fn captured(&self) -> Vec<String> {
        self.cells(self.mv.captured())
    }

    /// The extra pieces removed after the jumps, in the text's order: board
    /// cells, then `"@"` for each piece taken from the hand.
    #[getter]
    fn removals(&self) -> Vec<String> {
        let mut out = self.cells(self.mv.removed());
        out.extend((0..self.mv.hand_removed()).map(|_| "@".to_string()));
        out
    }

    #[getter]
    fn is_capture(&self) -> bool {
        self.mv.is_capture()
    }

    /// Removals still owed after this move: 0 for a whole move, more for a
    /// capture's jump played alone (a front end's first of two turns).
    #[getter]
    fn owed_after(&self) -> u32 {
        self.mv.owed_after()
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.text)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let text = if let Ok(m) = other.cast::<PyMove>() {
            Some(m.get().text.clone())
        } else if let Ok(s) = other.cast::<PyString>() {
            s.to_str().ok().map(str::to_string)
        } else {
            None
        };
        match (text, op) {
            (Some(t), CompareOp::Eq) => (t == self.text).into_py_any(py),
            (Some(t), CompareOp::Ne) => (t != self.text).into_py_any(py),
            _ => Ok(py.NotImplemented()),
        }
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyString::new(py, &self.text).hash()
    }
}

// ---------------------------------------------------------------------------
// Outcome

/// How a game ended, as python-chess's `chess.Outcome`: the winner
/// (`True` for White, `False` for Black, `None` for a draw) and the rule.
#[pyclass(module = "yote", name = "Outcome", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyOutcome {
    end: GameEnd,
}

#[pymethods]
impl PyOutcome {
    #[getter]
    fn winner(&self) -> Option<bool> {
        self.end.winner().map(colour)
    }

    /// The rule that ended the game: `"few_pieces"`, `"three_draw"`,
    /// `"no_moves"`, `"no_capture_limit"` or `"repetition"`.
    #[getter]
    fn termination(&self) -> &'static str {
        match self.end.reason {
            EndReason::FewPieces => "few_pieces",
            EndReason::ThreeDraw => "three_draw",
            EndReason::NoMoves => "no_moves",
            EndReason::NoCaptureLimit => "no_capture_limit",
            EndReason::Repetition => "repetition",
        }
    }

    /// The rule in words, as the engine says it (`too few pieces left`).
    #[getter]
    fn reason(&self) -> String {
        self.end.reason.to_string()
    }

    /// `"1-0"`, `"0-1"` or `"1/2-1/2"`.
    fn result(&self) -> &'static str {
        result_token(Some(self.end))
    }

    fn __str__(&self) -> String {
        self.end.to_string()
    }

    fn __repr__(&self) -> String {
        let winner = match self.end.outcome {
            Outcome::Win(Player::White) => "WHITE",
            Outcome::Win(Player::Black) => "BLACK",
            Outcome::Draw => "None",
        };
        format!(
            "Outcome(termination='{}', winner={winner})",
            self.termination()
        )
    }
}

fn result_token(end: Option<GameEnd>) -> &'static str {
    match end.map(|e| e.outcome) {
        None => "*",
        Some(Outcome::Win(Player::White)) => "1-0",
        Some(Outcome::Win(Player::Black)) => "0-1",
        Some(Outcome::Draw) => "1/2-1/2",
    }
}

// ---------------------------------------------------------------------------
// Board

/// A game of Yoté or one of its variants, with the rules in the process:
/// legal moves, push and pop, the game end and its rule, position text and
/// perft, with no engine round trip.
///
/// `variant` is a preset name (`standard`, `5x5`, …) or a rule spec as the
/// engine prints it (`hand-removal,no_capture_draw=100`); `fen` is a
/// position text (`None`: the variant's start position). Both are checked
/// at once: a bad one raises `ValueError` naming what is wrong.
#[pyclass(module = "yote", name = "Board")]
#[derive(Clone)]
pub struct Board {
    rules: Arc<Rules>,
    game: Game,
}

impl Board {
    fn position(&self) -> &Position {
        self.game.position()
    }

    fn moves_of(&self, list: &MoveList) -> Vec<PyMove> {
        list.iter()
            .map(|mv| PyMove::new(*mv, &self.rules))
            .collect()
    }

    /// The text of a move given as a `Move` or a string.
    fn move_text(mv: &Bound<'_, PyAny>) -> PyResult<String> {
        if let Ok(m) = mv.cast::<PyMove>() {
            return Ok(m.get().text.clone());
        }
        if let Ok(s) = mv.cast::<PyString>() {
            return Ok(s.to_str()?.to_string());
        }
        Err(PyTypeError::new_err(format!(
            "a move is a yote.Move or its text (a str), not {}",
            mv.get_type().name()?
        )))
    }

    fn parse(&self, text: &str) -> Result<rules::Move, MoveError> {
        self.game.parse_move(text)
    }

    fn cell(&self, name: &str) -> PyResult<u8> {
        self.rules.geometry().parse_cell(name).ok_or_else(|| {
            let v = self.rules.variant();
            PyValueError::new_err(format!(
                "'{name}' is not a cell of this {}x{} board (a1 to {})",
                v.rows,
                v.cols,
                self.rules
                    .geometry()
                    .cell_name(self.rules.geometry().cell(v.cols - 1, v.rows - 1))
            ))
        })
    }

    fn status_line(&self) -> String {
        let pos = self.position();
        let side = pos.side_to_move();
        let mut line = format!(
            "{side} to move; in hand: white {}, black {}",
            pos.hand(Player::White),
            pos.hand(Player::Black)
        );
        if pos.owed_removals() > 0 {
            let _ = write!(
                line,
                "; {side} owes {} removal(s) for its jump",
                pos.owed_removals()
            );
        }
        if let Some(end) = self.game.status() {
            let _ = write!(line, "; game over, {end}");
        }
        line
    }
}

#[pymethods]
impl Board {
    #[new]
    #[pyo3(signature = (variant = "standard", fen = None))]
    fn new(variant: &str, fen: Option<&str>) -> PyResult<Board> {
        if variant.trim().is_empty() {
            return Err(PyValueError::new_err(
                "variant: empty (give a preset name such as 'standard', or a rule spec)",
            ));
        }
        if variant.contains('/') {
            // python-chess's Board takes the position text first.
            return Err(PyValueError::new_err(format!(
                "variant '{variant}' looks like a position text: give it as Board(fen=...), the rules first"
            )));
        }
        let spec = Variant::from_spec(variant)
            .map_err(|e| PyValueError::new_err(format!("variant '{variant}': {e}")))?;
        let rules = Rules::new(spec)
            .map_err(|e| PyValueError::new_err(format!("variant '{variant}': {e}")))?;
        let start = match fen {
            None => rules.start_position(),
            Some(text) => rules
                .parse_position(text)
                .map_err(|e| PyValueError::new_err(format!("position '{text}': {e}")))?,
        };
        Ok(Board {
            game: Game::from_position(rules.clone(), start),
            rules: Arc::new(rules),
        })
    }

    /// Plays a move (a `Move` or its text); `IllegalMoveError` (a
    /// `ValueError`) if it is not legal here, and the board is unchanged.
    /// A capture's jump alone is accepted, as a front end's first of two
    /// turns: the same side then owes its removals.
    fn push(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<()> {
        let text = Board::move_text(mv)?;
        let mv = self.parse(&text).map_err(|e| illegal(&e))?;
        self.game.play(&mv);
        Ok(())
    }

    /// Reads a move's text, plays it and returns the `Move`.
    fn push_text(&mut self, text: &str) -> PyResult<PyMove> {
        let mv = self.parse(text).map_err(|e| illegal(&e))?;
        self.game.play(&mv);
        Ok(PyMove::new(mv, &self.rules))
    }

    /// The legal `Move` a text names here, without playing it.
    fn parse_move(&self, text: &str) -> PyResult<PyMove> {
        let mv = self.parse(text).map_err(|e| illegal(&e))?;
        Ok(PyMove::new(mv, &self.rules))
    }

    /// Takes back the last move and returns it; `IndexError` at the start.
    fn pop(&mut self) -> PyResult<PyMove> {
        let mv = self
            .game
            .undo()
            .ok_or_else(|| PyIndexError::new_err("pop from a board with no moves played"))?;
        Ok(PyMove::new(mv, &self.rules))
    }

    /// The last move played, without taking it back.
    fn peek(&self) -> PyResult<PyMove> {
        let mv = self
            .game
            .moves()
            .last()
            .ok_or_else(|| PyIndexError::new_err("peek at a board with no moves played"))?;
        Ok(PyMove::new(*mv, &self.rules))
    }

    /// Every legal move in the engine's order (`query moves`): the
    /// removal-only moves where removals are owed, `[]` once the game is
    /// over by any rule. `OverflowError` when there are more than 65,536
    /// (only MultiJump on large boards).
    #[getter]
    fn legal_moves(&self) -> PyResult<Vec<PyMove>> {
        let mut list = MoveList::new();
        self.game.legal_moves(&mut list);
        if list.is_truncated() {
            return Err(PyOverflowError::new_err(format!(
                "{} legal moves, too many to list (the limit is {})",
                self.rules.count_legal_moves(self.position()),
                rules::MAX_MOVES
            )));
        }
        Ok(self.moves_of(&list))
    }

    /// Whether a move (a `Move` or its text) is legal here; `False` for
    /// text that is not a move.
    fn is_legal(&self, mv: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.parse(&Board::move_text(mv)?).is_ok())
    }

    /// `True` (White, player 1) or `False` (Black) to move.
    #[getter]
    fn turn(&self) -> bool {
        colour(self.position().side_to_move())
    }

    /// Removals the side to move owes for a jump already played.
    #[getter]
    fn owed_removals(&self) -> u32 {
        self.position().owed_removals()
    }

    /// Pieces in hand: `(white, black)`.
    #[getter]
    fn hands(&self) -> (u32, u32) {
        let pos = self.position();
        (pos.hand(Player::White), pos.hand(Player::Black))
    }

    /// The piece on a cell (`"c3"`): `True` (White), `False` (Black) or
    /// `None` when empty.
    fn piece_at(&self, cell: &str) -> PyResult<Option<bool>> {
        let cell = self.cell(cell)?;
        let pos = self.position();
        Ok(Player::BOTH
            .into_iter()
            .find(|p| pos.pieces(*p).contains(cell))
            .map(colour))
    }

    /// The cells holding `color`'s pieces, in cell order.
    fn pieces(&self, color: bool) -> Vec<String> {
        let player = if color == WHITE {
            Player::White
        } else {
            Player::Black
        };
        let geometry = self.rules.geometry();
        self.position()
            .pieces(player)
            .into_iter()
            .map(|c| geometry.cell_name(c).to_string())
            .collect()
    }

    /// The position text (`6/6/2W3/6/6 b 11 12 1 1`), as `query fen`.
    fn fen(&self) -> String {
        self.rules.position_text(self.position())
    }

    /// The position text the game started from.
    fn start_fen(&self) -> String {
        self.rules.position_text(self.game.start())
    }

    /// The moves played since the start, first first.
    #[getter]
    fn move_stack(&self) -> Vec<PyMove> {
        self.game
            .moves()
            .iter()
            .map(|mv| PyMove::new(*mv, &self.rules))
            .collect()
    }

    /// Moves played since the start (the parts of a capture count apart).
    fn ply(&self) -> usize {
        self.game.moves().len()
    }

    /// How the game ended (`Outcome`), or `None` while it goes on. Every
    /// rule counts, the history rules (NoCaptureDraw, RepetitionDraw)
    /// included.
    fn outcome(&self) -> Option<PyOutcome> {
        self.game.status().map(|end| PyOutcome { end })
    }

    fn is_game_over(&self) -> bool {
        self.game.status().is_some()
    }

    /// `"1-0"`, `"0-1"`, `"1/2-1/2"`, or `"*"` while the game goes on.
    fn result(&self) -> &'static str {
        result_token(self.game.status())
    }

    /// How many times the current position has occurred, this time included.
    fn repetitions(&self) -> usize {
        self.game.repetitions()
    }

    /// The number of move sequences of `depth` plies from here, counted by
    /// the rules library's perft (what `yote perft` runs; the history rules
    /// do not apply). Runs without holding the GIL.
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        let rules = Arc::clone(&self.rules);
        let pos = *self.position();
        py.detach(move || rules::perft(&rules, &pos, depth))
            .map_err(|e: PerftError| PyValueError::new_err(format!("perft {depth}: {e}")))
    }

    /// The rules as one token the engine reads back (`Variant`,
    /// `yote perft --variant`): the preset name when they equal one, then
    /// every rule spelled out — what `info string variant` prints.
    #[getter]
    fn variant_spec(&self) -> String {
        let variant = self.rules.variant();
        match variant.preset_name() {
            Some(name) => format!("{name},{}", variant.spec()),
            None => variant.spec(),
        }
    }

    /// The preset the rules equal, or `None`.
    #[getter]
    fn variant_name(&self) -> Option<&'static str> {
        self.rules.variant().preset_name()
    }

    #[getter]
    fn rows(&self) -> u8 {
        self.rules.variant().rows
    }

    #[getter]
    fn cols(&self) -> u8 {
        self.rules.variant().cols
    }

    fn copy(&self) -> Board {
        self.clone()
    }

    fn __copy__(&self) -> Board {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Board {
        self.clone()
    }

    /// Boards are equal when their rules and positions are (board, hands,
    /// side to move, owed removals and both counters), whatever the moves
    /// that led there — as python-chess compares boards.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Board>().is_ok_and(|o| {
            let o = o.borrow();
            o.rules == self.rules && o.position() == self.position()
        })
    }

    /// The position's repetition key: the same for equal boards. A board
    /// is mutable, so its hash changes as moves are played: hash a
    /// `copy()` (or its `fen()`) to keep one in a set.
    fn __hash__(&self) -> u64 {
        // Python takes -1 as an error; the key is reduced below 2^63.
        (self.position().key() ^ self.rules.variant().rows as u64) >> 1
    }

    fn __str__(&self) -> String {
        let pos = self.position();
        let geometry = self.rules.geometry();
        let (rows, cols) = (geometry.rows(), geometry.cols());
        let files: String = (0..cols)
            .map(|f| format!(" {}", (b'a' + f) as char))
            .collect();
        let mut text = format!(" {files}\n");
        for rank in (0..rows).rev() {
            let _ = write!(text, "{}", rank + 1);
            for file in 0..cols {
                let cell = geometry.cell(file, rank);
                text.push(' ');
                text.push(if pos.pieces(Player::White).contains(cell) {
                    'W'
                } else if pos.pieces(Player::Black).contains(cell) {
                    'B'
                } else {
                    '.'
                });
            }
            text.push('\n');
        }
        text + &self.status_line()
    }

    fn __repr__(&self) -> String {
        let variant = self
            .variant_name()
            .map_or_else(|| self.rules.variant().spec(), str::to_string);
        format!("Board(variant='{variant}', fen='{}')", self.fen())
    }

    /// The board as an SVG picture (Jupyter shows it, as python-chess does).
    fn _repr_svg_(&self) -> String {
        svg(&self.rules, self.position(), &self.status_line())
    }
}

const CELL: u32 = 44;
const MARGIN: u32 = 22;

/// A grid with rank and file labels, White's pieces as light discs and
/// Black's as dark ones, and the status under it, one fact a line.
fn svg(rules: &Rules, pos: &Position, status: &str) -> String {
    let geometry = rules.geometry();
    let (rows, cols) = (u32::from(geometry.rows()), u32::from(geometry.cols()));
    let caption: Vec<&str> = status.split("; ").collect();
    let longest = caption.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    // About 7 px a character at 13 px sans-serif: the caption is never cut.
    let width = (2 * MARGIN + cols * CELL).max(MARGIN + 7 * longest);
    let board_bottom = MARGIN + rows * CELL + 20;
    let height = board_bottom + 18 * caption.len() as u32 + 6;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"13\">\
         <rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"
    );
    for rank in 0..rows {
        for file in 0..cols {
            let (x, y) = (MARGIN + file * CELL, MARGIN + (rows - 1 - rank) * CELL);
            let shade = if (rank + file) % 2 == 0 {
                "#d9b77e"
            } else {
                "#e8cf9f"
            };
            let _ = write!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{shade}\" stroke=\"#8b6b3d\"/>"
            );
            let cell = geometry.cell(file as u8, rank as u8);
            let piece = if pos.pieces(Player::White).contains(cell) {
                Some(("#fafafa", "#333333"))
            } else if pos.pieces(Player::Black).contains(cell) {
                Some(("#222222", "#000000"))
            } else {
                None
            };
            if let Some((fill, stroke)) = piece {
                let (cx, cy) = (x + CELL / 2, y + CELL / 2);
                let _ = write!(
                    out,
                    "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"2\"/>",
                    CELL * 2 / 5
                );
            }
        }
    }
    for file in 0..cols {
        let x = MARGIN + file * CELL + CELL / 2;
        let label = (b'a' + file as u8) as char;
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
            MARGIN + rows * CELL + 15
        );
    }
    for rank in 0..rows {
        let y = MARGIN + (rows - 1 - rank) * CELL + CELL / 2 + 5;
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{y}\" text-anchor=\"middle\">{}</text>",
            MARGIN / 2,
            rank + 1
        );
    }
    for (i, line) in caption.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"{MARGIN}\" y=\"{}\">{line}</text>",
            board_bottom + 18 * (i as u32 + 1)
        );
    }
    out + "</svg>"
}

/// The names of the presets, in the engine's order.
#[pyfunction]
fn presets() -> Vec<(&'static str, &'static str)> {
    Variant::PRESETS
        .iter()
        .map(|p| (p.name, p.description))
        .collect()
}

#[pymodule]
#[pyo3(name = "_yote")]
fn yote_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Board>()?;
    m.add_class::<PyMove>()?;
    m.add_class::<PyOutcome>()?;
    m.add("IllegalMoveError", m.py().get_type::<IllegalMoveError>())?;
    m.add("WHITE", WHITE)?;
    m.add("BLACK", !WHITE)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    Ok(())
}
