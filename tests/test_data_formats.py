"""Every data format is defined once, by a JSON Schema under data/ (scripts/core/data_formats.py):
every file in data/ has one, every committed file holds it, and a hostile file of each format
is refused with a message naming the file and the field."""

from __future__ import annotations

import copy
import importlib
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from scripts.core import data_formats, store

ROOT = Path(__file__).resolve().parent.parent


def benchmark_loaders() -> dict[Path, object]:
    """The committed runs benchmarks/tune/ reads (each module's *_JSON path), and the module
    whose load() reads each."""
    found = {}
    for module_file in sorted((ROOT / "benchmarks" / "tune").glob("*.py")):
        module = importlib.import_module(f"benchmarks.tune.{module_file.stem}")
        found |= {value: module for name, value in vars(module).items() if name.endswith("_JSON")}
    return found


def benchmark_runs() -> list[Path]:
    return sorted(benchmark_loaders())


def data_files() -> list[Path]:
    """Every data file the project keeps: data/ (schemas aside), results/ and the benchmarks'
    committed runs."""
    found = [p for p in sorted((ROOT / "data").rglob("*")) if p.is_file()]
    found = [p for p in found if not p.name.endswith(".schema.json")]
    return found + sorted((ROOT / "results").glob("*.json")) + benchmark_runs()


def parts_of(name: str) -> set[str]:
    """The schemas a format's schema refers to (their $defs embedded in it), by file name."""
    return set(data_formats.embedded(json.loads(data_formats.schema_path(name).read_text("utf-8"))))


def parsed(path: Path) -> object:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def test_every_data_file_has_a_format_whose_schema_is_under_data():
    unnamed = [str(p.relative_to(ROOT)) for p in data_files() if data_formats.format_of(p) is None]
    assert not unnamed, f"no format (data_formats.FORMATS) for {unnamed}"
    for name in set(data_formats.FORMATS.values()):
        schema = data_formats.schema_path(name)
        assert schema.is_file(), f"format {name!r} has no schema at {schema.relative_to(ROOT)}"
        jsonschema.Draft202012Validator.check_schema(json.loads(schema.read_text("utf-8")))
    used = {data_formats.schema_path(name).name for name in data_formats.FORMATS.values()}
    used |= {part for name in data_formats.FORMATS.values() for part in parts_of(name)}
    unused = {p.name for p in (ROOT / "data").glob("*.schema.json")} - used
    assert not unused, f"schemas no format uses: {sorted(unused)}"
    named = {data_formats.format_of(p) for p in data_files()}
    assert named == set(data_formats.FORMATS.values()), "a format with no file left"


