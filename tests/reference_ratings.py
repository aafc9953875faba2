"""An independent, deliberately plain reference implementation of SPEC sections 3 and 4.

It reads a results bundle folder (the CSV files of SPEC section 6) and computes
the ratings of one category with simple loops, so that the production rating
engine can be cross-checked against it. It imports nothing from the project
and nothing from Django.

    reference_ratings(bundle_dir, "constructed")            -> {participant id: {"rating", "matches", "ranked"}}
    reference_ranking(bundle_dir, "constructed", country="DE") -> [{"rank", "player_id", "rating", ...}, ...]

Decisions taken where SPEC leaves room (see also the notes in each function):

- A participant is in an Elo category once they have at least one rated
  match in it (byes, and matches of unrated dci-1997 events, do not count).
- dci-1997: the provisional period is always the first 25 matches; the
  category's `ranked_after` only moves the ranked threshold. The event's
  K-value is not used by dci-1997 or match-points.
- vekn with `as_of` None: D is the latest event date in the whole bundle.
- A derived category averages the categories named in the optional
  `components` column of categories.csv, or constructed and limited.
- Rankings: ratings that agree to 6 decimals are equal (float noise aside);
  within equal ratings rows are ordered by id.
"""

import calendar
import csv
import math
from datetime import date
from pathlib import Path

START_RATING = 1600.0
PROVISIONAL_MATCHES = 25  # dci-1997
VEKN_BEST_OF = 8
VEKN_WINDOW_MONTHS = 18
VEKN_ACTIVE_MONTHS = 12

DEFAULT_RANKED_AFTER = {"dci-2001": 10, "dci-1997": 25, "match-points": 16, "vekn": 1, "derived": 0}

# SPEC section 2.
DEFAULT_CATEGORIES = {
    "constructed": {"ruleset": "dci-2001", "formats": ["standard", "block", "extended"], "team_size": 1},
    "limited": {"ruleset": "dci-2001", "formats": ["sealed", "booster-draft", "rochester-draft"], "team_size": 1},
    "vintage": {"ruleset": "dci-2001", "formats": ["vintage", "type-1.5"], "team_size": 1},
    "composite": {"ruleset": "derived", "formats": [], "team_size": 1},
    "team-constructed": {"ruleset": "dci-2001", "formats": ["standard", "block", "extended"], "team_size": 3},
    "team-limited": {"ruleset": "dci-2001", "formats": ["sealed", "booster-draft", "rochester-draft"], "team_size": 3},
    "vtes": {"ruleset": "vekn", "formats": ["vtes"], "team_size": 1},
}
DEFAULT_COMPONENTS = ["constructed", "limited"]


# ---------------------------------------------------------------------------
# Reading the bundle
# ---------------------------------------------------------------------------


def read_csv(path: Path) -> list[dict]:
    """The rows of a CSV file as dicts (lowercase column names, values stripped); [] if there is no file."""
    if not path.is_file():
        return []
    rows = []
    with open(path, encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle):
            clean = {}
            for key, value in row.items():
                if key is None:
                    continue
                clean[key.strip().lower()] = (value or "").strip()
            if any(clean.values()):
                rows.append(clean)
    return rows


def to_int(text: str, default: int) -> int:
    if text == "" or text is None:
        return default
    return int(text)


def to_float(text: str, default: float) -> float:
    if text == "" or text is None:
        return default
    return float(text)


