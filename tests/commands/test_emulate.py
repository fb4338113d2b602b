"""``emulate``: what it prints for staff, with results and without, and when the machine cannot emulate."""

import argparse
import json
from collections import Counter

import pytest

from autograder.commands import emulate
from autograder.gradescope import container, layout
from autograder.gradescope import emulate as gradescope_emulate
from autograder.model import manifest, paths

MODULES = ["qkv_arithmetic", "receptive_field"]


def _run(results, **changes):
    fields = dict(results=results, wall_seconds=12.3, peak_memory_mb=555.5, cpu_seconds=6.1, throttled_periods=40, oom_kills=0,
                  leftovers_killed=2, timed_out=False, exit_status=0, stdout="logo\nsandbox: own process group\nworker memory limit 728 MB (x)\n",
                  caps=container.Caps(0.5, 768), namespaces=False, not_emulated=["the image: setup.sh is not run"],
                  staff_notes=["sandbox: own process group", "worker memory limit 728 MB (x)"],
                  refused=Counter({"timeout": 1, "skipped": 1, "budget": 2, "raised": 5}))
    return gradescope_emulate.Run(**(fields | changes))


def test_report_shows_scores_stopped_calls_cost_and_what_was_not_emulated():
    results = {"score": 11.0, "tests": [
        {"name": "qkv_arithmetic_public", "score": 1.0, "max_score": 6.0, "output": "a message that names no kind"},
        {"name": "qkv_arithmetic_hidden", "score": 0.0, "max_score": 9.0, "output": "y was not run: (the words are never counted)"},
        {"name": "receptive_field_public", "score": 10.0, "max_score": 10.0, "output": ""}]}
    text = emulate.report(_run(results), MODULES)
    for words in ("0.5 CPU, 768 MB; namespaces refused", "  sandbox: own process group", "  worker memory limit 728 MB",
                  "qkv_arithmetic        1 / 15", "receptive_field      10 / 10", "TOTAL                11",
                  "calls stopped at their time limit: 1; calls not run (time rules): 3",  # from the run record's kinds
                  "wall time 12.3 s; peak memory 556 MB; CPU time 6.1 s (the quota held it back in 40 periods",
                  "processes left at the end and killed: 2", "not emulated:\n  - the image: setup.sh is not run"):
        assert words in text
    assert "logo" not in text


def test_report_without_results_says_what_gradescope_would_do():
    text = emulate.report(_run(None, timed_out=True, caps=None, peak_memory_mb=None), MODULES)
    assert "NO RESULTS: the overall timeout was reached (Gradescope would give 0 and show the student nothing)" in text
    assert "no caps" in text and "peak memory unknown" in text


def test_a_machine_that_cannot_lay_out_autograder_gets_the_problem_and_the_fix(monkeypatch, capsys, tmp_path):
    def refuse(*args, **kwargs):
        raise layout.LayoutError("laying out /autograder needs write access to / (you are uid 1000); run as root")

    monkeypatch.setattr(gradescope_emulate, "emulate", refuse)
    (tmp_path / "a.zip").write_bytes(b"")
    args = argparse.Namespace(submission=str(paths.REFERENCE), zip=str(tmp_path / "a.zip"), no_namespaces=False, no_limits=False)
    assert emulate.run(args) == 2
    captured = capsys.readouterr()
    assert "error: laying out /autograder needs write access" in captured.err and manifest.load().gradescope.describe() in captured.out


def test_a_zip_or_submission_that_does_not_exist_is_named_before_anything_is_laid_out(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(gradescope_emulate, "emulate", lambda *a, **k: pytest.fail("laid out"))
    args = argparse.Namespace(submission=str(paths.REFERENCE), zip=str(tmp_path / "nope.zip"), no_namespaces=False,
                              no_limits=False)
    assert emulate.run(args) == 2
    assert f"error: --zip {tmp_path / 'nope.zip'} does not exist; build one with" in capsys.readouterr().err
    (tmp_path / "a.zip").write_bytes(b"")
    args.zip, args.submission = str(tmp_path / "a.zip"), str(tmp_path / "nowhere")
    assert emulate.run(args) == 2
    assert f"error: the submission {tmp_path / 'nowhere'} does not exist" in capsys.readouterr().err


def test_a_lost_test_is_shown_whole_and_indented_and_results_json_is_kept(tmp_path):
    said = ("causal_linear_attention_hidden results:\n    causal_linear_attention_hidden - 1 result:\n"
            "        Called: m.causal_linear_attention(N=8192)\n        line 2\n        line 3\n        line 4\n        line 5\n"
            "        line 6\n        line 7\n        line 8\n        With N = 8192 tokens, it must be linear in N.")
    results = {"score": 0.0, "tests": [{"name": "causal_linear_attention_hidden", "score": 0.0, "max_score": 4.0, "output": said}]}
    text = emulate.report(_run(results), ["causal_linear_attention"])
    block = text.split("  lost 4: causal_linear_attention_hidden\n")[1]
    assert block.startswith("      Called: m.causal_linear_attention(N=8192)\n      line 2\n")
    assert "      With N = 8192 tokens, it must be linear in N." in block
    assert emulate.keep_results(results, tmp_path / "kept" / "results.json") == f"results.json kept at {tmp_path / 'kept' / 'results.json'}"
    assert json.loads((tmp_path / "kept" / "results.json").read_text()) == results
