"""The organizers' pages: their events, a new event, results uploaded or typed in, preview, submit.

Every page is for organizers (anyone else signed in gets 403); an event that
is not the organizer's own is "not found" (404), unless the user is an admin.
Changing a submitted event is for admins only. Each page works without JavaScript.
"""

import math
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_POST

from accounts.selectors import user_can_organize, user_manages_all_events
from events.models import EventStatus
from events.selectors import event_matches
from lib.tables import EVENT_PLAYERS_PER_PAGE, configure
from organize import selectors, services
from organize.filters import OrganizeEventFilter
from organize.forms import (
    RESULT_FILES,
    EventForm,
    MatchRowForm,
    MatchRowFormSet,
    NewPlayersForm,
    ResultsUploadForm,
    RoundForm,
    StandingRowForm,
    StandingRowFormSet,
    typed_rows,
)
from organize.importer.event_results import event_ref
from organize.problems import PlacedErrors, form_errors_placed, stored_results_problems, upload_errors_placed
from organize.results import round_results, standings_results
from organize.tables import OrganizeEventTable, PreviewChangeTable, PreviewPointsTable
from players.selectors import participant_names
from ratings.preview import event_preview

EVENTS_PER_PAGE = 50
BLANK_ROWS_AT_LEAST = 2
ROWS_AT_MOST = 1000  # a form of more rows than this is a job for the upload
MAX_ROUND = 32767


def organizer_required(view):
    @wraps(view)
    @login_required
    def wrapped(request, *args, **kwargs):
        if not user_can_organize(user=request.user):
            raise PermissionDenied(_("Only organizers report events: ask an admin for the organizer role."))
        return view(request, *args, **kwargs)

    return wrapped


def _editable_event(request, event_id):
    event = selectors.organize_event_get(user=request.user, event_id=event_id)
    if not services.event_editable_by(event=event, user=request.user):
        raise PermissionDenied(services.SUBMITTED_IS_FOR_ADMINS)
    return event


def _report_text(report) -> str:
    return _(
        "Results saved: %(added)s match(es) added, %(changed)s changed, %(removed)s removed; "
        "%(standings)s standing(s) written; %(players)s new player(s) registered."
    ) % {
        "added": report.matches.created,
        "changed": report.matches.updated,
        "removed": report.matches.deleted,
        "standings": report.standings.created + report.standings.updated,
        "players": report.players.created,
    }


def _players_to_register(check, posted: NewPlayersForm) -> list[str]:
    """Numbers to ask a name for: those typed before and still in the results, then the unknown ones."""
    if check.bundle is None:
        return [*posted.shown, *check.unregistered]
    refs = services.results_refs(check.bundle)
    members = {member for record in check.bundle.teams.values() for member in record.members}
    still_named = refs | members
    return [number for number in posted.shown if number in still_named] + check.unregistered


# The list and the event's details --------------------------------------------------------------


@organizer_required
def index(request):
    manages_all = user_manages_all_events(user=request.user)
    events = selectors.organize_events(user=request.user).order_by("-date", "-id")
    filterset = OrganizeEventFilter(request.GET or None, queryset=events)
    table = configure(request, OrganizeEventTable(filterset.qs, show_organizer=manages_all), per_page=EVENTS_PER_PAGE)
    table.results_counts = selectors.events_results_counted(event_ids=[row.record.pk for row in table.page.object_list])
    return render(request, "organize/index.html", {"table": table, "filter": filterset, "manages_all": manages_all})


@organizer_required
def event_create(request):
    form = EventForm(request.POST or None, initial={"k": 16, "team_size": 1})
    if request.method == "POST" and form.is_valid():
        event = services.event_create(organizer=request.user, **form.cleaned_data)
        messages.success(request, _("“%(name)s” is saved as a draft. Now add its results.") % {"name": event.name})
        return redirect("organize:event", event.pk)
    return render(request, "organize/event_form.html", {"form": form, "event": None})


@organizer_required
def event_edit(request, event_id):
    event = _editable_event(request, event_id)
    form = EventForm(request.POST or None, instance=event)
    if request.method == "POST" and form.is_valid():
        changes = {name: form.cleaned_data[name] for name in form.changed_data}
        services.event_update(event=event, by=request.user, **changes)
        messages.success(request, _("Event details saved."))
        return redirect("organize:event", event.pk)
    return render(request, "organize/event_form.html", {"form": form, "event": event})


@organizer_required
def event_detail(request, event_id):
    event = selectors.organize_event_get(user=request.user, event_id=event_id)
    summary = selectors.event_results_summary(event=event)
    problems = []
    if event.status == EventStatus.DRAFT and not summary.empty:
        # What would stop the submission, so that the button is not a surprise.
        problems = stored_results_problems(event)
    return render(
        request,
        "organize/event_detail.html",
        {
            "event": event,
            "summary": summary,
            "jobs": selectors.event_rating_jobs(event=event),
            "editable": services.event_editable_by(event=event, user=request.user),
            "problems": problems,
            "next_round": (summary.rounds[-1] + 1) if summary.rounds else 1,
            "event_ref": event_ref(event),
        },
    )


