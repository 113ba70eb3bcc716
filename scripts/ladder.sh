#!/usr/bin/env bash
# The strength ladder of docs/strength.md: the random player, the greedy
# player and every `Skill Level` from 0 to 20 (full strength at 1 s a
# move), each playing its neighbours through `yote match`, then rated
# together by maximum likelihood with the random player fixed at 0.
#
#   scripts/ladder.sh                    # every pair, 200 games each
#   GAMES=20 scripts/ladder.sh           # a quick look
#   ONLY="L19-L20" scripts/ladder.sh     # some pairs (names as in PAIRS)
#   scripts/ladder.sh --rescore          # only the standings of what is played
#   scripts/ladder.sh --check 800 2000   # UCI_Elo 800 and 2000 against the
#                                        # levels rated around them
#   CONCURRENCY=1 ONLY=... scripts/ladder.sh &   # two runs side by side
#
# Every pair's games go to ${OUT:-ladder}/<pair>.pgn. An interrupted run
# (Ctrl-C) continues where it stopped when started again with the same
# settings: finished pairs are skipped, a half-played one resumes. The
# engine is copied to $OUT/yote once, so that every game of the ladder is
# played by the same build even if the tree is rebuilt meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-200}
OUT=${OUT:-ladder}
# Games stop at 200 plies (a draw) and are adjudicated when both engines
# agree that one side is 8 pieces ahead for 6 plies: without that, games
# between close levels shuffle to any ply limit at a second a move. A move
# may come 500 ms late: on a loaded machine a search told to stop at 1 s
# can be scheduled that late, and that is the machine's fault, not a loss.
FLAGS=(--movetime 1000 --max-plies 200 --resign cp=800,plies=6 --timeout-margin 500
    --concurrency "${CONCURRENCY:-2}")

# Neighbours on the ladder: the chain of levels, and the two baselines
# against the levels around them.
PAIRS="random-L0 L0-L1 L1-L2 L2-L3 L3-L4 greedy-L3 greedy-L5 L4-L5 L5-L6 L6-L7
L7-L8 L8-L9 L9-L10 L10-L11 L11-L12 L12-L13 L13-L14 L14-L15 L15-L16 L16-L17
L17-L18 L18-L19 L19-L20"

mkdir -p "$OUT"
if [[ ! -x "$OUT/yote" ]]; then
    cargo build --release --quiet
    cp target/release/yote "$OUT/yote"
fi
E="$OUT/yote"

player() {
    case "$1" in
        random | greedy) echo "name=$1,cmd=$E,option.Style=$1" ;;
        L*) echo "name=$1,cmd=$E,option.Skill Level=${1#L}" ;;
    esac
}

standings() {
    "$E" match --rescore "$OUT"/*.pgn --anchor random | sed -n '/^Elo relative\|finite rating\|^Rank/,/^$/p'
}

# UCI_Elo X plays GAMES/2 games against each of the two levels whose
# ratings bracket X; its own rating then comes from all the ladder's games.
# UCI_Elo is played by the current build (CHECK_ENGINE), the one whose
# LADDER table holds the ratings just measured; the levels by $OUT/yote.
if [[ "${1:-}" == "--check" ]]; then
    shift
    C=${CHECK_ENGINE:-target/release/yote}
    [[ -n "${CHECK_ENGINE:-}" ]] || cargo build --release --quiet
    # The engine refuses a UCI_Elo outside its range, which a quick ladder
    # can rate its levels below: such a rating is reported and skipped.
    read -r elo_min elo_max < <(echo uci | "$C" 2>/dev/null |
        awk '$3 == "UCI_Elo" { for (i = 4; i < NF; i++) { if ($i == "min") lo = $(i + 1); if ($i == "max") hi = $(i + 1) } }
             END { print lo, hi }')
    for elo in "$@"; do
        if (( elo < elo_min || elo > elo_max )); then
            echo "UCI_Elo $elo: outside the engine's range $elo_min..$elo_max" >&2
            continue
        fi
        below= above=
        # The first level rated at most X whose next level is rated above.
        read -r below above < <(standings | awk -v x="$elo" '
            $2 ~ /^L[0-9]+$/ { rated[substr($2, 2) + 0] = $3 }
            END { for (k = 0; k < 20; k++)
                      if ((k in rated) && ((k + 1) in rated) && rated[k] <= x && rated[k + 1] > x) {
                          print "L" k, "L" k + 1; exit } }') || true
        if [[ -z "${above:-}" ]]; then
            echo "UCI_Elo $elo: no two neighbouring levels are rated around it" >&2
            continue
        fi
        for level in $below $above; do
            pgn="$OUT/check-$elo-$level.pgn"
            resume=()
            [[ -s "$pgn" ]] && resume=(--resume)
            echo "== UCI_Elo $elo vs $level" >&2
            "$E" match --games $((GAMES / 2)) --seed "$elo" "${FLAGS[@]}" "${resume[@]}" \
                --engine "name=E$elo,cmd=$C,option.UCI_LimitStrength=true,option.UCI_Elo=$elo" \
                --engine "$(player "$level")" --pgn "$pgn" --quiet >"$OUT/check-$elo-$level.txt"
            head -1 "$OUT/check-$elo-$level.txt" >&2
        done
    done
    standings
    exit
fi

if [[ "${1:-}" != "--rescore" ]]; then
    seed=0
    for pair in $PAIRS; do
        seed=$((seed + 1))
        if [[ -n "${ONLY:-}" && " $ONLY " != *" $pair "* ]]; then
            continue
        fi
        pgn="$OUT/$pair.pgn"
        # The random player scores about 2 % against level 0: that link
        # carries every rating's interval, so it gets five times the games
        # (they take seconds).
        games=$GAMES
        [[ $pair == random-L0 ]] && games=$((GAMES * 5))
        resume=()
        if [[ -s "$pgn" ]]; then
            played=$(grep -c '^\[Result ' "$pgn" || true)
            if ((played >= games)); then
                continue
            fi
            resume=(--resume)
        fi
        echo "== $pair" >&2
        "$E" match --games "$games" --seed "$seed" "${FLAGS[@]}" "${resume[@]}" \
            --engine "$(player "${pair%-*}")" --engine "$(player "${pair#*-}")" \
            --pgn "$pgn" --quiet >"$OUT/$pair.txt"
        head -2 "$OUT/$pair.txt" >&2
    done
fi
standings
