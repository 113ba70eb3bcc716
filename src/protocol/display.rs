//! Text for people: the `d` board, the `eval` breakdown and the `moves`
//! list. None of this is parsed by GUIs, so it favours readability.

use super::settings::variant_spec;
use crate::eval::{self, nnue};
use crate::rules::{Game, MoveList, Player, Position, Rules};
use crate::search::alphabeta::NetworkUse;
use crate::search::tables::Tables;
use crate::tablebase::{Metric, Value};

/// The board with rank numbers and file letters, top rank first.
pub fn board(rules: &Rules, pos: &Position) -> Vec<String> {
    let geometry = rules.geometry();
    let variant = rules.variant();
    let files: String = (0..variant.cols)
        .map(|f| format!(" {}", (b'a' + f) as char))
        .collect();
    let border = format!("  +{}+", "-".repeat(2 * usize::from(variant.cols) + 1));
    let mut lines = vec![format!("   {files}"), border.clone()];
    for rank in (0..variant.rows).rev() {
        let cells: String = (0..variant.cols)
            .map(|file| {
                let cell = geometry.cell(file, rank);
                match (
                    pos.pieces(Player::White).contains(cell),
                    pos.pieces(Player::Black).contains(cell),
                ) {
                    (true, _) => " W",
                    (_, true) => " B",
                    _ => " .",
                }
            })
            .collect();
        lines.push(format!("{} |{cells} | {}", rank + 1, rank + 1));
    }
    lines.push(border);
    lines.push(format!("   {files}"));
    lines
}

fn player_label(player: Player) -> &'static str {
    match player {
        Player::White => "white (player 1)",
        Player::Black => "black (player 2)",
    }
}

/// `d`: the board, then one `Key: value` line per fact.
pub fn describe(game: &Game) -> Vec<String> {
    let rules = game.rules();
    let pos = game.position();
    let mut lines = board(rules, pos);
    let status = match (game.status(), pos.owed_removals()) {
        (Some(end), _) => format!("game over, {end}"),
        (None, 0) => "in progress".to_string(),
        (None, owed) => format!(
            "in progress, {} owes {owed} removal(s) for its jump",
            pos.side_to_move()
        ),
    };
    let count = |f: fn(&Position, Player) -> u32| {
        format!(
            "white {}, black {}",
            f(pos, Player::White),
            f(pos, Player::Black)
        )
    };
    lines.extend([
        format!("Position: {}", rules.position_text(pos)),
        format!("Side to move: {}", player_label(pos.side_to_move())),
        format!("In hand: {}", count(Position::hand)),
        format!("On board: {}", count(|p, pl| p.pieces(pl).count())),
        format!("Plies since capture: {}", pos.plies_since_capture()),
        format!("Moves played: {}", game.moves().len()),
        format!("Status: {status}"),
        format!("Variant: {}", variant_spec(rules.variant())),
    ]);
    lines
}

/// `eval`: a table of terms, then the total from the side to move's view,
/// the network's value, and which of the two the search uses and why
/// (`network`: `Features::network_use` for these rules).
pub fn eval_report(game: &Game, network: NetworkUse) -> Vec<String> {
    let pos = game.position();
    let terms = eval::explain(game.rules(), pos);
    let mut lines = vec![format!(
        "{:<18}{:>8}{:>8}{:>8}",
        "term", "white", "black", "diff"
    )];
    let (mut white, mut black) = (0, 0);
    for t in &terms {
        lines.push(format!(
            "{:<18}{:>8}{:>8}{:>8}",
            t.name,
            t.white,
            t.black,
            t.white - t.black
        ));
        white += t.white;
        black += t.black;
    }
    lines.push(format!(
        "{:<18}{:>8}{:>8}{:>8}",
        "total",
        white,
        black,
        white - black
    ));
    let side = pos.side_to_move();
    let total = eval::evaluate(game.rules(), pos);
    lines.push(format!("Evaluation: {total} cp for {}", player_label(side)));
    // The learned evaluation beside the fitted one, and which of them the
    // search would use: a reader of a score must know which spoke.
    let net = nnue::evaluate(game.rules(), pos);
    lines.push(match net {
        Some(cp) if nnue::Network::embedded_kind() == Some(nnue::Kind::Correction) => format!(
            "Network: {cp} cp for {} (the fitted {total} and a learned correction of {})",
            player_label(side),
            cp - total
        ),
        Some(cp) => format!("Network: {cp} cp for {}", player_label(side)),
        None => "Network: none for these rules".to_string(),
    });
    lines.push(
        match network {
            NetworkUse::Network => "The search uses: the network",
            NetworkUse::SwitchedOff => {
                "The search uses: the fitted evaluation (SearchFeatures -nnue)"
            }
            NetworkUse::NotMeasured => {
                "The search uses: the fitted evaluation (the network is not measured to win \
                 under these rules; SearchFeatures +nnue_all uses it)"
            }
            NetworkUse::NoNetwork => {
                "The search uses: the fitted evaluation (no network for these rules)"
            }
        }
        .to_string(),
    );
    if let Some(end) = game.status() {
        lines.push(format!("The game is over: {end}"));
    }
    lines
}

