"""Building the Docker sandbox image (``derivative sandbox build-image``).

The image needs nothing but a Python >= 3.10 with its standard library: the worker and the
candidate are bind-mounted read-only at run time.  Two ways to make it:

- **offline** (``--offline``): ``debootstrap --variant=minbase --include=python3`` of the
  host's Debian suite (run as ``--foreign`` plus ``--second-stage`` so that dpkg can be told
  not to sync every file) from the mirror the host's apt is configured with (read at run time
  from ``/etc/apt/sources.list`` and ``/etc/apt/sources.list.d/*.list|*.sources``; no host
  name is written into this code), then ``docker import`` of the root file system.  No
  registry is involved, only the Debian mirror that ``apt-get`` already reaches;
- **from a Dockerfile** (the default): ``FROM python:3.12-slim``, which needs a reachable
  registry; when there is none the error says to use ``--offline``.

Both are idempotent: an existing image with the tag is reused unless ``--force``.  The image
gets the label ``org.derivative.sandbox=1`` and runs as 65534 by default (the sandbox sets
the user explicitly anyway).
"""

from __future__ import annotations

import glob
import io
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from derivative._errors import SandboxUnavailable, UsageError

DEFAULT_TAG = "derivative-sandbox:1"
LABEL = "org.derivative.sandbox"
DOCKERFILE = f"""\
FROM python:3.12-slim
LABEL {LABEL}=1
USER 65534:65534
WORKDIR /tmp
"""
IMPORT_CHANGES = [
    f"LABEL {LABEL}=1",
    "ENV PATH=/usr/local/bin:/usr/bin:/bin",
    "USER 65534:65534",
    "WORKDIR /tmp",
    'CMD ["python3"]',
]
SOURCES_LIST = "/etc/apt/sources.list"
SOURCES_DIR = "/etc/apt/sources.list.d"
FIX_OFFLINE = "run `derivative sandbox build-image --offline`"
# Documentation, manuals, translations and apt's caches are not needed to run Python.
SLIM_PATHS = ("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale",
              "var/cache/apt/archives", "var/lib/apt/lists", "var/cache/debconf")

Progress = Callable[[str], None]


@dataclass(frozen=True)
class AptSource:
    """One ``deb`` line (or deb822 stanza) of the host's apt configuration."""

    uri: str
    suites: tuple[str, ...]
    components: tuple[str, ...]
    signed_by: str | None
    origin: str


@dataclass(frozen=True)
class BuildResult:
    """What ``build_image`` did."""

    tag: str
    image_id: str
    reused: bool
    method: str
    seconds: float


# --------------------------------------------------------------------------- apt sources


def _one_line_sources(text: str, origin: str) -> Iterable[AptSource]:
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line.startswith("deb "):
            continue
        words = line.split()[1:]
        signed_by = None
        if words and words[0].startswith("["):
            options: list[str] = []
            while words:
                word = words.pop(0)
                options.append(word.strip("[]"))
                if word.endswith("]"):
                    break
            for option in options:
                if option.startswith("signed-by="):
                    signed_by = option.split("=", 1)[1]
        if len(words) >= 2:
            yield AptSource(words[0], (words[1],), tuple(words[2:]), signed_by, origin)


def _deb822_sources(text: str, origin: str) -> Iterable[AptSource]:
    stanzas: list[dict[str, str]] = [{}]
    last_key = None
    for raw in text.splitlines():
        if raw.startswith("#"):
            continue
        if not raw.strip():
            if stanzas[-1]:
                stanzas.append({})
            last_key = None
            continue
        if raw[0] in " \t" and last_key:
            stanzas[-1][last_key] += "\n" + raw.strip()
            continue
        key, _, value = raw.partition(":")
        last_key = key.strip().lower()
        stanzas[-1][last_key] = value.strip()
    for stanza in stanzas:
        if "deb" not in stanza.get("types", "").split():
            continue
        if stanza.get("enabled", "yes").lower() == "no":
            continue
        signed_by = stanza.get("signed-by")
        if signed_by and "\n" in signed_by:  # an inline key: debootstrap needs a file
            signed_by = None
        for uri in stanza.get("uris", "").split():
            yield AptSource(uri, tuple(stanza.get("suites", "").split()),
                            tuple(stanza.get("components", "").split()), signed_by, origin)


