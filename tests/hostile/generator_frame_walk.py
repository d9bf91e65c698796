"""Hostile: climb from a running generator's frame to its callers (the worker)."""


def f(x: int) -> int:
    holder: list[object] = []

    def climb():  # type: ignore[no-untyped-def]
        frame = holder[0].gi_frame.f_back  # the frame that called next(): f
        yield frame.f_back  # f's caller: the worker

    gen = climb()
    holder.append(gen)
    caller = next(gen)
    while caller is not None:
        if "os" in caller.f_globals:
            secret = caller.f_globals["os"].environ.get("DERIVATIVE_CANARY")
            if secret:
                print("DERIVATIVE-BREACH generator_frame_walk:", secret, flush=True)
                raise ValueError(f"canary {secret}")
        caller = caller.f_back
    return x + 1