/// `Tablebase: win in 7 plies` (for the side to move), when the tables hold
/// the position and the history rules cannot change its value.
pub fn table_line(tables: &Tables, game: &Game) -> Option<String> {
    let prober = tables.prober(game.rules())?;
    let value = prober.value(game.position(), game.keys())?;
    let side = game.position().side_to_move();
    let player = player_label(side);
    Some(match (value, prober.metric()) {
        (Value::Draw, _) => format!("Tablebase: draw for {player}"),
        (value, Metric::Dtm) => format!("Tablebase: {value} plies for {player}"),
        (Value::Win(d) | Value::Loss(d), Metric::Dtz) => {
            let result = if matches!(value, Value::Win(_)) {
                "win"
            } else {
                "loss"
            };
            format!("Tablebase: {result} for {player}, the next capture in {d} plies")
        }
    })
}

/// `moves` and `query moves`: the legal moves' texts in generation order (none once the game is over),
/// or, when they are more than a move list holds, their number.
pub fn legal_move_texts(game: &Game) -> Result<Vec<String>, u64> {
    let mut list = MoveList::new();
    game.legal_moves(&mut list);
    let rules = game.rules();
    if list.is_truncated() {
        return Err(rules.count_legal_moves(game.position()));
    }
    Ok(list.iter().map(|mv| rules.move_text(mv)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::alphabeta::Features;

    #[test]
    fn board_shows_pieces_in_their_cells() {
        let rules = Rules::standard();
        let pos = rules.parse_position("W5/6/6/6/5B w 11 11 0 1").unwrap();
        let lines = board(&rules, &pos);
        assert_eq!(lines[0], "    a b c d e f");
        assert_eq!(lines[2], "5 | W . . . . . | 5");
        assert_eq!(lines[6], "1 | . . . . . B | 1");
    }

    #[test]
    fn eval_lists_every_term_and_the_movers_score() {
        let rules = Rules::standard();
        // Black to move, two pieces down.
        let pos = rules.parse_position("W5/6/6/6/5B b 11 9 0 1").unwrap();
        let score = eval::evaluate(&rules, &pos);
        assert!(score < 0, "{score}");
        let terms = eval::explain(&rules, &pos);
        let defaults = Features::default();
        let report = eval_report(
            &Game::from_position(rules.clone(), pos),
            defaults.network_use(rules.variant()),
        );
        for term in &terms {
            assert!(
                report.iter().any(|l| l.starts_with(term.name)),
                "{} missing",
                term.name
            );
        }
        let last = format!("Evaluation: {score} cp for black (player 2)");
        assert!(report.contains(&last), "{report:?}");
        let net = nnue::evaluate(&Rules::standard(), &pos).unwrap();
        let network = format!(
            "Network: {net} cp for black (player 2) (the fitted {score} and a learned correction of {})",
            net - score
        );
        assert!(report.contains(&network), "{report:?}");
        let uses = |r: &[String]| r.iter().find(|l| l.starts_with("The search uses")).cloned();
        assert_eq!(
            uses(&report).as_deref(),
            Some("The search uses: the network")
        );
        let off = Features::parse("-nnue").unwrap();
        let off = eval_report(
            &Game::from_position(rules.clone(), pos),
            off.network_use(rules.variant()),
        );
        assert_eq!(
            uses(&off).as_deref(),
            Some("The search uses: the fitted evaluation (SearchFeatures -nnue)")
        );
        // Trained for all-options but lost there: only +nnue_all uses it.
        let lost = Rules::new(crate::rules::Variant::preset("all-options").unwrap()).unwrap();
        let unmeasured = eval_report(
            &Game::new(lost.clone()),
            defaults.network_use(lost.variant()),
        );
        assert_eq!(
            uses(&unmeasured).as_deref(),
            Some(
                "The search uses: the fitted evaluation (the network is not measured to win \
                 under these rules; SearchFeatures +nnue_all uses it)"
            )
        );
        let all = Features::parse("+nnue_all").unwrap();
        let all = eval_report(&Game::new(lost.clone()), all.network_use(lost.variant()));
        assert_eq!(uses(&all).as_deref(), Some("The search uses: the network"));
        let big = Rules::new(crate::rules::Variant::from_spec("rows=7,cols=7").unwrap()).unwrap();
        let report = eval_report(&Game::new(big.clone()), defaults.network_use(big.variant()));
        assert!(report.contains(&"Network: none for these rules".to_string()));
        let says = |report: &[String], what: &str| report.iter().any(|l| l == what);
        assert!(says(
            &report,
            "The search uses: the fitted evaluation (no network for these rules)"
        ));
    }
}
