"""`audit --verify` on both cores, reporting exactly what the sequential walk reports.

The sequential walk (`audit._Walk`, driven by `audit.verify_sequential`) is the reference. This
module produces the very same `Report`, problem for problem and in the same order, faster:

1. **Chunks.** The complete lines of the log are cut into byte ranges at line starts. The walk's
   state between two lines is small and explicit: the line number of the next line
   (`expected`), and `chained`, `prev_hash`, `prev_consistent`. Everything else a line adds is
   appended or summed (problems, counts, redactions, erase events, hashes), so a chunk walked
   from the state the lines before it leave behind yields exactly the slice of the sequential
   walk's output for those lines; concatenating the slices in file order yields the whole.

2. **Speculation, then proof.** A chunk does not know the state it starts in until the chunks
   before it are walked. Each chunk after the first is walked from a guess read off its own
   first line (`expected` = that line's `seq`, `chained` = true, `prev_hash` = its `prev`,
   `prev_consistent` = true), which is right for every chunk of an intact log. The guess is
   then checked against the state the previous chunk really ends in, and every chunk whose
   guess was wrong is walked again from the state its predecessor's latest walk ends in, in
   rounds, until every chunk's starting state is the true one. The first wrong chunk is always
   walked from a true state (its predecessors are all right), so each round fixes at least
   one chunk and the rounds end; a chunk is only ever accepted when the state it was walked
   from is the state the sequential walk would be in there. A damaged log costs more rounds,
   never a different answer.

3. **The fast line.** Within a chunk each line is either walked by the reference code itself
   (`_Walk.line`) or, when `FAST` (or `FAST_SOME`, or `fast_objects()`) matches it and
   its body digest is the hash of its body bytes, by the few comparisons of the fast path
   in `walk_chunk`, which fastline.py proves to do exactly what `_Walk.line` does with that
   line. Lines our own writer produces (`chain.line_bytes`: canonical JSON of the full
   entry schema) match, and so do a foreign writer's canonical lines that leave optional
   keys out of a state; a state with keys outside the schema, a non-canonical line, an
   erase event, a redacted body, a value nested deeper than two levels or anything damaged
   does not, and takes the reference path. Which grammar is tried first (the one that took
   the line before: a writer's lines are alike), and whether `fast_objects()` is tried at
   all (after 32 misses in a row, on one line in 64 only: on another writer's log it took no
   line and cost 6% of the time), only decides how fast a line is walked, never what the
   walk yields: either path gives the reference's output for the line.

Why a line the fast path takes needs no `jsonsafe.loads`, and why hashing slices of it is
exact: fastline.py, beside its grammar.

Processes: `fork` when this process has a single thread (the command line), else
`forkserver` (a process with DuckDB's or a UI's threads must not fork). Logs below
`SMALL_BYTES` are walked here, in one chunk.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import re
from dataclasses import dataclass, field

from . import jsonsafe
from .audit import Problem, Report, _Walk, finish, parse_head
from .batches import whole_tail
from .chain import GENESIS
from .fastline import (BODY_KEY, DIGEST_MEMBER, FAST, FAST_SOME, HEADER_SKIP, fast_objects,
                       objects_strict)
from .logfile import StorePaths, line_start_after

SMALL_BYTES = 16 << 20         # below this (~20k lines) one process walks the log in one chunk
CHUNK_BYTES = 32 << 20         # the largest unit of work handed to a process
MIN_CHUNK_BYTES = 1 << 20
BLOCK_BYTES = 8 << 20          # how much of a chunk a process holds in memory at once
MISSES_BEFORE_SKIP = 32        # of fast_objects() in a row (walk_chunk): it is then tried
SKIPS_BETWEEN_TRIES = 64       # on one line in 64 only
ENV_CHUNK = "INSPECTOR_VERIFY_CHUNK_BYTES"     # force chunk sizes (tests, benchmarks)
ENV_WORKERS = "INSPECTOR_VERIFY_WORKERS"       # force the number of processes (0: this one)

# -- one chunk ---------------------------------------------------------------------------------

# A fast line's batch and batch_size, in the members before its body (canonical, no escapes).
BATCH_MEMBERS = re.compile(rb',"batch":(?:"([^"]*)"|null)(?:,"batch_size":([0-9]+))?')

State = tuple  # (expected, chained, prev_hash, prev_consistent)
INITIAL: State = (1, False, GENESIS, False)


@dataclass
class ChunkResult:
    start: int
    end: int
    assumed: State
    final: State = INITIAL
    lines: int = 0
    problems: list[Problem] = field(default_factory=list)
    events: int = 0
    redacted: int = 0
    unchained: int = 0
    redactions: list = field(default_factory=list)
    erasures: dict = field(default_factory=dict)
    hashes: dict = field(default_factory=dict)
    runs: list = field(default_factory=list)     # _Walk.runs of the chunk's lines
    slow: int = 0          # lines the reference path walked


def walk_chunk(source: tuple, start: int, end: int, assumed: State | None, want: int | None) -> ChunkResult:
    """Walk the complete lines in [start, end) of the log `source` (see `_open`) from state
    `assumed` (None: guess it from the first line). Keeps the hashes of the chunk's last line
    and of line `want` only."""
    sha256 = hashlib.sha256
    # the grammar that took the last line is tried first (one writer's lines are alike)
    first, second = FAST.match, FAST_SOME.match
    # fast_objects() is tried until it has failed MISSES_BEFORE_SKIP lines in a row, then on
    # one line in SKIPS_BETWEEN_TRIES only (it takes no line of some writers)
    objects_missed = objects_skipped = 0
    genesis = GENESIS.encode()
    report = Report()
    walk = _Walk(None, report)
    problem = walk.problem
    result: ChunkResult | None = None
    # the walk's state between two lines, `prev_hash` as bytes here (a str in _Walk)
    expected = chained = prev_hash = consistent_before = None
    fast, last_fast = 0, None
    fd, own = _open(source)
    try:
        pos_file, rest = start, b""
        while pos_file < end:
            data = rest + os.pread(fd, min(BLOCK_BYTES, end - pos_file), pos_file)
            if len(data) == len(rest):
                break                                   # the file shrank under us
            pos_file += len(data) - len(rest)
            cut = data.rfind(b"\n") + 1
            rest = data[cut:]
            if not cut:
                continue
            if result is None:
                if assumed is None:
                    assumed = _guess(data[:data.index(b"\n")])
                result = ChunkResult(start, end, assumed)
                expected, chained, prev_hash, consistent_before = assumed
                prev_hash = _to_bytes(prev_hash)
            ascii_block = data.isascii()
            view = memoryview(data)
            pos = 0
            while pos < cut:
                m = first(data, pos)
                if m is None:
                    m = second(data, pos)
                    if m is not None:
                        first, second = second, first
                if m is not None:
                    body_start, body_end = m.span(1)
                    digest_b, hash_b, prev_b, seq_b = m.group(3, 4, 5, 6)
                elif objects_missed < MISSES_BEFORE_SKIP or objects_skipped >= SKIPS_BETWEEN_TRIES:
                    objects_skipped = 0
                    m = fast_objects().match(data, pos)
                    if m is not None and objects_strict(data, m):
                        body_start, body_end = m.span("body")
                        digest_b, hash_b, prev_b, seq_b = m.group("digest", "hash", "prev", "seq")
                        objects_missed = 0
                    else:
                        m = None
                        objects_missed += 1
                else:
                    objects_skipped += 1
                if m is not None:
                    line_end = m.end() - 1
                    if not ((ascii_block or _utf8(data, pos, line_end))
                            and sha256(view[body_start:body_end]).hexdigest().encode() == digest_b):
                        m = None
                if m is None:                            # the reference walks this line
                    line_end = data.index(b"\n", pos)
                    walk.expected, walk.chained, walk.prev_hash, walk.prev_consistent = (
                        expected, chained, _to_str(prev_hash), consistent_before)
                    walk.line(data[pos:line_end])
                    expected, chained, prev_hash, consistent_before = (
                        walk.expected, walk.chained, _to_bytes(walk.prev_hash), walk.prev_consistent)
                    result.slow += 1
                    pos = line_end + 1
                    continue
                # the fast path: what _Walk.line does with this line (module docstring)
                seq = expected
                expected += 1
                event_seq = int(seq_b)
                in_place = event_seq == seq
                if not in_place:
                    problem(seq, f"line {seq} holds seq {event_seq} (expected {seq}): "
                                 "a line was deleted, swapped, duplicated or inserted")
                fast += 1                               # report.events, added at the end
                # _Walk.line's batch run: the members before `body` are actor, at, batch and
                # perhaps batch_size, their strings without '"' or '\\' (fastline.py)
                if data.find(b'"batch_size"', pos, body_start) >= 0:     # no copy of the line
                    found = BATCH_MEMBERS.search(data, pos, body_start - BODY_KEY)
                    if found is not None and found.group(2) and int(found.group(2)) >= 2:
                        batch = found.group(1)
                        walk.batched(seq, None if batch is None else batch.decode(),
                                     int(found.group(2)))
                if chained:
                    if prev_hash is not None and prev_b != prev_hash:
                        walk.prev_consistent = consistent_before
                        walk._broken_link(seq, in_place)
                elif prev_b != genesis:
                    problem(seq, f"seq {seq}: the first chained line must have prev of 64 zeros")
                consistent = sha256(prev_b + b"\n" + data[pos:body_start - BODY_KEY]
                                    + data[body_end:body_end + DIGEST_MEMBER]
                                    + data[body_end + HEADER_SKIP:line_end]).hexdigest().encode() == hash_b
                if not consistent:
                    problem(seq, f"seq {seq}: hash does not match the line (a header was changed)")
                chained, prev_hash, consistent_before = True, hash_b, consistent and in_place
                if seq == want:
                    walk.hashes[seq] = hash_b.decode()
                last_fast = seq
                pos = line_end + 1
    finally:
        if own:
            os.close(fd)
    if result is None:
        return ChunkResult(start, end, assumed or INITIAL, assumed or INITIAL)
    report.events += fast
    result.final = (expected, chained, _to_str(prev_hash), consistent_before)
    result.lines = expected - result.assumed[0]
    last = expected - 1
    hashes = walk.hashes
    if last_fast == last:
        hashes[last] = prev_hash.decode()
    result.hashes = {s: h for s, h in hashes.items() if s in (last, want)}
    result.problems = report.problems
    result.events, result.redacted, result.unchained = report.events, report.redacted, report.unchained
    result.redactions, result.erasures = walk.redactions, walk.erasures
    result.runs = walk.runs
    return result


def _to_bytes(text: str | None) -> bytes | None:
    """A hash as the fast path compares it (equal bytes exactly when equal strings)."""
    return None if text is None else text.encode("utf-8", "surrogatepass")


def _to_str(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "surrogatepass")


def _open(source: tuple) -> tuple[int, bool]:
    """The log the parent opened, whatever happened to its path since: ("fd", n) is the
    parent's own descriptor (this process or a forked one); ("proc", pid, n, dev, ino, path)
    reaches it from a process that did not inherit it. Returns (fd, whether to close it)."""
    if source[0] == "fd":
        return source[1], False
    _, pid, number, dev, ino, path = source
    for name in (f"/proc/{pid}/fd/{number}", path):
        try:
            fd = os.open(name, os.O_RDONLY)
        except OSError:
            continue
        stat = os.fstat(fd)
        if (stat.st_dev, stat.st_ino) == (dev, ino):
            return fd, True
        os.close(fd)
    raise OSError(f"{path} was replaced while it was verified")


def _utf8(data: bytes, start: int, end: int) -> bool:
    try:
        data[start:end].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _guess(first: bytes) -> State:
    """The state an intact log is in before this line: the line before it is in its place,
    consistent, and its hash is this line's `prev`."""
    try:
        event = jsonsafe.loads(first)
    except ValueError:
        return (0, True, None, True)
    if not isinstance(event, dict):
        return (0, True, None, True)
    seq, prev = event.get("seq"), event.get("prev")
    return (seq if isinstance(seq, int) and not isinstance(seq, bool) else 0, True,
            prev if isinstance(prev, str) else None, True)


