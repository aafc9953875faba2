#!/usr/bin/env python3
"""Convert public real match data into a results bundle (SPEC section 6).

For trying the importer and the rating engine on data nobody here made up.
It is a standalone tool: nothing in the project or its tests imports it, and
it only reads the source folder it is given.

Usage (from the project folder):

    python scripts/realdata_to_bundle.py SOURCE_DIR OUT_DIR --kind mtg|tennis
    .venv/bin/python manage.py import_results OUT_DIR --dry-run

    python scripts/realdata_to_bundle.py ../shared/realdata/mtg_protour /tmp/realdata-mtg --kind mtg
    python scripts/realdata_to_bundle.py ../shared/realdata/tennis_atp /tmp/realdata-tennis --kind tennis

OUT_DIR is created if needed; players.csv, events.csv, matches.csv (and for
tennis categories.csv) are written into it, replacing files of those names.
The script exits with status 1, writing nothing, when a source row cannot be
converted, and lists every such row.

--kind mtg: SOURCE_DIR holds tournaments.json and tournament-<id>-matches.json
(rounds -> tables, each with a ResultString and one or two competitors).
- Players: the registration ids change from one tournament to the next, so a
  player is identified by their display name (runs of spaces collapsed): id `mtg-<name slug>-<8 hex of
  sha1(name)>` (at most 32 characters, stable between runs). No country.
- Events: one per tournament, id `mtg-pt-<id>`, format `standard` (they are
  constructed Pro Tours), k 48, level2_judge 1, structure swiss, players
  blank (the number of distinct participants).
- Matches: the rounds of the data (e.g. 4-8 and 12-16) keep their numbers.
  "X won 2-1-0" (winner's games, loser's games, drawn games), "1-1-0 Draw",
  "X was assigned a bye" / "X was awarded a bye" (player2 blank).

--kind tennis: SOURCE_DIR holds atp_matches_<year>.csv (Jeff Sackmann's tennis_atp).
- categories.csv defines the format `tennis` and three categories on it, one
  per Elo ruleset: `tennis` (dci-2001, ranked after 10), `tennis-1997`
  (dci-1997, 25) and `tennis-mp` (match-points, 16).
- Players: id `atp-<player_id>`; country from the IOC code through a small
  table (unknown codes, e.g. POC, are left blank).
- Events: one per tourney_id, id `atp-<tourney_id>`, date tourney_date, k by
  tourney_level (G 48, M 40, A 32, others 16), level2_judge 1, players =
  draw_size (raised to the number of participants when the data names more,
  as the importer requires), structure from the rounds played.
- Rounds: RR < R128 < R64 < R32 < R16 < QF < SF < BR < F, matches within a
  stage by match_num. Round numbers are consecutive per event; a stage in
  which a player plays more than once (round robins, Davis Cup ties) is split
  into consecutive rounds, in match_num order, so that each player plays once
  per round. Knockout stages (all but RR) are elimination rounds.
- Games are sets won, from the winner's point of view ("6-3 4-6 7-6(5)",
  "[10-8]" match tie-breaks count as a set; a deciding match tie-break is
  credited to the listed winner, as a few Davis Cup rows print it the other
  way round, e.g. "6-2 5-7 [0-1]"). After a retirement or default
  (RET, DEF, Def.) only completed sets count, and a walkover (W/O) has none;
  when that leaves the listed winner without more sets than the loser, the
  winner is given one set more than the loser (a walkover becomes 1-0), so
  the result stays a win for the listed winner.
"""

import argparse
import csv
import hashlib
import json
import re
import sys
import unicodedata
from pathlib import Path

COLUMNS = {
    "categories.csv": ["slug", "name", "ruleset", "formats", "team_size", "ranked_after"],
    "players.csv": ["id", "name", "country", "region"],
    "events.csv": [
        "id",
        "name",
        "date",
        "format",
        "k",
        "players",
        "level2_judge",
        "team_size",
        "structure",
        "country",
        "city",
        "level",
    ],
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
}


class ConversionError(Exception):
    """Rows of the source data that cannot be converted (every problem, one per line)."""


