#!/usr/bin/env bash
# Docker for the sandbox integration tests: install the engine and debootstrap from the
# machine's Debian mirror, start dockerd in the background, wait until it answers, then
# build the sandbox image offline (debootstrap + docker import: no registry needed).
#
# Called from .ci/run (CI=true). Idempotent: an installed engine, a running daemon and an
# existing image are reused. Environment: PYTHON (default python), DOCKERD_LOG (default
# /tmp/dockerd.log), DOCKERD_WAIT seconds to wait for the daemon (default 60).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python}
DOCKERD_LOG=${DOCKERD_LOG:-/tmp/dockerd.log}
DOCKERD_WAIT=${DOCKERD_WAIT:-60}
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive

began=$(date +%s)
say() { printf '[docker-setup +%ss] %s\n' "$(($(date +%s) - began))" "$*"; }

if command -v dockerd >/dev/null 2>&1 && command -v debootstrap >/dev/null 2>&1; then
    say "docker engine and debootstrap already installed"
else
    say "apt-get update"
    $SUDO apt-get update -q
    say "apt-get install docker.io debootstrap"
    $SUDO apt-get install -y -q --no-install-recommends docker.io debootstrap
fi

if docker info >/dev/null 2>&1; then
    say "a Docker daemon is already running"
else
    say "starting dockerd (log: $DOCKERD_LOG)"
    # setsid: the daemon outlives this script and ignores its terminal's signals.
    $SUDO setsid dockerd >"$DOCKERD_LOG" 2>&1 < /dev/null &
    waited=0
    until docker info >/dev/null 2>&1; do
        if [ "$waited" -ge "$DOCKERD_WAIT" ]; then
            say "dockerd did not answer within ${DOCKERD_WAIT}s; the end of its log:"
            tail -n 40 "$DOCKERD_LOG" >&2 || true
            exit 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
    say "dockerd answers after ${waited}s"
fi

say "building the sandbox image offline"
$SUDO "$PYTHON" -m derivative sandbox build-image --offline
say "done"
