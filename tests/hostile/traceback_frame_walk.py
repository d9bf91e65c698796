"""Hostile: climb from an exception's traceback to the worker's frames and globals."""


def f(x: int) -> int:
    try:
        raise ValueError("probe")
    except ValueError as exc:
        frame = exc.__traceback__.tb_frame if exc.__traceback__ else None
    caller = frame.f_back if frame is not None else None
    while caller is not None:
        namespace = caller.f_globals
        if "os" in namespace:
            secret = namespace["os"].environ.get("DERIVATIVE_CANARY")
            if secret:
                print("DERIVATIVE-BREACH traceback_frame_walk:", secret, flush=True)
                raise ValueError(f"canary {secret}")
            namespace["os"].environ["DERIVATIVE_TAMPERED"] = "1"
        caller = caller.f_back
    return x + 1