# -- the whole log -----------------------------------------------------------------------------

def boundaries(fd: int, end: int, chunk_bytes: int) -> list[int]:
    """Line starts about `chunk_bytes` apart, from 0 to `end` (`end` is a line start)."""
    cuts = [0]
    target = chunk_bytes
    while target < end:
        pos = line_start_after(fd, target - 1, end)     # the first line start at or after target
        if pos >= end:
            break
        if pos > cuts[-1]:
            cuts.append(pos)
        target = pos + chunk_bytes
    cuts.append(end)
    return cuts


def thread_count() -> int:
    """How many threads this process runs (DuckDB's and a UI's included): a child forked
    beside another thread can inherit a lock held (bench/train_detector.py asks too)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 2


def _context():
    """`fork` only from a single-threaded process (another thread may hold a lock the child
    would inherit held); else `forkserver`, whose server starts clean."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and thread_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__])
        return ctx
    return multiprocessing.get_context("spawn")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _star(args):
    return walk_chunk(*args)


@dataclass
class Stats:
    chunks: int = 0
    rounds: int = 0
    walks: int = 0           # chunk walks, first round and repeats
    slow: int = 0            # lines the reference path walked (in the accepted walks)
    workers: int = 0


def verify(paths: StorePaths, expect_head: str | None = None, *, workers: int | None = None,
           chunk_bytes: int | None = None, stats: Stats | None = None) -> Report:
    """The same report as `audit.verify_sequential`, from chunks walked on all cores.

    `workers`: processes (0 or 1: this one; None: one per core, or this one for a log below
    SMALL_BYTES). `chunk_bytes`: the size of a chunk (None: about 8 chunks a process, between
    MIN_CHUNK_BYTES and CHUNK_BYTES; one chunk in this process). Both only change how the
    work is split, never the report (the environment variables ENV_WORKERS and ENV_CHUNK set
    them for a command)."""
    stats = stats if stats is not None else Stats()
    if workers is None and os.environ.get(ENV_WORKERS):
        workers = int(os.environ[ENV_WORKERS])
    if chunk_bytes is None and os.environ.get(ENV_CHUNK):
        chunk_bytes = int(os.environ[ENV_CHUNK])
    report = Report()
    tail = whole_tail(paths.log)
    report.torn_bytes = len(tail.torn)
    want = None
    if expect_head is not None:
        try:
            want = parse_head(expect_head)[0]
        except ValueError:
            want = None
    end = tail.end
    if workers is None:
        workers = _cores() if end >= SMALL_BYTES else 1
    if multiprocessing.current_process().daemon:
        workers = min(workers, 1)               # a daemonic process may not have children
    if chunk_bytes is None:             # about 8 chunks a process: an even share on a busy host
        chunk_bytes = (max(MIN_CHUNK_BYTES, min(CHUNK_BYTES, end // (workers * 8)))
                       if workers > 1 else max(end, 1))
    # one open file for every chunk, as the reference reads one: a log renamed over (an
    # erasure's rewrite) while this runs is not mixed into it
    fd = os.open(paths.log, os.O_RDONLY)
    pool = None
    try:
        cuts = boundaries(fd, end, max(1, chunk_bytes)) if end else [0]
        spans = list(zip(cuts, cuts[1:]))
        stats.chunks, stats.workers = len(spans), workers
        log: tuple = ("fd", fd)
        if workers > 1 and len(spans) > 1:
            ctx = _context()
            if ctx.get_start_method() != "fork":
                stat = os.fstat(fd)
                log = ("proc", os.getpid(), fd, stat.st_dev, stat.st_ino, str(paths.log))
            pool = ctx.Pool(min(workers, len(spans)))
            run = lambda batch: pool.map(_star, batch, chunksize=1)   # noqa: E731
        else:
            run = lambda batch: [walk_chunk(*t) for t in batch]      # noqa: E731
        tasks = [(log, a, b, INITIAL if i == 0 else None, want) for i, (a, b) in enumerate(spans)]
        results = run(tasks)
        stats.rounds, stats.walks = 1, len(tasks)
        while True:
            again, state = [], INITIAL
            for i, result in enumerate(results):
                if result.assumed != state:
                    again.append((i, state))
                # line counts do not depend on the state a chunk starts in: the base is exact
                state = (state[0] + result.lines,) + tuple(result.final[1:])
            if not again:
                break
            redo = run([(log, results[i].start, results[i].end, start_state, want)
                        for i, start_state in again])
            for (i, _), result in zip(again, redo):
                results[i] = result
            stats.rounds += 1
            stats.walks += len(redo)
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        if pool is not None:
            pool.terminate()                    # after an error (a no-op after join)
        os.close(fd)
    walk = _Walk(paths, report)
    for result in results:
        report.problems.extend(result.problems)
        report.events += result.events
        report.redacted += result.redacted
        report.unchained += result.unchained
        walk.redactions.extend(result.redactions)
        walk.erasures.update(result.erasures)
        walk.hashes.update(result.hashes)
        for run in result.runs:                           # a run a chunk's edge cut goes on
            walk.add_run(*run)
        stats.slow += result.slow
    walk.expected = state[0]
    finish(walk, expect_head)
    return report
