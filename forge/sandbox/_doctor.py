"""``derivative sandbox doctor``: what isolation this machine can give, and why.

The doctor does not guess from kernel version numbers: it starts a real process-backend
sandbox with an empty candidate and reports the isolation features the host verified, then
does the same with Docker when an engine and the image are there.  Around that it reports
the facts that explain a missing feature (user-namespace sysctls, the cgroup pids
controller, the engine, the image, what an offline image build would use).
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
    from ._process import PidsCgroup

    cgroup = PidsCgroup.create(8)
    if cgroup is None:
        report.add("cgroup pids", False, "cannot create a cgroup with pids.max here; only "
                   "RLIMIT_NPROC limits processes (it counts every process of the id)")
    else:
        report.add("cgroup pids", True, f"a nested cgroup with pids.max works ({cgroup.path})")
        cgroup.remove()


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
        weak = [i for i in isolation if i.startswith("weaker:")]
        report.add("process sandbox", not weak and not problem,
                   f"started and answered in {seconds:.3f}s; "
                   + (problem + "; " if problem else "") + ", ".join(isolation))
    except DerivativeError as exc:
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