def load_categories(bundle_dir: Path) -> dict[str, dict]:
    """slug -> {"ruleset", "formats", "team_size", "ranked_after", "components"}; categories.csv overrides."""
    categories = {}
    for slug, default in DEFAULT_CATEGORIES.items():
        categories[slug] = {
            "ruleset": default["ruleset"],
            "formats": list(default["formats"]),
            "team_size": default["team_size"],
            "ranked_after": DEFAULT_RANKED_AFTER[default["ruleset"]],
            "components": list(DEFAULT_COMPONENTS) if default["ruleset"] == "derived" else [],
        }
    for row in read_csv(bundle_dir / "categories.csv"):
        ruleset = row.get("ruleset", "")
        components = row.get("components", "").split()
        if ruleset == "derived" and not components:
            components = list(DEFAULT_COMPONENTS)
        categories[row["slug"]] = {
            "ruleset": ruleset,
            "formats": row.get("formats", "").lower().split(),
            "team_size": to_int(row.get("team_size", ""), 1),
            "ranked_after": to_int(row.get("ranked_after", ""), DEFAULT_RANKED_AFTER.get(ruleset, 0)),
            "components": components,
        }
    return categories


def load_team_ids(bundle_dir: Path) -> dict[str, str]:
    """team id -> the first team id listed with the same member set."""
    first_id_of_members = {}
    same_team = {}
    for row in read_csv(bundle_dir / "teams.csv"):
        members = frozenset([row["member1"], row["member2"], row["member3"]])
        if members not in first_id_of_members:
            first_id_of_members[members] = row["id"]
        same_team[row["id"]] = first_id_of_members[members]
    return same_team


def load_bundle(bundle_dir: Path) -> dict:
    """Everything the ratings need, with participant ids already mapped to one id per team."""
    bundle_dir = Path(bundle_dir)
    same_team = load_team_ids(bundle_dir)

    def participant(ref: str) -> str:
        return same_team.get(ref, ref)

    events = []
    for position, row in enumerate(read_csv(bundle_dir / "events.csv")):
        players = row.get("players", "")
        events.append(
            {
                "id": row["id"],
                "position": position,  # the order of events.csv: the order events were recorded in
                "date": date.fromisoformat(row["date"]),
                "format": row["format"].lower(),
                "k": to_int(row.get("k", ""), 16),
                "players": int(players) if players else None,
                "level2_judge": row.get("level2_judge", "") == "1",
                "team_size": to_int(row.get("team_size", ""), 1),
                "level": row.get("level", "").lower(),
            }
        )

    matches = []
    for position, row in enumerate(read_csv(bundle_dir / "matches.csv")):
        player2 = row.get("player2_id", "")
        matches.append(
            {
                "event_id": row["event_id"],
                "round": int(row["round"]),
                "position": position,
                "player1": participant(row["player1_id"]),
                "player2": participant(player2) if player2 else "",
                "games1": to_int(row.get("player1_games", ""), 0),
                "games2": to_int(row.get("player2_games", ""), 0),
            }
        )

    standings = []
    for row in read_csv(bundle_dir / "standings.csv"):
        standings.append(
            {
                "event_id": row["event_id"],
                "player": participant(row["player_id"]),
                "vp": to_float(row.get("vp", ""), 0.0),
                "gw": to_float(row.get("gw", ""), 0.0),
                "final": row.get("final", "").lower(),
            }
        )

    players = {}
    for row in read_csv(bundle_dir / "players.csv"):
        country = row.get("country", "").upper()
        region = row.get("region", "").upper()
        if region and not country:
            country = region.split("-")[0]
        players[row["id"]] = {"country": country, "region": region}

    return {
        "categories": load_categories(bundle_dir),
        "events": events,
        "matches": matches,
        "standings": standings,
        "players": players,
    }


# ---------------------------------------------------------------------------
# Small rules
# ---------------------------------------------------------------------------


def expected_score(rating: float, opponent: float) -> float:
    """We = 1 / (10^((O - R)/400) + 1)."""
    return 1 / (10 ** ((opponent - rating) / 400) + 1)


def rating_band_k(rating: float) -> int:
    """K by the player's own rating (dci-1997 and match-points): 32 below 2100, 24 to 2399, 16 from 2400."""
    if rating < 2100:
        return 32
    if rating < 2400:
        return 24
    return 16


