import sys
sys.path.insert(0, "/work/main/tests/unit")
def test_show():
    from test_explore import explore, TokenStore, reset_t1, at_most_one_ok
    outs = [explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok).trace_text for _ in range(4)]
    for o in outs:
        if "35 steps" in o or o != outs[0]:
            print(o)
    print(outs[0])
    assert len(set(outs)) == 1
