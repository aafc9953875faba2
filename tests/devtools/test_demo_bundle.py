"""The demo world generator writes a valid, realistic results bundle (SPEC 6), no database needed."""

import csv
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

import pycountry
import pytest

from devtools.demo import CITIES, STORES, demo_bundle_write

# SPEC section 6, column for column, in the order the generator writes them.
SPEC_HEADERS = {
    "players.csv": "id,name,country,region",
    "teams.csv": "id,name,member1,member2,member3",
    "events.csv": "id,name,date,format,k,players,level2_judge,team_size,structure,country,city,level",
    "matches.csv": "event_id,round,player1_id,player2_id,player1_games,player2_games,draws,elimination",
    "standings.csv": "event_id,player_id,rank,vp,gw,final",
}
MAGIC_FORMATS = {"standard", "block", "extended", "sealed", "booster-draft", "rochester-draft", "vintage", "type-1.5"}


def rows(directory, name):
    with open(directory / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    directory = tmp_path_factory.mktemp("small")
    counts = demo_bundle_write(directory, players=300, events=40, seed=7)
    return directory, counts


@pytest.fixture(scope="module")
def default(tmp_path_factory):
    directory = tmp_path_factory.mktemp("default")
    counts = demo_bundle_write(directory)
    return directory, counts


def test_it_is_deterministic_for_a_seed(tmp_path):
    demo_bundle_write(tmp_path / "a", players=200, events=25, seed=3)
    demo_bundle_write(tmp_path / "b", players=200, events=25, seed=3)
    demo_bundle_write(tmp_path / "c", players=200, events=25, seed=4)
    for name in SPEC_HEADERS:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert (tmp_path / "a" / "matches.csv").read_bytes() != (tmp_path / "c" / "matches.csv").read_bytes()


def test_it_does_not_depend_on_the_process_hash_seed(tmp_path):
    # seed_demo runs in a fresh process each time: iterating a set would quietly change the world.
    demo_bundle_write(tmp_path / "here", players=200, events=25, seed=3)
    there = str(tmp_path / "there")
    script = (
        f"from devtools.demo import demo_bundle_write; demo_bundle_write({there!r}, players=200, events=25, seed=3)"
    )
    subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "PYTHONHASHSEED": "12345"},
        check=True,
    )
    for name in SPEC_HEADERS:
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "there" / name).read_bytes(), name


def test_it_writes_the_spec_headers_and_no_categories(small):
    directory, _ = small
    for name, header in SPEC_HEADERS.items():
        assert (directory / name).read_text(encoding="utf-8").splitlines()[0] == header
    assert not (directory / "categories.csv").exists()


def test_it_returns_the_row_counts(small):
    directory, counts = small
    assert counts == {
        "players": len(rows(directory, "players.csv")),
        "teams": len(rows(directory, "teams.csv")),
        "events": len(rows(directory, "events.csv")),
        "matches": len(rows(directory, "matches.csv")),
        "standings": len(rows(directory, "standings.csv")),
    }
    assert counts["players"] == 300
    assert 38 <= counts["events"] <= 40  # at most as asked: an event nobody was free for that day did not happen


def test_players_have_unique_membership_numbers_and_names(small):
    directory, _ = small
    players = rows(directory, "players.csv")
    numbers = [player["id"] for player in players]
    assert len(set(numbers)) == len(numbers)
    assert all(re.fullmatch(r"[A-Za-z0-9-]{1,32}", number) for number in numbers)
    assert all(player["name"] and player["name"] == player["name"].strip() for player in players)


def test_regions_belong_to_the_players_country(default):
    directory, _ = default
    players = rows(directory, "players.csv")
    for player in players:
        if player["region"]:
            subdivision = pycountry.subdivisions.get(code=player["region"])
            assert subdivision is not None and subdivision.parent_code is None, player
            assert subdivision.country_code == player["country"], player
        if player["country"]:
            assert pycountry.countries.get(alpha_2=player["country"]) is not None, player
    assert any(not player["region"] for player in players if player["country"])
    assert any(not player["country"] for player in players)
    assert len({player["country"] for player in players}) > 25