def write_bundle(out_dir: Path, files: dict[str, list[dict]]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        with open(out_dir / name, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS[name], lineterminator="\n")
            writer.writeheader()
            for row in rows:
                writer.writerow(row)


# ---------------------------------------------------------------------------
# Magic: The Gathering Pro Tours
# ---------------------------------------------------------------------------

WON = re.compile(r"(?P<name>.+) won (?P<winner>\d+)-(?P<loser>\d+)-(?P<draws>\d+)")
DRAW = re.compile(r"(?P<games1>\d+)-(?P<games2>\d+)-(?P<draws>\d+) Draw")
BYE = re.compile(r"(?P<name>.+) was (?:assigned|awarded) a bye")


def mtg_player_id(name: str) -> str:
    """A stable membership number from a display name: mtg-<slug>-<hash>, at most 32 characters."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:18].strip("-")
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return f"mtg-{slug}-{digest}" if slug else f"mtg-{digest}"


def mtg_competitor_name(competitor: dict) -> str:
    players = competitor["Team"]["Players"]
    if len(players) != 1:
        raise ValueError(f"expected one player per competitor, found {len(players)}")
    return " ".join(players[0]["DisplayName"].split())


def mtg_match_row(event_id: str, round_number: int, table: dict) -> dict:
    """One matches.csv row from a table of the data; ValueError when the result cannot be read."""
    names = [mtg_competitor_name(competitor) for competitor in table["Competitors"]]
    result = " ".join(table["ResultString"].split())
    row = {"event_id": event_id, "round": round_number, "draws": 0, "elimination": 0}

    bye = BYE.fullmatch(result)
    if bye:
        if names != [bye["name"]]:
            raise ValueError(f"bye for {bye['name']!r} but the competitors are {names}")
        row.update(player1_id=mtg_player_id(names[0]), player2_id="", player1_games="", player2_games="")
        return row

    if len(names) != 2:
        raise ValueError(f"expected two competitors for {result!r}, found {names}")
    if names[0] == names[1]:
        raise ValueError(f"both competitors are named {names[0]!r}")
    row.update(player1_id=mtg_player_id(names[0]), player2_id=mtg_player_id(names[1]))

    won = WON.fullmatch(result)
    if won:
        winner_games, loser_games = int(won["winner"]), int(won["loser"])
        if winner_games <= loser_games:
            raise ValueError(f"{result!r}: the winner does not have more games")
        if won["name"] == names[0]:
            row.update(player1_games=winner_games, player2_games=loser_games)
        elif won["name"] == names[1]:
            row.update(player1_games=loser_games, player2_games=winner_games)
        else:
            raise ValueError(f"{result!r}: the winner is not one of {names}")
        row["draws"] = int(won["draws"])
        return row

    drawn = DRAW.fullmatch(result)
    if drawn:
        if drawn["games1"] != drawn["games2"]:
            raise ValueError(f"{result!r}: a draw with unequal games")
        row.update(player1_games=int(drawn["games1"]), player2_games=int(drawn["games2"]), draws=int(drawn["draws"]))
        return row

    raise ValueError(f"unknown result string {result!r}")


def convert_mtg(source: Path) -> dict[str, list[dict]]:
    tournaments = json.loads((source / "tournaments.json").read_text(encoding="utf-8"))
    tournaments.sort(key=lambda tournament: (tournament["date"], str(tournament["id"])))
    problems = []
    players: dict[str, dict] = {}  # id -> row
    events, matches = [], []
    for tournament in tournaments:
        path = source / f"tournament-{tournament['id']}-matches.json"
        if not path.is_file():
            problems.append(f"{path}: missing (listed in tournaments.json)")
            continue
        rounds = json.loads(path.read_text(encoding="utf-8"))
        event_id = f"mtg-pt-{tournament['id']}"
        events.append(
            {
                "id": event_id,
                "name": tournament["name"],
                "date": tournament["date"],
                "format": "standard",
                "k": 48,
                "players": "",
                "level2_judge": 1,
                "team_size": 1,
                "structure": "swiss",
                "country": "",
                "city": "",
                "level": "",
            }
        )
        for round_key in sorted(rounds, key=int):
            tables = sorted(rounds[round_key], key=lambda table: table.get("TableNumber") or 0)
            for table in tables:
                try:
                    row = mtg_match_row(event_id, int(round_key), table)
                    names = [mtg_competitor_name(competitor) for competitor in table["Competitors"]]
                except (ValueError, KeyError, TypeError) as exc:
                    problems.append(f"{path.name}: round {round_key} table {table.get('TableNumber')}: {exc}")
                    continue
                matches.append(row)
                for name in names:
                    player_id = mtg_player_id(name)
                    known = players.get(player_id)
                    if known and known["name"] != name:
                        problems.append(f"{path.name}: names {known['name']!r} and {name!r} share id {player_id}")
                    players[player_id] = {"id": player_id, "name": name, "country": "", "region": ""}
    if problems:
        raise ConversionError("\n".join(problems))
    return {
        "players.csv": sorted(players.values(), key=lambda row: row["id"]),
        "events.csv": events,
        "matches.csv": matches,
    }


# ---------------------------------------------------------------------------
# Tennis (ATP)
# ---------------------------------------------------------------------------

# IOC -> ISO 3166-1 alpha-2 for the codes in the 2022-2024 data. Not listed: POC (Pacific Oceania, a team).
IOC_TO_ISO = {
    "ARG": "AR",
    "AUS": "AU",
    "AUT": "AT",
    "BAR": "BB",
    "BEL": "BE",
    "BEN": "BJ",
    "BIH": "BA",
    "BLR": "BY",
    "BOL": "BO",
    "BRA": "BR",
    "BUL": "BG",
    "CAN": "CA",
    "CHI": "CL",
    "CHN": "CN",
    "COL": "CO",
    "CRC": "CR",
    "CRO": "HR",
    "CYP": "CY",
    "CZE": "CZ",
    "DEN": "DK",
    "DOM": "DO",
    "ECU": "EC",
    "EGY": "EG",
    "ESA": "SV",
    "ESP": "ES",
    "EST": "EE",
    "FIN": "FI",
    "FRA": "FR",
    "GBR": "GB",
    "GEO": "GE",
    "GER": "DE",
    "GRE": "GR",
    "HKG": "HK",
    "HUN": "HU",
    "INA": "ID",
    "IND": "IN",
    "IRI": "IR",
    "IRL": "IE",
    "ISR": "IL",
    "ITA": "IT",
    "JAM": "JM",
    "JOR": "JO",
    "JPN": "JP",
    "KAZ": "KZ",
    "KOR": "KR",
    "LAT": "LV",
    "LBN": "LB",
    "LIB": "LB",
    "LTU": "LT",
    "LUX": "LU",
    "MAR": "MA",
    "MDA": "MD",
    "MEX": "MX",
    "MON": "MC",
    "NED": "NL",
    "NMI": "MP",
    "NOR": "NO",
    "NZL": "NZ",
    "PAK": "PK",
    "PAR": "PY",
    "PER": "PE",
    "POL": "PL",
    "POR": "PT",
    "ROU": "RO",
    "RSA": "ZA",
    "RUS": "RU",
    "SLO": "SI",
    "SRB": "RS",
    "SUI": "CH",
    "SVK": "SK",
    "SWE": "SE",
    "TGO": "TG",
    "THA": "TH",
    "TOG": "TG",
    "TPE": "TW",
    "TUN": "TN",
    "TUR": "TR",
    "UKR": "UA",
    "URU": "UY",
    "USA": "US",
    "UZB": "UZ",
    "VAN": "VU",
    "VIE": "VN",
    "ZIM": "ZW",
}

# Stage order within a tourney; RR (round robin) comes before the knockout, BR (bronze) before the final.
STAGES = ["RR", "R128", "R64", "R32", "R16", "QF", "SF", "BR", "F"]
K_BY_LEVEL = {"G": 48, "M": 40, "A": 32}
SET_SCORE = re.compile(r"(?P<open>\[)?(?P<a>\d+)-(?P<b>\d+)(?:\(\d+\))?(?(open)\])")
STOPPED = {"RET", "DEF", "DEF.", "W/O"}  # retirement, default, walkover: the match stopped early or never began

TENNIS_CATEGORIES = [
    {
        "slug": "tennis",
        "name": "Tennis",
        "ruleset": "dci-2001",
        "formats": "tennis",
        "team_size": 1,
        "ranked_after": 10,
    },
    {
        "slug": "tennis-1997",
        "name": "Tennis (DCI 1997)",
        "ruleset": "dci-1997",
        "formats": "tennis",
        "team_size": 1,
        "ranked_after": 25,
    },
    {
        "slug": "tennis-mp",
        "name": "Tennis (match points)",
        "ruleset": "match-points",
        "formats": "tennis",
        "team_size": 1,
        "ranked_after": 16,
    },
]


def set_completed(winner_side: int, loser_side: int, tie_break: bool) -> bool:
    """Whether a set (or a bracketed match tie-break) score is a finished set."""
    high, low = max(winner_side, loser_side), min(winner_side, loser_side)
    if tie_break:
        return high >= 7 and high - low >= 2
    return (high >= 6 and high - low >= 2) or (high == 7 and low == 6)


def tennis_sets(score: str) -> tuple[int, int]:
    """(winner's sets, loser's sets) from a score written from the winner's side; ValueError if unreadable."""
    tokens = score.split()
    if not tokens:
        raise ValueError("empty score")
    stopped = tokens[-1].upper() in STOPPED
    set_tokens = tokens[:-1] if stopped else tokens
    sets = []
    for token in set_tokens:
        found = SET_SCORE.fullmatch(token)
        if not found:
            raise ValueError(f"unreadable set {token!r} in score {score!r}")
        sets.append((int(found["a"]), int(found["b"]), bool(found["open"])))
    won = lost = 0
    for position, (a, b, tie_break) in enumerate(sets):
        last = position == len(sets) - 1
        if stopped and last and not set_completed(a, b, tie_break):
            continue  # the set in progress when the match stopped
        if last and tie_break and not stopped:
            # A deciding match tie-break goes to the listed winner. A few Davis Cup rows
            # print it the other way round ("6-2 5-7 [0-1]", "4-6 7-5 [7-10]").
            won += 1
        elif a > b:
            won += 1
        elif b > a:
            lost += 1
        else:
            raise ValueError(f"a set without a winner in score {score!r}")
    if won <= lost:
        if not stopped:
            raise ValueError(f"the listed winner does not win more sets in score {score!r}")
        won = lost + 1
    return won, lost


def convert_tennis(source: Path) -> dict[str, list[dict]]:
    files = []
    for path in sorted(source.glob("atp_matches_*.csv")):
        if re.fullmatch(r"atp_matches_\d{4}\.csv", path.name) and path.is_file():
            files.append(path)
    if not files:
        raise ConversionError(f"{source}: no atp_matches_<year>.csv files")
    problems = []
    players: dict[str, dict] = {}
    tourneys: dict[str, dict] = {}  # tourney_id -> {"info": first row, "matches": [...]} in order of appearance
    unknown_ioc = set()
    for path in files:
        with open(path, encoding="utf-8", newline="") as handle:
            for line, row in enumerate(csv.DictReader(handle), start=2):
                where = f"{path.name}:{line}"
                stage = row["round"].strip()
                if stage not in STAGES:
                    problems.append(f"{where}: unknown round {stage!r}")
                    continue
                try:
                    won, lost = tennis_sets(row["score"])
                    match_num = int(row["match_num"])
                    draw_size = int(row["draw_size"]) if row["draw_size"].strip() else 0
                    day = row["tourney_date"].strip()
                    if not re.fullmatch(r"\d{8}", day):
                        raise ValueError(f"tourney_date {day!r} is not YYYYMMDD")
                    iso_day = f"{day[0:4]}-{day[4:6]}-{day[6:8]}"
                except ValueError as exc:
                    problems.append(f"{where}: {exc}")
                    continue
                winner, loser = f"atp-{row['winner_id'].strip()}", f"atp-{row['loser_id'].strip()}"
                for side, player_id in (("winner", winner), ("loser", loser)):
                    ioc = row[f"{side}_ioc"].strip().upper()
                    if ioc and ioc not in IOC_TO_ISO:
                        unknown_ioc.add(ioc)
                    players[player_id] = {
                        "id": player_id,
                        "name": row[f"{side}_name"].strip(),
                        "country": IOC_TO_ISO.get(ioc, ""),
                        "region": "",
                    }
                tourney = tourneys.setdefault(
                    row["tourney_id"].strip(),
                    {
                        "name": row["tourney_name"].strip(),
                        "date": iso_day,
                        "level": row["tourney_level"].strip(),
                        "draw_size": draw_size,
                        "matches": [],
                    },
                )
                order = (STAGES.index(stage), match_num, len(tourney["matches"]))
                tourney["matches"].append((order, stage, winner, loser, won, lost))
    if problems:
        raise ConversionError("\n".join(problems))
    if unknown_ioc:
        print(f"IOC codes without a country (left blank): {', '.join(sorted(unknown_ioc))}", file=sys.stderr)

    events, matches = [], []
    ordered = sorted(enumerate(tourneys.items()), key=lambda item: (item[1][1]["date"], item[0]))
    for _, (tourney_id, tourney) in ordered:
        event_id = f"atp-{tourney_id}"
        participants = set()
        round_number = 0
        current_stage = None
        seated: set[str] = set()
        for _order, stage, winner, loser, won, lost in sorted(tourney["matches"]):
            if stage != current_stage or winner in seated or loser in seated:
                round_number += 1
                current_stage = stage
                seated = set()
            seated.update((winner, loser))
            participants.update((winner, loser))
            matches.append(
                {
                    "event_id": event_id,
                    "round": round_number,
                    "player1_id": winner,
                    "player2_id": loser,
                    "player1_games": won,
                    "player2_games": lost,
                    "draws": 0,
                    "elimination": 0 if stage == "RR" else 1,
                }
            )
        stages = {stage for _order, stage, *_rest in tourney["matches"]}
        if stages == {"RR"}:
            structure = "swiss"
        elif "RR" in stages:
            structure = "swiss-top8"
        else:
            structure = "single-elimination"
        events.append(
            {
                "id": event_id,
                "name": tourney["name"],
                "date": tourney["date"],
                "format": "tennis",
                "k": K_BY_LEVEL.get(tourney["level"], 16),
                "players": max(tourney["draw_size"], len(participants)),
                "level2_judge": 1,
                "team_size": 1,
                "structure": structure,
                "country": "",
                "city": "",
                "level": "",
            }
        )
    return {
        "categories.csv": TENNIS_CATEGORIES,
        "players.csv": sorted(players.values(), key=lambda row: row["id"]),
        "events.csv": events,
        "matches.csv": matches,
    }


# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Convert public real match data into a results bundle (SPEC 6).")
    parser.add_argument("source", type=Path, help="folder of the source data (mtg_protour/ or tennis_atp/)")
    parser.add_argument("out", type=Path, help="folder to write the bundle's CSV files into")
    parser.add_argument("--kind", required=True, choices=["mtg", "tennis"], help="which data set SOURCE holds")
    args = parser.parse_args(argv)
    if not args.source.is_dir():
        parser.error(f"{args.source} is not a folder")
    convert = convert_mtg if args.kind == "mtg" else convert_tennis
    try:
        files = convert(args.source)
    except ConversionError as problems:
        print(problems, file=sys.stderr)
        print("nothing was written", file=sys.stderr)
        return 1
    write_bundle(args.out, files)
    counts = ", ".join(f"{name}: {len(rows)}" for name, rows in files.items())
    print(f"wrote {args.out}: {counts}")
    byes = sum(1 for row in files["matches.csv"] if not row["player2_id"])
    if byes:
        print(f"({byes} of the matches are byes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
