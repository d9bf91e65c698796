"""The bridge to the certificate layer: a core becomes a ``derivative.certificate/v1``.

The solver only *finds* the conflict; the certificate layer writes it down in a form
someone who does not trust us can check (the SMT-LIB script, Farkas rows, the
re-checks by z3 and cvc5 in fresh processes).  This module hands it what it needs:
the contract, the type information, the kind, the minimal core, the witness input
and one minimality model per member.  For ``contradicting_example`` the models give
the function's parameters too: that certificate's script leaves them free (its
example pins them), so a model without the example may put them anywhere; an
``unrealizable`` script fixes its witness input, and the models need not repeat it.
"""

from __future__ import annotations

from typing import Any

from derivative._ast import Contract
from derivative._errors import DerivativeError
from derivative._gcpause import collector_paused

from ._result import Core


class CertificateUnavailable(DerivativeError):
    """The certificate layer offers no builder (or refused this core)."""


def certify(contract: Contract, info: Any, core: Core) -> Any:
    """The certificate model of ``core`` (``derivative.certificates.build_certificate``)."""
    from derivative import certificates

    build = getattr(certificates, "build_certificate", None)
    if build is None:
        raise CertificateUnavailable(
            "this installation's certificate layer has no builder (build_certificate)"
        )
    if not core.minimal or len(core.minimality) != len(core.members):
        raise CertificateUnavailable(
            "the core could not be proven minimal within the resource limit, so it cannot be "
            "certified; raise --rlimit to try harder"
        )
    # Like ``check``, building hashes and re-reads the whole spec (its identity):
    # the collector would only re-scan the syntax tree meanwhile (``collector_paused``).
    with collector_paused():
        return build(
            contract,
            info,
            core.kind,
            list(core.members),
            dict(core.witness_input) if core.witness_input is not None else None,
            {member_id: dict(model) for member_id, model in core.minimality},
        )
