"""``derivative sandbox doctor``: what isolation this machine can give, and why.

The doctor does not guess from kernel version numbers: it starts a real process-backend
sandbox with an empty candidate and reports the isolation features the host verified, then
does the same with Docker when an engine and the image are there.  Around that it reports
the facts that explain a missing feature (user-namespace sysctls, the cgroup pids
controller, which mechanism holds the sandbox's memory budget, whether the kernel offers
seccomp filters for this architecture, the engine, the image, what an offline image
build would use).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from derivative._errors import DerivativeError, SandboxUnavailable


@dataclass(frozen=True)
class Finding:
    """One line of the report."""

    topic: str
    ok: bool
    detail: str


@dataclass
class Report:
    """Everything the doctor found; ``auto`` is the backend ``--sandbox auto`` would use."""

    findings: list[Finding] = field(default_factory=list)
    process_isolation: tuple[str, ...] = ()
    docker_isolation: tuple[str, ...] = ()
    auto: str = "process"
    memory_budget: str = "rlimit-fallback"
    """What holds a process sandbox's memory budget: cgroup-v1, cgroup-v2 or
    rlimit-fallback (processes x address space)."""
    seccomp: bool = False
    """Whether the process sandbox's worker was seen under its seccomp filter."""

    def add(self, topic: str, ok: bool, detail: str) -> None:
        self.findings.append(Finding(topic, ok, detail))

    def render(self) -> str:
        width = max((len(f.topic) for f in self.findings), default=10)
        lines = [f"{'ok ' if f.ok else 'NO '} {f.topic.ljust(width)}  {f.detail}"
                 for f in self.findings]
        lines.append(f"--sandbox auto would use: {self.auto}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "findings": [{"topic": f.topic, "ok": f.ok, "detail": f.detail}
                         for f in self.findings],
            "process_isolation": list(self.process_isolation),
            "docker_isolation": list(self.docker_isolation),
            "auto": self.auto,
            "memory_budget": self.memory_budget,
            "seccomp": self.seccomp,
        }


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _kernel_facts(report: Report) -> None:
    max_userns = _read("/proc/sys/user/max_user_namespaces")
    clone = _read("/proc/sys/kernel/unprivileged_userns_clone")
    apparmor = _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
    detail = f"max_user_namespaces={max_userns}"
    if clone is not None:
        detail += f", unprivileged_userns_clone={clone}"
    if apparmor is not None:
        detail += f", apparmor_restrict_unprivileged_userns={apparmor}"
    ok = max_userns not in (None, "0") and clone != "0" and apparmor != "1"
    report.add("user namespaces", ok, detail)
    report.add("running as", True, "root (the sandbox runs as the real id 65534)"
               if os.geteuid() == 0 else f"uid {os.geteuid()} (the sandbox keeps this id, "
               "with no capabilities)")
    _cgroup_facts(report)


def _cgroup_facts(report: Report) -> None:
    """Try the cgroups a process sandbox would get: pids.max and the memory budget."""
    from ._cgroup import SandboxCgroup
    from ._process import MIN_PROCESS_AS

    cgroup = SandboxCgroup.create(8, 64 << 20)
    folders = cgroup.folders if cgroup is not None else {}
    if "pids" in folders:
        report.add("cgroup pids", True,
                   f"a nested cgroup with pids.max works (under {folders['pids'][0].parent})")
    else:
        report.add("cgroup pids", False, "cannot create a cgroup with pids.max here; only "
                   "RLIMIT_NPROC limits processes (it counts every process of the id)")
    if cgroup is not None and "memory" in folders:
        version = cgroup.memory_version
        report.memory_budget = f"cgroup-{version}"
        files = ("memory.max + memory.swap.max=0" if version == "v2" else
                 "memory.limit_in_bytes + memory.memsw.limit_in_bytes")
        swap = {"none": "swap counted", "swappiness-0": "swap not accounted by the kernel: "
                "swappiness 0", "unaccounted": "swap not counted"}[cgroup.swap]
        report.add("memory budget", cgroup.swap == "none",
                   f"cgroup {version} ({files}; {swap}): one budget for every process of "
                   f"the sandbox (under {folders['memory'][0].parent})")
    else:
        report.add("memory budget", False,
                   "rlimit fallback: no usable memory cgroup here, so RLIMIT_NPROC is lowered "
                   f"until processes x RLIMIT_AS fits the budget ({MIN_PROCESS_AS >> 20} MiB "
                   "of address space each at least)")
    if cgroup is not None:
        cgroup.remove()


