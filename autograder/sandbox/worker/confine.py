"""Kernel layers the worker applies to itself before student code runs: Landlock, seccomp and, for a grader that is
not root and runs no bubblewrap, a user namespace of its own.

Landlock and seccomp work for any user, root or not, without namespaces. Landlock limits the filesystem to
what the worker may read (the Python install, its own code, the staged modules) and one
scratch folder it may write, refuses TCP, and (ABI 6 and later) keeps signals and abstract
sockets inside the sandbox, so student code cannot signal the worker's first process or the
grader. The seccomp filter (which also sets no_new_privs) refuses sockets (also ``socketpair``,
``connect``, ``bind`` and sending to an address), SysV IPC, inotify, ptrace, reading or writing other
processes' memory, namespaces, mounts, kernel keyrings, BPF and io_uring.

A user namespace of its own (where the kernel lets a user make one) gives the worker's processes a count of their own:
from Linux 5.14 the kernel counts ``RLIMIT_NPROC`` per user namespace, so a module that starts processes up to its limit
leaves the user's other programs, other workers among them, room to start theirs. The worker maps its own uid and gid
into it and keeps none of the capabilities it would hold there.

Run with ``--probe`` to print which layers this machine allows (the grader asks once).
"""

from __future__ import annotations

import errno
import json
import os
import sys

READ_ONLY_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/proc", "/sys/devices/system/cpu")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
DENIED_SYSCALLS = (
    "socket",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    "perf_event_open",
    "bpf",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsmount",
    "fspick",
    "mount_setattr",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "syslog",
    "acct",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
    "quotactl",
    "iopl",
    "ioperm",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "lookup_dcookie",
    # Sockets made without socket(), and messages to an address (a host socket in a folder Landlock hides).
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "sendmsg",
    "sendmmsg",
    # SysV IPC and POSIX message queues outlive every process and count against no memory limit (Landlock's rule on
    # /dev/mqueue does not stop mq_open, a system call of its own).
    "shmget",
    "shmat",
    "msgget",
    "msgsnd",
    "msgrcv",
    "semget",
    "semop",
    "semtimedop",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    # Watching folders tells names and sizes of files it cannot read.
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_mark",
    # Which pages of a file the kernel caches outlives every process and is shared by every reader of the file: these
    # read it exactly or change it at will (a bit per file, from one test or submission to the next). What is left is
    # timing a first read, a bit that reading spends.
    "fadvise64",
    "readahead",
    "mincore",
    "cachestat",
    "preadv2",
    "pwritev2",
)
# madvise advice that evicts a file's pages from the cache (MADV_COLD, MADV_PAGEOUT); the rest stays allowed.
EVICTING_ADVICE = (20, 21)
NEW_NAMESPACE_FLAGS = (0x10000000, 0x20000000, 0x04000000, 0x08000000, 0x40000000, 0x00020000, 0x02000000, 0x00000080)
# CLONE_NEWUSER, NEWPID, NEWUTS, NEWIPC, NEWNET, NEWNS, NEWCGROUP, NEWTIME


CLONE_NEWUSER = 0x10000000


class ConfineError(RuntimeError):
    """A layer that the grader found available could not be applied (a fault of the machine)."""


def enter_user_namespace() -> None:
    """Move this (single-threaded) process into a new user namespace where its uid and gid are what they were, with no
    capability: its processes then count against a process limit of their own."""
    import ctypes

    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER) != 0:
        code = ctypes.get_errno()
        raise ConfineError(f"no user namespace: unshare failed ({errno.errorcode.get(code, code)})")
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    except OSError as exc:
        raise ConfineError(f"the user namespace's ids could not be mapped: {exc}") from None
    if not set_capabilities(0):  # the new namespace gave it every one
        raise ConfineError("the user namespace's capabilities could not be dropped")


CAPABILITY_VERSION_3 = 0x20080522


