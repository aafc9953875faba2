"""The claims queue: admins compare an account with the player it claims to be, and confirm or refuse; and
players' requests to correct their own details, accepted (the lists move them) or refused.

Beside the appeals queue, for the same admins: each claim shows the account
(name, e-mail, when it signed up), the claimed player (name, number,
country, last events) and what the user wrote.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import dateformat
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.forms import ClaimDecisionForm
from corrections import selectors, services
from corrections.forms import MergeForm
from corrections.tables import IMPACT_ROWS_SHOWN, impact_tables
from corrections.views import admin_required
from events.selectors import players_last_events
from lib.forms import errors_to_form
from lib.mail import mail_site
from ratings.impact import merge_impact

CLAIMS_SHOWN = 50


@admin_required
def claim_queue(request):
    claims = list(account_selectors.claims_open()[:CLAIMS_SHOWN])
    last_events = players_last_events(players=[claim.player for claim in claims])
    for claim in claims:
        claim.last_events = last_events.get(claim.player_id, [])
    return render(
        request,
        "corrections/claim_queue.html",
        {
            "claims": claims,
            "open_count": account_selectors.claims_open().count(),
            "decided": account_selectors.claims_decided(),
            "detail_requests": list(selectors.detail_requests_open()[:CLAIMS_SHOWN]),
            "details_decided": selectors.detail_requests_decided(),
        },
    )


def _decided(request, label: str, accept, reject, told: tuple[str, str]):
    """Carry out the decision the queue's form posts: `accept` or `reject` (each taking the reason), then back
    to the queue saying what happened (`told`: what accepting and refusing did) or why nothing did."""
    form = ClaimDecisionForm(request.POST)
    if form.is_valid():
        accepted = form.cleaned_data["decision"] == ClaimDecisionForm.ACCEPT
        try:
            (accept if accepted else reject)(form.cleaned_data["reason"])
        except ValidationError as error:
            errors_to_form(form, error)
        else:
            messages.success(request, told[0] if accepted else told[1])
            return redirect("corrections:claim_queue")
    problems = "; ".join(str(problem) for problems in form.errors.values() for problem in problems)
    messages.error(request, _("%(what)s not decided: %(problems)s") % {"what": label, "problems": problems})
    return redirect("corrections:claim_queue")


@admin_required
@require_POST
def claim_decide(request, claim_id):
    claim = account_selectors.claim_get(claim_id=claim_id)
    if claim is None:
        raise Http404("No such claim.")
    who = f"{claim.player.name} ({claim.player.membership_number})"
    decision = {"claim": claim, "by": request.user, "site": mail_site(request)}
    return _decided(
        request,
        _("Claim #%(number)s") % {"number": claim.pk},
        lambda reason: account_services.claim_accept(**decision, reason=reason),
        lambda reason: account_services.claim_reject(**decision, reason=reason),
        (
            _("Claim confirmed: the account is linked to %(player)s.") % {"player": who},
            _("Claim refused for %(player)s.") % {"player": who},
        ),
    )


@admin_required
@require_POST
def detail_decide(request, request_id):
    """Accept (the player's details change, and today's lists move them) or refuse a request, with a reason."""
    found = selectors.detail_request_get(request_id=request_id)
    if found is None:
        raise Http404("No such request.")
    who = f"{found.name} ({found.player.membership_number})"
    return _decided(
        request,
        _("Request #%(number)s") % {"number": found.pk},
        lambda reason: services.detail_request_accept(request=found, by=request.user, reason=reason),
        lambda reason: services.detail_request_reject(request=found, by=request.user, reason=reason),
        (
            _("Request accepted: %(player)s has the new details; today's lists move them within a minute.")
            % {"player": who},
            _("Request refused for %(player)s.") % {"player": who},
        ),
    )


@admin_required
def player_merge(request):
    """Two numbers of one person (SPEC 5): the admin names both and why, sees what would move and what stands in
    the way, then merges; the lists are recomputed as for a correction."""
    form = MergeForm(request.POST or None)
    plan, impacts = None, []
    if request.method == "POST" and form.is_valid():
        kept, merged = form.cleaned_data["kept"], form.cleaned_data["merged"]
        plan = services.merge_plan(kept=kept, merged=merged)
        if not plan.conflicts and request.POST.get("action") != "merge":
            impacts = impact_tables(
                merge_impact(
                    kept=kept.participant_id, merged=merged.participant_id, events=plan.events, named=IMPACT_ROWS_SHOWN
                )
            )
        if request.POST.get("action") == "merge" and not plan.conflicts:
            try:
                merge = services.players_merge(
                    kept=kept, merged=merged, reason=form.cleaned_data["reason"], by=request.user
                )
            except ValidationError as error:
                errors_to_form(form, error)
            else:
                moved = {
                    "merged": f"{merge.merged_name} ({merge.merged_number})",
                    "kept": f"{kept.name} ({kept.membership_number})",
                    "matches": merge.matches_moved,
                    "standings": merge.standings_moved,
                }
                if merge.since:
                    moved["since"] = dateformat.format(
                        merge.since, pgettext("a day in a sentence (PHP date format)", "d M Y")
                    )
                    done = _(
                        "%(merged)s merged into %(kept)s: %(matches)s matches and %(standings)s standings moved; "
                        "the lists are recomputed from %(since)s."
                    )
                else:
                    done = _("%(merged)s merged into %(kept)s: %(matches)s matches and %(standings)s standings moved.")
                messages.success(request, done % moved)
                return redirect("players:detail", number=kept.membership_number)
    return render(request, "corrections/merge.html", {"form": form, "plan": plan, "impacts": impacts})
