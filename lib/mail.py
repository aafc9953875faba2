"""E-mails the site sends: written from a template, sent once the transaction that caused them commits."""

from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string


def mail_site(request) -> dict:
    """What an e-mail needs to link back to the site as the visitor reached it: `protocol` and `domain`."""
    return {"protocol": request.scheme, "domain": request.get_host()}


def mail_on_commit(*, to: str, template: str, context: dict) -> None:
    """Send the e-mail `template` (its first line is the subject) when the transaction commits, not before:
    a rolled-back change sends nothing."""
    subject, _, body = render_to_string(template, context).partition("\n")
    transaction.on_commit(lambda: send_mail(subject.strip(), body.lstrip(), None, [to]))