@pytest.mark.parametrize("path", data_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_committed_data_file_holds_its_format(path):
    assert data_formats.problems(parsed(path), data_formats.format_of(path)) == []


def first(data: dict, key: str) -> dict:
    return data[key][0]


TUNE = "docs/_generated/tune"  # tune's committed benchmark runs
OVERHEAD, PLATEAU = f"{TUNE}/overhead.json", f"{TUNE}/batch_plateau.json"
VALIDATION, GROUND_TRUTH = f"{TUNE}/validation.json", f"{TUNE}/ground_truth.json"
TRUTH_RUNS = f"{TUNE}/truth_runs.json"


# (file, what a hostile copy changes, what the refusal must say after the file's name)
HOSTILE = {
    "machine names: an empty short name": (
        "data/machine_names.yml",
        lambda d: d.update({"intel-xeon-2cpu-linux": ""}),
        "intel-xeon-2cpu-linux: ",
    ),
    "variance strata: a stratum without its reason": (
        "data/variance_strata.yml",
        lambda d: first(d, "strata").pop("why"),
        "strata[0]: missing field(s) why",
    ),
    "tune spread: a negative variance": (
        "data/tune_spread.json",
        lambda d: d["strata"]["compute"].update({"tau2": -0.1}),
        "strata.compute.tau2",
    ),
    "snippet workloads: an id that is no hash": (
        "data/snippet_workloads.json",
        lambda d: next(iter(next(iter(d["versions"].values())).values())).update(
            {"as written": "<script>"}
        ),
        "does not match",
    ),
    "claims: unknown verdict": (
        "data/claims/batch-size.yml",
        lambda d: first(d, "claims").update(verdict="probably"),
        "claims[0].verdict: expected one of 'holds'",
    ),
    "claims: evidence with no range": (
        "data/claims/batch-size.yml",
        lambda d: [
            e.pop(k, None) for e in d["claims"][0]["evidence"][:1] for k in ("at_least", "below")
        ],  # fmt: skip
        "claims[0].evidence[0]",
    ),
    "command purposes: both for and not_resolved": (
        "data/command_purposes.yml",
        lambda d: first(d, "commands").update(not_resolved="both"),
        "commands[0]",
    ),
    "command purposes: unknown platform": (
        "data/command_purposes.yml",
        lambda d: next(c for c in d["commands"] if "for" in c)["for"][0].update(
            platforms=["windows-x86_64"]
        ),
        "platforms[0]: expected one of 'macos-arm64'",
    ),
    "commands record: a printed line number as text": (
        "data/commands_record.json",
        lambda d: first(d, "entries").update(printed_in="twelve"),
        "entries[0].printed_in: expected a whole number, got 'twelve'",
    ),
    "compatibility: a row without its TensorFlow range": (
        "data/compatibility.json",
        lambda d: d["official"]["rows"][0].pop("tf_min"),
        "official.rows[0]: missing field(s) tf_min",
    ),
    "compatibility: a test result that is neither OK nor FAIL": (
        "data/compatibility.json",
        lambda d: d["tested"]["rows"][0].update(result="maybe"),
        "tested.rows[0].result: expected one of 'OK', 'FAIL'",
    ),
    "mac recipes: a source that is no https link": (
        "data/mac_recipes.json",
        lambda d: d["sources"].update(apple_table="javascript:alert(1)"),
        "sources.apple_table: 'javascript:alert(1)' does not match",
    ),
    "mac recipes: a verified aspect missing": (
        "data/mac_recipes.json",
        lambda d: first(d, "recipes")["verified"].pop("speed"),
        "recipes[0].verified: missing field(s) speed",
    ),
    "mac recipes: a Keras family the doctor cannot match": (
        "data/mac_recipes.json",
        lambda d: d["recipes"][1]["match"].update(keras="keras4"),
        "recipes[1].match.keras: expected one of 'keras2', 'keras3', 'any', got 'keras4'",
    ),
    "mac recipes: an advice the doctor does not act on": (
        "data/mac_recipes.json",
        lambda d: first(d, "recipes").update(advice="maybe"),
        "recipes[0].advice: expected one of 'recommended'",
    ),
    "measured stacks: legacy_keras as text": (
        "data/measured_stacks.yml",
        lambda d: d[0].update(legacy_keras="no"),
        "[0].legacy_keras: expected true or false, got 'no'",
    ),
    "measured stacks: an unknown field": (
        "data/measured_stacks.yml",
        lambda d: d[0].update(python="3.11"),
        "[0]: unknown field(s) 'python'",
    ),
    "measured stacks (portable): a stack without its Keras": (
        "data/measured_stacks.json",
        lambda d: first(d, "stacks").pop("keras"),
        "stacks[0]: missing field(s) keras",
    ),
    "reference results: a row without its unit": (
        "data/reference_results.yml",
        lambda d: first(d, "sources")["rows"][0].pop("unit"),
        "sources[0].rows[0]: missing field(s) unit",
    ),
    "sources: a link that is not https": (
        "data/sources.yml",
        lambda d: first(d, "sources").update(url="http://example.com/page"),
        "sources[0].url: 'http://example.com/page' does not match",
    ),
    "sources: a statement without the source's words": (
        "data/sources.yml",
        lambda d: first(d, "sources")["supports"][0].pop("quote"),
        "sources[0].supports[0]: missing field(s) quote",
    ),
    "stack changes: one stack instead of two": (
        "data/stack_changes.yml",
        lambda d: d["changes"].append(
            {
                "claim": "c",
                "stacks": ["tf216-keras3"],
                "cause": "x",
                "source": "https://a.b",
                "tag": "v1",
            }  # fmt: skip
        ),
        "stacks: expected at least 2 item(s), got 1",
    ),
    "symptoms: an unknown era": (
        "data/symptoms.yml",
        lambda d: first(d, "symptoms").update(era="the future"),
        "symptoms[0].era: expected one of 'ML Compute fork'",
    ),
    "symptoms: a fix language pytest would not run": (
        "data/symptoms.yml",
        lambda d: first(d, "symptoms").update(fix_lang="python"),
        "symptoms[0].fix_lang: expected one of 'console', 'py'",
    ),
    "results: a session list with no session": (
        "results/intel-xeon-2cpu-linux.json",
        lambda d: d.update(sessions=[]),
        "sessions: expected at least 1 item(s), got 0",
    ),
    "tune overhead: a row without its ratio": (
        OVERHEAD,
        lambda d: first(d, "rows").pop("ratio"),
        "rows[0]: missing field(s) ratio",
    ),
    "tune overhead: rounds as text": (
        OVERHEAD,
        lambda d: first(d, "rows").update(rounds="400"),
        "rows[0].rounds: expected a whole number, got '400'",
    ),
    "tune overhead: no rows": (
        OVERHEAD,
        lambda d: d.update(rows=[]),
        "rows: expected at least 1 item(s), got 0",
    ),
    "tune batch plateau: a measured batch without its median": (
        PLATEAU,
        lambda d: first(d, "rows").pop("median_s"),
        "rows[0]: missing field(s) median_s",
    ),
    "tune batch plateau: the chosen batch as text": (
        PLATEAU,
        lambda d: d.update(chosen="65536"),
        "chosen: expected a whole number or null, got '65536'",
    ),
    "tune batch plateau: no rows": (
        PLATEAU,
        lambda d: d.update(rows=[]),
        "rows: expected at least 1 item(s), got 0",
    ),
    "tune validation: a variant without its rows": (
        VALIDATION,
        lambda d: first(d, "cases")["slow"].pop("rows"),
        "cases[0].slow: missing field(s) rows",
    ),
    "tune validation: interrupted as text": (
        VALIDATION,
        lambda d: first(d, "cases")["better"].update(interrupted="no"),
        "cases[0].better.interrupted: expected true or false, got 'no'",
    ),
    "tune validation: a case that ran no experiment": (
        VALIDATION,
        lambda d: first(d, "cases").update(only=[]),
        "cases[0].only: expected at least 1 item(s), got 0",
    ),
    "tune ground truth: a case without what was planted": (
        GROUND_TRUTH,
        lambda d: first(d, "cases").pop("planted"),
        "cases[0]: missing field(s) planted",
    ),
    "tune ground truth: a machine without its description": (
        GROUND_TRUTH,
        lambda d: d["machine"].pop("description"),
        "machine: missing field(s) description",
    ),
    "tune ground truth: recommended as text": (
        GROUND_TRUTH,
        lambda d: first(d, "cases")["tune"][0]["rows"][0].update(recommended="yes"),
        "cases[0].tune[0].rows[0].recommended: expected true or false, got 'yes'",
    ),
    "tune ground truth: a truth with no times": (
        GROUND_TRUTH,
        lambda d: first(d, "cases")["truth"]["per_sample_s"].update(arm=[]),
        "cases[0].truth.per_sample_s.arm: expected at least 1 item(s), got 0",
    ),
    "tune ground truth: an unknown field beside the run's provenance": (
        GROUND_TRUTH,
        lambda d: d.update(note="x"),
        "the top level: unknown field(s) 'note'",
    ),
    "tune truth runs: a run without its sitting": (
        TRUTH_RUNS,
        lambda d: d["cases"]["truth_cached.py"][0].pop("sitting"),
        "cases.truth_cached.py[0]: missing field(s) sitting",
    ),
    "tune truth runs: a time as text": (
        TRUTH_RUNS,
        lambda d: d["cases"]["truth_cached.py"][0]["truth"]["rounds"][0].__setitem__(1, "0.5"),
        "cases.truth_cached.py[0].truth.rounds[0][1]: expected a finite number, got '0.5'",
    ),
    "tune truth runs: a case with no runs": (
        TRUTH_RUNS,
        lambda d: d["cases"].update({"truth_cached.py": []}),
        "cases.truth_cached.py: expected at least 1 item(s), got 0",
    ),
}


def test_every_format_has_a_hostile_file_test():
    tried = {data_formats.format_of(ROOT / path) for path, _, _ in HOSTILE.values()}
    assert tried == set(data_formats.FORMATS.values())


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_file_is_refused_naming_the_file_and_the_field(case):
    relative, change, expected = HOSTILE[case]
    path = ROOT / relative
    data = copy.deepcopy(parsed(path))
    change(data)
    with pytest.raises(data_formats.FormatError) as refused:
        data_formats.check(data, path)
    assert str(refused.value).startswith(f"{path.name}: "), refused.value
    assert expected in str(refused.value), refused.value


@pytest.mark.parametrize("path", benchmark_runs(), ids=lambda p: p.name)
def test_each_benchmark_loader_holds_its_committed_run_to_its_format(path, tmp_path):
    """The module's load() reads through its format: a copy without the format's first
    required field is refused, naming the file and the field, before any rule of its own."""
    name = data_formats.format_of(path)
    field = data_formats.bundled(name)["required"][0]
    data = parsed(path)
    data.pop(field)
    copied = tmp_path / path.name
    copied.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(data_formats.FormatError) as refused:
        benchmark_loaders()[path].load(copied)
    assert str(refused.value).startswith(f"{path.name}: the top level: missing field(s) {field}")


def test_the_designs_the_tune_runs_format_allows_are_tunes_own():
    """tune_run_parts.schema.json names runner.DESIGNS again: the two may not drift apart."""
    from scripts.tuning import runner

    parts = json.loads(data_formats.schema_path("tune_run_parts").read_text("utf-8"))
    assert tuple(parts["$defs"]["tune_run"]["properties"]["design"]["enum"]) == runner.DESIGNS


def test_a_results_file_with_no_session_is_refused_when_read(tmp_path):
    committed = store.read(ROOT / "results" / "intel-xeon-2cpu-linux.json")
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({**committed, "sessions": []}), encoding="utf-8")
    with pytest.raises(store.ResultsError, match="sessions: expected at least 1 item"):
        store.read(empty)


