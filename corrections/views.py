"""Appeals (players), the appeal queue and direct corrections (admins), and the public correction log.

Players appeal matches of their own history once an admin has linked their
account to their membership number. Admins see an impact preview (the engine
on a copy, nothing published) before anything is applied. Every page works
without JavaScript; every change is a POST with its CSRF token.
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.selectors import user_player
from corrections import selectors, services
from corrections.filters import CorrectionFilter
from corrections.forms import (
    AppealForm,
    DecisionForm,
    DetailRequestForm,
    MatchAddForm,
    MatchCorrectForm,
    MatchRemoveForm,
)
from corrections.tables import (
    IMPACT_ROWS_SHOWN,
    AppealQueueTable,
    CorrectionTable,
    DecidedAppealTable,
    MyAppealTable,
    impact_tables,
)
from events.models import Event
from lib.forms import errors_to_form
from lib.tables import configure
from players.selectors import suspensions_recent
from ratings.impact import MatchChange, correction_impact

CORRECTIONS_PER_PAGE = 50
APPEALS_PER_PAGE = 50


def admin_required(view):
    @wraps(view)
    @login_required
    def wrapped(request, *args, **kwargs):
        if not selectors.user_decides_appeals(user=request.user):
            raise PermissionDenied(_("Only admins decide appeals and correct matches."))
        return view(request, *args, **kwargs)

    return wrapped


def _impact_tables(change: MatchChange) -> list[tuple]:
    return impact_tables(correction_impact(change=change, named=IMPACT_ROWS_SHOWN))


# Public correction log ----------------------------------------------------------------


def correction_log(request):
    filterset = CorrectionFilter(request.GET or None, queryset=selectors.correction_list())
    table = configure(request, CorrectionTable(filterset.qs), per_page=CORRECTIONS_PER_PAGE)
    return render(
        request,
        "corrections/log.html",
        {
            "filter": filterset,
            "table": table,
            "suspensions": list(suspensions_recent()),
            "merges": list(selectors.merges_recent()),
        },
    )


def correction_detail(request, correction_id):
    correction = selectors.correction_get(correction_id=correction_id)
    if correction is None:
        raise Http404("No such correction.")
    return render(request, "corrections/detail.html", {"correction": correction})


# Players' appeals ---------------------------------------------------------------------


@login_required
def appeal_new(request, match_id):
    match = selectors.match_for_appeal(match_id=match_id)
    if match is None:
        raise Http404("No such match.")
    if user_player(user=request.user) is None:
        raise PermissionDenied(_("Your account is not linked to a player yet: an admin links it to your number."))
    side = selectors.appeal_side(user=request.user, match=match)
    if side is None:
        raise PermissionDenied(_("You can appeal only matches you played."))
    form = AppealForm(request.POST or None, match=match, side=side)
    if request.method == "POST" and form.is_valid():
        try:
            services.appeal_file(user=request.user, match=match, **form.cleaned_data)
        except ValidationError as error:
            errors_to_form(form, error)
        else:
            messages.success(request, _("Your appeal is filed: an admin will look at it. Its status is shown here."))
            return redirect("corrections:my_appeals")
    return render(request, "corrections/appeal_form.html", {"match": match, "side": side, "form": form})


@login_required
def my_appeals(request):
    table = configure(request, MyAppealTable(selectors.appeals_of_user(user=request.user)), per_page=APPEALS_PER_PAGE)
    return render(
        request,
        "corrections/my_appeals.html",
        {"table": table, "player": user_player(user=request.user), "per_day": services.appeals_per_day()},
    )


@login_required
def my_details(request):
    """A linked player asks to correct their own name, country or region; their requests and the decisions."""
    player = user_player(user=request.user)
    if player is None:
        raise PermissionDenied(_("Your account is not linked to a player yet: an admin links it to your number."))
    initial = {"name": player.name, "country": player.country.code or "", "region": player.region}
    form = DetailRequestForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.detail_request_file(user=request.user, **form.cleaned_data)
        except ValidationError as error:
            errors_to_form(form, error)
        else:
            messages.success(request, _("Your request is filed: an admin will look at it. Its status is shown here."))
            return redirect("corrections:my_details")
    return render(
        request,
        "corrections/my_details.html",
        {"player": player, "form": form, "requests": selectors.detail_requests_of_player(player=player)},
    )


# Admins: the queue and the decision -----------------------------------------------------


@admin_required
def appeal_queue(request):
    table = configure(request, AppealQueueTable(selectors.appeals_open()), per_page=APPEALS_PER_PAGE)
    decided = DecidedAppealTable(selectors.appeals_decided(), prefix="decided-")
    return render(request, "corrections/queue.html", {"table": table, "decided": decided})


@admin_required
def appeal_review(request, appeal_id):
    appeal = selectors.appeal_get(appeal_id=appeal_id)
    if appeal is None:
        raise Http404("No such appeal.")
    form = DecisionForm(request.POST or None)
    if request.method == "POST" and appeal.is_open and form.is_valid():
        decide = (
            services.appeal_accept if form.cleaned_data["decision"] == DecisionForm.ACCEPT else services.appeal_reject
        )
        try:
            decide(appeal=appeal, by=request.user, reason=form.cleaned_data["reason"])
        except ValidationError as error:
            errors_to_form(form, error)
        else:
            accepted = form.cleaned_data["decision"] == DecisionForm.ACCEPT
            done = _("Appeal #%(number)s accepted.") if accepted else _("Appeal #%(number)s rejected.")
            messages.success(request, done % {"number": appeal.pk})
            return redirect("corrections:appeal_queue")
    impacts = []
    if appeal.is_open and appeal.match is not None:
        match = appeal.match
        change = MatchChange(
            event=match.event,
            round=match.round,
            participant1=match.participant1_id,
            participant2=match.participant2_id,
            match_id=match.pk,
            games1=appeal.claimed_games1,
            games2=appeal.claimed_games2,
        )
        impacts = _impact_tables(change)
    return render(request, "corrections/review.html", {"appeal": appeal, "form": form, "impacts": impacts})


# Admins: correcting, removing and adding matches directly ---------------------------------
#
# Each is two steps: the form, then (POST "preview") the impact with the values kept in hidden
# fields and an "Apply" button (POST "apply"). "Change" returns to the form with the values.


def _stage(request, form) -> str:
    """'edit' (the form), 'confirm' (impact preview) or 'apply', from the button pressed and the form's validity."""
    action = request.POST.get("action") if request.method == "POST" else None
    if action not in ("preview", "apply") or not form.is_valid():
        return "edit"
    return "confirm" if action == "preview" else "apply"


