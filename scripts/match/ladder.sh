#!/usr/bin/env bash
# The strength ladder of docs/strength.md: the random player, the greedy
# player and every `Skill Level` from 0 to 20 (full strength at 1 s a
# move), each playing its neighbours through `yote match`, then rated
# together by maximum likelihood with the random player fixed at 0.
#
#   scripts/match/ladder.sh                    # every pair, 200 games each
#   GAMES=20 scripts/match/ladder.sh           # a quick look
#   ONLY="L19-L20" scripts/match/ladder.sh     # some pairs (names as in PAIRS)
#   scripts/match/ladder.sh --rescore          # only the standings of what is played
#   scripts/match/ladder.sh --check 800 2000   # UCI_Elo 800 and 2000 against the
#                                        # levels rated around them
#   CONCURRENCY=1 ONLY=... scripts/match/ladder.sh &   # two runs side by side
#   scripts/match/ladder.sh --refit            # play what is missing, fit, and write
#                                        # src/search/ladder.rs (the table the
#                                        # engine embeds); SHARD=2/4 plays only
#                                        # every 4th pair from the 2nd (a cluster
#                                        # task) and fits nothing
#   scripts/match/ladder.sh --drift            # UCI_Elo pairs 400 apart; exits 1 when
#                                        # a difference is off by more than TOL
#
# Every pair's games go to ${OUT:-ladder}/<pair>.pgn. An interrupted run
# (Ctrl-C) continues where it stopped when started again with the same
# settings: finished pairs are skipped, a half-played one resumes. The
# engine is copied to $OUT/yote once, so that every game of the ladder is
# played by the same build even if the tree is rebuilt meanwhile.
set -euo pipefail
cd "$(dirname "$0")/../.."
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

# UCI_Elo A against B for each pair A/B (default 400 apart across the
# range), GAMES games at the clock in DRIFT_CLOCK (match flags, default
# `--tc 1+0.01`); prints B's measured lead over A with its interval and
# fails when it is further than TOL (default 100) from B - A.
if [[ "${1:-}" == "--drift" ]]; then
    shift
    C=${CHECK_ENGINE:-target/release/yote}
    [[ -n "${CHECK_ENGINE:-}" ]] || cargo build --release --quiet
    read -r -a clock <<<"${DRIFT_CLOCK:---tc 1+0.01}"
    tol=${TOL:-100}
    pairs=("$@")
    ((${#pairs[@]})) || pairs=(1000/1400 1400/1800 1800/2200 2200/2600)
    tag=$(echo "${clock[*]}" | tr -c 'A-Za-z0-9.+\n' '_')
    failed=0
    printf '%-11s %-16s %6s  %s\n' pair clock games "B - A (Elo, 95%)" >&2
    for pair in "${pairs[@]}"; do
        a=${pair%/*} b=${pair#*/}
        pgn="$OUT/drift-$a-$b-$tag.pgn"
        resume=()
        [[ -s "$pgn" ]] && resume=(--resume)
        "$E" match --games "$GAMES" --seed "$a" "${clock[@]}" --max-plies 200 \
            --resign cp=800,plies=6 --timeout-margin 500 --concurrency "${CONCURRENCY:-2}" "${resume[@]}" \
            --engine "name=E$a,cmd=$C,option.UCI_LimitStrength=true,option.UCI_Elo=$a" \
            --engine "name=E$b,cmd=$C,option.UCI_LimitStrength=true,option.UCI_Elo=$b" \
            --pgn "$pgn" --quiet >"$OUT/drift-$a-$b-$tag.txt"
        # The first engine's pentanomial Elo, negated: B's lead over A.
        read -r elo err < <(awk '/pentanomial:/ { e = $3; sub(/,$/, "", $5); print -e, $5; exit }' \
            "$OUT/drift-$a-$b-$tag.txt")
        verdict=ok
        if ! awk -v d="$elo" -v want=$((b - a)) -v tol="$tol" 'BEGIN { exit !(d != "" && d - want <= tol && want - d <= tol) }'; then
            verdict="OFF (more than $tol from $((b - a)))"
            failed=1
        fi
        printf '%-11s %-16s %6s  %+.0f ± %s  %s\n' "$pair" "${clock[*]}" "$GAMES" "$elo" "$err" "$verdict"
    done
    exit $failed
fi

if [[ "${1:-}" != "--rescore" ]]; then
    seed=0
    index=0
    for pair in $PAIRS; do
        seed=$((seed + 1))
        index=$((index + 1))
        if [[ -n "${ONLY:-}" && " $ONLY " != *" $pair "* ]]; then
            continue
        fi
        # SHARD=k/n: this task plays the pairs k, k+n, k+2n, ... of PAIRS.
        if [[ -n "${SHARD:-}" ]] && (((index - 1) % ${SHARD#*/} != ${SHARD%/*} - 1)); then
            continue
        fi
        # TOP=carry leaves out the one pair played at full strength, the
        # ladder's dearest (about 100 s a game): the refit then keeps the
        # embedded gap between levels 19 and 20.
        if [[ "${TOP:-}" == carry && $pair == L19-L20 ]]; then
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
[[ -n "${SHARD:-}" ]] && exit 0
if [[ "${1:-}" == "--refit" ]]; then
    # Each level's rating with the random player at 0, in level order; a
    # level rated no higher than the one below it (the lowest levels lie
    # within noise of each other) is set one above it, so the table rises.
    # The table goes to LADDER_RS (default: the one the engine embeds).
    target=${LADDER_RS:-src/search/ladder.rs}
    embedded=$(sed -n '/LADDER: \[u32; 21\] = \[/,/\];/p' src/search/ladder.rs | tr -cs '0-9' ' ')
    read -r -a old <<<"$embedded"
    old=("${old[@]:2}") # drop the "32" and "21" of the type
    table=$(standings | awk -v top="${old[20]} ${old[19]}" '
        $2 ~ /^L[0-9]+$/ { r[substr($2, 2) + 0] = $3 + 0 }
        END {
            split(top, t, " ")
            if (!(20 in r)) { r[20] = r[19] + (t[1] - t[2]); carried = 1 }
            for (k = 0; k <= 20; k++) {
                if (!(k in r) || r[k] != r[k] || r[k] > 100000) {
                    print "level " k " has no finite rating: play more games" > "/dev/stderr"; exit 1
                }
                v = int(r[k] + 0.5)
                if (k > 0 && v <= prev) v = prev + 1
                printf "%s%d", (k ? "," : ""), v
                prev = v
            }
            print ""
            if (carried) print "level 20: not played, kept " t[1] - t[2] " above level 19" > "/dev/stderr"
        }')
    games=$(cat "$OUT"/*.pgn 2>/dev/null | grep -c '^\[Result ' || true)
    {
        echo "//! The strength ladder (docs/strength.md): the Elo of \`Skill Level\` 0, 1,"
        echo "//! … 20 with the random player at 0, standard rules, 1 s a move."
        echo "//! \`UCI_Elo\` is interpolated in it. Written by \`scripts/match/ladder.sh --refit\`."
        echo
        echo "/// Fitted on $(date -u +%Y-%m-%d) to $games ladder games$( [[ "${TOP:-}" == carry ]] && echo ", level 20 kept at its earlier gap above level 19")."
        echo "pub const LADDER: [u32; 21] = [$(echo "$table" | sed 's/,/, /g')];"
    } >"$target"
    if command -v rustfmt >/dev/null; then rustfmt --edition 2024 "$target"; fi
    echo "wrote $target; to check it before rebuilding:" >&2
    echo "YOTE_LADDER=$table"
    exit 0
fi
standings
