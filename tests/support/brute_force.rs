//! An independent solver for the tests: every position reachable from the
//! start in a hash map, solved by plain forward passes distance by distance.
//! It shares nothing with the retrograde solver but the rules.

use std::collections::HashMap;
use yote::rules::{MoveList, Player, Position, Rules};
use yote::tablebase::{Tablebase, Value};

/// What makes a position itself: cells, hands and side to move.
type Key = (u64, u64, u32, u32, Player);

fn key(pos: &Position) -> Key {
    (
        pos.pieces(Player::White).0,
        pos.pieces(Player::Black).0,
        pos.hand(Player::White),
        pos.hand(Player::Black),
        pos.side_to_move(),
    )
}

/// Solves every position reachable from the start by plain forward passes
/// over a hash map, distance by distance: shares nothing with the
/// retrograde solver but the rules.
pub fn brute_force(rules: &Rules) -> HashMap<Key, (Position, Value)> {
    let mut positions = vec![rules.start_position()];
    let mut seen: HashMap<Key, usize> = HashMap::from([(key(&positions[0]), 0)]);
    let mut children: Vec<Vec<(usize, bool)>> = Vec::new();
    let mut list = MoveList::new();
    let mut values: Vec<Option<Value>> = Vec::new();
    let mut next = 0;
    while next < positions.len() {
        let pos = positions[next];
        next += 1;
        let mut edges = Vec::new();
        let end = rules.status(&pos);
        values.push(end.map(|end| match end.winner() {
            None => Value::Draw,
            Some(p) if p == pos.side_to_move() => Value::Win(0),
            Some(_) => Value::Loss(0),
        }));
        if end.is_none() {
            rules.legal_moves(&pos, &mut list);
            for mv in list.iter() {
                let mut child = pos;
                rules.apply(&mut child, mv);
                let id = *seen.entry(key(&child)).or_insert_with(|| {
                    positions.push(child);
                    positions.len() - 1
                });
                edges.push((id, child.side_to_move() == pos.side_to_move()));
            }
        }
        children.push(edges);
    }
    for level in 1u16.. {
        let mut found = Vec::new();
        for (i, edges) in children.iter().enumerate() {
            if values[i].is_some() {
                continue;
            }
            let (mut best, mut all_known) = (None, true);
            for &(c, same) in edges {
                match values[c] {
                    Some(v) => best = best.max(Some(v.before_move(same))),
                    None => all_known = false,
                }
            }
            if best == Some(Value::Win(level)) || (all_known && best == Some(Value::Loss(level))) {
                found.push((i, best.unwrap()));
            }
        }
        if found.is_empty() && level > 2 {
            break;
        }
        for (i, v) in found {
            values[i] = Some(v);
        }
    }
    seen.into_iter()
        .map(|(k, i)| (k, (positions[i], values[i].unwrap_or(Value::Draw))))
        .collect()
}

/// Asserts that `tables` give every position the brute force reaches from
/// the start its brute-force value; returns how many positions that is.
pub fn assert_tables_agree(rules: &Rules, tables: &Tablebase, spec: &str) -> usize {
    let solved = brute_force(rules);
    for (position, value) in solved.values() {
        assert_eq!(
            tables.probe(position),
            Some(*value),
            "{spec}: {}",
            rules.position_text(position)
        );
    }
    solved.len()
}