def test_tournament_cities_are_in_real_regions():
    for country, cities in CITIES.items():
        for entry in cities.split(", "):
            region = entry.rpartition(" ")[2]
            if "-" in region:
                subdivision = pycountry.subdivisions.get(code=region)
                assert subdivision is not None and subdivision.parent_code is None, entry
                assert subdivision.country_code == country, entry


def test_every_match_names_listed_participants(small):
    directory, _ = small
    players = {player["id"] for player in rows(directory, "players.csv")}
    teams = {team["id"]: team for team in rows(directory, "teams.csv")}
    events = {event["id"]: event for event in rows(directory, "events.csv")}
    for team in teams.values():
        members = {team["member1"], team["member2"], team["member3"]}
        assert len(members) == 3 and members <= players, team
    for match in rows(directory, "matches.csv"):
        listed = teams if events[match["event_id"]]["team_size"] == "3" else players
        assert match["player1_id"] in listed, match
        assert match["player2_id"] == "" or match["player2_id"] in listed, match
    for standing in rows(directory, "standings.csv"):
        assert standing["player_id"] in players, standing


def test_nobody_plays_twice_in_a_round_nor_against_themselves(default):
    directory, _ = default
    teams = {team["id"]: (team["member1"], team["member2"], team["member3"]) for team in rows(directory, "teams.csv")}
    seated = defaultdict(Counter)  # (event, round) -> players, team members included
    for match in rows(directory, "matches.csv"):
        assert match["player1_id"] != match["player2_id"], match
        for side in (match["player1_id"], match["player2_id"]):
            for player in teams.get(side, (side,) if side else ()):
                seated[match["event_id"], match["round"]][player] += 1
    assert seated
    for key, players in seated.items():
        assert players.most_common(1)[0][1] == 1, key


def test_matches_have_best_of_three_scores_and_elimination_is_never_drawn(default):
    directory, _ = default
    results = Counter()
    for match in rows(directory, "matches.csv"):
        games1, games2, draws = int(match["player1_games"]), int(match["player2_games"]), int(match["draws"])
        assert match["elimination"] in ("0", "1")
        assert games1 <= 2 and games2 <= 2, match
        if match["elimination"] == "0":
            assert games1 + games2 + draws <= 3, match  # a round ends after three games at most
        if match["elimination"] == "1" and match["player2_id"]:
            assert games1 != games2, match
        if match["player2_id"]:
            results["win" if games1 > games2 else "loss" if games2 > games1 else "draw"] += 1
    assert results["win"] > 0.4 * results.total() and results["loss"] > 0.4 * results.total()
    assert 0 < results["draw"] < 0.1 * results.total()


def test_vtes_events_have_standings_with_exactly_one_winner(default):
    directory, _ = default
    events = rows(directory, "events.csv")
    vtes = {event["id"] for event in events if event["format"] == "vtes"}
    standings = defaultdict(list)
    for standing in rows(directory, "standings.csv"):
        standings[standing["event_id"]].append(standing)
    assert vtes and set(standings) == vtes
    assert not any(match["event_id"] in vtes for match in rows(directory, "matches.csv"))
    for event, table in standings.items():
        finals = Counter(standing["final"] for standing in table)
        assert finals["winner"] == 1, event
        assert 1 <= finals["finalist"] <= 4, event
        assert sorted(int(standing["rank"]) for standing in table) == list(range(1, len(table) + 1))
        winner = next(standing for standing in table if standing["final"] == "winner")
        assert winner["rank"] == "1" and int(winner["gw"]) >= 1
        assert all((float(standing["vp"]) * 2).is_integer() for standing in table)
    assert {event["level"] for event in events if event["id"] in vtes} == {
        "",
        "national",
        "continental-qualifier",
        "continental",
    }


def test_events_are_in_date_order_within_the_range(small):
    directory, _ = small
    days = [date.fromisoformat(event["date"]) for event in rows(directory, "events.csv")]
    assert days == sorted(days)
    assert date(2019, 1, 1) <= days[0] and days[-1] <= date(2026, 10, 31)


