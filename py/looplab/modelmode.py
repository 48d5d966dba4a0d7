"""Which kind of model a run uses: scripted, local or live, chosen by the LOOPLAB_MODEL variable.

The core asks this to know what a run can promise (an `expect(...)` claim holds only for prepared
replies); models.pick_model asks it to build the model itself.
"""

import os

MODES = ("scripted", "local", "live")


def model_mode() -> str:
    """`scripted`, `local` or `live`, from the LOOPLAB_MODEL environment variable (default: scripted)."""
    mode = os.environ.get("LOOPLAB_MODEL", "scripted").strip().lower()
    return mode if mode in MODES else "scripted"