def _seccomp_facts(report: Report, isolation: tuple[str, ...]) -> None:
    """Whether the kernel has seccomp filters, and whether the process sandbox's worker
    was seen under its filter (read from its ``/proc`` status by the host)."""
    status = _read("/proc/self/status") or ""
    has_field = any(line.startswith("Seccomp:") for line in status.splitlines())
    actions = (_read("/proc/sys/kernel/seccomp/actions_avail") or "").split()
    seen = "seccomp:filter" in isolation
    why = [i for i in isolation if i.startswith("weaker:no-seccomp")]
    detail = (f"{'in this kernel' if has_field else 'not in this kernel'} (actions: "
              f"{' '.join(actions) or 'unknown'}); the process sandbox "
              + ("runs under its filter (escape calls refused with EPERM)" if seen else
                 "did not get its filter" + (f": {why[0]}" if why else "")))
    report.seccomp = has_field and seen
    report.add("seccomp", report.seccomp, detail)


def _try_sandbox(launcher: Any) -> tuple[float, tuple[str, ...], str]:
    from ._sandbox import Limits, open_sandbox

    folder = Path(tempfile.mkdtemp(prefix="derivative-doctor-"))
    try:
        (folder / "doctor_probe.py").write_text("def ping():\n    return 1\n")
        started = time.monotonic()
        sandbox = open_sandbox(folder / "doctor_probe.py", contract_sha256="doctor",
                               launcher=launcher, limits=Limits(call_timeout=20.0))
        try:
            sandbox.start()
            answer = sandbox.call("ping")
            seconds = time.monotonic() - started
            problem = "" if answer.ok and answer.value == 1 else f"probe call: {answer.detail}"
            return seconds, sandbox.isolation, problem
        finally:
            sandbox.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def diagnose(image: str | None = None) -> Report:
    """Try every backend for real and explain the result."""
    from ._docker import DEFAULT_IMAGE, DockerLauncher
    from ._image import apt_sources, debian_mirror
    from ._process import ProcessLauncher

    report = Report()
    _kernel_facts(report)
    try:
        seconds, isolation, problem = _try_sandbox(ProcessLauncher())
        report.process_isolation = isolation
        _seccomp_facts(report, isolation)
        weak = [i for i in isolation if i.startswith("weaker:")]
        report.add("process sandbox", not weak and not problem,
                   f"started and answered in {seconds:.3f}s; "
                   + (problem + "; " if problem else "") + ", ".join(isolation))
    except DerivativeError as exc:
        _seccomp_facts(report, ())
        report.add("process sandbox", False, str(exc))
    tag = image or DEFAULT_IMAGE
    try:
        launcher = DockerLauncher.connect(tag, ping_timeout=3.0)
        report.add("docker image", True, f"{tag} is {launcher.image_id}")
        seconds, isolation, problem = _try_sandbox(launcher)
        report.docker_isolation = isolation
        report.add("docker sandbox", not problem,
                   f"started and answered in {seconds:.3f}s; "
                   + (problem + "; " if problem else "") + ", ".join(isolation))
        report.auto = "docker"
    except SandboxUnavailable as exc:
        report.add("docker", False, str(exc))
    except DerivativeError as exc:
        report.add("docker sandbox", False, str(exc))
    tool = shutil.which("debootstrap") or (
        "/usr/sbin/debootstrap" if os.path.exists("/usr/sbin/debootstrap") else None)
    try:
        source, suite = debian_mirror(apt_sources())
        mirror = f"{suite} from {source.uri} ({source.origin})"
        report.add("offline image build", tool is not None,
                   f"debootstrap {'at ' + tool if tool else 'is not installed'}; {mirror}")
    except SandboxUnavailable as exc:
        report.add("offline image build", False, str(exc))
    return report
