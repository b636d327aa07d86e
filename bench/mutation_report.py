"""Mutation testing as a habit: small deliberate bugs put into a private copy of the code, one at
a time, each run against the test files that should catch it. Prints killed/survived per
module and every survivor. Not in CI (it takes a while); run it after changing the core, the
SQL or their tests, and say in the closing note why each survivor lives (an equivalent
mutant) or which test now kills it.

    python bench/mutation_report.py                    # everything (named, SQL, Python)
    python bench/mutation_report.py --named            # the seven bugs of issue 15 only
    python bench/mutation_report.py --sql --only beliefs.sql --max 40
    python bench/mutation_report.py --python --only gate --only chain

Three kinds of mutant:
- named: the bugs issue 15 found unnoticed, as fixed patches (bench/mutation/named.py);
- SQL: a mutator of its own over the statements of queries/ (bench/mutation/sqlmut.py), each
  mutant run against the target's test files that load the mutated statement (a first run
  records which do, in the pytest process and in the CLI processes it starts);
- Python: mutmut over the core's modules (bench/mutation/pymut.py).
What is mutated and by which test files: bench/mutation/targets.py, with the SQL mutants known
to be equivalent (not run; listed with the reason). Each part of the run is bounded: --max
mutants per module (a seeded sample when there are more) and --timeout seconds per mutant (a
mutant that hangs the tests counts as caught). Tests that already fail without any mutant are
deselected and reported. Everything runs in a private copy; the checkout is never written.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "mutation"))

import named as named_bugs  # noqa: E402
import pymut  # noqa: E402
import sqlmut  # noqa: E402
from targets import PYTHON, SQL, Target, equivalent  # noqa: E402
from workspace import Workspace  # noqa: E402


@dataclass
class Row:
    kind: str
    module: str
    total: int = 0                    # mutants the module has (after dropping unparsable SQL)
    run: int = 0
    killed: int = 0
    timeout: int = 0
    survived: list[dict] = field(default_factory=list)
    equivalent: list[dict] = field(default_factory=list)     # declared, not run
    deselected: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def caught(self) -> int:
        return self.killed + self.timeout

    def line(self) -> str:
        share = f"{self.caught / self.run:6.1%}" if self.run else "     -"
        return (f"{self.kind:7} {self.module:14} {self.total:6} {len(self.equivalent):6} {self.run:5} "
                f"{self.killed:6} {self.timeout:7} {len(self.survived):8}  {share}  "
                f"{self.seconds / 60:5.1f} min")


HEADER = (f"{'kind':7} {'module':14} {'total':>6} {'equiv':>6} {'run':>5} {'killed':>6} "
          f"{'timeout':>7} {'survived':>8}  {'caught':>6}  {'time':>9}")


def log(text: str) -> None:
    print(text, flush=True)


# -- named bugs ---------------------------------------------------------------------------------

def run_named(ws: Workspace, timeout: float) -> list[dict]:
    rows = []
    for bug in named_bugs.NAMED:
        originals = {file: ws.read(file) for file, _, _ in bug.patches}
        moved = [file for file, old, _ in bug.patches if originals[file].count(old) != 1]
        if moved:
            rows.append({"bug": bug.name, "status": "patch does not apply (the code moved)"})
            log(f"  ?  {bug.name}: the patch no longer applies to {', '.join(moved)}")
            continue
        tests = list(bug.tests)
        baseline = ws.pytest(tests, timeout=timeout * 3, first_failure=False)
        patched = dict(originals)
        for file, old, new in bug.patches:
            patched[file] = patched[file].replace(old, new)
        try:
            for file, text in patched.items():
                ws.write(file, text)
            outcome = ws.pytest(tests, timeout=timeout * 3, first_failure=False)
        finally:
            for file, text in originals.items():
                ws.write(file, text)
        caught = sorted(set(outcome.all_failed) - set(baseline.all_failed))
        status = "killed" if caught or outcome.timed_out else "SURVIVED"
        rows.append({"bug": bug.name, "status": status, "caught_by": caught,
                     "failing_without_the_bug": baseline.all_failed})
        log(f"  {'ok' if caught else '!!'} {bug.name}: {status}"
            + (f" by {len(caught)} test(s), e.g. {caught[0]}" if caught else ""))
    return rows


# -- SQL ----------------------------------------------------------------------------------------

def run_sql(ws: Workspace, target: Target, max_mutants: int, timeout: float, seed: int) -> Row:
    started = time.monotonic()
    row = Row("sql", target.name)
    tests = target.test_files()
    base, row.deselected = ws.baseline(tests)
    log(f"  baseline: {len(row.deselected)} failing test(s) deselected ({base.seconds:.0f} s)")
    found = []
    for file in target.files:
        found += sqlmut.mutants(file, ws.read(file), set(target.statements) if target.statements else None)
    valid = [m for m in found if sqlmut.parses(m)]
    row.equivalent = [{"mutant": m.describe(), "why": equivalent(m).why} for m in valid if equivalent(m)]
    valid = [m for m in valid if not equivalent(m)]
    row.total = len(valid)
    chosen = sorted(random.Random(seed).sample(valid, min(max_mutants, len(valid))),
                    key=lambda m: (m.file, m.line, m.key))
    log(f"  {len(found)} mutants, {len(found) - len(valid) - len(row.equivalent)} rejected by the "
        f"parser, {len(row.equivalent)} declared equivalent, running {len(chosen)}")
    limit = max(timeout, base.seconds * 3 + 30)
    for mutant in chosen:
        files = ws.files_running(tests, mutant.statement)
        if not files:                       # no test runs the statement: nothing can catch it
            row.run += 1
            row.survived.append({"mutant": mutant.describe(), "statement": mutant.statement,
                                 "operator": mutant.operator, "note": "no test runs this statement"})
            log(f"    survived (no test runs it): {mutant.describe()}")
            continue
        original = ws.read(mutant.file)
        ws.write(mutant.file, mutant.text)
        try:
            outcome = ws.pytest(files, timeout=limit, deselect=row.deselected)
        finally:
            ws.write(mutant.file, original)
        row.run += 1
        if outcome.timed_out:
            row.timeout += 1
        elif outcome.killed:
            row.killed += 1
        else:
            row.survived.append({"mutant": mutant.describe(), "statement": mutant.statement,
                                 "operator": mutant.operator})
            log(f"    survived: {mutant.describe()}")
    row.seconds = time.monotonic() - started
    return row


# -- Python -------------------------------------------------------------------------------------

def run_python(ws: Workspace, target: Target, max_mutants: int, timeout: float, seed: int,
               jobs: int) -> Row:
    started = time.monotonic()
    row = Row("python", target.name)
    mutants = pymut.run(ws, target, max_mutants=max_mutants, timeout=timeout, seed=seed, jobs=jobs,
                        log=log)
    row.deselected = ws.deselect.get(tuple(target.test_files()), [])
    row.total = len(pymut.results(ws))
    row.equivalent = [{"mutant": m.name, "why": m.why_equivalent, "diff": m.diff}
                      for m in mutants if m.status == "equivalent"]
    row.run = len(mutants) - len(row.equivalent)
    counts = Counter(m.status for m in mutants)
    row.killed, row.timeout = counts["killed"], counts["timeout"]
    row.survived = [{"mutant": m.name, "mutmut": m.mutmut_status, "diff": m.diff}
                    for m in mutants if m.status == "survived"]
    row.seconds = time.monotonic() - started
    return row


# -- the report ---------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--named", action="store_true", help="the bugs of issue 15")
    parser.add_argument("--sql", action="store_true", help="SQL mutants of queries/")
    parser.add_argument("--python", action="store_true", help="mutmut over the core's modules")
    parser.add_argument("--only", action="append", default=[], help="a module (repeatable): "
                        + ", ".join(t.name for t in SQL + PYTHON))
    parser.add_argument("--max", type=int, default=80, help="mutants per module (seeded sample)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per mutant")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--jobs", type=int, default=2, help="mutmut's worker processes")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the private copy")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))    # stop the running pytest, clean up
    every = not (args.named or args.sql or args.python)
    wanted = set(args.only)
    ws = Workspace.make()
    log(f"private copy: {ws.root}")
    rows: list[Row] = []
    named_rows: list[dict] = []
    try:
        if args.named or every:
            log("named bugs (issue 15)")
            named_rows = run_named(ws, args.timeout)
        for target in SQL if (args.sql or every) else []:
            if not wanted or target.name in wanted:
                log(f"sql {target.name}")
                rows.append(run_sql(ws, target, args.max, args.timeout, args.seed))
        for target in PYTHON if (args.python or every) else []:
            if not wanted or target.name in wanted:
                log(f"python {target.name}")
                rows.append(run_python(ws, target, args.max, args.timeout, args.seed, args.jobs))
    finally:
        if not args.keep:
            ws.remove()
    print_report(rows, named_rows)
    if args.json:
        args.json.write_text(json.dumps({"named": named_rows, "modules": [asdict(r) for r in rows]},
                                        indent=2))
    return 0 if all(r["status"] == "killed" for r in named_rows) else 1


def print_report(rows: list[Row], named_rows: list[dict]) -> None:
    if named_rows:
        print("\nnamed bugs")
        for r in named_rows:
            print(f"  {r['status']:9} {r['bug']}")
    if rows:
        print("\n" + HEADER)
        for row in rows:
            print(row.line())
        for kind in ("python", "sql"):
            part = [r for r in rows if r.kind == kind]
            run, caught = sum(r.run for r in part), sum(r.caught for r in part)
            if run:
                print(f"{kind:7} {'(all)':14} {'':6} {'':6} {run:5} {'':6} {'':7} {run - caught:8}  "
                      f"{caught / run:6.1%}")
    for row in rows:
        if row.deselected:
            print(f"\n{row.kind} {row.module}: deselected (failing without any mutant): "
                  + ", ".join(row.deselected))
        for e in row.equivalent:
            print(f"\nequivalent [{row.kind} {row.module}] {e['mutant']}\n    {e['why']}")
        for s in row.survived:
            print(f"\nsurvived [{row.kind} {row.module}] {s['mutant']}"
                  + (f" ({s['note']})" if s.get("note") else ""))
            if s.get("diff"):
                print("\n".join("    " + line for line in s["diff"].splitlines()[1:]))


if __name__ == "__main__":
    sys.exit(main())