def test_the_fast_yaml_parser_gives_what_pyyamls_own_gives_for_every_data_file():
    """scripts/core/yaml_files.py parses with libyaml where PyYAML has it (the locked wheels
    do); every YAML file in data/ comes out as PyYAML's pure-Python safe_load gives it."""
    from scripts.core import yaml_files

    assert yaml_files.SAFE_LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    yaml_paths = [p for p in data_files() if p.suffix in (".yml", ".yaml")]
    assert yaml_paths
    for path in yaml_paths:
        text = path.read_text(encoding="utf-8")
        assert yaml_files.safe_load(text) == yaml.safe_load(text), path.name


def refused_edits(path: Path) -> list[tuple[str, str]]:
    """(text, what the refusal says) for two edits of a committed file that its schema alone
    would not catch: its first top-level key given a second time, and a NaN (.nan in YAML)."""
    text, data = path.read_text(encoding="utf-8"), parsed(path)
    first = next(iter(data))
    if path.suffix == ".json":
        assert text.startswith("{"), path.name
        twice, nan = f'{{"{first}": null, ' + text[1:], '{"not_finite": NaN, ' + text[1:]
        return [(twice, f"the key '{first}' appears twice"), (nan, "NaN is not a number")]
    if isinstance(data, list):  # a list of mappings: the first one's first key again
        first = next(iter(first))
        line = next(line for line in text.splitlines() if line.startswith(f"- {first}:"))
        twice, nan = text.replace(line, f"{line}\n  {first}: null", 1), f"{text}\n- .nan\n"
    else:
        twice, nan = f"{text}\n{first}: null\n", f"{text}\nnot_finite: .nan\n"
    return [(twice, f"the key '{first}' appears twice"), (nan, "'.nan' is not a finite number")]


