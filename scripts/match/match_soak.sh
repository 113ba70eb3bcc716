#!/usr/bin/env bash
# Soak test of the match runner: GAMES games at depth 1 between two copies
# of the engine, sampling the runner's memory (RSS) and open descriptors
# every INTERVAL seconds, then checking that no engine process is left.
#   scripts/match/match_soak.sh [GAMES] [INTERVAL]     (defaults 10000, 10)
# Prints one "t=<s> rss_kb=<n> fds=<n> games=<n>" line per sample and a
# summary; run it under nice on a shared machine.
set -euo pipefail
GAMES=${1:-10000}
INTERVAL=${2:-10}
E=${E:-target/release/yote}
OUT=$(mktemp -d)
"$E" match --engine "name=a,cmd=$E" --engine "name=b,cmd=$E" \
  --depth 1 --games "$GAMES" --concurrency 2 --quiet \
  --pgn "$OUT/soak.pgn" >"$OUT/summary.txt" 2>"$OUT/stderr.txt" &
PID=$!
START=$(date +%s)
while kill -0 "$PID" 2>/dev/null; do
  RSS=$(awk '/VmRSS/ {print $2}' "/proc/$PID/status" 2>/dev/null || echo 0)
  FDS=$(ls "/proc/$PID/fd" 2>/dev/null | wc -l)
  DONE=$(grep -c '^\[Game ' "$OUT/soak.pgn" 2>/dev/null || echo 0)
  echo "t=$(( $(date +%s) - START )) rss_kb=$RSS fds=$FDS games=$DONE"
  sleep "$INTERVAL"
done
wait "$PID"
END=$(date +%s)
cat "$OUT/summary.txt"
LEFT=$(pgrep -f "^$E\$" | wc -l || true)
echo "wall ${GAMES} games: $((END - START)) s; engine processes left: $LEFT"
rm -rf "$OUT"
