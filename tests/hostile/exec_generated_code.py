"""Hostile: build source text from numbers at run time and exec it."""

CODE = [105, 109, 112, 111, 114, 116, 32, 111, 115, 10, 115, 101, 99, 114, 101, 116, 32, 61, 32, 111, 115, 46, 101, 110, 118, 105, 114, 111, 110, 46, 103, 101, 116, 40, 39, 68, 69, 82, 73, 86, 65, 84, 73, 86, 69, 95, 67, 65, 78, 65, 82, 89, 39, 41, 10]


def f(x: int) -> int:
    namespace: dict[str, object] = {}
    exec("".join(map(chr, CODE)), namespace)
    secret = namespace.get("secret")
    if secret:
        print("DERIVATIVE-BREACH exec_generated_code:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
