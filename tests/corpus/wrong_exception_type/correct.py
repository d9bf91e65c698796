"""Correct implementation of wrong_exception_type/spec.req."""
class InsufficientFunds(ValueError):
    pass
def withdraw(balance, amount):
    if amount > balance:
        raise InsufficientFunds(f"{amount} > {balance}")
    return balance - amount
