"""Small bundles written row by row, for the hand-checked cases of the reference implementation
(tests/reference_ratings.py): `write_bundle(folder, events, matches, standings, ...)` with rows from `event`, `win`,
`draw`, `match`, `standing` and `category`.
"""

import csv

COLUMNS = {
    "players.csv": ["id", "name", "country", "region"],
    "teams.csv": ["id", "name", "member1", "member2", "member3"],
    "events.csv": ["id", "name", "date", "format", "k", "players", "level2_judge", "team_size", "level"],
    "matches.csv": [
        "event_id",
        "round",
        "player1_id",
        "player2_id",
        "player1_games",
        "player2_games",
        "draws",
        "elimination",
    ],
    "standings.csv": ["event_id", "player_id", "rank", "vp", "gw", "final"],
    "categories.csv": ["slug", "name", "ruleset", "formats", "team_size", "ranked_after"],
}


def event(id, day="2003-05-01", format="standard", k="", players="", level2_judge="1", team_size="", level=""):
    return {
        "id": id,
        "name": f"Event {id}",
        "date": day,
        "format": format,
        "k": str(k),
        "players": str(players),
        "level2_judge": str(level2_judge),
        "team_size": str(team_size),
        "level": level,
    }


def match(event_id, round, player1, player2="", games1=0, games2=0, draws=0):
    return {
        "event_id": event_id,
        "round": str(round),
        "player1_id": player1,
        "player2_id": player2,
        "player1_games": str(games1),
        "player2_games": str(games2),
        "draws": str(draws),
        "elimination": "",
    }


def win(event_id, round, winner, loser):
    return match(event_id, round, winner, loser, 2, 0)


def draw(event_id, round, player1, player2):
    return match(event_id, round, player1, player2, 1, 1)


def standing(event_id, player, rank, vp=0, gw=0, final=""):
    return {"event_id": event_id, "player_id": player, "rank": str(rank), "vp": str(vp), "gw": str(gw), "final": final}


def category(slug, ruleset, formats, team_size=1, ranked_after=10):
    return {
        "slug": slug,
        "name": slug,
        "ruleset": ruleset,
        "formats": formats,
        "team_size": str(team_size),
        "ranked_after": str(ranked_after),
    }


def write_bundle(folder, events, matches=(), standings=(), players=None, teams=(), categories=()):
    """Write the CSV files into `folder`; players default to everyone named in matches and standings."""
    if players is None:
        ids = []
        for row in matches:
            for ref in (row["player1_id"], row["player2_id"]):
                if ref and ref not in ids:
                    ids.append(ref)
        for row in standings:
            if row["player_id"] not in ids:
                ids.append(row["player_id"])
        players = [{"id": ref, "name": f"Player {ref}", "country": "", "region": ""} for ref in ids]
    files = {
        "players.csv": players,
        "teams.csv": teams,
        "events.csv": events,
        "matches.csv": matches,
        "standings.csv": standings,
        "categories.csv": categories,
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        with open(folder / name, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS[name])
            writer.writeheader()
            for row in rows:
                writer.writerow(row)
    return folder


def ratings_of(result):
    return {participant: round(entry["rating"], 4) for participant, entry in result.items()}
