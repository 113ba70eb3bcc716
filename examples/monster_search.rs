use std::time::Instant;
use yote::rules::*;
use yote::search::*;
fn main() {
    let v = Variant::from_spec("standard,rows=8,cols=8,pieces=64,multi_jump=true").unwrap();
    let r = Rules::new(v).unwrap();
    let p = r
        .parse_position(
            "BBBBBBBB/1B1B1B1B/BBBBBBBB/1B1B1B1B/BBBBBBBB/1B1B1B1B/BBBBBBBB/WB1B1B1B w 10 0 0 1",
        )
        .unwrap();
    let g = Game::from_position(r, p);
    let mut e = Engine::new(SearchOptions::default());
    for mt in [1u64, 20, 11, 50] {
        let t = Instant::now();
        let res = e.search(
            &g,
            SearchRequest {
                limits: Limits {
                    movetime: Some(mt),
                    ..Limits::default()
                },
                searchmoves: vec![],
            },
        );
        println!("movetime {mt}: {:?} nodes {}", t.elapsed(), res.nodes);
    }
}
