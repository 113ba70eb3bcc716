#!/usr/bin/env python3
"""Trains the engine's network (src/eval/nnue.rs) on labelled positions.

    scripts/training/train_nnue.py data/*.nnue                     # -> src/eval/yote.nnue
    scripts/training/train_nnue.py data/*.nnue --epochs 30 --resume

Input: the files `yote datagen` writes (or `yote tune --dump`), one
position a line: rules, position, result for the side to move, search
score in centipawns (or -), the fitted evaluation in centipawns (files
written before it was added lack it), the active inputs from the side to
move's and from the other side's view.

--correction trains the network as a correction added to the fitted
evaluation (the engine reads the kind from the file): the prediction is
K * (fitted + shrink(o / K)), shrink being the engine's pull towards
captures (a half at 100 plies without a capture), so the network only
has to learn what the fitted terms miss.

Label: lambda * result + (1 - lambda) * sigmoid(K * score), as `yote tune`
(but lambda 0 by default: on this session's few hundred thousand positions
the game results made the network weaker);
K is fitted to the decided games' positions first (the K that best maps the
search scores to their results), and the network's output o (a logit) is
o / K centipawns, so the search sees the units it was tuned in. A drawn
game in this data is almost always one the match runner stopped at its ply
limit (standard Yoté has no draw rule): that says the players shuffled, not
what the position was worth, so drawn games' positions take
--draw-lambda (default 0: the search score alone) instead of lambda. Loss:
mean squared error of sigmoid(o) against the label.

Shape (must match nnue.rs): INPUTS -> HIDDEN shared by both perspectives,
clipped ReLU to [0, 1], both halves (side to move first) -> 1, through one
of --buckets output layers chosen by the pieces left in the game (board and
hand, both colours; 1-4 the first bucket, 5-8 the second, the last taking
the rest: nnue.rs `bucket`).

Seeded and resumable: every epoch writes a checkpoint (model, optimiser,
epoch, random state); --resume continues from it and gives the same network
as an uninterrupted run. At the end the network is quantised (first layer x
QA, output x QB) and written with a CRC-32 the engine checks, and a fixture
of held-out positions with the float model's outputs is written for the
engine's test that its integer inference matches (nnue.rs,
`integer_inference_matches_the_trainer`).
"""
import argparse
import math
import os
import random
import struct
import sys
import time
import zlib

import torch

INPUTS = 128
# Hidden units per perspective (--hidden; nnue.rs HIDDEN must be the same:
# the engine refuses a file of another shape by name).
HIDDEN = 128
# The last 16 inputs are the rules (nnue.rs RULES, RULE_INPUTS).
RULE_INPUTS = 16
RULES = INPUTS - RULE_INPUTS
# Removals owed, 3 slots each side, just before the rules (nnue.rs OWN_OWED).
OWED = range(RULES - 6, RULES)
QA = 510
QB = 1024
FORMAT_VERSION = 3
# Output buckets (--buckets, at most nnue.rs MAX_BUCKETS) and the pieces
# left per bucket (nnue.rs PIECES_PER_BUCKET). 1 by default, the shape of
# every network before them, so that the logged commands make the same
# networks again.
BUCKETS = 1
MAX_BUCKETS = 8
PIECES_PER_BUCKET = 4
# Where the hand inputs start (nnue.rs OWN_HAND, ENEMY_HAND; the cells are
# the inputs before them, the owed removals after): the bucket is counted
# from them.
OWN_HAND, ENEMY_HAND = 72, 89
KIND_WHOLE, KIND_CORRECTION = 0, 1
# The engine's shrink of the evaluation for plies without a capture
# (eval.rs PROGRESS_CAP, PROGRESS_SPAN).
PROGRESS_CAP, PROGRESS_SPAN = 100, 200
# Largest first-layer weight: at most 44 inputs are active at once (6x6,
# 16 pieces a side), so with the bias 45 terms: 45 * 1.3 * 510 < 32767.
FT_CLIP = 1.3
# Output weights: 2 * HIDDEN * QA * OUT_CLIP * QB < 2^31, the engine's int32
# sum (14 for HIDDEN up to 128; `out_clip`).
def out_clip():
    return 14.0 * 128 / max(HIDDEN, 128)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # Row INPUTS is padding (positions have different input counts).
        self.ft = torch.nn.EmbeddingBag(INPUTS + 1, HIDDEN, mode="sum", padding_idx=INPUTS)
        self.ft_bias = torch.nn.Parameter(torch.zeros(HIDDEN))
        self.out = torch.nn.Linear(2 * HIDDEN, BUCKETS)
        with torch.no_grad():
            self.ft.weight.normal_(0.0, 0.1)
            self.ft.weight[INPUTS].zero_()
            # The data holds quiet positions only, which never owe a
            # removal, so nothing trains these rows: zero, not the random
            # weights the search would otherwise see when it evaluates a
            # position in the middle of a capture (all-options plays a
            # jump alone when its removals are too many to list).
            self.ft.weight[OWED.start:OWED.stop].zero_()
            self.out.weight.normal_(0.0, 0.05)
            self.out.bias.zero_()

    def forward(self, us, them, bucket):
        a = torch.clamp(self.ft(us) + self.ft_bias, 0.0, 1.0)
        b = torch.clamp(self.ft(them) + self.ft_bias, 0.0, 1.0)
        out = self.out(torch.cat([a, b], dim=1))
        return out.gather(1, bucket.unsqueeze(1)).squeeze(1)

    def clip(self):
        with torch.no_grad():
            self.ft.weight.clamp_(-FT_CLIP, FT_CLIP)
            self.ft_bias.clamp_(-FT_CLIP, FT_CLIP)
            self.out.weight.clamp_(-out_clip(), out_clip())