def match_score(games_won: int, games_lost: int) -> str:
    """'win', 'draw' or 'loss' for the player who won `games_won` games."""
    if games_won > games_lost:
        return "win"
    if games_won < games_lost:
        return "loss"
    return "draw"


def months_before(day: date, months: int) -> date:
    """The same day `months` calendar months earlier, clamped to the end of a shorter month."""
    month_count = day.year * 12 + (day.month - 1) - months
    year = month_count // 12
    month = month_count % 12 + 1
    last_day = calendar.monthrange(year, month)[1]
    return date(year, month, min(day.day, last_day))


def vekn_event_points(vp: float, gw: float, final: str, players: int, level: str) -> float:
    """5 + 4 VP + 8 GW + bonus; bonus = (90 winner / 30 finalist) * max(0, log15(N^2) - 1 + level bonus)."""
    level_bonus = 0.0
    if level in ("national", "continental-qualifier"):
        level_bonus = 0.25
    elif level == "continental":
        level_bonus = 1.0
    coefficient = math.log(players * players, 15) - 1 + level_bonus
    if coefficient < 0:
        coefficient = 0.0
    placing = 0
    if final == "winner":
        placing = 90
    elif final == "finalist":
        placing = 30
    return 5 + 4 * vp + 8 * gw + placing * coefficient


# ---------------------------------------------------------------------------
# Which events and matches a category rates
# ---------------------------------------------------------------------------


def category_events(bundle: dict, category: dict, as_of: date | None) -> list[dict]:
    """The category's events up to as_of, in rating order: date, then the order of events.csv."""
    chosen = []
    for event in bundle["events"]:
        if event["format"] not in category["formats"]:
            continue
        if event["team_size"] != category["team_size"]:
            continue
        if as_of is not None and event["date"] > as_of:
            continue
        chosen.append(event)
    chosen.sort(key=lambda event: (event["date"], event["position"]))
    return chosen


def event_player_count(bundle: dict, event: dict) -> int:
    """The event's `players`, or (blank) the number of distinct participants in its matches and standings."""
    if event["players"] is not None:
        return event["players"]
    participants = set()
    for match in bundle["matches"]:
        if match["event_id"] == event["id"]:
            participants.add(match["player1"])
            if match["player2"]:
                participants.add(match["player2"])
    for standing in bundle["standings"]:
        if standing["event_id"] == event["id"]:
            participants.add(standing["player"])
    return len(participants)


def rated_matches(bundle: dict, events: list[dict]) -> list[tuple[dict, dict]]:
    """(event, match) for every non-bye match of these events: event order, then round, then matches.csv order."""
    result = []
    for event in events:
        event_matches = []
        for match in bundle["matches"]:
            if match["event_id"] == event["id"] and match["player2"]:
                event_matches.append(match)
        event_matches.sort(key=lambda match: (match["round"], match["position"]))
        for match in event_matches:
            result.append((event, match))
    return result


# ---------------------------------------------------------------------------
# Rulesets
# ---------------------------------------------------------------------------


def ratings_dci_2001(bundle: dict, category: dict, as_of: date | None) -> dict[str, dict]:
    rating = {}
    matches = {}
    for event, match in rated_matches(bundle, category_events(bundle, category, as_of)):
        a = match["player1"]
        b = match["player2"]
        old_a = rating.get(a, START_RATING)
        old_b = rating.get(b, START_RATING)
        result = match_score(match["games1"], match["games2"])
        score_a = {"win": 1.0, "draw": 0.5, "loss": 0.0}[result]
        score_b = 1.0 - score_a
        k = event["k"]
        rating[a] = old_a + k * (score_a - expected_score(old_a, old_b))
        rating[b] = old_b + k * (score_b - expected_score(old_b, old_a))
        matches[a] = matches.get(a, 0) + 1
        matches[b] = matches.get(b, 0) + 1
    return finish(rating, matches, category["ranked_after"])


