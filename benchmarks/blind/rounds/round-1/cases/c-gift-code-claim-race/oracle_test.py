"""Oracle for c-gift-code-claim-race, written from the requirements only.

The concurrency test runs claims of one code in lockstep: a tracer lets the threads
execute the candidate's source lines strictly in turn (one line each, round robin), so a
check-then-credit on separate lines is interleaved the same way on every run.  A thread
blocked on a lock stops taking turns; the others wait a short timeout and carry on, so a
correctly locked store cannot deadlock the harness.
"""

import random
import re
import sys
import threading

import gift_codes
from gift_codes import GiftCodes

_FILE = gift_codes.__file__
_MODULE = gift_codes.__name__


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


def test_codes_look_like_the_printed_cards():
    shop = GiftCodes()
    seen = set()
    for amount in list(range(100, 50001, 499)) + [100, 50000]:
        code = shop.create(amount)
        assert isinstance(code, str) and re.fullmatch(r"GC-[0-9]{8}", code), code
        seen.add(code)
    assert len(seen) == len(list(range(100, 50001, 499))) + 2


def test_first_claim_credits_later_claims_do_not():
    shop = GiftCodes()
    code = shop.create(2500)
    assert shop.balance("ann") == 0
    assert _name(shop.claim(code, "ann")) == "credited"
    assert shop.balance("ann") == 2500
    for acct in ("ann", "bob", "eve"):
        assert _name(shop.claim(code, acct)) == "already_claimed"
    assert shop.balance("ann") == 2500
    assert shop.balance("bob") == 0


def test_random_sequences_credit_each_code_once():
    rng = random.Random(1234)
    for _ in range(60):
        shop = GiftCodes()
        codes = {}
        credited = {}
        expected = {}
        for _ in range(40):
            if not codes or rng.random() < 0.3:
                amount = rng.randint(100, 50000)
                codes[shop.create(amount)] = amount
            else:
                code = rng.choice(sorted(codes))
                acct = rng.choice(["ann", "bob", "eve"])
                got = _name(shop.claim(code, acct))
                assert got in ("credited", "already_claimed")
                if got == "credited":
                    credited[code] = credited.get(code, 0) + 1
                    expected[acct] = expected.get(acct, 0) + codes[code]
                assert credited.get(code, 0) <= 1
                # the first claim of a code must credit it
                assert credited.get(code, 0) == 1
        for acct in ("ann", "bob", "eve"):
            assert shop.balance(acct) == expected.get(acct, 0)


def test_simultaneous_checkouts_credit_a_code_once():
    for first, accounts in ((0, ["ann", "bob"]), (1, ["ann", "bob"]), (0, ["ann", "ann"]),
                            (0, ["ann", "bob", "eve"])):
        shop = GiftCodes()
        code = shop.create(1000)
        calls = [(lambda a=a: shop.claim(code, a)) for a in accounts]
        results, errors = _lockstep(calls, first=first)
        assert errors == [None] * len(accounts), errors
        names = [_name(r) for r in results]
        assert names.count("credited") == 1, (accounts, names)
        assert sum(shop.balance(a) for a in set(accounts)) == 1000, accounts
