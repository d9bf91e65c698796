"""Oracle for c-otp-throttle-late-request, written from the requirements only."""

import random

from otp_throttle import OtpThrottle

PER_MINUTE = 3
PER_DAY = 10


def test_three_codes_in_one_minute():
    t = OtpThrottle()
    assert [t.request_code(600) for _ in range(5)] == [True, True, True, False, False]
    assert t.request_code(601) is True
    assert t.codes_today() == 4


def test_a_late_request_for_a_full_minute_is_refused():
    t = OtpThrottle()
    assert [t.request_code(5) for _ in range(3)] == [True, True, True]
    assert t.request_code(6) is True
    assert t.request_code(5) is False
    assert t.request_code(6) is True
    assert t.codes_today() == 5


def test_a_late_request_for_a_quiet_minute_is_granted():
    t = OtpThrottle()
    assert t.request_code(10) is True
    assert t.request_code(9) is True
    assert t.request_code(10) is True
    assert t.request_code(9) is True
    assert t.codes_today() == 4


def test_ten_codes_a_day():
    t = OtpThrottle()
    got = [t.request_code(m) for m in range(0, 1440, 100)]
    assert got == [True] * 10 + [False] * (len(got) - 10)
    assert t.codes_today() == 10


def test_out_of_order_requests_against_a_model():
    rng = random.Random(1234)
    for _ in range(300):
        t = OtpThrottle()
        minutes = rng.sample(range(0, 1440), rng.randint(1, 5))
        if rng.random() < 0.3:
            minutes += [0, 1439]
        per_minute = {}
        today = 0
        for _ in range(rng.randint(1, 30)):
            m = rng.choice(minutes)
            want = per_minute.get(m, 0) < PER_MINUTE and today < PER_DAY
            got = t.request_code(m)
            assert got is want, (m, per_minute, today)
            if want:
                per_minute[m] = per_minute.get(m, 0) + 1
                today += 1
            assert t.codes_today() == today
