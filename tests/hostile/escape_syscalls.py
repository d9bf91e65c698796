"""Hostile: the system calls an escape starts with, made directly through ctypes.

Each attempt runs in a forked child (so one that succeeds changes nothing of the
worker) and reports the errno it met, 0 when the call succeeded: a new user namespace
(unshare, and clone with CLONE_NEWUSER), a tmpfs mounted in it, ptrace, a BPF map, the
kernel keyring, userfaultfd; clone3 must fail with ENOSYS (so that the C library falls
back to clone, whose flags a filter can read); ordinary calls (getpid, a thread, a
fork) must keep working.  ``attempts()`` returns every result; ``f`` prints the breach
marker when an act that only a broken boundary allows succeeded.  ptrace is attempted
but is no breach by itself (a container's default profile allows it; the process
sandbox refuses it).  Bounded: one child per attempt, each gone within 5 s.
"""

import ctypes
import os
import signal
import threading

NUMBERS = {  # name: (x86_64, aarch64)
    "getpid": (39, 172), "unshare": (272, 97), "clone": (56, 220), "clone3": (435, 435),
    "mount": (165, 40), "ptrace": (101, 117), "bpf": (321, 280), "keyctl": (250, 219),
    "userfaultfd": (323, 282),
}
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
BREACHES = ("unshare", "clone_newuser", "mount", "bpf", "keyctl", "userfaultfd")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _nr(name):
    machine = os.uname().machine
    pair = NUMBERS[name]
    return pair[0] if machine == "x86_64" else pair[1] if machine == "aarch64" else None


def _call(name, *args):
    """The raw system call: 0 (or more) on success, else -errno."""
    number = _nr(name)
    if number is None:
        return -1000
    ctypes.set_errno(0)
    result = _libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    return result if result >= 0 else -ctypes.get_errno()


def _unshare():
    return _call("unshare", CLONE_NEWUSER)


def _clone_newuser():
    pid = _call("clone", CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        os._exit(0)  # the new process, in its own user namespace
    if pid > 0:
        os.waitpid(pid, 0)
    return pid


def _clone3():
    args = (ctypes.c_uint64 * 11)()
    args[4] = signal.SIGCHLD  # exit_signal
    pid = _call("clone3", ctypes.addressof(args), ctypes.sizeof(args))
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
    return pid


def _mount():
    _call("unshare", CLONE_NEWUSER | CLONE_NEWNS)  # a namespace of one's own, if allowed
    source, target, kind = (ctypes.c_char_p(b) for b in (b"none", b"/tmp", b"tmpfs"))
    return _call("mount", ctypes.cast(source, ctypes.c_void_p).value,
                 ctypes.cast(target, ctypes.c_void_p).value,
                 ctypes.cast(kind, ctypes.c_void_p).value, 0, 0)


def _ptrace():
    return _call("ptrace", 0, 0, 0, 0)  # PTRACE_TRACEME


def _bpf():
    attr = (ctypes.c_uint32 * 32)()
    attr[0], attr[1], attr[2], attr[3] = 2, 4, 4, 1  # an array map of one int
    return _call("bpf", 0, ctypes.addressof(attr), ctypes.sizeof(attr))


def _keyctl():
    return _call("keyctl", 0, -4 & 0xFFFFFFFF, 0)  # KEYCTL_GET_KEYRING_ID of the user keyring


def _userfaultfd():
    return _call("userfaultfd", os.O_CLOEXEC | 1)  # UFFD_USER_MODE_ONLY


def _getpid():
    return 0 if _call("getpid") == os.getpid() else -1


def _thread():
    seen = []
    worker = threading.Thread(target=lambda: seen.append(1))
    worker.start()
    worker.join(5)
    return 0 if seen == [1] else -1


def _fork():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    return 0 if os.waitstatus_to_exitcode(status) == 7 else -1


ATTEMPTS = {"unshare": _unshare, "clone_newuser": _clone_newuser, "clone3": _clone3,
            "mount": _mount, "ptrace": _ptrace, "bpf": _bpf, "keyctl": _keyctl,
            "userfaultfd": _userfaultfd, "getpid": _getpid, "thread": _thread,
            "fork": _fork}


def _in_child(attempt):
    """Run ``attempt`` in a forked child; 0 when it succeeded, else the errno it met."""
    pid = os.fork()
    if pid == 0:
        signal.alarm(5)
        try:
            result = attempt()
        except BaseException:
            os._exit(254)
        os._exit(0 if result >= 0 else min(-result, 253))
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 255


def attempts():
    """[name, errno] for every attempt (errno 0: the call succeeded)."""
    return [[name, _in_child(attempt)] for name, attempt in ATTEMPTS.items()]


def f(x: int) -> int:
    results = dict(attempts())
    broken = [name for name in BREACHES if results.get(name) == 0]
    if broken:
        print("DERIVATIVE-BREACH escape_syscalls:", ", ".join(broken), "succeeded", flush=True)
    return x + 1
