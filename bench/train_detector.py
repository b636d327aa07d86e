"""Train the write gate's model (inspector/store/detect/gate_model.json) from the corpus.

    python bench/train_detector.py [--out PATH]
    python bench/train_detector.py --check     # retrain to a scratch file, compare with the shipped one

The corpus is every origin under tests/corpus/origins/*.jsonl (rows {"text", "label":
"attack"|"benign", "category", "origin"}) plus tests/corpus/rule_shape.jsonl as the origin
"legacy" (its benign_<category> rows are benign). A text that appears twice is kept once (its
first origin in sorted order), so no text sits on both sides of a leave-one-origin-out split.

The model: scikit-learn LogisticRegression (liblinear, a deterministic solver; fixed
random_state) over detect/features.py's features, trained as multiple-instance learning,
because a long document is scored by its best window: every window of a benign text is a
negative; a short attack is a positive; for a long attack the window the current model finds
most instruction-like is the positive (starting from all its windows at a shared weight),
refitted ROUNDS times. A long benign text trains on at most BENIGN_WINDOWS of its windows
(evenly spread), which keeps training fast; it is still scored on all of them. Each text
weighs 1/its near-copies in its origin (near_copies: one template filled in many times counts
as one text). Features seen in fewer than MIN_DF training texts are dropped. The rules
precise across the training origins, counted once per distinct context of their match, are
listed as trusted (they hold on their own). The shipped file holds only what
scoring needs, rounded to DIGITS decimals and written with sorted keys, so the same corpus
gives the same bytes. sklearn and numpy are needed here only.

The file also names what it was made from: the corpus's digest and size, and the digest of
the code that makes it (this script and every module of inspector/store/detect/, inputs_digest).
The tests check those names, which takes milliseconds; retraining takes minutes, so --check
(retrain, then compare weight by weight within WEIGHT_DRIFT) is run when the solver or the
numerical libraries change, not in the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import zlib
from collections import Counter
from functools import lru_cache
from itertools import chain, repeat
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from inspector.store.detect import features as fx  # noqa: E402
from inspector.store.detect import gate_model  # noqa: E402
from inspector.store import verify_parallel  # noqa: E402
from inspector.store.detect.shape import rule_match  # noqa: E402

ORIGINS = ROOT / "tests" / "corpus" / "origins"
LEGACY = ROOT / "tests" / "corpus" / "rule_shape.jsonl"
MODEL_PATH = ROOT / "inspector" / "store" / "detect" / gate_model.MODEL_FILE
_NUMBER = re.compile(r"\d+")

VERSION = gate_model.VERSION      # the file's form (gate_model.grouped)
# Inverse regularization strength. Measured leave-one-origin-out (recall at pooled FPR 0.03,
# 2-sentence windows, 2026-12-01): C 0.3 -> 0.566, 1 -> 0.589, 3 -> 0.612. The model is
# not overconfident from too little regularization: a weaker fit loses the rare phrasings.
C = 3.0
MIN_DF = 2
# A feature kept only if it appears in at least MIN_ORIGINS training origins. 2 measured
# neutral (0.587 against 0.589 at C 1), so it is left at 1.
MIN_ORIGINS = 1
ROUNDS = 1
# A rule whose matches, over the training origins, are at least TRUSTED_PRECISION attacks (of
# at least TRUSTED_HITS) holds a text on its own, whatever the model says ("Ignore previous
# instructions", "Dear AI, …", a disguise undone): the explainable layer the brief keeps. The
# others are evidence the model weighs (r:<rule> features), since on origins they were not
# written for some misfire often (a third of "Always cc …"-rule matches are benign there).
TRUSTED_PRECISION = 0.95
TRUSTED_HITS = 10
CONTEXT = 100        # characters each side of a rule's match that make its context (match_context)
# Near-copies (near_copies): rows sharing at least this share of their three-word shingles
# are one template's fillings, found by MinHash (COPY_HASHES hashes in COPY_BANDS bands).
COPY_SIMILARITY = 0.5
COPY_HASHES = 64
COPY_BANDS = 16
BENIGN_WINDOWS = 20   # a long benign text trains on at most this many of its windows, evenly spread
DIGITS = 4
# The shipped threshold on the model's probability (with the matching rule's weight); a text
# is held when it scores at least this or a trusted rule matches. Chosen on the calibration
# table of bench/detector_report.py, which pools leave-one-origin-out predictions (each
# origin scored by a model that never saw it), never on the in-corpus figures nor on any
# held-out set.
#
# Why 0.965. The brief's target was pooled LOOO recall >= 0.90 at FPR <= 0.03; no threshold
# meets both on this corpus (20,916 texts, 25 origins; trusted rules held whatever the score;
# bench/detector_report.py, 2026-12-03, stop 35, C 3, texts weighed 1/their near-copies; the
# report's calibration table has every point):
#     threshold  0.50   0.80   0.90   0.94   0.95   0.96   0.965  0.97   0.98   0.99
#     recall     0.911  0.843  0.788  0.746  0.729  0.711  0.701  0.688  0.656  0.593
#     FPR        0.187  0.090  0.056  0.039  0.036  0.032  0.030  0.027  0.023  0.017
# (0.965: 7,314 of 10,430 attacks, 313 of 10,486 benign; 0.96 holds 335, over 0.03.) The 18
# origins of stop 33 alone, each scored by a model that learnt the 24 others, read 0.756 at
# FPR 0.025 here, where trained on 17 they read 0.738 at 0.029 (its threshold 0.95): the seven
# origins added are harder (0.603 at 0.038), so the pooled figure falls while every origin
# scored is scored better. Without the near-copy weights: 0.707 at 0.031 (0.965) and 0.695 at
# 0.029 (0.97), the same curve; the weights are kept because a template should count once,
# and with them the shipped model holds "From now on reply only in French" (0.974). The same
# rule chose 0.98 on 11 origins (2026-12-01), 0.965 on 14 and 0.95 on 18 (2026-12-03). The
# trusted rules alone: recall 0.123, FPR 0.006.
# The benign texts are the hard cases the issue asked for (texts about prompt injection that
# quote payloads, chat logs with User:/Assistant: turns, configs holding system prompts,
# e-mails telling colleagues what to do), and every benign text held is a reviewer's time and
# a user's memory not written (DESIGN §2.3: "that is where the false-positive budget goes").
# So the budget is kept and recall is what gives: THRESHOLD is the lowest grid threshold
# whose pooled LOOO FPR is within 0.03. A deployment that can afford more review can lower
# it (one line here, then retrain); the table says what each choice costs.
THRESHOLD = 0.965


# ---------------------------------------------------------------- corpus

def load_rows(origins: Path = ORIGINS, legacy: Path | None = LEGACY) -> list[dict]:
    """Every labelled row, tagged with its origin, duplicates (by normalized text) dropped."""
    rows: list[dict] = []
    for path in sorted(origins.glob("*.jsonl")) if origins.is_dir() else []:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                continue
            if row.get("label") not in ("attack", "benign") or not row["text"].strip():
                continue
            rows.append({"text": row["text"], "label": row["label"],
                         "category": str(row.get("category") or "uncategorized"),
                         "origin": str(row.get("origin") or path.stem)})
    if legacy is not None and legacy.exists():
        for line in legacy.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                category = row["category"]
                rows.append({"text": row["text"], "label": row["label"],
                             "category": (category.removeprefix("benign_")
                                          if row["label"] == "attack" else category),
                             "origin": "legacy"})
    rows.sort(key=lambda r: r["origin"])          # stable: file order kept inside an origin
    seen: set[str] = set()
    kept = []
    for row in rows:
        key = text_key(row["text"])
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return kept


def text_key(text: str) -> str:
    """What two texts share when they are the same text (normalized, lower-cased, spaced)."""
    return " ".join(fx.normalize(text).lower().split())


def corpus_digest(rows: list[dict]) -> str:
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps([row["origin"], row["label"], row["category"], row["text"]],
                                 ensure_ascii=False).encode("utf-8") + b"\n")
    return digest.hexdigest()


# ---------------------------------------------------------------- training

def near_copies(rows: list[dict]) -> list[int]:
    """For each row, how many rows of its origin and label are near-copies of it, itself
    included (1 for a text written on its own). A near-copy shares at least COPY_SIMILARITY of
    its three-word shingles (lower-cased, every number written 0) with another, estimated by
    MinHash over COPY_HASHES hashes and found by banding them (COPY_BANDS bands): one document
    filled in with other names, dates and amounts, or one payload carrying other goals. Training
    weighs each row 1/copies, so a template counts as one text written by hand does, whatever
    the number of its fillings."""
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.integers(1, 1 << 31, COPY_HASHES, dtype=np.uint64)
    b = rng.integers(0, 1 << 31, COPY_HASHES, dtype=np.uint64)
    prime = np.uint64(4294967311)        # > 2**32: a*h + b stays under 2**64 for h < 2**32
    signatures = np.empty((len(rows), COPY_HASHES), dtype=np.uint64)
    for i, row in enumerate(rows):
        words = _NUMBER.sub("0", row["text"].lower()).split()
        shingles = {zlib.crc32(" ".join(words[k:k + 3]).encode("utf-8"))
                    for k in range(max(1, len(words) - 2))}
        hashes = np.fromiter(shingles, dtype=np.uint64, count=len(shingles))
        signatures[i] = ((hashes[:, None] * a[None, :] + b[None, :]) % prime).min(axis=0)
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    width = COPY_HASHES // COPY_BANDS
    for band in range(COPY_BANDS):
        buckets: dict[tuple, int] = {}
        for i, row in enumerate(rows):
            key = (row["origin"], row["label"],
                   signatures[i, band * width:(band + 1) * width].tobytes())
            first = buckets.setdefault(key, i)
            if first != i and (signatures[first] == signatures[i]).mean() >= COPY_SIMILARITY:
                parent[root(i)] = root(first)
    sizes = Counter(root(i) for i in range(len(rows)))
    return [sizes[root(i)] for i in range(len(rows))]


def featurize(rows: list[dict]) -> list[list[dict[str, float]]]:
    """Each row's segments' feature dicts (computed once, shared by every fold): the text's
    features and, in every segment, ``r:<key>`` for the rule that matched the text (shape.
    rule_match: "<category>:<index>"; a constant added to every window adds to their best
    one, so the scorer adds it once). Computed in one process a core (fork), in order: the
    same dicts as one process makes. From a process that runs other threads (a test worker),
    whose locks a forked child would inherit held, the processes are spawned instead."""
    import multiprocessing as mp

    texts = [row["text"] for row in rows]
    workers = min(os.cpu_count() or 1, 4)
    if workers > 1 and len(texts) > 1000:
        with (fork_context() or mp.get_context("spawn")).Pool(workers) as pool:
            return pool.map(_text_features, texts, chunksize=64)
    return [_text_features(text) for text in texts]


def fork_context():
    """multiprocessing's fork context when this process runs one thread, else None (a test
    worker's forked children, beside its other thread, crashed in the garbage collector)."""
    import multiprocessing as mp

    if verify_parallel.thread_count() == 1 and "fork" in mp.get_all_start_methods():
        return mp.get_context("fork")
    return None