@admin_required
def match_correct(request, match_id):
    match = get_object_or_404(selectors.matches_with_sides(), pk=match_id)
    form = MatchCorrectForm(request.POST or None, match=match)
    stage = _stage(request, form)
    if stage == "apply":
        try:
            correction = services.match_correct(
                match=match, result=form.result(), reason=form.cleaned_data["reason"], by=request.user,
                expected=form.expected(),
            )  # fmt: skip
        except services.MatchGone as gone:
            return _match_gone(request, gone)
        except ValidationError as error:
            errors_to_form(form, error)
            stage = "edit"
        else:
            messages.success(request, _("The match is corrected; its ratings are being recomputed."))
            return redirect(correction)
    impacts = []
    if stage == "confirm":
        result = form.result()
        change = MatchChange(match.event, match.round, match.participant1_id, match.participant2_id, match.pk,
                             result.games1, result.games2)  # fmt: skip
        impacts = _impact_tables(change)
    return render(
        request,
        "corrections/correct.html",
        {
            "match": match,
            "form": form,
            "stage": stage,
            "impacts": impacts,
            "kind": "correct",
            "since": match.event.date,
        },
    )


def _match_gone(request, gone: services.MatchGone):
    """409: the change was not made, because the match is no longer there; the log says who removed it."""
    return render(request, "corrections/match_gone.html", {"message": str(gone)}, status=409)


@admin_required
def match_remove(request, match_id):
    match = get_object_or_404(selectors.matches_with_sides(), pk=match_id)
    form = MatchRemoveForm(request.POST or None, match=match)
    stage = _stage(request, form)
    if stage == "apply":
        try:
            correction = services.match_remove(
                match=match, reason=form.cleaned_data["reason"], by=request.user, expected=form.expected()
            )
        except services.MatchGone as gone:
            return _match_gone(request, gone)
        except ValidationError as error:
            errors_to_form(form, error)
            stage = "edit"
        else:
            messages.success(request, _("The match is removed; its ratings are being recomputed."))
            return redirect(correction)
    impacts = []
    if stage == "confirm":
        change = MatchChange(match.event, match.round, match.participant1_id, match.participant2_id, match.pk)
        impacts = _impact_tables(change)
    return render(
        request,
        "corrections/correct.html",
        {"match": match, "form": form, "stage": stage, "impacts": impacts, "kind": "remove", "since": match.event.date},
    )


@admin_required
def match_add(request, event_id):
    event = get_object_or_404(Event, pk=event_id)
    form = MatchAddForm(request.POST or None, event=event)
    stage = _stage(request, form)
    if stage == "apply":
        try:
            correction = services.match_add(new=form.new_match(), reason=form.cleaned_data["reason"], by=request.user)
        except ValidationError as error:
            errors_to_form(form, error)
            stage = "edit"
        else:
            messages.success(request, _("The match is added; its ratings are being recomputed."))
            return redirect(correction)
    impacts = []
    if stage == "confirm":
        new = form.new_match()
        change = MatchChange(event, new.round, new.participant1.pk, new.participant2.pk, None,
                             new.result.games1, new.result.games2)  # fmt: skip
        impacts = _impact_tables(change)
    return render(
        request,
        "corrections/correct.html",
        {"event": event, "form": form, "stage": stage, "impacts": impacts, "kind": "add", "since": event.date},
    )