@require_http_methods(["GET", "POST"])
@organizer_required
def event_delete(request, event_id):
    """Asks first (a page saying what goes), then deletes the draft with everything in it."""
    event = selectors.organize_event_get(user=request.user, event_id=event_id)
    if not services.event_deletable_by(event=event, user=request.user):
        raise PermissionDenied(services.ONLY_DRAFTS_DELETED)
    if request.method == "POST" and request.POST.get("confirm") == "delete":
        services.event_delete(event=event, by=request.user)
        messages.success(request, _("The draft “%(name)s” is deleted.") % {"name": event.name})
        return redirect("organize:index")
    return render(
        request,
        "organize/event_delete.html",
        {"event": event, "summary": selectors.event_results_summary(event=event)},
    )


# Results ------------------------------------------------------------------------------------------


def _request_too_large(request) -> bool:
    """Whether the request body is larger than all results files at their largest could make it."""
    limit = len(RESULT_FILES) * settings.UPLOAD_MAX_BYTES + settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) > limit
    except ValueError:
        return True


@csrf_exempt  # only so that the size is looked at before anything reads the body: the view below checks CSRF
def results_upload(request, event_id):
    if request.method == "POST" and _request_too_large(request):
        return render(
            request, "organize/too_large.html", {"limit": settings.UPLOAD_MAX_BYTES, "event_id": event_id}, status=413
        )
    return _results_upload(request, event_id)


@csrf_protect
@organizer_required
def _results_upload(request, event_id):
    event = _editable_event(request, event_id)
    posted = request.method == "POST"
    form = ResultsUploadForm(request.POST if posted else None, request.FILES if posted else None, event=event)
    players_form = NewPlayersForm.posted(request.POST) if posted else NewPlayersForm()
    placed, status = None, 200
    if posted and not players_form.refused and form.is_valid():
        files = form.cleaned_data["files"]
        try:
            report = services.event_results_replace(
                event=event, by=request.user, files=files, new_players=players_form.new_players()
            )
        except services.ResultsInvalid as invalid:
            status = _status_of(invalid)
            placed = upload_errors_placed(invalid.check, files)
            form.carry(files)
            players_form = NewPlayersForm(request.POST, numbers=_players_to_register(invalid.check, players_form))
        else:
            messages.success(request, _report_text(report))
            return redirect("organize:event", event.pk)
    return render(
        request,
        "organize/upload.html",
        {"event": event, "form": form, "players_form": players_form, "placed": placed, "event_ref": event_ref(event)},
        status=status,
    )


def _status_of(invalid: services.ResultsInvalid) -> int:
    """409 when another upload registered the same new player meanwhile (sending again works); else 200."""
    return 409 if isinstance(invalid, services.RegisteredMeanwhile) else 200


def _apply_form_errors(formset, placed: PlacedErrors) -> None:
    for index, fields in placed.form_rows.items():
        form = formset.forms[index]
        for field, messages_ in fields.items():
            form.add_error(field if field in form.fields else None, messages_)


def _typed_results_save(request, event, results, formset, players_form, columns: dict):
    """Save the rows typed into a round's or the standings' form; refused, each problem goes on its form row.

    Returns (saved, the new players' form to show, the problems placed, the status to answer with).
    """
    try:
        services.event_results_replace(
            event=event, by=request.user, rows=results, new_players=players_form.new_players()
        )
    except services.ResultsInvalid as invalid:
        placed = form_errors_placed(invalid.check, columns)
        _apply_form_errors(formset, placed)
        players_form = NewPlayersForm(request.POST, numbers=_players_to_register(invalid.check, players_form))
        return False, players_form, placed, _status_of(invalid)
    return True, players_form, None, 200


def _blank_rows(filled: int, wanted: int) -> int:
    return min(max(wanted - filled, BLANK_ROWS_AT_LEAST), ROWS_AT_MOST - filled)