def ratings_match_points(bundle: dict, category: dict, as_of: date | None) -> dict[str, dict]:
    rating = {}
    matches = {}
    points = {"win": 1.0, "draw": 1.0 / 3.0, "loss": 0.0}
    for _event, match in rated_matches(bundle, category_events(bundle, category, as_of)):
        a = match["player1"]
        b = match["player2"]
        old_a = rating.get(a, START_RATING)
        old_b = rating.get(b, START_RATING)
        score_a = points[match_score(match["games1"], match["games2"])]
        score_b = points[match_score(match["games2"], match["games1"])]
        rating[a] = old_a + rating_band_k(old_a) * (score_a - expected_score(old_a, old_b))
        rating[b] = old_b + rating_band_k(old_b) * (score_b - expected_score(old_b, old_a))
        matches[a] = matches.get(a, 0) + 1
        matches[b] = matches.get(b, 0) + 1
    return finish(rating, matches, category["ranked_after"])


def ratings_dci_1997(bundle: dict, category: dict, as_of: date | None) -> dict[str, dict]:
    rating = {}
    matches = {}
    wins = {}
    losses = {}
    opponent_total = {}  # sum of the opponents' pre-match ratings over the provisional matches

    player_count = {}  # event id -> number of players
    events = []
    for event in category_events(bundle, category, as_of):
        player_count[event["id"]] = event_player_count(bundle, event)
        if player_count[event["id"]] >= 8:
            events.append(event)

    def new_rating(player: str, own: float, opponent: float, result: str, event: dict) -> float:
        played = matches.get(player, 0) + 1
        if played <= PROVISIONAL_MATCHES:
            opponent_total[player] = opponent_total.get(player, 0.0) + opponent
            if result == "win":
                wins[player] = wins.get(player, 0) + 1
            if result == "loss":
                losses[player] = losses.get(player, 0) + 1
            average_opponent = opponent_total[player] / played
            return average_opponent + 400 * (wins.get(player, 0) - losses.get(player, 0)) / played
        k = rating_band_k(own)
        if 8 <= player_count[event["id"]] <= 31:
            k = k / 2
        if not event["level2_judge"]:
            k = k / 2
        score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[result]
        return own + k * (score - expected_score(own, opponent))

    for event, match in rated_matches(bundle, events):
        a = match["player1"]
        b = match["player2"]
        old_a = rating.get(a, START_RATING)
        old_b = rating.get(b, START_RATING)
        new_a = new_rating(a, old_a, old_b, match_score(match["games1"], match["games2"]), event)
        new_b = new_rating(b, old_b, old_a, match_score(match["games2"], match["games1"]), event)
        rating[a] = new_a
        rating[b] = new_b
        matches[a] = matches.get(a, 0) + 1
        matches[b] = matches.get(b, 0) + 1
    return finish(rating, matches, category["ranked_after"])


def ratings_vekn(bundle: dict, category: dict, as_of: date | None) -> dict[str, dict]:
    if as_of is not None:
        day = as_of
    elif bundle["events"]:
        day = max(event["date"] for event in bundle["events"])
    else:
        return {}
    window_start = months_before(day, VEKN_WINDOW_MONTHS)  # exclusive
    active_start = months_before(day, VEKN_ACTIVE_MONTHS)  # exclusive

    scores = {}  # player -> [(event date, points), ...]
    for event in category_events(bundle, category, day):
        rows = []
        for standing in bundle["standings"]:
            if standing["event_id"] == event["id"]:
                rows.append(standing)
        count = event["players"] if event["players"] is not None else len(rows)
        for standing in rows:
            points = vekn_event_points(standing["vp"], standing["gw"], standing["final"], count, event["level"])
            scores.setdefault(standing["player"], []).append((event["date"], points))

    result = {}
    for player, events in scores.items():
        in_window = []
        active = False
        for event_date, points in events:
            if window_start < event_date <= day:
                in_window.append(points)
            if active_start < event_date <= day:
                active = True
        in_window.sort(reverse=True)
        result[player] = {
            "rating": sum(in_window[:VEKN_BEST_OF]),
            "matches": len(events),
            "ranked": active and len(events) >= category["ranked_after"],
        }
    return result