def apt_sources(root: str = "/") -> list[AptSource]:
    """Every ``deb`` source the machine's apt is configured with, in apt's reading order."""
    found: list[AptSource] = []
    main = os.path.join(root, SOURCES_LIST.lstrip("/"))
    if os.path.isfile(main):
        found.extend(_one_line_sources(Path(main).read_text(errors="replace"), main))
    folder = os.path.join(root, SOURCES_DIR.lstrip("/"))
    for path in sorted(glob.glob(os.path.join(folder, "*"))):
        text = Path(path).read_text(errors="replace") if os.path.isfile(path) else ""
        if path.endswith(".list"):
            found.extend(_one_line_sources(text, path))
        elif path.endswith(".sources"):
            found.extend(_deb822_sources(text, path))
    return found


def debian_mirror(sources: Iterable[AptSource]) -> tuple[AptSource, str]:
    """The first source carrying a base Debian suite with ``main``, and that suite.

    Suites with a dash (``-updates``, ``-security``, ``-backports``) only add to a base
    suite, so debootstrap cannot start from them.
    """
    for source in sources:
        if not source.uri.startswith(("http://", "https://", "file:/")):
            continue
        if "main" not in source.components:
            continue
        for suite in source.suites:
            if suite and "-" not in suite and "/" not in suite:
                return source, suite
    raise SandboxUnavailable(
        "no Debian mirror with a base suite and `main` is configured in "
        f"{SOURCES_LIST} or {SOURCES_DIR}/; the offline image build needs one "
        "(or build from the Dockerfile where a registry is reachable)"
    )


