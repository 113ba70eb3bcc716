#!/usr/bin/env bash
# Issue 11's strength measurements: this build against a base build (the
# engine of 6c9fbb0) at 1 s + 10 ms through the match runner, and the draw
# rate of each engine's self-play.
#
#   scripts/match/against_base.sh /path/to/yote-6c9fbb0                 # all steps
#   STEPS=standard TABLES=tb8 scripts/match/against_base.sh BASE        # the SPRT, new engine with tables
#   STEPS="presets selfplay" GAMES=200 scripts/match/against_base.sh BASE
#
# Steps (STEPS, default the first three):
#   standard  SPRT elo0=100 elo1=150, standard rules, at most MAX_GAMES games
#   presets   GAMES games in each other preset (PRESETS, default all six):
#             no preset may lose strength
#   selfplay  GAMES games of each engine against itself; prints how many
#             reached the ply limit (the conversion figure)
#   fixed     GAMES games in the standard rules, no SPRT (its interval does
#             not depend on when a test stopped), other openings (seed 42)
# TABLES (a directory of standard tables, `yote tb generate`) is given to the
# new engine in the standard rules only, probing up to TB_PIECES pieces
# (default 8).
# Records and summaries go to ${OUT:-against_base}/; a rerun resumes a
# half-played step and skips the finished ones. Leave the machine otherwise
# idle: both engines play on the clock.
set -euo pipefail
base=${1:?usage: scripts/match/against_base.sh BASE_ENGINE}
cd "$(dirname "$0")/../.."
STEPS=${STEPS:-"standard presets selfplay"}
GAMES=${GAMES:-100}
MAX_GAMES=${MAX_GAMES:-2000}
TC=${TC:-1+0.01}
OUT=${OUT:-against_base}
E=${ENGINE:-target/release/yote}
[[ -n "${ENGINE:-}" ]] || cargo build --release --quiet
mkdir -p "$OUT"
# The margin absorbs a loaded machine's scheduling delays; the engines still
# budget their time by the clock (docs/search.md).
FLAGS=(--tc "$TC" --timeout-margin 1000 --concurrency "${CONCURRENCY:-2}" --quiet)
base_engine="name=base,cmd=$base"
new_standard="name=new,cmd=$E"
if [[ -n "${TABLES:-}" ]]; then
    # Pieces before the path: each setting reloads the tables.
    new_standard+=",option.TablebasePieces=${TB_PIECES:-8},option.TablebasePath=$TABLES"
fi

# play NAME SEED ARGS...: one match into $OUT/NAME.pgn, resumed if half-played,
# skipped if its summary exists; prints the summary's first two lines.
play() {
    local name=$1 seed=$2
    shift 2
    local pgn="$OUT/$name.pgn" summary="$OUT/$name.txt"
    if [[ ! -s "$summary" ]]; then
        local resume=()
        [[ -s "$pgn" ]] && resume=(--resume)
        echo "== $name" >&2
        "$E" match --seed "$seed" "${FLAGS[@]}" "${resume[@]}" "$@" --pgn "$pgn" >"$summary.part"
        mv "$summary.part" "$summary"
    fi
    echo "$name: $(head -1 "$summary")"
    sed -n 2p "$summary"
}

for step in $STEPS; do
    case $step in
    standard)
        play standard 41 --games "$MAX_GAMES" --sprt elo0=100,elo1=150 \
            --engine "$new_standard" --engine "$base_engine"
        ;;
    fixed)
        play fixed 42 --games "$GAMES" --engine "$new_standard" --engine "$base_engine"
        ;;
    presets)
        seed=70
        for v in hand-removal 6x6 classic 5x5 boxed all-options; do
            seed=$((seed + 1))
            [[ " ${PRESETS:-$v} " == *" $v "* ]] || continue
            play "preset-$v" "$seed" --variant "$v" --games "$GAMES" \
                --engine "name=new,cmd=$E" --engine "$base_engine"
        done
        ;;
    selfplay)
        for who in new base; do
            # Both copies alike: with the tables when the new engine has them.
            spec=$new_standard
            [[ $who == base ]] && spec=$base_engine
            play "selfplay-$who" 61 --games "$GAMES" --engine "${spec/name=$who/name=a}" \
                --engine "${spec/name=$who/name=b}" >/dev/null
            echo "selfplay-$who: $(grep -c 'Termination "max plies"' "$OUT/selfplay-$who.pgn" || true)" \
                "of $(grep -c '^\[Result ' "$OUT/selfplay-$who.pgn") games at the ply limit"
        done
        ;;
    *)
        echo "unknown step '$step' (standard, presets, selfplay, fixed)" >&2
        exit 2
        ;;
    esac
done
