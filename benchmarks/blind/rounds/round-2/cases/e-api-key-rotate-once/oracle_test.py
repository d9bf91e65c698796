"""Oracle for e-api-key-rotate-once, written from the requirements only."""

import random
import re
import threading

import api_keys as m

KEY = re.compile(r"ak_[0-9a-f]{32}")


def _name(value):
    return getattr(value, "name", value)


def test_create_issues_distinct_live_keys():
    store = m.ApiKeys()
    keys = [store.create("acme-" + str(i % 7)) for i in range(200)]
    assert len(set(keys)) == len(keys)
    for key in keys:
        assert KEY.fullmatch(key), key
        assert store.is_live(key) is True
        assert store.successor(key) == ""


def test_rotate_once():
    store = m.ApiKeys()
    old = store.create("acme")
    assert _name(store.rotate(old)) == "rotated"
    new = store.successor(old)
    assert KEY.fullmatch(new) and new != old
    assert store.is_live(old) is False
    assert store.is_live(new) is True
    for _ in range(3):
        assert _name(store.rotate(old)) == "already_rotated"
        assert store.successor(old) == new
    assert store.is_live(new) is True


def test_successor_can_be_rotated_in_turn():
    store = m.ApiKeys()
    key = store.create("globex")
    chain = [key]
    for _ in range(5):
        assert _name(store.rotate(chain[-1])) == "rotated"
        chain.append(store.successor(chain[-1]))
    assert len(set(chain)) == 6
    assert [store.is_live(k) for k in chain] == [False] * 5 + [True]


def test_revoked_key_cannot_be_rotated():
    store = m.ApiKeys()
    key = store.create("initech")
    other = store.create("initech")
    assert store.revoke(key) is None
    assert store.is_live(key) is False
    assert store.is_live(other) is True
    assert _name(store.rotate(key)) == "revoked"
    assert store.successor(key) == ""
    assert _name(store.rotate(other)) == "rotated"
    succ = store.successor(other)
    store.revoke(succ)
    assert _name(store.rotate(succ)) == "revoked"


def test_random_sequences_rotate_each_key_once():
    rng = random.Random(1234)
    for _ in range(40):
        store = m.ApiKeys()
        keys = [store.create("owner-" + str(rng.randint(0, 3))) for _ in range(4)]
        rotated = {}
        revoked = set()
        for _ in range(60):
            key = rng.choice(keys)
            action = rng.random()
            if action < 0.6:
                got = _name(store.rotate(key))
                if key in revoked:
                    assert got == "revoked"
                elif key in rotated:
                    assert got == "already_rotated"
                    assert store.successor(key) == rotated[key]
                else:
                    assert got == "rotated"
                    rotated[key] = store.successor(key)
                    keys.append(rotated[key])
            elif action < 0.7:
                store.revoke(key)
                revoked.add(key)
            else:
                assert store.is_live(key) is (key not in rotated and key not in revoked)


def test_concurrent_rotations_mint_one_successor():
    for _ in range(30):
        store = m.ApiKeys()
        key = store.create("hooli")
        n = 8
        barrier = threading.Barrier(n)
        results = [None] * n

        def click(i):
            barrier.wait()
            results[i] = _name(store.rotate(key))

        threads = [threading.Thread(target=click, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results.count("rotated") == 1, results
        assert results.count("already_rotated") == n - 1, results
