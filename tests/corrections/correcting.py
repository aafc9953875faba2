"""What the corrections tests share: the default test bundle's matches by round and player, and the queued runs
carried out as the job worker would. The bundle imported and rated is the shared `rated_default_bundle`
(tests/conftest.py).

Munich Open (E1, standard, K 32, 2003-05-01): R1 1001 beats 1002 2–1, 1003
draws 1004 1–1–1, 1005 has a bye; R2 1001 beats 1003 2–0, 1005 beats 1004 2–0;
R3 (elimination) 1001 beats 1005 2–1.
"""

from datetime import date

from events.models import Match
from players.models import Player
from ratings.models import RecomputeRun, RecomputeStatus
from ratings.services.runs import recompute_run_execute

E1_DATE = date(2003, 5, 1)
EXACT = 1e-9


def participant(number) -> int:
    return Player.objects.get(membership_number=number).participant_id


def the_match(event_code, round_number, number1) -> Match:
    return Match.objects.select_related("event").get(
        event__code=event_code, round=round_number, participant1_id=participant(number1)
    )


def run_queued() -> list[RecomputeRun]:
    """Carry out every queued recompute, as the job worker would."""
    done = []
    for run in RecomputeRun.objects.filter(status=RecomputeStatus.QUEUED).order_by("pk"):
        done.append(recompute_run_execute(run_id=run.pk))
    return done
