"""Check results files before they are accepted: structure, snippet versions, plausibility, ids.

Usage: python -m scripts.validate [FILE ...]   (default: every results/*.json)
Each problem names the file, the session, the entry and the field, and says what is
expected. Nothing is changed on disk. Exit status 1 when any file has a problem.
"""

from __future__ import annotations

import argparse
import math
import sys
from datetime import datetime, timezone
from pathlib import Path

from scripts.core import snippet_versions
from scripts.core import store as results
from scripts.core.catalog import CEILING_KEY, ROOT
from scripts.core.stats import entry_speedup

# No Apple chip is near this: the M1 Ultra's GPU is quoted at 21.2 TFLOPS FP32 (cpu-monkey,
# via FACTS.md). A rate above it is a counting or timing error, not a fast machine.
ABSOLUTE_GFLOPS_BOUND = 200_000.0
# A workload may beat the measured matmul ceiling a little (noise, a luckier kernel) but not
# by half as much again.
CEILING_SAFETY_FACTOR = 1.5
RELATIVE_TOLERANCE = 0.01


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12)


def round_problems(data: dict, name: str) -> list[str]:
    """Variants timed in the same interleaved run must have the same number of rounds, and a
    stored speed-up must be the one its timings give (stats.entry_speedup)."""
    problems = []
    runs: dict[tuple[str, str], dict[str, int]] = {}
    for key, entry in data["entries"].items():
        if entry["method"].get("schedule") == "interleaved rounds":
            run = (entry["snippet"], entry["method"]["run_started"])
            runs.setdefault(run, {})[key] = entry["stats"]["rounds"]
    for (snippet, started), rounds in sorted(runs.items()):
        if len(set(rounds.values())) > 1:
            counts = ", ".join(f"{k} {n}" for k, n in sorted(rounds.items()))
            problems.append(
                f"{name}: entries of {snippet} (run {started}): stats.rounds: rounds of unequal "
                f"length in one interleaved run ({counts}); each round times every variant once"
            )
    for key, entry in data["entries"].items():
        stored = entry.get("speedup")
        base = data["entries"].get(f"{entry['snippet']}:{entry['baseline']}")
        if stored is None:
            continue
        where = f"{name}.entries[{key!r}].speedup"
        if base is None:
            problems.append(f"{where}: its baseline entry {entry['baseline']!r} is missing")
            continue
        point, low, high = entry_speedup(base, entry)
        found = {"point": point, "low": low, "high": high}
        for field, value in found.items():
            if value is None or not _close(stored[field], value):
                problems.append(
                    f"{where}.{field}: {stored[field]!r} is not what the timings give ({value!r})"
                )
    return problems


def best_ceiling(data: dict) -> float | None:
    """The highest float32 matmul rate any session of the machine measured: what the machine
    can do (a session timed while other programs ran measures less)."""
    rates = [
        s["entries"][CEILING_KEY]["stats"].get("gflops_per_s")
        for s in data["sessions"]
        if CEILING_KEY in s["entries"]
    ]
    return max((r for r in rates if isinstance(r, (int, float))), default=None)


def plausibility_problems(data: dict, name: str, ceiling: float | None = None) -> list[str]:
    """Numbers that cannot be true together: inconsistent statistics, impossible rates, dates.
    ceiling: the machine's best measured float32 matmul rate (best_ceiling)."""
    problems = []
    now = datetime.now(timezone.utc)
    for key, entry in data["entries"].items():
        where = f"{name}.entries[{key!r}]"
        stats = entry["stats"]
        spread = (stats["q3_s"] - stats["q1_s"]) / stats["median_s"]
        if not _close(stats["iqr_over_median"], spread):
            problems.append(
                f"{where}.stats.iqr_over_median: {stats['iqr_over_median']!r} does not equal "
                f"(q3_s - q1_s) / median_s = {spread:.6g}"
            )
        times = stats.get("times_s")
        if times is not None and (not isinstance(times, list) or len(times) != stats["rounds"]):
            problems.append(f"{where}.stats.times_s: expected a list of {stats['rounds']} timings")
        examples, rate = stats.get("examples_per_run"), stats.get("throughput_per_s")
        if examples is not None and rate is not None:
            ok = isinstance(examples, (int, float)) and isinstance(rate, (int, float))
            if not ok or not _close(rate, examples / stats["median_s"]):
                problems.append(
                    f"{where}.stats.throughput_per_s: expected examples_per_run / median_s"
                )
        gflops = stats.get("gflops_per_s")
        if gflops is not None:
            if not isinstance(gflops, (int, float)) or not 0 < gflops <= ABSOLUTE_GFLOPS_BOUND:
                problems.append(
                    f"{where}.stats.gflops_per_s: {gflops!r} is outside (0, "
                    f"{ABSOLUTE_GFLOPS_BOUND:,.0f}] GFLOP/s"
                )
            elif ceiling and key != CEILING_KEY and gflops > ceiling * CEILING_SAFETY_FACTOR:
                problems.append(
                    f"{where}.stats.gflops_per_s: {gflops:,.1f} is more than "
                    f"{CEILING_SAFETY_FACTOR}× this machine's measured ceiling ({ceiling:,.1f})"
                )
        try:
            date = datetime.fromisoformat(entry["date"].replace("Z", "+00:00"))
            if date.tzinfo is None or date > now:
                problems.append(f"{where}.date: {entry['date']!r} is in the future or has no zone")
        except ValueError:
            problems.append(f"{where}.date: expected an ISO 8601 UTC time, got {entry['date']!r}")
    return problems


def validate(paths: list[Path], root: Path = ROOT) -> list[str]:
    """Every problem found in these results files, as messages naming file, entry and field."""
    problems: list[str] = []
    owners: dict[str, Path] = {}
    hash_cache: dict[str, set[str]] = {}
    for path in paths:
        try:
            data = results.read(path)
        except results.ResultsError as error:
            problems.append(str(error))
            continue
        name = str(path)
        machine_id = data["machine"]["id"]
        if path.stem != machine_id:
            problems.append(f"{name}: machine.id {machine_id!r} must equal the file name")
        if machine_id in owners:
            problems.append(
                f"{name}: machine.id {machine_id!r} is also used by {owners[machine_id]}"
            )
        owners.setdefault(machine_id, path)
        ceiling = best_ceiling(data)
        for number, session in enumerate(data["sessions"]):
            run = {"entries": session["entries"]}
            where = f"{name}: sessions[{number}]"
            for key, entry in session["entries"].items():
                relpath = f"snippets/{entry['snippet']}.py"
                if relpath not in hash_cache:
                    hash_cache[relpath] = snippet_versions.known_hashes(relpath, root)
                if entry["snippet_sha256"] not in hash_cache[relpath]:
                    problems.append(
                        f"{where}.entries[{key!r}].snippet_sha256: matches no version of "
                        f"{relpath} (today's or any in git history)"
                    )
            problems += plausibility_problems(run, where, ceiling)
            problems += round_problems(run, where)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.validate", description=__doc__)
    parser.add_argument("files", nargs="*", type=Path, help="results files (default: results/)")
    args = parser.parse_args(argv)
    paths = args.files or sorted(results.RESULTS_DIR.glob("*.json"))
    if not paths:
        print("error: no results files given or found in results/", file=sys.stderr)
        return 2
    problems = validate(paths)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in {len(paths)} file(s)", file=sys.stderr)
        return 1
    print(f"{len(paths)} results file(s) valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
