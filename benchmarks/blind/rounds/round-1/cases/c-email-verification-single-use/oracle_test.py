"""Oracle for c-email-verification-single-use, written from the requirements only.

The concurrency test runs two redeems of one token in lockstep: a tracer lets the two
threads execute the candidate's source lines strictly in turn (thread A one line, thread B
one line, ...), so a check-then-set on separate lines is interleaved the same way on every
run.  A thread that blocks on a lock simply stops taking turns; the other waits a short
timeout and carries on, so a correctly locked store cannot deadlock the harness.
"""

import re
import sys
import threading

import verification_tokens
from verification_tokens import Redeem, VerificationTokens

_FILE = verification_tokens.__file__
_MODULE = verification_tokens.__name__


def _name(value):
    return value.name if hasattr(value, "name") else value


def _lockstep(calls, first=0, patience=0.03):
    """Run each zero-argument callable in its own thread, one candidate line at a time.

    Threads take turns round robin at every line of the candidate's source.  A thread
    that does not take its turn within `patience` seconds is blocked (on a lock held by
    another thread): it is skipped until it reaches its next line, so a correctly locked
    implementation never deadlocks the harness.
    """
    n = len(calls)
    cond = threading.Condition()
    state = {"turn": first, "done": [False] * n, "stalled": set()}
    results = [None] * n
    errors = [None] * n

    def eligible(i):
        return [j for j in range(n)
                if j != i and not state["done"][j] and j not in state["stalled"]]

    def pass_turn(i):
        others = eligible(i)
        if others:
            later = [j for j in others if j > i]
            state["turn"] = later[0] if later else others[0]
            cond.notify_all()

    def wait_turn(i):
        if not cond.wait_for(lambda: state["turn"] == i or not eligible(i), timeout=patience):
            state["stalled"].add(state["turn"])
        state["turn"] = i

    def runner(i):
        started = [False]

        def local(frame, event, arg):
            if event == "line":
                with cond:
                    state["stalled"].discard(i)
                    if started[0]:
                        pass_turn(i)
                    started[0] = True
                    wait_turn(i)
            return local

        def tracer(frame, event, arg):
            if frame.f_globals.get("__name__") == _MODULE or frame.f_code.co_filename == _FILE:
                return local
            return None

        sys.settrace(tracer)
        try:
            results[i] = calls[i]()
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            errors[i] = exc
        finally:
            sys.settrace(None)
            with cond:
                state["done"][i] = True
                pass_turn(i)

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results, errors


def test_issue_gives_url_safe_tokens():
    store = VerificationTokens()
    for i, user in enumerate(["ann", "bob", "a", "x" * 300, "ü@example.com"] * 40):
        token = store.issue(user)
        assert isinstance(token, str)
        assert re.fullmatch(r"[0-9a-f]{32}", token), token


def test_redeem_once_then_already_used():
    store = VerificationTokens()
    tokens = [store.issue(f"user{i}") for i in range(50)]
    for t in tokens:
        assert _name(store.redeem(t)) == "ok"
    for t in tokens:
        for _ in range(3):
            assert _name(store.redeem(t)) == "already_used"


def test_tokens_are_independent():
    store = VerificationTokens()
    a = store.issue("ann")
    b = store.issue("ann")
    assert a != b
    assert _name(store.redeem(a)) == "ok"
    assert _name(store.redeem(b)) == "ok"


def test_revoked_link_never_verifies():
    store = VerificationTokens()
    t = store.issue("ann")
    assert store.revoke(t) is None
    for _ in range(3):
        assert _name(store.redeem(t)) != "ok"
        assert _name(store.redeem(t)) == "revoked"


def test_random_sequences_keep_single_use():
    import random

    rng = random.Random(1234)
    for _ in range(60):
        store = VerificationTokens()
        tokens = []
        ok = {}
        revoked = set()
        for _ in range(40):
            r = rng.random()
            if r < 0.3 or not tokens:
                tokens.append(store.issue(rng.choice(["ann", "bob", "eve"])))
            elif r < 0.45:
                t = rng.choice(tokens)
                store.revoke(t)
                revoked.add(t)
            else:
                t = rng.choice(tokens)
                got = _name(store.redeem(t))
                if got == "ok":
                    ok[t] = ok.get(t, 0) + 1
                    assert t not in revoked
                assert ok.get(t, 0) <= 1


def test_concurrent_clicks_verify_once():
    for first, n in ((0, 2), (1, 2), (0, 3)):
        store = VerificationTokens()
        t = store.issue("ann")
        results, errors = _lockstep([lambda: store.redeem(t)] * n, first=first)
        assert errors == [None] * n, errors
        names = [_name(r) for r in results]
        assert names.count("ok") == 1, names
        assert sorted(names) == ["already_used"] * (n - 1) + ["ok"], names
