"""Subtly wrong: raises the base class ValueError instead of InsufficientFunds."""
# expect-fail: withdraw.raises.InsufficientFunds
class InsufficientFunds(ValueError):
    pass
def withdraw(balance, amount):
    if amount > balance:
        raise ValueError(f"{amount} > {balance}")
    return balance - amount
