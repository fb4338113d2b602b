"""summary.html: one offline page (no script, no network), every student string escaped; it renders in Chromium."""

import re
import shutil
import subprocess

import pytest

from autograder.model.roster import Entry, Student
from autograder.reports import plots, summary_html
from tests.helpers import make_report

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'
NAMED = {
    f"sub_{i}": make_report(f"sub_{i}", {"qkv_arithmetic": [("t1", 1, i % 2 == 0), ("t2", 2, *((True,) if i % 3 == 0 else (False, "scale_ignored")))],
                                         "complexity": [("c1", 3, i % 4 == 0)]}, seconds=float(i), hints={"scale_ignored": f"hint {EVIL}"})
    for i in range(12)
}
NAMED["sub_<b>"] = make_report("sub_<b>", {}, seconds=99.0, notes=(f"grader error: {EVIL}",))
ROSTER = {"sub_1": Entry((Student(EVIL, "1", "e@x"),)), "sub_<b>": Entry((Student("Bo & <i>Co</i>", "2", "bo@x"),))}
MODULES = ["qkv_arithmetic", "complexity"]


def page(pngs=None):
    reports = list(NAMED.values())
    pngs = pngs if pngs is not None else {"totals": plots.totals_png(reports), "problems": plots.problems_png(reports, MODULES)}
    return summary_html.render(NAMED, MODULES, pngs, ROSTER, title=f"Grades {EVIL}")


def test_student_strings_are_escaped_and_the_page_is_self_contained():
    text = page()
    assert "<script" not in text and "onerror=alert(1)>" not in text and "<b>" not in text and "<i>Co" not in text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in text and "Bo &amp; &lt;i&gt;Co&lt;/i&gt;" in text  # markupsafe's escapes
    assert "sub_&lt;b&gt;" in text
    sources = re.findall(r'src="([^"]*)"', text)
    assert len(sources) == 2 and all(re.fullmatch(r"data:image/png;base64,[A-Za-z0-9+/=]+", s) for s in sources)
    assert not re.search(r"https?:|//[a-z]|@import|url\(", re.sub(r'src="data:[^"]*"', "", text))


def test_sections_show_the_same_counts_as_the_records():
    text = page(pngs={})
    assert "13 submissions" in text and text.count("no plot") == 2
    # t2 passes for i = 0, 3, 6, 9 of the 12 graded submissions; scale_ignored showed where it failed.
    assert "<td>t2</td>" in text and "<td class=\"n\">4/12</td>" in text and "<td class=\"n\">8</td><td><code>scale_ignored</code>" in text


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(chromium() is None, reason="Chromium is not installed (apt-get install chromium); the page is not rendered")
def test_the_page_renders_in_headless_chromium(tmp_path):
    from PIL import Image

    (tmp_path / "summary.html").write_text(page(), encoding="utf-8")
    shot = tmp_path / "shot.png"
    profile = tmp_path / "profile"
    profile.mkdir()
    proc = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1200,2000",
                           (tmp_path / "summary.html").as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file(), proc.stderr[-2000:]
    image = Image.open(shot).convert("RGB")
    assert image.size == (1200, 2000)
    pixels = list(image.get_flattened_data())
    ink = sum(1 for r, g, b in pixels if min(r, g, b) < 200) / len(pixels)
    blue = sum(1 for r, g, b in pixels if abs(r - 0x44) < 40 and abs(g - 0x72) < 40 and abs(b - 0xC4) < 40) / len(pixels)
    assert ink > 0.03, f"only {ink:.1%} of the screenshot is not white"
    assert blue > 0.005, f"only {blue:.2%} of the screenshot has the plots' blue: the plots or bars did not render"


def test_needs_attention_names_each_submission_with_its_reason_escaped():
    text = page(pngs={})
    section = text.split('<h2 id="attention">')[1].split("<h2>")[0]
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td class=\"n\">(.*?)</td><td class=\"why\">(.*?)</td></tr>", section)
    by_name = {name: (students, total, why) for name, students, total, why in rows}
    # sub_i scores 0 when t1, t2 and c1 all fail: i odd and not a multiple of 3 (1, 5, 7, 11); sub_<b> the grader failed on.
    assert set(by_name) == {"sub_1", "sub_11", "sub_5", "sub_7", "sub_&lt;b&gt;"}
    assert by_name["sub_1"] == ("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;", "0", "scored 0")
    assert by_name["sub_&lt;b&gt;"][0] == "Bo &amp; &lt;i&gt;Co&lt;/i&gt;" and by_name["sub_&lt;b&gt;"][2].startswith(
        "not graded: the grader failed (grader error: &lt;script&gt;")


def test_the_lowest_passing_tests_come_first_and_every_problems_tests_are_collapsed():
    text = page(pngs={})
    section = text.split("<h2>Tests passed</h2>")[1].split("<h2>")[0]
    lowest, collapsed = section.split('<table class="lowest">')[1].split("</table>", 1)
    # t1 passes for even i (6/12), t2 for multiples of 3 (4/12), c1 for multiples of 4 (3/12): lowest first
    assert re.findall(r"<td>(\w+)</td><td>(\w+)</td>", lowest) == [("complexity", "c1"), ("qkv_arithmetic", "t2"),
                                                                   ("qkv_arithmetic", "t1")]
    assert collapsed.count("<details><summary>") == 2 and "<details open" not in collapsed
    assert "<summary>qkv_arithmetic: 2 tests, lowest 33%</summary>" in collapsed


def test_each_known_mistake_lists_its_submissions_and_columns_fit():
    text = page(pngs={})
    mistakes = text.split("<h2>Known mistakes</h2>")[1].split("<h2>")[0]
    # scale_ignored showed where t2 failed: i not a multiple of 3
    names = ", ".join(sorted(f"sub_{i}" for i in range(12) if i % 3))
    assert f"<details><summary>8 listed</summary>{names}</details>" in mistakes
    assert '<td class="hint">hint &lt;script&gt;' in mistakes
    style = text.split("<style>")[1].split("</style>")[0]
    assert re.search(r"td\.n \{[^}]*white-space: nowrap", style) and re.search(r"td\.hint \{[^}]*min-width: \d+em", style)
    assert '<td class="n">11.0 s</td>' in text  # the slowest's times: a number cell, which never wraps