@pytest.mark.parametrize("path", data_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_repeated_key_or_a_nan_is_refused_when_read_naming_the_file(path, tmp_path):
    """A reviewer reads one value of a repeated key in the diff while the tools would use the
    other; a NaN passes a schema's "number". data_formats.read refuses both in either syntax."""
    copied = tmp_path / path.name
    for text, said in refused_edits(path):
        copied.write_text(text, encoding="utf-8")
        with pytest.raises(data_formats.FormatError) as refused:
            data_formats.read(copied, data_formats.format_of(path))
        assert str(refused.value).startswith(f"{path.name}: cannot read it: "), refused.value
        assert said in str(refused.value), refused.value


def test_a_results_file_edited_after_a_read_is_checked_again(tmp_path):
    """store.read checks the same text once per process; different text is checked afresh."""
    source = max(sorted((ROOT / "results").glob("*.json")), key=lambda p: p.stat().st_size)
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    first = store.read(path)
    assert store.read(path) == first and store.read(path) is not first
    broken = json.loads(path.read_text(encoding="utf-8"))
    broken["sessions"] = []
    path.write_text(json.dumps(broken), encoding="utf-8")
    for _ in range(2):  # a failure is not kept as a pass, nor the earlier pass reused
        with pytest.raises(store.ResultsError, match="sessions"):
            store.read(path)
