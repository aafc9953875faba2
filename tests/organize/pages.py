"""What the organizer pages' tests post and read: results files as text, the round form's data."""

from django.core.files.uploadedfile import SimpleUploadedFile

from events.models import Match

MATCH_HEADER = "round,player1_id,player2_id,player1_games,player2_games,draws,elimination\n"
STANDING_HEADER = "player_id,rank,vp,gw,final\n"


def csv_file(text: str, name: str = "matches.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def upload(client, event, **files):
    """POST the upload form with `files` (field name -> text or an uploaded file) and any extra fields."""
    data = {}
    for name, value in files.items():
        data[name] = csv_file(value, f"{name}.csv") if isinstance(value, str) else value
    return client.post(f"/organize/events/{event.pk}/upload/", data)


def results_of(event) -> list[tuple]:
    return sorted(
        Match.objects.filter(event=event).values_list(
            "round", "participant1__player__membership_number", "participant2__player__membership_number",
            "games1", "games2", "draws", "elimination",
        )
    )  # fmt: skip


VALID_MATCHES = MATCH_HEADER + "1,1001,1002,2,1,0,0\n1,1003,1004,1,1,1,0\n2,1001,1003,2,0,0,0\n2,1002,1004,0,2,0,0\n"


def round_post(rows, *, elimination=False, then="done", **extra):
    data = {"m-TOTAL_FORMS": str(len(rows)), "m-INITIAL_FORMS": "0", "then": then, **extra}
    for index, (player1, player2, games1, games2, draws) in enumerate(rows):
        data.update(
            {
                f"m-{index}-player1": player1,
                f"m-{index}-player2": player2,
                f"m-{index}-games1": games1,
                f"m-{index}-games2": games2,
                f"m-{index}-draws": draws,
            }
        )
    if elimination:
        data["elimination"] = "on"
    return data
