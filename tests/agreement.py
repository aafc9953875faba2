"""Compare export_ratings (and the ranking pages) with the independent reference implementation of the rules."""

import csv
import io
from pathlib import Path

from django.core.management import call_command

from players.models import team_member_key
from tests.reference_ratings import reference_ranking

TOLERANCE = 1e-6


def exported(category: str, **options) -> dict[str, dict]:
    out = io.StringIO()
    call_command("export_ratings", category=category, stdout=out, **options)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    return {row["player_id"]: row for row in rows}


def _team_keys(bundle_dir: Path) -> dict[str, str]:
    """Bundle team id -> the id the export shows for that team (its members' numbers)."""
    path = Path(bundle_dir) / "teams.csv"
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as handle:
        return {
            row["id"]: team_member_key([row["member1"], row["member2"], row["member3"]]).replace(" ", "+")
            for row in csv.DictReader(handle)
        }


def page_exported(client, category: str, **options) -> dict[str, dict]:
    """The ranking page's CSV export of one list, its ranked and unranked players, keyed as `exported` has them."""
    query = "&".join(f"{key}={value}" for key, value in options.items() if value)
    rows = []
    for shown in ("", "&list=unranked"):
        response = client.get(f"/rankings/{category}/?{query}{shown}&_export=csv")
        assert response.status_code == 200
        rows += csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode()))
    return {row["player_id"]: row for row in rows}


def disagreements(bundle_dir: Path, category: str, *, as_of=None, country="", region="", ours=None) -> list[str]:
    """Every way export_ratings (or the list `ours`) differs from the reference for one list; empty when they agree."""
    options = {"as_of": as_of.isoformat() if as_of else None, "country": country, "region": region}
    if ours is None:
        ours = exported(category, **{key: value for key, value in options.items() if value})
    teams = _team_keys(bundle_dir)
    reference = {
        teams.get(row["player_id"], row["player_id"]): row
        for row in reference_ranking(bundle_dir, category, as_of=as_of, country=country or None, region=region or None)
    }
    problems = []
    if set(ours) != set(reference):
        problems.append(
            f"{category}: only exported {sorted(set(ours) - set(reference))[:5]}, "
            f"only in reference {sorted(set(reference) - set(ours))[:5]}"
        )
    for player_id in sorted(set(ours) & set(reference)):
        mine, theirs = ours[player_id], reference[player_id]
        rank = int(mine["rank"]) if mine["rank"] else None
        if abs(float(mine["rating"]) - theirs["rating"]) > TOLERANCE:
            problems.append(f"{category} {player_id}: rating {mine['rating']} != {theirs['rating']!r}")
        if int(mine["matches"]) != theirs["matches"]:
            problems.append(f"{category} {player_id}: matches {mine['matches']} != {theirs['matches']}")
        if bool(int(mine["ranked"])) != theirs["ranked"]:
            problems.append(f"{category} {player_id}: ranked {mine['ranked']} != {theirs['ranked']}")
        if rank != theirs["rank"]:
            problems.append(f"{category} {player_id}: rank {rank} != {theirs['rank']}")
    return problems
