"""What a zygote would save a worker's start under bubblewrap: a process that already holds torch forks a child that joins
the namespaces bubblewrap made (setns) and runs torch there, against a fresh Python importing torch.

The design it tests (not built; docs/measurements.md): bubblewrap starts a placeholder that makes the worker's mounts and
namespaces (its /tmp, the box, /proc of a new PID namespace, no network); the zygote forks, the child joins those
namespaces, forks again (a PID namespace takes effect for children) and that grandchild would then confine itself as a
worker does today. Here it only checks where it landed (its pid, /tmp, the network devices it sees) and sums a tensor.
Root only (joining a mount namespace needs CAP_SYS_ADMIN and CAP_SYS_CHROOT); a grader that is not root would join
bubblewrap's user namespace first.

Run (as root): .venv/bin/python bench/bench_zygote_join.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

NAMESPACES = ("ipc", "uts", "net", "pid", "mnt")  # mnt last: after it, /proc/<pid>/ns of the host is out of view


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_placeholder(bwrap: str) -> tuple[subprocess.Popen, int]:
    """A bubblewrap sandbox holding one sleeping process; returns it and the sleeper's pid as this process sees it."""
    read, write = os.pipe()
    cmd = [bwrap, "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev", "--unshare-net",
           "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--", "/bin/sh", "-c", f"echo $$ >&{write}; exec sleep 60"]
    proc = subprocess.Popen(cmd, pass_fds=(write,))
    os.close(write)
    inside = int(os.read(read, 64))
    os.close(read)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for name in os.listdir("/proc"):
            if name.isdigit() and _inside_pid(int(name)) == inside and _comm(int(name)) == "sleep":
                return proc, int(name)
        time.sleep(0.01)
    proc.kill()
    raise SystemExit("bubblewrap's placeholder was not found")


def _inside_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    ids = line.split()[1:]
                    return int(ids[-1]) if len(ids) == 2 else None
    except OSError:
        return None
    return None


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return ""


def join_and_run(host_pid: int, torch) -> str:  # noqa: ANN001 - the torch module
    """Fork a child into ``host_pid``'s namespaces; its own child sums a tensor and says where it runs."""
    libc = ctypes.CDLL(None, use_errno=True)
    fds = [os.open(f"/proc/{host_pid}/ns/{name}", os.O_RDONLY) for name in NAMESPACES]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        for name, fd in zip(NAMESPACES, fds):
            if libc.setns(fd, 0) != 0:
                os.write(write, f"setns {name}: errno {ctypes.get_errno()}".encode())
                os._exit(1)
        os.chdir("/")
        inner = os.fork()
        if inner == 0:
            devices = [line.split(":")[0].strip() for line in open("/proc/self/net/dev").read().splitlines()[2:]]
            total = torch.arange(4.0).sum().item()
            os.write(write, f"pid {os.getpid()}, /tmp {os.listdir('/tmp')}, network {devices}, sum {total}".encode())
            os._exit(0)
        os._exit(os.waitstatus_to_exitcode(os.waitpid(inner, 0)[1]))
    os.close(write)
    for fd in fds:
        os.close(fd)
    said = os.read(read, 4096).decode()
    os.close(read)
    os.waitpid(pid, 0)
    return said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    bwrap = shutil.which("bwrap")
    if os.geteuid() != 0 or bwrap is None:
        raise SystemExit("needs root and bubblewrap")
    imports, joins = [], []
    started = time.process_time()
    import torch

    torch.zeros(1).add_(1)
    print(f"the zygote's own import: {time.process_time() - started:.3f} s of CPU")
    for _ in range(args.rounds):
        before = children_cpu()
        subprocess.run([sys.executable, "-I", "-c", "import torch; torch.arange(4.0).sum()"], check=True)
        imports.append(children_cpu() - before)
        placeholder, host_pid = start_placeholder(bwrap)
        try:
            before = children_cpu()
            said = join_and_run(host_pid, torch)
            joins.append(children_cpu() - before)
        finally:
            placeholder.kill()
            placeholder.wait()
    print(f"inside: {said}")
    print(f"a fresh Python importing torch: {statistics.median(imports):.3f} s of CPU (median of {args.rounds})")
    print(f"a fork joining bubblewrap's namespaces: {statistics.median(joins):.3f} s of CPU")


if __name__ == "__main__":
    main()