def _text_features(text: str) -> list[dict[str, float]]:
    segs = fx.features(text)
    rule = rule_match(text)
    if rule:
        for seg in segs:
            seg["r:" + rule[1]] = 1.0
    return segs


def fit(rows: list[dict], feats: list[list[dict[str, float]]], threshold: float = THRESHOLD,
        c: float = C) -> dict:
    """Train on these rows; the model document (weights rounded) that gate_model loads."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    df: Counter = Counter()
    origins_of: dict[str, set[str]] = {}
    for row, segs in zip(rows, feats):
        names = {name for seg in segs for name in seg}
        df.update(names)
        for name in names:
            origins_of.setdefault(name, set()).add(row["origin"])
    vocab = sorted(name for name, n in df.items()
                   if name[0] in "hr" or (n >= MIN_DF and len(origins_of[name]) >= MIN_ORIGINS))
    index = {name: i for i, name in enumerate(vocab)}

    def matrix(segs: list[dict[str, float]]):
        """One row a segment, its features in vocabulary order (sort_indices: the vocabulary
        is sorted, so this is the order of their names), those out of it left out."""
        cols = np.fromiter(map(index.get, chain.from_iterable(segs), repeat(-1)), dtype=np.int64)
        data = np.fromiter(chain.from_iterable(seg.values() for seg in segs), dtype=np.float64,
                           count=len(cols))
        rows = np.repeat(np.arange(len(segs)), [len(seg) for seg in segs])
        kept = cols >= 0
        ptr = np.concatenate(([0], np.cumsum(np.bincount(rows[kept], minlength=len(segs)))))
        made = csr_matrix((data[kept], cols[kept], ptr), shape=(len(segs), len(vocab)))
        made.sort_indices()
        return made

    # Fixed instances: every benign segment, every single-segment attack.
    # Each row weighs 1/its near-copies.
    fixed_segs, fixed_y, fixed_w = [], [], []
    multi: list[list[dict[str, float]]] = []
    multi_w: list[float] = []
    for row, segs, copies in zip(rows, feats, near_copies(rows)):
        if row["label"] == "benign":
            if len(segs) > BENIGN_WINDOWS:
                step = len(segs) / BENIGN_WINDOWS
                segs = [segs[int(i * step)] for i in range(BENIGN_WINDOWS)]
            fixed_segs += segs
            fixed_y += [0] * len(segs)
            fixed_w += [1.0 / copies] * len(segs)
        elif len(segs) == 1:
            fixed_segs += segs
            fixed_y.append(1)
            fixed_w.append(1.0 / copies)
        else:
            multi.append(segs)
            multi_w.append(1.0 / copies)
    fixed_x = matrix(fixed_segs)
    multi_x = [matrix(segs) for segs in multi]

    from scipy.sparse import vstack
    chosen = None
    model = None
    for round_ in range(ROUNDS + 1):
        if round_ == 0:     # all windows of a long attack, sharing one attack's weight
            parts = [fixed_x] + multi_x
            y = fixed_y + [1] * sum(m.shape[0] for m in multi_x)
            w = fixed_w + [mw / m.shape[0] for m, mw in zip(multi_x, multi_w)
                           for _ in range(m.shape[0])]
        else:               # the window the model finds most instruction-like
            scores = [model.decision_function(m) for m in multi_x]
            chosen = [int(np.argmax(s)) for s in scores]
            parts = [fixed_x] + [m[k] for m, k in zip(multi_x, chosen)]
            y = fixed_y + [1] * len(multi_x)
            w = fixed_w + multi_w
        x = vstack(parts).tocsr()
        y_arr = np.array(y)
        w_arr = np.array(w)
        # balance the two classes by total weight
        pos, neg = w_arr[y_arr == 1].sum(), w_arr[y_arr == 0].sum()
        w_arr = np.where(y_arr == 1, w_arr * (pos + neg) / (2 * pos),
                         w_arr * (pos + neg) / (2 * neg))
        model = LogisticRegression(solver="liblinear", C=c, random_state=0, max_iter=1000,
                                   intercept_scaling=10.0)
        model.fit(x, y_arr, sample_weight=w_arr)

    weights = {}
    for name, weight in zip(vocab, model.coef_[0]):
        rounded = round(float(weight), DIGITS)
        if rounded != 0.0:
            weights[name] = rounded
    return {"version": VERSION, "threshold": threshold, "trusted_rules": trusted_rules(rows, feats),
            "bias": round(float(model.intercept_[0]), DIGITS), "weights": gate_model.grouped(weights)}


def rule_key(segs: list[dict[str, float]]) -> str | None:
    """The key of the rule that matched a text, from its features (featurize puts it there)."""
    return next((name[2:] for name in segs[0] if name.startswith("r:")), None) if segs else None


def trusted_rules(rows: list[dict], feats: list[list[dict[str, float]]]) -> list[str]:
    """The rules precise enough, over these rows, to hold a text on their own: at least
    TRUSTED_HITS matches, at least TRUSTED_PRECISION of them attacks. Matches are counted once
    per distinct context (match_context), not once per text: one document copied with other
    names and dates (a position paper about injection that quotes "Ignore previous prompt",
    ten times over) is one piece of evidence against the rule, not ten, and a payload repeated
    with other goals still counts once per goal."""
    contexts: dict[str, dict[str, set[str]]] = {}
    for row, segs in zip(rows, feats):
        key = rule_key(segs)
        if key:
            sides = contexts.setdefault(key, {"attack": set(), "benign": set()})
            sides[row["label"]].add(match_context(row["text"]))
    return sorted(key for key, sides in contexts.items()
                  if (n := len(sides["attack"]) + len(sides["benign"])) >= TRUSTED_HITS
                  and len(sides["attack"]) / n >= TRUSTED_PRECISION)


@lru_cache(maxsize=None)
def match_context(text: str, width: int = CONTEXT) -> str:
    """What a rule's match says in this text: the matched words with `width` characters on each
    side, lower-cased, spaces collapsed, every number written 0 (so copies of one template
    that differ in names outside it, or in numbers inside it, are one context). The excerpt is
    looked for as the rules write it (spaces collapsed, a long one cut at "…"); a match read
    behind a disguise, whose words are not in the text as written, takes the text's opening.
    Cached: trusted_rules asks it of the same texts in every leave-one-origin-out fold."""
    match = rule_match(text)
    plain = " ".join(fx.normalize(text).split())
    needle = match[0].excerpt.removesuffix("…") if match else ""
    at = plain.find(needle) if match else -1
    span = (plain[max(0, at - width): at + len(needle) + width] if at >= 0
            else plain[:2 * width])
    return _NUMBER.sub("0", span.lower())


def dump(doc: dict) -> bytes:
    return (json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            + "\n").encode("utf-8")


def inputs_digest() -> str:
    """The digest of the code that turns the corpus into the model: this script and every
    module of inspector/store/detect/ (features, windows, decoders, rules and what they read).
    An edit to any of them means the model must be made again (python bench/train_detector.py)."""
    digest = hashlib.sha256()
    detect = Path(fx.__file__).resolve().parent
    for path in [Path(__file__).resolve(), *sorted(detect.glob("*.py"))]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


# How far a weight (or the bias) of the shipped model may lie from the one this script makes
# (--check). The fit is deterministic, but liblinear's result moves with the numerical
# libraries: on 2026-12-02, with scikit-learn 1.9.1, scipy 1.17.1 and numpy 2.4.6 fresh from
# the registry, retraining moved 35,115 weights by at most 0.0042 and the bias by 0.0003,
# and the weights only one side kept were at most 0.0001. A change of corpus moves them by
# orders of magnitude more: without its smallest origin (60 texts) 7,144 weights move by
# more than 0.02, the largest by 1.15.
WEIGHT_DRIFT = 0.02


def differences(made: dict, shipped: dict) -> list[str]:
    """What keeps `shipped` from being the model `made` (the same names, rules and threshold;
    every weight and the bias within WEIGHT_DRIFT); empty when it is."""
    found = [f"{key}: {shipped.get(key)!r} shipped, {made.get(key)!r} made"
             for key in ("version", "threshold", "trusted_rules", "corpus_digest", "corpus_rows",
                         "inputs_digest") if made.get(key) != shipped.get(key)]
    if abs(made["bias"] - shipped["bias"]) > WEIGHT_DRIFT:
        found.append(f"bias: {shipped['bias']} shipped, {made['bias']} made")
    made_weights, shipped_weights = gate_model.flat(made["weights"]), gate_model.flat(shipped["weights"])
    moved = sorted(name for name in made_weights.keys() | shipped_weights.keys()
                   if abs(made_weights.get(name, 0.0) - shipped_weights.get(name, 0.0)) > WEIGHT_DRIFT)
    if moved:
        found.append(f"{len(moved)} weights moved by more than {WEIGHT_DRIFT}, e.g. {moved[:3]}")
    return found


def train(out: Path = MODEL_PATH, rows: list[dict] | None = None) -> dict:
    rows = load_rows() if rows is None else rows
    doc = fit(rows, featurize(rows))
    doc["corpus_digest"] = corpus_digest(rows)
    doc["corpus_rows"] = len(rows)
    doc["inputs_digest"] = inputs_digest()
    out.write_bytes(dump(doc))
    return doc


def check(rows: list[dict]) -> int:
    """Retrain to a scratch file and compare with the shipped model; 0 when they agree."""
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:
        made = train(Path(scratch) / gate_model.MODEL_FILE, rows)
    found = differences(made, json.loads(MODEL_PATH.read_text()))
    for line in found:
        print(f"differs: {line}")
    print("the shipped model is what this script makes" if not found else
          f"{MODEL_PATH.name} is not what this script makes: retrain it (python bench/train_detector.py)")
    return 1 if found else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--check", action="store_true",
                        help="retrain to a scratch file and compare it with the shipped model")
    args = parser.parse_args()
    rows = load_rows()
    if args.check:
        return check(rows)
    doc = train(args.out, rows)
    counts = Counter((r["origin"], r["label"]) for r in rows)
    print(f"{len(rows)} rows from {len({r['origin'] for r in rows})} origins; "
          f"{len(gate_model.flat(doc['weights']))} weights; threshold {doc['threshold']}; "
          f"{args.out.stat().st_size:,} bytes -> {args.out}")
    for (origin, label), n in sorted(counts.items()):
        print(f"  {origin:<28}{label:<8}{n:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
