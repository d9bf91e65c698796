"""Time-step checks of the admin console's one-time codes."""

STEP_SECONDS = 30
DRIFT_STEPS = 1


def step_of(unix_seconds):
    return unix_seconds // STEP_SECONDS


def accepted(shown_at, checked_at, last_used_step):
    code_step = step_of(shown_at)
    behind = step_of(checked_at) - code_step
    if not 0 <= behind <= DRIFT_STEPS:
        return False
    return code_step > last_used_step
