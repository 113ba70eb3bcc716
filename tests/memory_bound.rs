//! Generation within a memory bound (`tb generate --memory-bound`): each
//! pair solved with only the classes its exits can reach read from disk
//! gives the tables of the whole-set generation — the win/draw/loss files
//! byte for byte, every distance the same — in every rule family (so the
//! exits it loads are all the exits there are: a missing one stops the
//! solver). Its distance files keep the losses, which the whole-set run
//! leaves to be derived.

#[path = "support/families.rs"]
mod families;

use families::FAMILIES;
use std::path::{Path, PathBuf};
use yote::rules::{Rules, Variant};
use yote::tablebase::bound::generate_bounded;
use yote::tablebase::generate::Silent;
use yote::tablebase::{Metric, Request, Shard, generate};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-bound-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn request(pieces: u32, dir: &Path) -> Request {
    Request {
        pieces,
        dir: Some(dir.to_path_buf()),
        shard: Shard::ALL,
        threads: 2,
        metric: Metric::Dtm,
    }
}

fn wdl_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "ytw"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    all.sort();
    all
}

fn codes(rules: &Rules, dir: &Path) -> Vec<(String, Vec<u16>)> {
    let tables = yote::tablebase::read_dir(rules, dir, 8).unwrap();
    tables
        .tables()
        .iter()
        .map(|t| {
            let codes = t.codes().unwrap();
            let all = (0..codes.len()).map(|i| codes.get(i)).collect();
            (t.class().to_string(), all)
        })
        .collect()
}

#[test]
fn bounded_generation_writes_the_same_tables_in_every_family() {
    for family in FAMILIES {
        let spec = format!("{family},rows=3,cols=4,pieces=4");
        let rules = Rules::new(Variant::from_spec(&spec).unwrap()).unwrap();
        let (whole, bounded) = (temp_dir("whole"), temp_dir("bounded"));
        generate(&rules, &request(8, &whole), &Silent).unwrap();
        let report = generate_bounded(&rules, &request(8, &bounded), &Silent).unwrap();
        assert!(report.solved.len() > 20, "{spec}");
        assert_eq!(wdl_files(&whole), wdl_files(&bounded), "{spec}");
        assert_eq!(codes(&rules, &whole), codes(&rules, &bounded), "{spec}");
        // The whole-set run's files leave the losses to be derived: a
        // memory-bound run cannot read them alone, and says so.
        std::fs::remove_file(whole.join("4-4-0-0.ytw")).unwrap();
        let refused = generate_bounded(&rules, &request(8, &whole), &Silent).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("--memory-bound needs every distance stored"),
            "{refused}"
        );
        // Resumed: every class is kept, none solved again.
        let again = generate_bounded(&rules, &request(8, &bounded), &Silent).unwrap();
        assert!(again.solved.is_empty() && again.kept.len() == report.solved.len());
        let _ = std::fs::remove_dir_all(&whole);
        let _ = std::fs::remove_dir_all(&bounded);
    }
}

#[test]
fn bounded_generation_needs_a_directory() {
    let rules = Rules::new(Variant::from_spec("rows=3,cols=3,pieces=2").unwrap()).unwrap();
    let request = Request {
        pieces: 4,
        dir: None,
        shard: Shard::ALL,
        threads: 1,
        metric: Metric::Dtm,
    };
    let refused = generate_bounded(&rules, &request, &Silent).unwrap_err();
    assert!(refused.to_string().contains("--dir"), "{refused}");
}
