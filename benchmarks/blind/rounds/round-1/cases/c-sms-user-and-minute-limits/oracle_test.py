"""Oracle for c-sms-user-and-minute-limits, written from the requirements only."""

import random
import sys
import threading

import sms_limiter
from sms_limiter import SmsLimiter

_FILE = sms_limiter.__file__
_MODULE = sms_limiter.__name__
USER_DAILY = 5
PER_MINUTE = 3


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


def test_user_gets_five_per_day():
    lim = SmsLimiter()
    got = [lim.try_send("ann", m) for m in range(0, 700, 100)]
    assert got == [True] * 5 + [False] * 2
    assert lim.remaining("ann") == 0
    assert lim.remaining("bob") == 5
    assert lim.try_send("bob", 0) is True


def test_gateway_takes_three_per_minute():
    lim = SmsLimiter()
    got = [lim.try_send(u, 42) for u in ["a", "b", "c", "d", "e"]]
    assert got == [True, True, True, False, False]
    assert lim.try_send("d", 43) is True
    assert lim.remaining("d") == 4
    assert lim.remaining("e") == 5


def test_refused_messages_do_not_use_the_quota():
    lim = SmsLimiter()
    for u in ("a", "b", "c"):
        assert lim.try_send(u, 7) is True
    for _ in range(10):
        assert lim.try_send("z", 7) is False
    assert lim.remaining("z") == 5
    assert lim.try_send("z", 8) is True


def test_out_of_order_minutes_against_a_model():
    rng = random.Random(1234)
    for _ in range(150):
        lim = SmsLimiter()
        users = ["u%d" % i for i in range(rng.randint(1, 4))]
        minutes = rng.sample(range(0, 1440), rng.randint(1, 4))
        per_user = {}
        per_minute = {}
        for _ in range(rng.randint(1, 40)):
            u = rng.choice(users)
            m = rng.choice(minutes)
            want = per_user.get(u, 0) < USER_DAILY and per_minute.get(m, 0) < PER_MINUTE
            got = lim.try_send(u, m)
            assert got is want, (u, m, per_user, per_minute)
            if want:
                per_user[u] = per_user.get(u, 0) + 1
                per_minute[m] = per_minute.get(m, 0) + 1
            assert lim.remaining(u) == USER_DAILY - per_user.get(u, 0)


def test_concurrent_sends_respect_both_limits():
    for first, n, same_user in ((0, 4, False), (1, 4, True), (0, 6, True)):
        lim = SmsLimiter()
        calls = [(lambda i=i: lim.try_send("ann" if same_user else "u%d" % i, 9)) for i in range(n)]
        results, errors = _lockstep(calls, first=first)
        assert errors == [None] * n, errors
        assert results.count(True) == PER_MINUTE, results


def test_concurrent_sends_of_one_user_stop_at_five():
    lim = SmsLimiter()
    calls = [(lambda m=m: lim.try_send("ann", m)) for m in range(100, 106)]
    results, errors = _lockstep(calls)
    assert errors == [None] * 6, errors
    assert results.count(True) == USER_DAILY, results
    assert lim.remaining("ann") == 0