def test_given_player_counts_match_the_participants(default):
    directory, _ = default
    participants = defaultdict(set)
    for match in rows(directory, "matches.csv"):
        participants[match["event_id"]].update(filter(None, (match["player1_id"], match["player2_id"])))
    for standing in rows(directory, "standings.csv"):
        participants[standing["event_id"]].add(standing["player_id"])
    events = rows(directory, "events.csv")
    for event in events:
        if event["players"]:
            assert int(event["players"]) == len(participants[event["id"]]), event
    assert any(not event["players"] for event in events)
    assert any(len(participants[event["id"]]) < 8 for event in events)  # the unrated small events of dci-1997


def test_the_default_world_shows_every_format_k_value_and_structure(default):
    directory, counts = default
    events = rows(directory, "events.csv")
    assert {event["format"] for event in events} == MAGIC_FORMATS | {"vtes"}
    magic = [event for event in events if event["format"] != "vtes"]
    assert {event["k"] for event in magic} == {"", "8", "16", "24", "32", "40", "48"}
    assert {event["structure"] for event in magic} == {"swiss", "single-elimination", "swiss-top8"}
    assert {event["level2_judge"] for event in events} == {"0", "1"}
    k_values = Counter(event["k"] or "16" for event in magic)
    assert k_values["16"] > k_values["48"] and k_values["8"] > k_values["48"]
    assert counts["events"] == 300 and counts["matches"] > 20_000


def test_team_events_bring_back_the_same_teams(default):
    directory, _ = default
    events = {event["id"]: event for event in rows(directory, "events.csv")}
    team_events = {code for code, event in events.items() if event["team_size"] == "3"}
    assert 12 <= len(team_events) <= 60
    assert {events[code]["format"] for code in team_events} <= MAGIC_FORMATS - {"vintage", "type-1.5"}
    played_in = defaultdict(set)
    for match in rows(directory, "matches.csv"):
        if match["event_id"] in team_events:
            for team in filter(None, (match["player1_id"], match["player2_id"])):
                played_in[team].add(match["event_id"])
    assert max(len(codes) for codes in played_in.values()) >= 3
    memberships = Counter(
        member
        for team in rows(directory, "teams.csv")
        for member in (team["member1"], team["member2"], team["member3"])
    )
    assert memberships.most_common(1)[0][1] >= 2  # a player on several teams
    member_sets = [
        frozenset((team["member1"], team["member2"], team["member3"])) for team in rows(directory, "teams.csv")
    ]
    assert len(set(member_sets)) == len(member_sets)  # the same members make the same team


def test_nobody_plays_two_events_on_one_day(small):
    """A player's day has one event in it (the demo world once sent people to two countries on one day)."""
    directory, _ = small
    day_of = {event["id"]: event["date"] for event in rows(directory, "events.csv")}
    seen: dict[tuple[str, str], str] = {}
    for match in rows(directory, "matches.csv"):
        for side in ("player1_id", "player2_id"):
            if match[side]:
                key = (match[side], day_of[match["event_id"]])
                assert seen.setdefault(key, match["event_id"]) == match["event_id"], key
    for standing in rows(directory, "standings.csv"):
        key = (standing["player_id"], day_of[standing["event_id"]])
        assert seen.setdefault(key, standing["event_id"]) == standing["event_id"], key


def test_a_store_is_in_one_city_and_an_annual_title_is_held_once(small):
    directory, _ = small
    events = rows(directory, "events.csv")
    cities_of_store: dict[str, set[str]] = {}  # the store as events name it -> the cities of its events
    for event in events:
        for store in STORES:
            if store in event["name"] and event["city"]:
                label = store + event["name"].split(store, 1)[1].split(" Open")[0].split(" League")[0]
                cities_of_store.setdefault(label, set()).add(event["city"])
    assert cities_of_store
    assert all(len(cities) == 1 for cities in cities_of_store.values()), cities_of_store
    annual = [event["name"] for event in events if event["name"][-4:].isdigit()]
    assert len(annual) == len(set(annual))
    assert all(team["name"] for team in rows(directory, "teams.csv"))  # every team has a name
