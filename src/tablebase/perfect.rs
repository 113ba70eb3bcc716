//! Perfect play read off a solved table set: every move that keeps a
//! position's value, and the game both sides play perfectly from it (the
//! winner winning as fast as it can, the loser losing as slowly as it can).
//! What `yote solve` publishes for a solved board.

use super::class::Class;
use super::table::Tablebase;
use super::value::{Metric, Value};
use crate::rules::{Move, MoveList, Position, Rules};
use anyhow::{Result, bail};

/// Where perfect play is read from: a solved table set, or (in tests) a
/// wrapper that lies, to show the checks below catch a wrong table.
pub trait Solved {
    fn rules(&self) -> &Rules;
    fn probe(&self, pos: &Position) -> Option<Value>;
    fn metric(&self) -> Metric {
        Metric::Dtm
    }
}

impl Solved for Tablebase {
    fn rules(&self) -> &Rules {
        Tablebase::rules(self)
    }
    fn probe(&self, pos: &Position) -> Option<Value> {
        Tablebase::probe(self, pos)
    }
    fn metric(&self) -> Metric {
        Tablebase::metric(self)
    }
}

/// Every legal move of `pos` with the value it leads to for the side that
/// plays it, in move generation order.
pub fn move_values(tables: &dyn Solved, pos: &Position) -> Result<Vec<(Move, Value)>> {
    let rules = tables.rules();
    let mut list = MoveList::new();
    if rules.status(pos).is_none() {
        rules.legal_moves(pos, &mut list);
    }
    let mut values = Vec::with_capacity(list.len());
    for mv in list.iter() {
        let mut child = *pos;
        rules.apply(&mut child, mv);
        let same = child.side_to_move() == pos.side_to_move();
        let Some(v) = tables.probe(&child) else {
            bail!(
                "no table for class {} after {}",
                Class::of(&child),
                rules.move_text(mv)
            )
        };
        values.push((*mv, tables.metric().before_move(v, &child, same)));
    }
    Ok(values)
}

/// The value of `pos` for its side to move, or an error naming the class
/// whose table is missing.
pub fn value_of(tables: &dyn Solved, pos: &Position) -> Result<Value> {
    match tables.probe(pos) {
        Some(value) => Ok(value),
        None => bail!(
            "no table for this position (class {}) in the directory",
            Class::of(pos)
        ),
    }
}

/// Every move of `pos` that achieves its value, in move generation order
/// (none when the game is over).
pub fn optimal_moves(tables: &dyn Solved, pos: &Position) -> Result<Vec<Move>> {
    let value = value_of(tables, pos)?;
    Ok(move_values(tables, pos)?
        .into_iter()
        .filter(|&(_, v)| v == value)
        .map(|(mv, _)| mv)
        .collect())
}

/// The game from `pos` with both sides perfect, up to its end: at each
/// position the first optimal move in generation order. None when `pos` is
/// drawn (perfect play never ends). The line is checked as it is played:
/// each move must bring the distance down by one ply and the game must end
/// exactly when the distance reaches zero, as the value said.
pub fn perfect_game(tables: &dyn Solved, pos: &Position) -> Result<Option<Vec<Move>>> {
    let rules = tables.rules();
    if tables.metric() != Metric::Dtm {
        bail!("the perfect game needs the distance to the end (tables of metric dtm)");
    }
    let first = value_of(tables, pos)?;
    if first == Value::Draw {
        return Ok(None);
    }
    let mut line = Vec::new();
    let mut here = *pos;
    let mut value = first;
    while rules.status(&here).is_none() {
        let Some(&mv) = optimal_moves(tables, &here)?.first() else {
            bail!(
                "{}: {value} but no move keeps it",
                rules.position_text(&here)
            )
        };
        rules.apply(&mut here, &mv);
        let next = value_of(tables, &here)?;
        if next.distance() + 1 != value.distance() {
            bail!(
                "after {}: {next} does not follow {value}",
                rules.move_text(&mv)
            );
        }
        line.push(mv);
        value = next;
    }
    let winner = rules.status(&here).and_then(|end| end.winner());
    let first_player_won = winner == Some(pos.side_to_move());
    if line.len() != usize::from(first.distance())
        || first_player_won != matches!(first, Value::Win(_))
    {
        bail!(
            "the perfect game ended after {} plies with winner {winner:?}, not the {first} the table says",
            line.len()
        );
    }
    Ok(Some(line))
}

/// Moves as text separated by spaces.
pub fn line_text(tables: &dyn Solved, moves: &[Move]) -> String {
    let rules = tables.rules();
    moves
        .iter()
        .map(|mv| rules.move_text(mv))
        .collect::<Vec<_>>()
        .join(" ")
}
