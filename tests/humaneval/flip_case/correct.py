"""Correct implementation of flip_case/spec.req."""
def flip_case(text):
    out = []
    for c in text:
        if "a" <= c <= "z":
            out.append(chr(ord(c) - 32))
        elif "A" <= c <= "Z":
            out.append(chr(ord(c) + 32))
        else:
            out.append(c)
    return "".join(out)