@organizer_required
def round_entry(request, event_id, round_number):
    if not 1 <= round_number <= MAX_ROUND:
        raise Http404("No such round.")
    event = _editable_event(request, event_id)
    if event.team_size > 1:
        messages.info(request, _("Team events are reported by uploading their files (teams and matches)."))
        return redirect("organize:upload", event.pk)
    stored = selectors.round_typed(event=event, round_number=round_number)
    initial = stored.rows + [{}] * _blank_rows(len(stored.rows), math.ceil(event.player_count / 2))
    posted = request.method == "POST"
    formset = MatchRowFormSet(request.POST if posted else None, initial=initial, prefix="m")
    round_form = RoundForm(request.POST if posted else None, initial={"elimination": stored.elimination})
    players_form = NewPlayersForm.posted(request.POST) if posted else NewPlayersForm()
    placed, status = None, 200
    if posted and not players_form.refused and formset.is_valid() and round_form.is_valid():
        results = round_results(
            event,
            round_number=round_number,
            typed=typed_rows(formset),
            elimination=round_form.cleaned_data["elimination"],
        )
        saved, players_form, placed, status = _typed_results_save(
            request, event, results, formset, players_form, MatchRowForm.COLUMNS
        )
        if saved:
            messages.success(request, _("Round %(number)s saved.") % {"number": round_number})
            if request.POST.get("then") == "next":
                return redirect("organize:round", event.pk, round_number + 1)
            return redirect("organize:event", event.pk)
    rounds = sorted({*selectors.event_rounds(event=event), round_number})
    return render(
        request,
        "organize/round.html",
        {
            "event": event,
            "round_number": round_number,
            "rounds": rounds,
            "next_round": rounds[-1] + 1,
            "formset": formset,
            "round_form": round_form,
            "players_form": players_form,
            "placed": placed,
        },
        status=status,
    )


@organizer_required
def standings_entry(request, event_id):
    event = _editable_event(request, event_id)
    if event.team_size > 1:
        messages.info(request, _("Team events are reported by uploading their files (teams and standings)."))
        return redirect("organize:upload", event.pk)
    stored = selectors.standings_typed(event=event)
    initial = stored + [{}] * _blank_rows(len(stored), event.player_count)
    posted = request.method == "POST"
    formset = StandingRowFormSet(request.POST if posted else None, initial=initial, prefix="s")
    players_form = NewPlayersForm.posted(request.POST) if posted else NewPlayersForm()
    placed, status = None, 200
    if posted and not players_form.refused and formset.is_valid():
        results = standings_results(event, typed=typed_rows(formset))
        saved, players_form, placed, status = _typed_results_save(
            request, event, results, formset, players_form, StandingRowForm.COLUMNS
        )
        if saved:
            messages.success(request, _("Standings saved."))
            return redirect("organize:event", event.pk)
    return render(
        request,
        "organize/standings.html",
        {"event": event, "formset": formset, "players_form": players_form, "placed": placed},
        status=status,
    )


# Preview and submission ---------------------------------------------------------------------------


@organizer_required
def preview(request, event_id):
    event = selectors.organize_event_get(user=request.user, event_id=event_id)
    matches = event_matches(event=event)  # read once for the ratings and for the problems
    sections = []
    for each in event_preview(event=event, matches=matches):
        prefix, rounding = f"{each.category.slug}-", each.category.display_rounding
        if each.kind == "elo":
            table = PreviewChangeTable(each.participants, rounding=rounding, prefix=prefix, order_by=("-change",))
        else:
            table = PreviewPointsTable(each.standings, rounding=rounding, prefix=prefix)
        table.anchor = f"preview-{each.category.slug}"
        sections.append((each, configure(request, table, per_page=EVENT_PLAYERS_PER_PAGE)))
    # Named for the pages shown only: a large event's 900 players, in each list it feeds.
    shown = [table for _preview, table in sections]
    names = participant_names(participant_ids=set().union(*(table.participants_shown() for table in shown)))
    for table in shown:
        table.participants = names
    problems = []
    if event.status == EventStatus.DRAFT:
        problems = stored_results_problems(event, matches)
    return render(
        request,
        "organize/preview.html",
        {
            "event": event,
            "sections": sections,
            "problems": problems,
            "editable": services.event_editable_by(event=event, user=request.user),
        },
    )


@require_POST
@organizer_required
def submit(request, event_id):
    """Submits from the preview, once the organizer has ticked that the results are checked: it cannot be undone."""
    event = selectors.organize_event_get(user=request.user, event_id=event_id)
    if request.POST.get("confirm") != "yes":
        messages.error(request, _("Not submitted: tick that you checked the results, then submit."))
        return redirect("organize:preview", event.pk)
    try:
        runs = services.event_submit(event=event, by=request.user)
    except services.ResultsInvalid as invalid:
        messages.error(
            request,
            _("Not submitted: the results have %(count)s problem(s), listed below.")
            % {"count": len(invalid.check.errors)},
        )
    except ValidationError as error:
        messages.error(request, _("Not submitted: %(reason)s") % {"reason": " ".join(error.messages)})
    else:
        lists = ", ".join(sorted({run.category.label for run in runs}))
        if lists:
            message = _("Submitted. The ratings of %(lists)s are being computed; this page shows when.") % {
                "lists": lists
            }
        else:
            message = _("Submitted. The ratings of its lists are being computed; this page shows when.")
        messages.success(request, message)
    return redirect("organize:event", event.pk)
