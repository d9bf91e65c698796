"""``derivative import fret|hanfor``: exports of other tools as timed requirements.

The fixtures under ``tests/importers/`` are requirement sets written for these tests in the
two export formats (docs/importers.md): a FRET autopilot with a ``variables`` section, a
FRET pump without one, a FRET pair with a planted conflict, and two Hanfor CSVs of a liquid
mixer (the formalised-sentence layout and the column layout).  Every form the importers
translate appears in them, and so does every reason for refusing one.

What each import must give is written here by hand (which requirements are translated,
which are not and why, and the timed body of each kind of translation); the golden files
``tests/importers/golden/*`` only pin the whole text and report, and are rewritten with
``DERIVATIVE_REGEN_GOLDEN=1``, never by hand.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import random
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from derivative import api
from derivative._errors import UsageError
from derivative.cli import main
from derivative.grammar import RESERVED
from derivative.importers import BadExport, ImportOptions, import_fret, import_hanfor
from derivative.importers._expr import parse, render
from derivative.importers._hanfor import _sentence
from derivative.importers._model import AVOID, Names, identifier
from derivative.importers._patterns import PATTERNS
from derivative.importers._tree import Untranslatable
from derivative.importers._writer import quote

if TYPE_CHECKING:
    from conftest import Golden

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "importers"
GOLDEN = HERE / "golden"

FIXTURES = [
    ("fret", "fret_autopilot.json"),
    ("fret", "fret_no_variables.json"),
    ("fret", "fret_conflict.json"),
    ("hanfor", "hanfor_mixer.csv"),
    ("hanfor", "hanfor_columns.csv"),
    ("hanfor", "hanfor_export.csv"),
]


def imported(kind: str, name: str) -> api.ImportResult:
    text = (HERE / name).read_text(encoding="utf-8")
    return api.import_requirements(kind, name, text=text)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bodies(result: api.ImportResult) -> dict[str, str]:
    """requirement id -> its timed body, read back from the written text."""
    out = {}
    for line in result.text.splitlines():
        if line.startswith("    requirement "):
            rid = line.split()[1]
            for end in ('": ', ']: ', ": "):  # after the text, else the tags, else the id
                if end in line:
                    out[rid] = line.rpartition(end)[2]
                    break
    return out


# --------------------------------------------------------------------------- golden


@pytest.mark.parametrize(("kind", "name"), FIXTURES)
def test_golden(kind: str, name: str, golden: Golden) -> None:
    result = imported(kind, name)
    stem = Path(name).stem
    golden.check(GOLDEN / f"{stem}.req", result.text)
    golden.check(GOLDEN / f"{stem}.report.json",
                 json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------- the timed layer


@pytest.mark.parametrize(("kind", "name"), FIXTURES)
def test_every_imported_file_parses_and_type_checks(kind: str, name: str) -> None:
    result = imported(kind, name)
    loaded = api.parse_text(result.text, f"{name}.req")
    written = [(r.id, r.tags[kind], r.text) for c in loaded.timed for r in c.requirements]
    assert [w[0] for w in written] == [t.id for t in result.translated]
    for (rid, tag, text), t in zip(written, result.translated, strict=True):
        assert t.source_id in (tag, f"{tag}_f1", f"{tag}_f2"), rid
        assert text  # every fixture requirement has its text kept
    blocks = {c.name for c in loaded.timed}
    assert blocks == {line.split()[1] for line in result.text.splitlines()
                      if line.startswith("timed ")}


def test_a_planted_conflict_is_reported_by_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # C-1 says pullup always, C-2 not pullup at the next step: no run of two steps has both
    out = tmp_path / "conflict.req"
    code, _, _ = cli(capsys, "import", "fret", str(HERE / "fret_conflict.json"), "-o",
                     str(out))
    assert code == 0
    code, stdout, _ = cli(capsys, "check", str(out), "--depth", "4")
    assert code == 3, stdout
    assert "minimal conflict: C_1, C_2" in stdout
    loaded = api.load(str(out))
    [result] = api.check_timed(loaded)
    assert (result.status, set(result.core)) == ("infeasible_proven", {"C_1", "C_2"})


def _random_condition(rng: random.Random, depth: int, fret: bool, want: str = "bool") -> str:
    """A condition in FRET's or Hanfor's syntax: mostly well typed, sometimes not."""
    if want == "num":
        if depth > 3 or rng.random() < 0.4:
            return rng.choice(["x", "y", "in", "3", "2.5", "0"])
        if rng.random() < 0.2:
            return f"-({_random_condition(rng, depth + 1, fret, 'num')})"
        op = rng.choice(["+", "*", "-"])
        return (f"({_random_condition(rng, depth + 1, fret, 'num')} {op} "
                f"{_random_condition(rng, depth + 1, fret, 'num')})")
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(["a", "b", "p.q", "mode", "true", "false", "x"])  # x: a clash
    sub = [_random_condition(rng, depth + 1, fret) for _ in range(2)]
    if fret:
        ops = ["&", "|", "=>", "<=>", "xor", "="]
        extra = [f"persisted({rng.randint(0, 3)}, {sub[0]})",
                 f"occurred({rng.randint(0, 3)}, {sub[0]})",
                 f"preBool({rng.choice(['TRUE', 'FALSE'])}, {sub[0]})"]
    else:
        ops = ["&&", "||", "==>", "<==", "<==>", "=="]
        extra = []
    nums = [_random_condition(rng, depth + 1, fret, "num") for _ in range(2)]
    forms = [f"({sub[0]}) {rng.choice(ops)} ({sub[1]})", f"!({sub[0]})",
             f"{nums[0]} {rng.choice(['<', '<=', '>', '!=', '=' if fret else '=='])} {nums[1]}",
             *extra]
    return rng.choice(forms)


def _random_fret(rng: random.Random) -> str:
    reqs = []
    for k in range(4):
        cond = rng.choice(["null", "regular", "holding"])
        sem = {"scope": {"type": rng.choice(["null", "in", "notin", "before", "onlyIn"])},
               "scope_mode": rng.choice(["m", "a", "(a & b)"]), "condition": cond,
               "qualifier_word": "upon", "regular_condition": _random_condition(rng, 0, True),
               "timing": rng.choice(["always", "never", "immediately", "next", "within", "for",
                                     "after", "until", "before", "eventually"]),
               "duration": [str(rng.randint(0, 4))], "component_name": "C",
               "stop_condition": _random_condition(rng, 0, True),
               "post_condition": _random_condition(rng, 0, True)}
        reqs.append({"reqid": f"R{k}", "fulltext": "t", "semantics": sem})
    return json.dumps(reqs)


def _random_hanfor(rng: random.Random) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["ID", "Formalization"])
    for k in range(4):
        pattern = rng.choice(PATTERNS)
        slots = {s: str(rng.randint(0, 5)) if rng.random() < 0.4
                 else _random_condition(rng, 0, False) for s in "RSTUV"}
        scope = rng.choice(["Globally", 'Before "{}"', 'After "{}"']).format(
            _random_condition(rng, 1, False))
        sentence = pattern.sentence.format(**{s: f'"{v}"' for s, v in slots.items()})
        writer.writerow([f"R{k}", f"{scope}, {sentence}"])
    return out.getvalue()


@pytest.mark.parametrize("kind", ["fret", "hanfor"])
def test_whatever_is_written_parses_and_type_checks(kind: str) -> None:
    # random exports (mostly well-typed conditions, some not, every scope, timing and
    # pattern): a requirement is translated or refused, and what is written always loads
    rng = random.Random(20261202)
    written = 0
    for _ in range(150):
        text = _random_fret(rng) if kind == "fret" else _random_hanfor(rng)
        result = api.import_requirements(kind, f"random.{kind}", text=text)
        assert len(result.translated) + len(result.untranslated) == 4
        if result.translated:
            loaded = api.parse_text(result.text, "random.req")
            assert sum(len(c.requirements) for c in loaded.timed) == len(result.translated)
            written += 1
    assert written > 40  # the generator is not so wild that nothing is ever translated


def _at(step: int) -> str:
    """A timed condition true at exactly one step."""
    return f"(true has held for {step} steps) and not (true has held for {step + 1} steps)"


FRET_MEANINGS = [
    # (timing, duration, extra requirement on y, consistent?): FRET's own descriptions,
    # checked through the timed checker on the imported text, x true at step 0
    ("after", "2", f"when {_at(2)}, y", False),  # FRET: y false at t..t+2
    ("after", "2", f"when {_at(3)}, not y", False),  # ... and true at t+3
    ("after", "2", f"when {_at(3)}, y", True),
    ("within", "2", "when not (true has held for 3 steps), not y", False),  # y in t..t+2
    ("within", "2", f"when not {_at(2)}, not y", True),
    ("for", "2", f"when {_at(2)}, not y", False),  # y at t..t+2
    ("for", "2", f"when {_at(3)}, not y", True),
    ("next", None, f"when {_at(1)}, not y", False),
    ("immediately", None, f"when {_at(0)}, not y", False),
    # FRET: until holds when the stop condition holds at the trigger; before is broken then
    ("until", None, "always s and not y", True),
    ("until", None, f"when {_at(0)}, not s and not y", False),
    ("before", None, "always s", False),
    ("before", None, f"when {_at(0)}, not s and y", True),
]


@pytest.mark.parametrize(("timing", "steps", "extra", "consistent"), FRET_MEANINGS)
def test_fret_timings_mean_what_fret_says(
    timing: str, steps: str | None, extra: str, consistent: bool
) -> None:
    sem = {"scope": {"type": "null"}, "condition": "regular", "qualifier_word": "upon",
           "regular_condition": "(x)", "timing": timing, "duration": [steps] if steps else None,
           "stop_condition": "(s)", "response": "satisfaction", "post_condition": "(y)",
           "component_name": "C"}
    text = import_fret(json.dumps([{"reqid": "A", "semantics": sem}]), source="a.json").text
    text += f"    requirement X0: immediately x\n    requirement E: {extra}\n"
    [result] = api.check_timed(api.parse_text(text, "a.req"), api.TimedOptions(depth=6))
    # realizability may still fail (x is an input and may rise again): only consistency
    # is the question here
    assert (result.kind != "inconsistent") is consistent, (result.status, result.core)


# --------------------------------------------------------------------------- FRET

FRET_REFUSED = {
    "FSM-011": "eventually: a liveness property",
    "FSM-012": "no timing: FRET reads it as eventually",
    "FSM-013": "the scope 'onlyAfter' has no timed counterpart",
    "FSM-014": "the function sat has no counterpart",
    "FSM-015": "the duration 'T_MAX' is not a whole number of steps",
    "FSM-016": "not formalised in FRET",
    "FSM-017": "label has the data type 'string'",
    "FSM-019": "an 'only in' scope with the timing 'always' has no timed counterpart",
    "FSM-020": "FRET's after scope starts when the first M interval ends",
    "FSM-021": "finally: at the last step of the interval",
    "FSM-022": "persisted inside an 'in' scope: FRET counts only the steps of the current "
               "scope interval",
}

FRET_BODIES = {
    "FSM_001": "always (limits and not standby and not apfail and supported implies pullup)",
    "FSM_002": "in cruise mode, upon standby, at the next step ap_state == 3",
    "FSM_003": "when apfail, within 2 steps (ap_state == 0) != hold_active",
    "FSM_004": "upon engage_cmd and (previously (not engage_cmd)), for 5 steps hold_active",
    "FSM_005": "upon not supported, immediately not hold_active",
    "FSM_006": "not in maneuver_mode mode, never pullup and altitude < 1000.0",
    "FSM_007": "only in cruise mode, always hold_active",
    "FSM_008": "before standby_mode mode, upon apfail, until supported, not hold_active",
    "FSM_009": "upon (apfail has held for 3 steps), before standby, pullup",
    # FRET's "after 4": false at the trigger and 4 points after it, true at the 5th
    "FSM_010": "upon engage_cmd, after 5 steps (hold_active iff (engage_cmd occurred within 2 "
               "steps))",
    "FSM_018": "upon good, immediately ap_state >= 1",
    "FSM_023": "in limits_mode mode, upon apfail, before standby, pullup",
    "MON_001": "upon not sensor_ok, within 1 steps alarm",
    "MON_002": "when temp >= 200, immediately alarm",
    "MON_003": "always (not (previously (not sensor_ok))) or alarm",
}


def test_fret_with_variables() -> None:
    result = imported("fret", "fret_autopilot.json")
    assert {u.source_id: u.reason for u in result.untranslated}.keys() == FRET_REFUSED.keys()
    for u in result.untranslated:
        assert FRET_REFUSED[u.source_id] in u.reason
        assert f"# not translated: {u.source_id}: {u.reason}" in result.text
    assert bodies(result) == FRET_BODIES
    text = result.text
    # declared directions and types, a Mode variable's condition, a boolean variable as mode
    for line in ("input altitude: real", "output ap_state: int", "output good: bool",
                 "input temp: int in 0..255", "mode cruise: ap_state == 2",
                 "mode maneuver_mode: maneuver", "mode standby_mode: standby",
                 "timed FSM", "timed Monitor"):
        assert f"\n{'    ' if 'timed' not in line else ''}{line}\n" in text, line
    # the id, the parent and the rationale are kept as tags, escaped
    assert ('requirement FSM_001 [fret: "FSM-001", rationale: "The pilot said: \\"pull up '
            'when the limits are exceeded\\".\\nSee C:\\\\docs\\\\ap.txt"]') in text
    assert 'requirement FSM_002 [fret: "FSM-002", parent: "FSM-001"]' in text
    assert text.startswith("spec autopilot version 1\n")


def test_fret_without_variables_infers_declarations() -> None:
    result = imported("fret", "fret_no_variables.json")
    assert [(u.source_id, u.reason) for u in result.untranslated] == [
        ("P-6", "level is used both as a condition and as a number"),
        ("P-8", "a power whose exponent is not a whole-number literal"),
        ("P-9", "a free-form requirement: FRET has no structured reading of it"),
    ]
    text = result.text
    for line in ("input start: bool", "output flow: real", "output level: int",
                 "input filling: bool", "mode filling_mode: filling",
                 # compared with = to each other, and one of them with a number: both int
                 "output target: int", "output setpoint: int",
                 # a reserved word and a timed word are renamed, the original noted
                 "output mode_: int", "# mode_ is mode in the export", "output count_: int"):
        assert f"    {line}\n" in text, line
    assert [t.id for t in result.translated] == ["P_1", "P_2", "P_3", "P_4", "P_5",
                                                 "R_1_7_drain"]
    assert bodies(result)["R_1_7_drain"] == (
        "upon drain, for 2 steps not pump_on and flow * 2 - 1 >= -0.5")


def test_fret_json_array_and_object_forms_read_alike() -> None:
    reqs = json.loads((HERE / "fret_no_variables.json").read_text(encoding="utf-8"))
    as_object = json.dumps({"requirements": reqs})
    a = import_fret(json.dumps(reqs), source="x.json")
    b = import_fret(as_object, source="x.json")
    assert a.text == b.text


def test_fret_with_a_variables_section_refuses_undeclared_names() -> None:
    doc = json.loads((HERE / "fret_conflict.json").read_text(encoding="utf-8"))
    doc["requirements"][0]["semantics"]["post_condition"] = "(pullup & ghost)"
    result = import_fret(json.dumps(doc), source="c.json")
    assert [(u.source_id, u.reason) for u in result.untranslated] == [
        ("C-1", "ghost is not among the export's variables")]


def test_ill_typed_conditions_are_refused() -> None:
    doc = json.loads((HERE / "fret_conflict.json").read_text(encoding="utf-8"))
    doc["requirements"][0]["semantics"]["post_condition"] = "(pullup & (1 < TRUE))"
    doc["requirements"][1]["semantics"]["post_condition"] = "(! (pullup xor preBool(FALSE, "\
        "pullup)))"
    result = import_fret(json.dumps(doc), source="c.json")
    assert [(u.source_id, u.reason) for u in result.untranslated] == [
        ("C-1", "not well typed: < of int and bool, not two numbers")]
    # xor beside a past form is written with iff: the timed layer has no != on past forms
    assert bodies(result) == {"C_2": "at the next step not not (pullup iff (previously "
                                      "pullup))"}
    api.parse_text(result.text, "c.req")


def test_fret_mode_without_a_variable_is_refused() -> None:
    doc = json.loads((HERE / "fret_conflict.json").read_text(encoding="utf-8"))
    sem = doc["requirements"][0]["semantics"]
    sem["scope"] = {"type": "in"}
    sem["scope_mode"] = "landing"
    result = import_fret(json.dumps(doc), source="c.json")
    assert result.untranslated[0].reason == (
        "the mode landing is neither a Mode variable nor a boolean variable of the export")


def test_fret_variables_from_a_model_and_newer_condition_kinds() -> None:
    # FRET keeps the record of a model import among the variables, gives a Simulink port's
    # data type as a list and its direction as portType; newer versions write "whenever"
    # as the condition kind noTrigger
    doc = {
        "requirements": [{
            "reqid": "M-1", "fulltext": "whenever ok the C shall at the next timepoint satisfy y",
            "semantics": {"scope": {"type": "null"}, "condition": "noTrigger",
                          "qualifier_word": "whenever", "regular_condition": "(ok)",
                          "timing": "next", "response": "satisfaction",
                          "post_condition": "(y > 0.5)", "component_name": "C"}}],
        "variables": [
            {"project": "p", "fretComponent": "C", "Declarations": {"Enumerations": []}},
            {"variable_name": "y", "dataType": ["double"], "portType": "Outport"},
            {"variable_name": "ok", "dataType": ["boolean"], "portType": "Inport"},
        ],
    }
    result = import_fret(json.dumps(doc), source="m.json")
    assert result.untranslated == ()
    assert "    input ok: bool\n    output y: real\n" in result.text
    assert bodies(result) == {"M_1": "when ok, at the next step y > 0.5"}


def test_fret_names_option_and_project() -> None:
    text = (HERE / "fret_conflict.json").read_text(encoding="utf-8")
    assert import_fret(text, source="c.json").text.startswith("spec autopilot version 1")
    named = import_fret(text, source="c.json", options=ImportOptions(name="my-spec"))
    assert named.text.startswith("spec my_spec version 1")


# --------------------------------------------------------------------------- Hanfor

HANFOR_REFUSED = {
    "MX-009": "Existence: R eventually: a liveness property",
    "MX-010": "Precedence: S at some earlier step, an unbounded past",
    "MX-011": "ExistenceBoundU: counting occurrences has no counterpart",
    "MX-012": "the scope Between has no timed counterpart",
    "MX-013": "the scope AfterUntil has no timed counterpart",
    "MX-014": "the duration '2.5' is not a whole number of steps",
    "MX-015": "is not one the importer knows",
    "MX-005": "EdgeResponseDelay in the scope After: its past counts from the start of the "
              "scope in Hanfor, from the start of the run in the timed layer",
    "MX-017": "no formalisation",
    "MX-026": "UniversalityDelay in the scope After: its past counts",
    "MX-027": "Response: S eventually: a liveness property",
    "MX-028": "ResponseDelayBoundL2: two obligations in one sentence",
    "MX-029": "Toggle1: toggling has no counterpart",
}

HANFOR_BODIES = {
    "MX_001": "always level <= 100",
    "MX_002": "never valve_in and valve_out",
    "MX_003": "when emergency, immediately not mixer_on",
    "MX_004": "when start and not emergency, within 5 steps valve_in",
    "MX_006": "before scope mode, when mixer_on, for 10 steps stirring",
    "MX_007_f1": "when (mixer_on becomes true), for 20 steps mixer_on",
    "MX_007_f2": "when valve_out, within 30 steps not valve_out",
    "MX_008": "when ((temp > 60.5) has held for 3 steps), immediately not heater_on",
    "MX_018": "always (emergency implies not valve_in or level != 100)",
    "MX_019": "immediately not valve_out",
    "MX_020": "after scope mode, when alarm, always alarm",
    "MX_021": "when not sensor_heartbeat, within 50 steps sensor_heartbeat",
    "MX_022": "when ((level >= 95) has held for 2 steps), at the next step not valve_in",
    "MX_023": "when (previously (stirring has held for 30 steps)), for 5 steps valve_out",
    "MX_024": "when (mixer_on has held for 10 steps) and temp < 20.0, within 3 steps heater_on",
    "MX_025": "when (true has held for 100 steps), immediately ready",
    "MX_030": "when (start becomes true), for 3 steps valve_in",
    "MX_031": "when ((temp > 80.0) has held for 5 steps), within 2 steps alarm",
    "MX_032": "when (start becomes true), within 1 steps valve_in",
    # a delay from the start of a Before scope is a delay from the start of the run
    "MX_033": "before scope mode, when (true has held for 100 steps), immediately ready",
}


def test_hanfor_sentences() -> None:
    result = imported("hanfor", "hanfor_mixer.csv")
    assert {u.source_id for u in result.untranslated} == set(HANFOR_REFUSED)
    for u in result.untranslated:
        assert HANFOR_REFUSED[u.source_id] in u.reason
    assert [(s.source_id, s.reason) for s in result.skipped] == [
        ("MX-000", "its type is 'heading', not a requirement"),
        ("MX-016", "its type is 'information', not a requirement"),
    ]
    assert bodies(result) == HANFOR_BODIES
    for line in ("mode scope: emergency", "input temp: real",
                 "output level: int"):
        assert f"    {line}\n" in result.text
    assert ('requirement MX_004 [hanfor: "MX-004", pattern: "ResponseDelay"] "After '
            '\\"start\\" the inlet valve opens within 5 ticks."') in result.text


def test_hanfor_columns_and_components() -> None:
    result = imported("hanfor", "hanfor_columns.csv")
    assert [(u.source_id, u.reason) for u in result.untranslated] == [
        ("ST-4", "the pattern 'Blink' is not one the importer knows"),
        ("ST-5", "the pattern ResponseDelay needs S, which is empty"),
        ("ST-8", "the scope Between has no timed counterpart (an interval closed by a second "
         "condition)"),
    ]
    assert bodies(result) == {
        "ST_1": "never pump_on and level < 5",
        "ST_2": "when request, within 4 steps pump_on",
        "ST_6": "when (pump_on becomes true), for 8 steps pump_on",  # an old pattern name
        "ST_7": "when (request has held for 3 steps) and level < 50, immediately pump_on",
        "ST_3": "after scope mode, when level > 0, immediately shown",
    }
    assert 'requirement ST_6 [hanfor: "ST-6", pattern: "DurationBoundL"]' in result.text
    assert "\ntimed Pump\n" in result.text and "\ntimed Display\n" in result.text
    one = import_hanfor((HERE / "hanfor_columns.csv").read_text(encoding="utf-8"),
                        source="c.csv", options=ImportOptions(component="panel"))
    assert one.text.count("\ntimed ") == 1 and "\ntimed panel\n" in one.text


def test_hanfor_s_own_export_with_json_formalisations() -> None:
    result = imported("hanfor", "hanfor_export.csv")
    assert [(u.source_id, u.reason) for u in result.untranslated] == [
        ("DS-4", "the scope BETWEEN has no timed counterpart (an interval closed by a second "
         "condition)"),
        ("DS-5", "NotFormalizable: Hanfor marks it as not formalisable"),
        ("DS-6", "no formalisation (the Hanfor_Formalization cell is empty)"),
        ("DS-7", "Blink: not a pattern the importer knows"),
    ]
    assert [(s.source_id, s.reason) for s in result.skipped] == [
        ("DS-0", "its type is 'heading', not a requirement")]
    assert bodies(result) == {
        "DS_1": "when reservoir_empty, within 2 steps not pump_on",
        "DS_2_f1": "when dosing, immediately valve_open",
        "DS_2_f2": "when (dosing becomes true), for 4 steps valve_open",
        "DS_3": "before scope mode, always not pump_on",
    }
    assert "    mode scope: calibrated\n" in result.text


def test_the_fixtures_cover_every_form() -> None:
    # every pattern with a timed form is translated somewhere in the Hanfor fixtures, and
    # every FRET scope, trigger and timing that is translated appears in the FRET ones
    patterns = {tag for name in ("hanfor_mixer.csv", "hanfor_columns.csv", "hanfor_export.csv")
                for line in imported("hanfor", name).text.splitlines()
                if line.startswith("    requirement ")
                for tag in [line.split('pattern: "')[1].split('"')[0]]}
    assert patterns == {p.name for p in PATTERNS if p.build is not None}
    fret = set()
    for name in ("fret_autopilot.json", "fret_no_variables.json"):
        doc = json.loads((HERE / name).read_text(encoding="utf-8"))
        reqs = doc["requirements"] if isinstance(doc, dict) else doc
        written = {t.source_id for t in imported("fret", name).translated}
        for r in reqs:
            if r["reqid"] in written:
                s = r["semantics"]
                fret |= {("scope", s["scope"]["type"]), ("condition", s["condition"]),
                         ("timing", s["timing"]), ("word", s.get("qualifier_word"))}
    assert fret >= {("scope", k) for k in ("null", "in", "notin", "onlyIn", "before")}
    assert fret >= {("timing", k) for k in ("immediately", "next", "within", "for", "after",
                                            "until", "before", "always", "never", "null")}
    assert fret >= {("condition", k) for k in ("null", "regular", "holding")}
    assert fret >= {("word", k) for k in ("upon", "when", "if", "unless", "whenever")}


def test_every_hanfor_sentence_is_read_back_to_its_pattern() -> None:
    # each pattern's own sentence, its slots filled, reads as that pattern (the regular
    # expressions do not shadow one another)
    for pattern in PATTERNS:
        values = {s: f"v{s}" for s in "RSTUV"}
        sentence = "Globally, " + pattern.sentence.format(
            **{k: f'"{v}"' for k, v in values.items()})
        scope, found, slots = _sentence(sentence)
        assert (scope, found.name) == ("Globally", pattern.name)
        assert all(slots[s] == values[s] for s in set(slots) & set(values))


# --------------------------------------------------------------------------- pieces


@pytest.mark.parametrize(("fret", "expected"), [
    ("a & b | c", "a and b or c"),
    ("a | b & c", "a or b and c"),
    ("(a | b) & c", "(a or b) and c"),
    ("!(a & b)", "not (a and b)"),
    ("a => b => c", "a implies b implies c"),
    ("(a => b) => c", "(a implies b) implies c"),
    ("a <=> b", "a iff b"),
    ("a xor b", "a != b"),
    ("(a & b) xor c", "(a and b) != c"),
    ("x = 1 & y != 2.5", "x == 1 and y != 2.5"),
    ("x ~= 1", "x != 1"),
    ("-(x - y) * 2 >= .5", "-(x - y) * 2 >= 0.5"),
    ("x - (y - z) < 1e3", "x - (y - z) < 1000.0"),
    ("x mod 3 = 0", "x % 3 == 0"),
    ("x ^ 2 > 5.", "x ** 2 > 5.0"),
    ("TRUE & !FALSE", "true and not false"),
    ("a && b || !c ==> d", "a and b or not c implies d"),
    ("a <== b && c", "b and c implies a"),
    ("a <==> b", "a iff b"),
    ("preBool(FALSE, a & b)", "(previously (a and b))"),
    ("preBool(TRUE, a)", "(not (previously (not a)))"),
    ("persisted(2, a) & occurred(0, b)", "(a has held for 2 steps) and (b occurred within 0 "
     "steps)"),
])
def test_conditions_are_rewritten(fret: str, expected: str) -> None:
    assert render(parse(fret), {}) == expected


@pytest.mark.parametrize(("text", "reason"), [
    ("a < b < c", "a chain of comparisons is ambiguous"),
    ("a & ", "it ends too early"),
    ("a # b", "at '#'"),
    ("(a", "it ends too early"),
    ("a b", "unexpected 'b'"),
    ("prevOcc(a, b)", "the function prevOcc has no counterpart"),
    ("persisted(n, a)", "the step count of persisted is not a whole number of steps"),
    ("persisted(-1, a)", "the step count of persisted is negative"),
    ("preBool(x, a)", "preBool with these arguments has no counterpart"),
    ("", "an empty condition"),
    ("(" * 41 + "a" + ")" * 41, "nested deeper than 40 levels"),
    ("!" * 41 + "a", "nested deeper than 40 levels"),
    (" & ".join(["a"] * 100), "more than 90 levels of operators"),
    (" => ".join(["a"] * 45), "nested deeper than 40 levels"),
])
def test_conditions_that_are_refused(text: str, reason: str) -> None:
    with pytest.raises(Untranslatable) as caught:
        render(parse(text), {})
    assert reason in caught.value.reason


def test_quoting() -> None:
    assert quote('a "b" \\ c\nd\te\x01') == '"a \\"b\\" \\\\ c\\nd\\te\\x01"'
    assert quote("\ud800 \U00030000 é") == '"\ufffd \ufffd é"'


def test_dotted_names_are_renamed() -> None:
    result = import_hanfor('ID,Formalization\nA,"Globally, it is never the case that '
                           '""pump.on && $x"" holds"\n', source="d.csv")
    assert bodies(result) == {"A": "never pump_on and _x"}
    assert "    # pump_on is pump.on in the export\n" in result.text


def test_identifiers() -> None:
    assert RESERVED <= AVOID
    assert identifier("FSM-001") == "FSM_001"
    assert identifier("1.2") == "x_1_2"
    assert identifier("in") == "in_"
    assert identifier("steps") == "steps_"
    assert identifier("a--b") == "a_b" and identifier("__x") == "_x"  # never "__"
    names = Names()
    assert [names.take("a-b"), names.take("a_b"), names.take("a.b")] == ["a_b", "a_b_2",
                                                                         "a_b_3"]
    assert [names.take("in"), names.take("in")] == ["in_", "in_2"]


# --------------------------------------------------------------------------- bad input


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


BAD_FRET = [
    ('{"requirements": [\n  {"reqid": "A", }\n]}',
     ":2:18: error: not JSON: Expecting property name"),
    ('"just a string"', "a FRET export is a list of requirements"),
    ('[{"fulltext": "no id"}]', "requirements[0]: the field 'reqid' is missing"),
    ('[{"reqid": 7}]', "the field 'reqid' is a int, not a str"),
    ('[{"reqid": "A", "semantics": {"condition": "null"}}]', "the field 'timing' is missing"),
    ('[{"reqid": "A", "semantics": {"timing": "within", "post_condition": "p"}}]',
     "the field 'duration' is missing"),
    ('{"requirements": [], "variables": [{"dataType": "boolean"}]}',
     "variables[0]: the field 'variable_name' is missing"),
    ('[{"reqid": "A", "reqid": "B"}]', "appears twice"),
]


@pytest.mark.parametrize(("text", "message"), BAD_FRET)
def test_bad_fret_exports_are_bad_input(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "bad.json", text)
    out = tmp_path / "out.req"
    out.write_text("kept\n", encoding="utf-8")
    code, stdout, err = cli(capsys, "import", "fret", path, "-o", str(out))
    assert code == 2, err
    assert message in err
    assert "Traceback" not in err and stdout == ""
    assert out.read_text(encoding="utf-8") == "kept\n"  # nothing half-written or replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "out.req"]


def test_bad_json_points_at_the_place(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "bad.json", '[\n  {"reqid": "A",, "x": 1}\n]\n')
    code, _, err = cli(capsys, "import", "fret", path)
    assert code == 2
    assert err.startswith(f"{path}:2:17: error: not JSON: Expecting property name")
    assert '    {"reqid": "A",, "x": 1}\n' in err and "^" in err


BAD_CSV = [
    ('ID,Formalization\n"A,"Globally, x\n', "not CSV:"),
    ("ID,Formalization\nA,x,y\n", ":2:1: error: this row has 3 fields, the header has 2"),
    ("Name,Formalization\nA,x\n", "the header names no ID column"),
    ("ID,Description\nA,x\n", "names no Hanfor_Formalization, Formalization or Pattern "
     "column"),
    ('ID,Hanfor_Formalization\nA,"{""0"": 1}"\n', "2:1: error: the Hanfor_Formalization "
     "cell has a formalisation '0' without a scope, a pattern and expressions"),
    ('ID,Hanfor_Formalization\nA,"{""0"": "\n', "2:1: error: the Hanfor_Formalization "
     "cell is not JSON"),
    ("\n\n", "empty, so no header line"),
    ("ID,Formalization\n,x\n", "2:1: error: a row without an ID"),
    (b"ID,Formalization\nA,\xff\n", "not UTF-8 text (byte 20)"),
]


@pytest.mark.parametrize(("text", "message"), BAD_CSV)
def test_bad_hanfor_exports_are_bad_input(
    text: str | bytes, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    code, stdout, err = cli(capsys, "import", "hanfor", str(path))
    assert code == 2, err
    assert message in err and "Traceback" not in err and stdout == ""


def test_missing_file_and_wrong_kind(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "import", "fret", str(tmp_path / "none.json"))
    assert code == 2 and "cannot be read" in err
    with pytest.raises(UsageError, match="unknown export kind"):
        api.import_requirements("doors", "x.txt", text="")
    with pytest.raises(BadExport):
        import_fret("[1]", source="x.json")


# --------------------------------------------------------------------------- the command


def test_prints_the_text_and_lists_what_was_not_translated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, "import", "fret", str(HERE / "fret_autopilot.json"))
    assert code == 0
    assert out == imported("fret", "fret_autopilot.json").text
    lines = err.splitlines()
    assert lines[:-1] == [f"not translated: {k}: {r}" for k, r in (
        (u.source_id, u.reason) for u in imported("fret", "fret_autopilot.json").untranslated)]
    assert lines[-1] == "15 of 26 requirements translated"


def test_strict_writes_and_exits_1(tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mixer.req"
    code, stdout, err = cli(capsys, "import", "hanfor", str(HERE / "hanfor_mixer.csv"),
                            "-o", str(out), "--strict")
    assert code == 1 and stdout == ""
    assert out.read_text(encoding="utf-8") == imported("hanfor", "hanfor_mixer.csv").text
    assert err.endswith(f"wrote {out}: 20 of 33 requirements translated, 2 rows skipped\n")
    assert oct(out.stat().st_mode & 0o777) != "0o600"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mixer.req"]
    code, _, _ = cli(capsys, "import", "fret", str(HERE / "fret_conflict.json"), "-o",
                     str(out), "--strict")
    assert code == 0


def test_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "import", "hanfor", str(HERE / "hanfor_columns.csv"), "--json")
    report = json.loads(out)
    assert code == 0
    assert report["format"] == "derivative.import/v1" and report["output"] is None
    api.ImportDocument.model_validate(report)
    if importlib.util.find_spec("jsonschema") is not None:
        import jsonschema

        schema = json.loads((ROOT / "derivative" / "schemas" /
                             "derivative.import.v1.schema.json").read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator(schema).validate(report)
    assert report["text"] == imported("hanfor", "hanfor_columns.csv").text
    assert report["untranslated"][0] == {
        "id": "ST-4", "reason": "the pattern 'Blink' is not one the importer knows"}
    target = tmp_path / "o.req"
    code, out, _ = cli(capsys, "import", "hanfor", str(HERE / "hanfor_columns.csv"), "--json",
                       "-o", str(target))
    report = json.loads(out)
    assert report["output"] == str(target) and "text" not in report and target.exists()


def test_standard_input_and_refusing_to_overwrite_the_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (HERE / "fret_conflict.json").read_bytes()
    code = main(["import", "fret", "-", "--name", "piped"], stdin=io.BytesIO(data))
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("spec piped version 1\n")
    assert "the FRET export <stdin>" in out
    path = write(tmp_path, "e.json", data.decode())
    code, _, err = cli(capsys, "import", "fret", path, "-o", path)
    assert code == 2 and "is the export itself" in err
    monkeypatch.chdir(tmp_path)
    code, _, _ = cli(capsys, "import", "fret", "e.json", "-o", "e2.req")
    assert code == 0 and os.path.exists(tmp_path / "e2.req")