# --------------------------------------------------------------------------- docker


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception it wraps (causes, contexts, exception arguments and
    urllib3's ``reason``), breadth first, each once."""
    seen: list[BaseException] = []
    queue = [exc]
    while queue and len(seen) < 32:
        e = queue.pop(0)
        if any(e is s for s in seen):
            continue
        seen.append(e)
        queue.extend(x for x in (e.__cause__, e.__context__, getattr(e, "reason", None),
                                 *getattr(e, "args", ()))
                     if isinstance(x, BaseException))
    return seen


def engine_address() -> str:
    """Where the Docker SDK looks for the engine (``$DOCKER_HOST``, else its socket)."""
    return os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"


def docker_error(exc: BaseException) -> str:
    """A Docker SDK exception in plain words: the engine's own explanation, else the
    operating system's error at the bottom of the chain (``Connection refused``), else the
    first line of the message; never the nested reprs the SDK and urllib3 build
    (``('Connection aborted.', FileNotFoundError(2, ...))``)."""
    explanation = getattr(exc, "explanation", None)
    if isinstance(explanation, (str, bytes)) and explanation:
        text = explanation.decode(errors="replace") if isinstance(explanation, bytes) \
            else explanation
        return text.strip().splitlines()[0]
    for cause in reversed(_causes(exc)):
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[0].lower() + cause.strerror[1:]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if "(" not in text else text.split("(")[0].rstrip(" :")


def docker_client(timeout: int = 600) -> Any:
    """A Docker SDK client that has answered a ping; SandboxUnavailable otherwise."""
    try:
        import docker
        from docker.errors import DockerException
    except ImportError as exc:
        raise SandboxUnavailable(
            "the `docker` Python package is not installed (pip install docker)"
        ) from exc
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except DockerException as exc:
        raise SandboxUnavailable(
            f"no Docker engine answers at {engine_address()} ({docker_error(exc)}); start one "
            "(e.g. `dockerd &`) or use `--sandbox process`"
        ) from exc
    return client


def _existing(client: Any, tag: str) -> str | None:
    from docker.errors import ImageNotFound

    try:
        return str(client.images.get(tag).id)
    except ImageNotFound:
        return None


def _split_tag(tag: str) -> tuple[str, str]:
    name, sep, version = tag.rpartition(":")
    if not sep or "/" in version:
        return tag, "latest"
    return name, version


def build_image(
    *,
    offline: bool,
    force: bool = False,
    tag: str = DEFAULT_TAG,
    progress: Progress = lambda _: None,
) -> BuildResult:
    """Make the sandbox image (see the module docstring); reuse it unless ``force``."""
    if not tag or any(c.isspace() for c in tag):
        raise UsageError(f"--tag {tag!r} is not an image tag")
    started = time.monotonic()
    client = docker_client()
    existing = _existing(client, tag)
    if existing is not None and not force:
        progress(f"image {tag} exists ({existing}); reusing it (--force rebuilds)")
        return BuildResult(tag, existing, True, "existing", time.monotonic() - started)
    if offline:
        image_id = _build_offline(client, tag, progress)
        method = "debootstrap"
    else:
        image_id = _build_dockerfile(client, tag, progress)
        method = "dockerfile"
    _smoke_test(client, image_id, progress)
    return BuildResult(tag, image_id, False, method, time.monotonic() - started)


def _build_dockerfile(client: Any, tag: str, progress: Progress) -> str:
    from docker.errors import APIError, BuildError

    progress("building from a Dockerfile (FROM python:3.12-slim)")
    try:
        image, _ = client.images.build(
            fileobj=io.BytesIO(DOCKERFILE.encode()), tag=tag, rm=True, forcerm=True
        )
    except (BuildError, APIError) as exc:
        raise SandboxUnavailable(
            f"could not build from python:3.12-slim ({str(exc)[:300]}); without a reachable "
            f"registry, {FIX_OFFLINE}"
        ) from exc
    return str(image.id)


def _build_offline(client: Any, tag: str, progress: Progress) -> str:
    debootstrap = shutil.which("debootstrap") or (
        "/usr/sbin/debootstrap" if os.path.exists("/usr/sbin/debootstrap") else None
    )
    if debootstrap is None:
        raise SandboxUnavailable("debootstrap is not installed (apt-get install debootstrap)")
    if os.geteuid() != 0:
        raise SandboxUnavailable("the offline image build runs debootstrap, which needs root")
    source, suite = debian_mirror(apt_sources())
    progress(f"debootstrap {suite} from {source.uri} (configured in {source.origin})")
    work = Path(tempfile.mkdtemp(prefix="derivative-image-"))
    try:
        target = work / "rootfs"
        command = [debootstrap, "--foreign", "--variant=minbase", "--include=python3"]
        if source.signed_by and os.path.isfile(source.signed_by):
            command.append(f"--keyring={source.signed_by}")
        command += [suite, str(target), source.uri]
        log = work / "debootstrap.log"
        _run_logged(command, log, "debootstrap (download and unpack)")
        # The second stage configures the packages inside the new root.  dpkg syncs every
        # file it writes; for a throw-away image that is wasted time (measured here: the
        # second stage takes ~70 s with force-unsafe-io instead of ~140 s without).
        unsafe = target / "etc/dpkg/dpkg.cfg.d/derivative-unsafe-io"
        unsafe.parent.mkdir(parents=True, exist_ok=True)
        unsafe.write_text("force-unsafe-io\n")
        progress("debootstrap second stage (configuring the packages)")
        _run_logged(["chroot", str(target), "/debootstrap/debootstrap", "--second-stage"], log,
                    "debootstrap --second-stage")
        unsafe.unlink(missing_ok=True)
        for rel in SLIM_PATHS:
            path = target / rel
            if path.is_dir():
                for child in path.iterdir():
                    if child.is_dir() and not child.is_symlink():
                        shutil.rmtree(child, ignore_errors=True)
                    else:
                        child.unlink(missing_ok=True)
        progress("packing the root file system")
        archive = work / "rootfs.tar"
        subprocess.run(["tar", "--numeric-owner", "-C", str(target), "-cf", str(archive), "."],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        progress(f"importing it as {tag}")
        repository, version = _split_tag(tag)
        client.api.import_image_from_file(
            str(archive), repository=repository, tag=version, changes=IMPORT_CHANGES
        )
        image_id = _existing(client, tag)
        if image_id is None:
            raise SandboxUnavailable(f"docker import finished but {tag} is not there")
        return image_id
    except subprocess.CalledProcessError as exc:
        stderr = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) \
            else str(exc.stderr or "")
        raise SandboxUnavailable(f"packing the image failed: {stderr.strip()[:500]}") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_logged(command: list[str], log: Path, what: str) -> None:
    with open(log, "ab") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:]
        raise SandboxUnavailable(f"{what} failed (exit {done.returncode}):\n{tail}")


def _smoke_test(client: Any, image_id: str, progress: Progress) -> None:
    """Run the image's Python once, hardened as the sandbox runs it."""
    from docker.errors import DockerException

    try:
        output = client.containers.run(
            image_id,
            ["python3", "-I", "-S", "-c",
             "import sys, json, fractions, datetime, enum; print(sys.version_info[:2])"],
            network_mode="none", read_only=True, cap_drop=["ALL"], user="65534:65534",
            security_opt=["no-new-privileges"], remove=True, stdout=True, stderr=True,
        )
    except DockerException as exc:
        raise SandboxUnavailable(
            f"the new image does not run Python: {docker_error(exc)}") from exc
    text = output.decode(errors="replace").strip() if isinstance(output, bytes) else str(output)
    digits = [int(x) for x in text.strip("()").replace(" ", "").split(",") if x.isdigit()]
    if len(digits) != 2 or tuple(digits) < (3, 10):
        raise SandboxUnavailable(f"the new image's Python is {text!r}; the worker needs >= 3.10")
    progress(f"the image runs Python {digits[0]}.{digits[1]}")