def set_capabilities(mask: int) -> bool:
    """Make ``mask`` this process's effective, permitted and inheritable capabilities (only ever fewer than it has)."""
    import ctypes
    import struct

    low, high = mask & 0xFFFFFFFF, mask >> 32
    header = struct.pack("Ii", CAPABILITY_VERSION_3, 0)
    data = struct.pack("6I", low, low, low, high, high, high)
    try:
        return ctypes.CDLL(None, use_errno=True).capset(ctypes.c_char_p(header), ctypes.c_char_p(data)) == 0
    except (OSError, AttributeError):
        return False


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is missing, disabled or blocked."""
    try:
        import landlockpy

        return int(landlockpy.abi_version()) if landlockpy.supported() else 0
    except Exception:  # noqa: BLE001 - missing package, old kernel, a container's seccomp profile
        return 0


def apply_landlock(read_only: list[str], writable: list[str]) -> int:
    """Restrict this process and its future children to ``read_only`` and ``writable``; return the ABI used."""
    from landlockpy import AccessFS, AccessNet, Ruleset, Scope

    read = AccessFS.READ_FILE | AccessFS.READ_DIR | AccessFS.EXECUTE
    try:
        with Ruleset(
            handled_net=AccessNet.BIND_TCP | AccessNet.CONNECT_TCP | AccessNet.BIND_UDP | AccessNet.CONNECT_SEND_UDP,
            scoped=Scope.SIGNAL | Scope.ABSTRACT_UNIX_SOCKET,
        ) as ruleset:
            everything = ruleset.handled_fs
            for path in [*READ_ONLY_SYSTEM, *read_only]:
                if os.path.exists(path):
                    ruleset.allow_path(path, read)
            for path in DEVICES:
                if os.path.exists(path):
                    ruleset.allow_path(path, AccessFS.READ_FILE | AccessFS.WRITE_FILE)
            for path in writable:
                ruleset.allow_path(path, everything)
            ruleset.restrict()
            return ruleset.abi_version
    except Exception as exc:  # noqa: BLE001
        raise ConfineError(f"Landlock could not be applied: {type(exc).__name__}: {exc}") from None


def apply_seccomp() -> None:
    """Load the syscall filter (with no_new_privs): the calls above fail with EPERM, everything else is allowed."""
    try:
        import pyseccomp as sc

        refuse = sc.ERRNO(errno.EPERM)
        rules = sc.SyscallFilter(defaction=sc.ALLOW)
        for name in DENIED_SYSCALLS:
            try:
                rules.add_rule(refuse, name)
            except (RuntimeError, ValueError, OSError):
                continue  # a call this architecture or libseccomp does not know
        rules.add_rule(refuse, "sendto", sc.Arg(4, sc.NE, 0))  # a datagram to an address; plain sends on a pipe stay
        for advice in EVICTING_ADVICE:
            rules.add_rule(refuse, "madvise", sc.Arg(2, sc.EQ, advice))
        for flag in NEW_NAMESPACE_FLAGS:
            rules.add_rule(refuse, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        # clone3 passes its flags in memory a filter cannot read: refuse it so the C library falls back to clone.
        rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        rules.load()
    except Exception as exc:  # noqa: BLE001
        raise ConfineError(f"the seccomp filter could not be loaded: {type(exc).__name__}: {exc}") from None


def probe() -> dict:
    """Apply the layers in this (throwaway) process and report what worked."""
    found = {"landlock": 0, "seccomp": False, "userns": _probe_user_namespace()}
    abi = landlock_abi()
    if abi:
        try:
            found["landlock"] = apply_landlock([sys.prefix, sys.base_prefix], [])
        except ConfineError as exc:
            found["landlock_error"] = str(exc)
    try:
        apply_seccomp()
        found["seccomp"] = True
    except ConfineError as exc:
        found["seccomp_error"] = str(exc)
    return found


def _probe_user_namespace() -> bool:
    """Whether a child of this process can enter a user namespace of its own where its processes count apart from the
    user's (Linux 5.14 and later; before, the kernel counted them per uid whatever the namespace). Asked in a child:
    the other layers are probed here, outside any."""
    pid = os.fork()
    if pid == 0:
        try:
            enter_user_namespace()
            import resource

            # this child and one more: refused where the count is the user's, which runs this probe as well
            resource.setrlimit(resource.RLIMIT_NPROC, (2, 2))
            child = os.fork()
            if child == 0:
                os._exit(0)
            os.waitpid(child, 0)
            os._exit(0)
        except BaseException:  # noqa: BLE001 - any failure says no
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


if __name__ == "__main__" and sys.argv[1:] == ["--probe"]:
    print(json.dumps(probe()))
