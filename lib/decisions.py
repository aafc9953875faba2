"""Recording a decision on something that waits for one (a claim, a request): once, with who, when and why."""

from django.core.exceptions import ValidationError
from django.utils import timezone

OPEN = "open"


def decision_record(model, pk: int, *, what: str, by, status: str, reason: str, reason_field: str, related=()):
    """Lock the row, refuse it when it is decided already, and record `status` with who, when and why.

    `what` names it to the admin ("claim"). Call inside the transaction that carries the decision out;
    returns the row as decided.
    """
    decided = model.objects.select_for_update().select_related(*related).get(pk=pk)
    if decided.status != OPEN:
        raise ValidationError(f"This {what} is decided already.")
    decided.status = status
    decided.decided_by = by
    decided.decided_at = timezone.now()
    setattr(decided, reason_field, reason.strip())
    decided.save(update_fields=["status", "decided_by", "decided_at", reason_field])
    return decided
