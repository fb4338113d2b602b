"""`grade-all` on a realistic synthetic Gradescope export: throughput on 1 and 2 jobs, peak memory, disk.

Run: .venv/bin/python bench/bench_staff_scale.py [--count 60] [--jobs 1 2] [--keep DIR]. The export holds the
reference and the known mistakes (one or two per submission), empty submissions, missing modules, zips inside
folders, groups, names with commas, quotes, CJK, a right-to-left override and formula prefixes, a duplicate email
with another SID (the later one wins), a student without an email and one without a SID, and a damaged member
(a flipped byte: "Bad CRC-32"). Memory is the largest sum of resident memory over the run's process tree
(sampled every 0.2 s); disk is the size of the output folder; CPU is the whole machine's busy time during the run (run it
on an otherwise idle machine), and the share of the throughput that CPU allows on all cores.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.model import manifest  # noqa: E402
from autograder.staff import solutions  # noqa: E402

NAMES = ["Ada Lovelace", "O'Brien, Pat", 'Bob "Bobby" Tables', "李小龙", "Zoë Ægir", "abc\u202etxt.exe", "=HYPERLINK(\"http://x\")",
         "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)", "Émile Zola", "Grace Hopper"]


def _zip(files: dict[str, bytes | str], stored: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def build(path: Path, count: int, seed: int = 7) -> dict[str, int]:
    """Write the export zip; return how many submissions of each kind it holds."""
    rng = random.Random(seed)
    modules = manifest.load().modules
    reference = {m: solutions.reference_path(m).read_text() for m in modules}
    mistakes = {m: [v.source() for v in solutions.mistakes(m)] for m in modules}
    files: dict[str, bytes | str] = {}
    entries, kinds = [], {}
    damaged_name = None
    for i in range(count):
        name = f"submission_{1000 + i}"
        kind = rng.choices(["reference", "mistake", "empty", "missing", "zipped", "damaged"], [55, 32, 3, 4, 5, 1])[0]
        kind = {3: "damaged", 6: "missing"}.get(i, kind)
        kinds[kind] = kinds.get(kind, 0) + 1
        sources = dict(reference)
        if kind == "mistake":
            for module in rng.sample([m for m in modules if mistakes[m]], rng.choice([1, 2])):
                sources[module] = rng.choice(mistakes[module])
        if kind == "missing":
            del sources[rng.choice(modules)]
        if kind == "empty":
            sources = {}
        if kind == "zipped":
            files[f"{name}/homework.zip"] = _zip({f"hw/{m}.py": s for m, s in sources.items()})
        elif kind == "damaged":
            damaged_name = name
            for module, source in sources.items():
                files[f"{name}/{module}.py"] = source
        else:
            for module, source in sources.items():
                files[f"{name}/{module}.py"] = source
        if not sources:
            files[f"{name}/"] = ""
        people = [(NAMES[i % len(NAMES)] + f" {i}", f"{20000 + i}", f"s{i}@uni.edu")]
        if i % 17 == 5:
            people.append((f"Partner {i}", f"{30000 + i}", f"p{i}@uni.edu"))
        if i == 8:
            people = [(f"Late Again {i}", "20001", "s1@uni.edu")]  # s1's email again (another SID), submitted later
        if i == 9:
            people = [(f"No Email {i}", f"{20000 + i}", "")]
        if i == 10:
            people = [(f"No SID {i}", "", f"s{i}@uni.edu")]
        block = "".join(f"  - :name: {_quote(n)}\n    :sid: {_quote(s)}\n    :email: {_quote(e)}\n" for n, s, e in people)
        entries.append(f"{name}:\n  :submitters:\n{block}  :created_at: 2024-03-{1 + i % 28:02d} 10:{i % 60:02d}:00.000000000 -08:00\n")
    files["submission_metadata.yml"] = "".join(entries)
    data = bytearray(_zip({f"assignment_1_export/{k}": v for k, v in files.items()}, stored=True))
    if damaged_name:  # flip one byte of a stored module of the damaged submission: its CRC no longer matches
        at = data.index(f"assignment_1_export/{damaged_name}/{modules[0]}.py".encode()) + 200
        data[at] ^= 0x20
    path.write_bytes(bytes(data))
    return kinds


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"' if text else "''"


def _tree_rss(pid: int) -> int:
    children: dict[int, list[int]] = {}
    rss = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += children.get(p, [])
    return total


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot (/proc/stat; user, nice, system, irq, softirq, steal): the
    sandbox's processes in their own namespaces are counted too, which the run's rusage would miss."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def run(export: Path, out: Path, jobs: int) -> tuple[float, int, subprocess.CompletedProcess]:
    cmd = [sys.executable, "-m", "autograder", "grade-all", str(export), "--out", str(out / "grades.csv"), "--jobs", str(jobs)]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    seconds = time.monotonic() - start
    sampler.join()
    return seconds, peak[0], subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--keep", help="keep the export and the outputs in this folder")
    args = parser.parse_args()
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="staff-scale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    export = tmp / "export.zip"
    kinds = build(export, args.count)
    print(f"export: {args.count} submissions {kinds}, {export.stat().st_size / 1e6:.1f} MB")
    for jobs in args.jobs:
        out = tmp / f"out-j{jobs}"
        shutil.rmtree(out, ignore_errors=True)
        busy = machine_busy_seconds()
        seconds, peak, proc = run(export, out, jobs)
        cpu = machine_busy_seconds() - busy
        if proc.returncode != 0:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
        cores = os.cpu_count() or 1
        allowed = cores * 60 / (cpu / args.count)  # submissions per minute if every core did nothing but this
        print(f"--jobs {jobs}: {seconds:.0f} s, {args.count / seconds * 60:.1f} submissions/min, peak memory of the run's "
              f"processes {peak / 2**20:.0f} MB, output {disk(out) / 2**20:.1f} MB ({disk(out) / args.count / 1024:.0f} KB each), "
              f"machine CPU {cpu:.0f} s ({cpu / args.count:.2f} s per submission; {cores} cores allow {allowed:.1f}/min, "
              f"so this run reached {args.count / seconds * 60 / allowed:.0%} of it), exit {proc.returncode}")
    if not args.keep:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