# Most active inputs of one perspective: 36 cells, two hands, the owed
# removals, the rule inputs (nnue.rs).
WIDTH = 64


def read_data(paths):
    """Positions' labels' parts and their inputs (padded with INPUTS), as
    compact arrays allocated once (millions of positions fit: 2 x 64 int16
    a position), and where each line is (file number, byte offset) to read
    back the few the fixture needs."""
    import numpy as np

    total = 0
    for path in paths:
        with open(path, "rb") as f:
            total += sum(1 for _ in f)
    results = np.empty(total, np.float32)
    scores = np.empty(total, np.float32)
    fitted = np.empty(total, np.float32)
    keep = np.empty(total, np.float32)
    us = np.full((total, WIDTH), INPUTS, np.int16)
    them = np.full((total, WIDTH), INPUTS, np.int16)
    where = np.empty((total, 2), np.int64)
    n = 0
    for file_no, path in enumerate(paths):
        with open(path, "rb") as f:
            offset = 0
            for raw in f:
                at = offset
                offset += len(raw)
                fields = raw.decode().rstrip("\n").split("\t")
                if len(fields) == 7:
                    spec, fen, result, score, fit, a, b = fields
                else:
                    (spec, fen, result, score, a, b), fit = fields, "nan"
                results[n] = float(result)
                scores[n] = math.nan if score == "-" else float(score)
                fitted[n] = float(fit)
                # The fifth field of a position is its plies without a capture.
                stale = min(int(fen.split(" ")[4]), PROGRESS_CAP)
                keep[n] = 1.0 - stale / PROGRESS_SPAN
                ua = [int(x) for x in a.split(",")]
                tb = [int(x) for x in b.split(",")]
                if max(len(ua), len(tb)) > WIDTH:
                    sys.exit(f"train_nnue: {path}: more than {WIDTH} inputs at byte {at}")
                us[n, :len(ua)] = ua
                them[n, :len(tb)] = tb
                where[n] = (file_no, at)
                n += 1
                if n % 1_000_000 == 0:
                    print(f"train_nnue: read {n} positions", file=sys.stderr)
    return (where[:n], torch.from_numpy(results[:n]), torch.from_numpy(scores[:n]),
            torch.from_numpy(fitted[:n]), torch.from_numpy(keep[:n]),
            torch.from_numpy(us[:n]), torch.from_numpy(them[:n]))