def ratings_derived(bundle_dir: Path, category: dict, as_of: date | None) -> dict[str, dict]:
    parts = [reference_ratings(bundle_dir, slug, as_of) for slug in category["components"]]
    everyone = set()
    for part in parts:
        everyone.update(part)
    result = {}
    for participant in everyone:
        total = 0.0
        matches = 0
        ranked = False
        for part in parts:
            entry = part.get(participant)
            if entry is None:
                total += START_RATING
            else:
                total += entry["rating"]
                matches += entry["matches"]
                ranked = ranked or entry["ranked"]
        result[participant] = {"rating": total / len(parts), "matches": matches, "ranked": ranked}
    return result


def finish(rating: dict, matches: dict, ranked_after: int) -> dict[str, dict]:
    result = {}
    for participant in rating:
        result[participant] = {
            "rating": rating[participant],
            "matches": matches[participant],
            "ranked": matches[participant] >= ranked_after,
        }
    return result


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------


def reference_ratings(bundle_dir: Path, category: str, as_of: date | None = None) -> dict[str, dict]:
    """participant id (player id, or for team categories the team's id from teams.csv) ->
    {"rating": float, "matches": int, "ranked": bool}"""
    bundle_dir = Path(bundle_dir)
    bundle = load_bundle(bundle_dir)
    if category not in bundle["categories"]:
        raise KeyError(f"unknown category {category!r}")
    definition = bundle["categories"][category]
    ruleset = definition["ruleset"]
    if ruleset == "dci-2001":
        return ratings_dci_2001(bundle, definition, as_of)
    if ruleset == "dci-1997":
        return ratings_dci_1997(bundle, definition, as_of)
    if ruleset == "match-points":
        return ratings_match_points(bundle, definition, as_of)
    if ruleset == "vekn":
        return ratings_vekn(bundle, definition, as_of)
    if ruleset == "derived":
        return ratings_derived(bundle_dir, definition, as_of)
    raise ValueError(f"unknown ruleset {ruleset!r} of category {category!r}")


def reference_ranking(bundle_dir, category, as_of=None, country=None, region=None) -> list[dict]:
    """rows like export: {"rank": int|None, "player_id": str, "rating": float, "matches": int, "ranked": bool},
    ranked players first by rating descending with ties sharing a rank (1,2,2,4), rank None for unranked"""
    bundle_dir = Path(bundle_dir)
    players = load_bundle(bundle_dir)["players"]
    ratings = reference_ratings(bundle_dir, category, as_of)

    rows = []
    for participant, entry in ratings.items():
        if country is not None or region is not None:
            player = players.get(participant)
            if player is None:  # a team, or a player not listed in players.csv
                continue
            if country is not None and player["country"] != country.upper():
                continue
            if region is not None and player["region"] != region.upper():
                continue
        rows.append(
            {
                "rank": None,
                "player_id": participant,
                "rating": entry["rating"],
                "matches": entry["matches"],
                "ranked": entry["ranked"],
            }
        )

    def same_rating(rating: float) -> float:
        return round(rating, 6)

    ranked = [row for row in rows if row["ranked"]]
    unranked = [row for row in rows if not row["ranked"]]
    ranked.sort(key=lambda row: (-same_rating(row["rating"]), row["player_id"]))
    unranked.sort(key=lambda row: (-same_rating(row["rating"]), row["player_id"]))
    for position, row in enumerate(ranked, start=1):
        previous = ranked[position - 2] if position > 1 else None
        if previous is not None and same_rating(previous["rating"]) == same_rating(row["rating"]):
            row["rank"] = previous["rank"]
        else:
            row["rank"] = position
    return ranked + unranked