def buckets_of(us):
    """The output bucket of every position from its inputs (nnue.rs
    `bucket`): pieces on the board plus both hands' counts."""
    out = torch.empty(len(us), dtype=torch.long)
    for start in range(0, len(us), 1_000_000):
        m = us[start:start + 1_000_000].long()
        cells = (m < OWN_HAND).sum(dim=1)
        own = torch.where((m >= OWN_HAND) & (m < ENEMY_HAND), m - OWN_HAND, 0).sum(dim=1)
        enemy = torch.where((m >= ENEMY_HAND) & (m < OWED.start), m - ENEMY_HAND, 0).sum(dim=1)
        left = cells + own + enemy
        out[start:start + 1_000_000] = ((left - 1).clamp(min=0) // PIECES_PER_BUCKET).clamp(max=BUCKETS - 1)
    return out


def key_of(paths, where):
    """The rules and position of the line at `where` (file number, offset)."""
    file_no, offset = (int(x) for x in where)
    with open(paths[file_no], "rb") as f:
        f.seek(offset)
        spec, fen = f.readline().decode().split("\t")[:2]
    return spec, fen


def fit_k(results, scores):
    """The K minimising the squared error of sigmoid(K * score) against the
    results of decided games (a scan, then finer scans around the best), as
    `yote tune`."""
    have = ~torch.isnan(scores) & (results != 0.5)
    r, s = results[have], scores[have]
    best, centre, step = (math.inf, 0.01), 0.01, 0.001
    for _ in range(3):
        for i in range(-10, 11):
            k = centre + i * step
            if k > 0:
                loss = ((torch.sigmoid(k * s) - r) ** 2).mean().item()
                if loss < best[0]:
                    best = (loss, k)
        centre, step = best[1], step / 10
    return best[1]


def rule_sets(us):
    """The rule-input masks of every rule set in the data (nnue.rs
    `InputMap::rule_mask`): the engine uses the network for those only."""
    masks = set()
    # A million rows at a time: the whole data as int64 at once took
    # gigabytes (two trainers at once were killed for memory here).
    for start in range(0, len(us), 1_000_000):
        m = us[start:start + 1_000_000].int()
        rule = (m >= RULES) & (m < INPUTS)
        bits = torch.where(rule, torch.ones_like(m) << (m - RULES).clamp(min=0), torch.zeros_like(m))
        masks.update(bits.sum(dim=1).tolist())
    return sorted(masks)


def export(net, cp_per_unit, kind, masks, path):
    """The network file of nnue.rs (`Network::read`), little-endian."""
    with torch.no_grad():
        ft_w = torch.round(net.ft.weight[:INPUTS] * QA).to(torch.int16).cpu()
        ft_b = torch.round(net.ft_bias * QA).to(torch.int16).cpu()
        out_w = torch.round(net.out.weight * QB).to(torch.int16).cpu()
        out_b = [int(round(b * QA * QB)) for b in net.out.bias.tolist()]
    body = b"YOTENNUE" + struct.pack("<7I", FORMAT_VERSION, INPUTS, HIDDEN, cp_per_unit, kind,
                                     len(masks), BUCKETS)
    body += struct.pack(f"<{len(masks)}I", *masks)
    for t in (ft_w, ft_b, out_w):
        values = t.flatten().tolist()
        body += struct.pack(f"<{len(values)}h", *values)
    body += struct.pack(f"<{BUCKETS}i", *out_b)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(body + struct.pack("<I", zlib.crc32(body)))
    os.replace(tmp, path)


def main():
    global HIDDEN, BUCKETS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", nargs="+")
    ap.add_argument("--out", default="src/eval/yote.nnue")
    ap.add_argument("--fixture", default="src/eval/nnue_fixture.txt")
    ap.add_argument("--checkpoint", default="nnue.ckpt")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--epochs", type=int, default=20)
    # The embedded network's recipe (docs/search.md, "The network").
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--lr", type=float, default=2e-3)
    # 0: the search score alone; with 0.5 (as `yote tune`) the first
    # networks lost 150 Elo more (docs/search.md, "The network").
    ap.add_argument("--lambda", dest="lam", type=float, default=0.0)
    ap.add_argument("--draw-lambda", dest="draw_lam", type=float, default=0.0)
    ap.add_argument("--correction", action="store_true",
                    help="train a correction to the fitted evaluation")
    ap.add_argument("--hidden", type=int, default=HIDDEN,
                    help="hidden units per perspective (nnue.rs HIDDEN)")
    ap.add_argument("--buckets", type=int, default=BUCKETS,
                    help="output layers, chosen by the pieces left (1 to nnue.rs MAX_BUCKETS)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                    help="where to train: cpu, or cuda where a GPU is present (the default then)")
    args = ap.parse_args()
    HIDDEN = args.hidden
    BUCKETS = args.buckets
    if not 1 <= BUCKETS <= MAX_BUCKETS:
        sys.exit(f"train_nnue: --buckets must be 1 to {MAX_BUCKETS} (nnue.rs MAX_BUCKETS)")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    started = time.time()
    where, results, scores, fitted, keep, us, them = read_data(args.data)
    if args.correction and torch.isnan(fitted).any():
        sys.exit("train_nnue: --correction needs the fitted evaluation in every file "
                 "(files dumped by this version of `yote tune --dump`)")
    bucket = buckets_of(us)
    k = fit_k(results, scores)
    # The logit the fitted evaluation alone gives; the network adds to it.
    base = k * fitted if args.correction else torch.zeros(len(results))
    have = ~torch.isnan(scores)
    lam = torch.where(results == 0.5, args.draw_lam, args.lam)
    labels = torch.where(
        have,
        lam * results + (1 - lam) * torch.sigmoid(k * torch.nan_to_num(scores)),
        results,
    )
    n = len(results)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(args.seed))
    held = order[: max(n // 20, 1)]
    train = order[max(n // 20, 1):]
    print(f"train_nnue: {n} positions ({len(train)} training, {len(held)} held out), "
          f"K = {k:.5f}, read in {time.time() - started:.0f} s", file=sys.stderr)

    dev = torch.device(args.device)
    net = Net().to(dev)
    if args.correction:
        with torch.no_grad():
            # Start near no correction at all.
            net.out.weight.mul_(0.1)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=max(args.epochs // 3, 1), gamma=0.3)
    first = 0
    gen = torch.Generator().manual_seed(args.seed + 1)
    if args.resume and os.path.exists(args.checkpoint):
        ck = torch.load(args.checkpoint, weights_only=False, map_location=dev)
        net.load_state_dict(ck["net"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        gen.set_state(ck["gen"])
        first = ck["epoch"]
        print(f"train_nnue: resumed after epoch {first}", file=sys.stderr)

    def predict(idx):
        # The data stays in memory here; a batch at a time goes to the device.
        inputs = (us[idx].long().to(dev), them[idx].long().to(dev), bucket[idx].to(dev))
        return base[idx].to(dev) + keep[idx].to(dev) * net(*inputs)

    def loss_of(idx):
        with torch.no_grad():
            return ((torch.sigmoid(predict(idx)) - labels[idx].to(dev)) ** 2).mean().item()

    if args.correction:
        with torch.no_grad():
            alone = ((torch.sigmoid(base[held]) - labels[held]) ** 2).mean().item()
        print(f"train_nnue: the fitted evaluation alone: held-out {alone:.6f}", file=sys.stderr)

    for epoch in range(first, args.epochs):
        t = time.time()
        perm = train[torch.randperm(len(train), generator=gen)]
        total = 0.0
        for i in range(0, len(perm), args.batch):
            idx = perm[i:i + args.batch]
            loss = ((torch.sigmoid(predict(idx)) - labels[idx].to(dev)) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            net.clip()
            total += loss.item() * len(idx)
        sched.step()
        print(f"train_nnue: epoch {epoch + 1}: train {total / len(perm):.6f}, "
              f"held-out {loss_of(held):.6f}, {time.time() - t:.0f} s", file=sys.stderr)
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "gen": gen.get_state(), "epoch": epoch + 1}, args.checkpoint + ".part")
        os.replace(args.checkpoint + ".part", args.checkpoint)

    cp_per_unit = round(1 / k)
    export(net, cp_per_unit, KIND_CORRECTION if args.correction else KIND_WHOLE, rule_sets(us),
           args.out)
    # Held-out positions and the float model's output in centipawns (before
    # the engine's shrink for plies without a capture).
    with torch.no_grad(), open(args.fixture, "w") as f:
        f.write("# rules\tposition\tfloat output in centipawns (scripts/training/train_nnue.py)\n")
        for i in held[:24].tolist():
            out = net(us[i:i + 1].long().to(dev), them[i:i + 1].long().to(dev),
                      bucket[i:i + 1].to(dev)).item()
            spec, fen = key_of(args.data, where[i])
            f.write(f"{spec}\t{fen}\t{out * cp_per_unit:.3f}\n")
    print(f"train_nnue: wrote {args.out} ({cp_per_unit} cp per unit) and {args.fixture} "
          f"in {time.time() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
