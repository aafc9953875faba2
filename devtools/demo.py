"""A made-up but plausible world of players and tournaments, written as a results bundle (SPEC 6).

Pure Python: no ORM, so the same bundle serves the demo site (`manage.py
seed_demo`), the importer's tests and benchmarks. Everything comes from one
`random.Random(seed)`, so a seed always gives the same files.

Rows are streamed to the CSV writers event by event: a world of 100,000
players and a million matches never sits in memory as rows.
"""

import csv
import math
import random
import zlib
from array import array
from bisect import bisect_right
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from itertools import accumulate, zip_longest
from pathlib import Path

import pycountry

from players.geography import CONTINENT_NAMES_ENGLISH, continent_of

PLAYER_COLUMNS = ("id", "name", "country", "region")
TEAM_COLUMNS = ("id", "name", "member1", "member2", "member3")
EVENT_COLUMNS = (
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
)
MATCH_COLUMNS = (
    "event_id",
    "round",
    "player1_id",
    "player2_id",
    "player1_games",
    "player2_games",
    "draws",
    "elimination",
)
STANDING_COLUMNS = ("event_id", "player_id", "rank", "vp", "gw", "final")

MAGIC_FORMATS = {  # format: (relative frequency, label used in event names)
    "standard": (30, "Standard"),
    "booster-draft": (20, "Booster Draft"),
    "sealed": (12, "Sealed Deck"),
    "extended": (10, "Extended"),
    "block": (9, "Block Constructed"),
    "vintage": (5, "Vintage"),
    "type-1.5": (4, "Type 1.5"),
    "rochester-draft": (3, "Rochester Draft"),
}
TEAM_FORMATS = {"standard": 3, "sealed": 3, "booster-draft": 3, "rochester-draft": 2, "block": 1, "extended": 1}
K_WEIGHTS = {8: 30, 16: 40, 24: 9, 32: 11, 40: 7, 48: 3}
TEAM_K_WEIGHTS = {8: 5, 16: 45, 24: 25, 32: 17, 40: 8}
VTES_LEVELS = {"": 79, "national": 10, "continental-qualifier": 8, "continental": 3}
LEVEL2_JUDGE_CHANCE = {8: 0.05, 16: 0.3, 24: 0.7, 32: 0.9, 40: 1.0, 48: 1.0}

# Shares of event kinds; team events are "a few dozen" in the default world.
VTES_SHARE = 0.15
TEAM_SHARE = 0.09

# code: (Magic weight, V:EKN weight, where names come from). The V:EKN weights follow the archive of
# tournament-winning decks: the US and Brazil first, then Spain and Finland.
COUNTRIES = {
    "US": (30, 20, "en"),
    "JP": (8, 0.2, "ja"),
    "DE": (7, 2.5, "de"),
    "FR": (5, 6, "fr"),
    "GB": (5, 3, "en"),
    "IT": (5, 5, "it"),
    "ES": (4, 7, "es"),
    "BR": (4, 17, "pt"),
    "CA": (4, 2, "en fr"),
    "AU": (3, 2.3, "en"),
    "NL": (2, 1.2, "nl"),
    "SE": (1.5, 4.5, "nordic"),
    "PL": (2, 4, "pl"),
    "CZ": (1.5, 1.7, "cs"),
    "AR": (1.5, 0.4, "es"),
    "MX": (1.5, 0.7, "es"),
    "KR": (1.5, 0.1, "ko"),
    "CN": (2, 0.1, "zh"),
    "TW": (1, 0, "zh"),
    "BE": (1, 0.8, "nl fr"),
    "AT": (1, 0.3, "de"),
    "CH": (1, 0.3, "de fr it"),
    "PT": (1, 1.5, "pt"),
    "FI": (1, 7, "fi"),
    "NO": (0.7, 0.5, "nordic"),
    "DK": (0.7, 0.5, "nordic"),
    "RU": (1.5, 0.5, "ru"),
    "HU": (0.8, 3, "hu"),
    "RS": (0.3, 0.7, "sr"),
    "IE": (0.5, 0.3, "en"),
    "NZ": (0.6, 0.2, "en"),
    "ZA": (0.5, 0.6, "en"),
    "SG": (0.6, 0.1, "zh en"),
    "HK": (0.5, 0, "zh"),
    "PH": (1, 0.8, "tl"),
    "CL": (1, 1.1, "es"),
    "CO": (0.7, 0.2, "es"),
}

# Tournament cities, biggest first, with the ISO 3166-2 region they are in.
CITIES = {
    "US": (
        "Seattle US-WA, Los Angeles US-CA, San Francisco US-CA, New York US-NY, Chicago US-IL, Boston US-MA, "
        "Austin US-TX, Atlanta US-GA, Minneapolis US-MN, Denver US-CO, Philadelphia US-PA"
    ),
    "JP": "Tokyo JP-13, Osaka JP-27, Yokohama JP-14, Nagoya JP-23, Fukuoka JP-40, Sapporo JP-01",
    "DE": (
        "Berlin DE-BE, Hamburg DE-HH, München DE-BY, Köln DE-NW, Frankfurt am Main DE-HE, Stuttgart DE-BW, "
        "Leipzig DE-SN"
    ),
    "FR": (
        "Paris FR-IDF, Lyon FR-ARA, Marseille FR-PAC, Toulouse FR-OCC, Lille FR-HDF, Bordeaux FR-NAQ, "
        "Nantes FR-PDL, Strasbourg FR-GES, Rennes FR-BRE"
    ),
    "GB": (
        "London GB-ENG, Manchester GB-ENG, Birmingham GB-ENG, Edinburgh GB-SCT, Glasgow GB-SCT, "
        "Cardiff GB-WLS, Belfast GB-NIR"
    ),
    "IT": "Milano IT-25, Roma IT-62, Torino IT-21, Bologna IT-45, Firenze IT-52, Napoli IT-72, Padova IT-34",
    "ES": "Madrid ES-MD, Barcelona ES-CT, Valencia ES-VC, Sevilla ES-AN, Bilbao ES-PV, Zaragoza ES-AR, Málaga ES-AN",
    "BR": (
        "São Paulo BR-SP, Rio de Janeiro BR-RJ, Belo Horizonte BR-MG, Porto Alegre BR-RS, Curitiba BR-PR, "
        "Brasília BR-DF, Salvador BR-BA, Recife BR-PE"
    ),
    "CA": "Toronto CA-ON, Montréal CA-QC, Vancouver CA-BC, Calgary CA-AB, Ottawa CA-ON, Winnipeg CA-MB",
    "AU": "Sydney AU-NSW, Melbourne AU-VIC, Brisbane AU-QLD, Perth AU-WA, Adelaide AU-SA, Canberra AU-ACT",
    "NL": "Amsterdam NL-NH, Rotterdam NL-ZH, Utrecht NL-UT, Eindhoven NL-NB, Groningen NL-GR",
    "SE": "Stockholm SE-AB, Göteborg SE-O, Malmö SE-M, Uppsala SE-C, Linköping SE-E",
    "PL": "Warszawa PL-14, Kraków PL-12, Wrocław PL-02, Poznań PL-30, Gdańsk PL-22, Łódź PL-10",
    "CZ": "Praha CZ-10, Brno CZ-64, Ostrava CZ-80, Plzeň CZ-32",
    "AR": "Buenos Aires AR-C, Córdoba AR-X, Rosario AR-S, Mendoza AR-M, La Plata AR-B",
    "MX": "Ciudad de México MX-CMX, Guadalajara MX-JAL, Monterrey MX-NLE, Puebla MX-PUE",
    "KR": "Seoul KR-11, Busan KR-26, Incheon KR-28, Daejeon KR-30",
    "CN": "Beijing CN-BJ, Shanghai CN-SH, Guangzhou CN-GD, Shenzhen CN-GD, Chengdu CN-SC, Hangzhou CN-ZJ",
    "TW": "Taipei TW-TPE, Kaohsiung TW-KHH, Taichung TW-TXG",
    "BE": "Bruxelles BE-BRU, Antwerpen BE-VLG, Gent BE-VLG, Liège BE-WAL",
    "AT": "Wien AT-9, Graz AT-6, Linz AT-4, Salzburg AT-5, Innsbruck AT-7",
    "CH": "Zürich CH-ZH, Genève CH-GE, Basel CH-BS, Bern CH-BE, Lausanne CH-VD",
    "PT": "Lisboa PT-11, Porto PT-13, Braga PT-03, Coimbra PT-06",
    "FI": "Helsinki FI-18, Tampere FI-11, Turku FI-19, Oulu FI-14, Jyväskylä FI-08",
    "NO": "Oslo NO-03, Bergen NO-46, Trondheim NO-50, Stavanger NO-11",
    "DK": "København DK-84, Aarhus DK-82, Odense DK-83, Aalborg DK-81",
    "RU": "Moskva RU-MOW, Sankt-Peterburg RU-SPE, Novosibirsk RU-NVS, Yekaterinburg RU-SVE",
    "HU": "Budapest HU-BU, Debrecen HU-DE, Szeged HU-SD, Pécs HU-PS",
    "RS": "Beograd RS-00, Novi Sad RS-VO",
    "IE": "Dublin IE-L, Cork IE-M, Galway IE-C",
    "NZ": "Auckland NZ-AUK, Wellington NZ-WGN, Christchurch NZ-CAN",
    "ZA": "Johannesburg ZA-GP, Cape Town ZA-WC, Durban ZA-KZN, Pretoria ZA-GP",
    "SG": "Singapore SG-01",
    "HK": "Hong Kong",  # no ISO 3166-2 subdivisions: Hong Kong players have no region
    "PH": "Manila PH-00, Quezon City PH-00, Cebu City PH-07, Davao City PH-11",
    "CL": "Santiago CL-RM, Valparaíso CL-VS, Concepción CL-BI",
    "CO": "Bogotá CO-DC, Medellín CO-ANT, Cali CO-VAC",
}

# ISO 3166-2 lists Taiwan as a province of China; Taiwanese players have their own country code.
NOT_REGIONS = {"CN-TW"}

NAMES = {  # culture: (given names, family names)
    "en": (
        "James, Mary, Michael, Jennifer, David, Sarah, Chris, Emily, Daniel, Jessica, Matthew, Ashley, Andrew, "
        "Megan, Ryan, Lauren, Brian, Rachel, Kevin, Nicole, Tyler, Hannah, Jon, Zoe",
        "Smith, Johnson, Williams, Brown, Jones, Miller, Davis, Wilson, Anderson, Taylor, Thomas, Moore, Martin, "
        "Jackson, Thompson, White, Harris, Clark, Lewis, Walker, O'Brien, Nguyen, Patel, Campbell, MacDonald",
    ),
    "de": (
        "Lukas, Anna, Jonas, Lea, Felix, Sophie, Maximilian, Laura, Tobias, Julia, Sebastian, Katharina, Jan, "
        "Lena, Florian, Marie, Jürgen, Sabine, Niklas, Jörg",
        "Müller, Schmidt, Schneider, Fischer, Weber, Meyer, Wagner, Becker, Schulz, Hoffmann, Schäfer, Koch, "
        "Bauer, Richter, Klein, Wolf, Schröder, Neumann, Zimmermann, Krüger",
    ),
    "fr": (
        "Lucas, Camille, Hugo, Léa, Thomas, Manon, Nicolas, Chloé, Antoine, Émilie, Julien, Sarah, Guillaume, "
        "Inès, Mathieu, Céline, Jean-Baptiste, Marie-Claire, Raphaël, Zoé",
        "Martin, Bernard, Dubois, Thomas, Robert, Richard, Petit, Durand, Leroy, Moreau, Simon, Laurent, "
        "Lefèvre, Michel, Garcia, David, Bertrand, Roux, Fournier, Girard, de La Fontaine",
    ),
    "it": (
        "Marco, Giulia, Alessandro, Francesca, Luca, Chiara, Matteo, Sara, Andrea, Valentina, Davide, Elena, "
        "Simone, Martina, Federico, Alessia, Niccolò, Ilaria",
        "Rossi, Russo, Ferrari, Esposito, Bianchi, Romano, Colombo, Ricci, Marino, Greco, Bruno, Gallo, Conti, "
        "De Luca, Mancini, Costa, Giordano, Rizzo, Lombardi, Moretti",
    ),
    "es": (
        "Alejandro, María, Pablo, Lucía, Javier, Carmen, Diego, Laura, Sergio, Paula, Andrés, Elena, Carlos, "
        "Marta, Álvaro, Sofía, José Luis, Ana Belén, Iñaki, Nuria",
        "García, Fernández, González, Rodríguez, López, Martínez, Sánchez, Pérez, Gómez, Martín, Jiménez, Ruiz, "
        "Hernández, Díaz, Moreno, Muñoz, Álvarez, Romero, de la Cruz, Castillo",
    ),
    "pt": (
        "João, Maria, Pedro, Ana, Lucas, Beatriz, Gabriel, Mariana, Rafael, Juliana, Gustavo, Camila, Thiago, "
        "Larissa, Bruno, Fernanda, Felipe, Letícia, Vinícius, Luíza",
        "Silva, Santos, Oliveira, Souza, Rodrigues, Ferreira, Alves, Pereira, Lima, Gomes, Costa, Ribeiro, "
        "Martins, Carvalho, Almeida, Lopes, Araújo, Barbosa, Conceição, Gonçalves",
    ),
    "nl": (
        "Daan, Emma, Sem, Julia, Lars, Sanne, Bram, Lotte, Thijs, Fleur, Jeroen, Anouk, Ruben, Eva, Pieter, "
        "Marieke, Sven, Ilse",
        "de Jong, Jansen, de Vries, van den Berg, van Dijk, Bakker, Janssens, Visser, Smit, Meijer, de Boer, "
        "Mulder, de Groot, Bos, Vos, Peeters, Maes, Willems",
    ),
    "nordic": (
        "Erik, Anna, Lars, Ingrid, Johan, Sofia, Mikael, Karin, Anders, Emma, Oskar, Astrid, Henrik, Maja, "
        "Magnus, Sigrid, Björn, Linnéa, Søren, Åsa",
        "Andersson, Johansson, Karlsson, Nilsson, Eriksson, Larsson, Olsen, Hansen, Jensen, Nielsen, Pedersen, "
        "Lindqvist, Berg, Haugen, Johansen, Sørensen, Lindström, Åberg",
    ),
    "fi": (
        "Mikko, Aino, Juha, Elina, Antti, Laura, Janne, Hanna, Ville, Sanna, Teemu, Johanna, Jukka, Riikka, "
        "Tuomas, Päivi, Eetu, Sini",
        "Korhonen, Virtanen, Mäkinen, Nieminen, Mäkelä, Hämäläinen, Laine, Heikkinen, Koskinen, Järvinen, "
        "Lehtonen, Lehtinen, Saarinen, Salminen, Heinonen, Niemi, Kinnunen, Salonen",
    ),
    "pl": (
        "Piotr, Anna, Krzysztof, Katarzyna, Tomasz, Agnieszka, Paweł, Magdalena, Michał, Joanna, Marcin, "
        "Monika, Łukasz, Małgorzata, Jakub, Aleksandra, Grzegorz, Zofia",
        "Nowak, Kowalski, Wiśniewski, Wójcik, Kowalczyk, Kamiński, Lewandowski, Zieliński, Szymański, Woźniak, "
        "Dąbrowski, Kozłowski, Jankowski, Mazur, Kwiatkowski, Krawczyk, Grabowski, Pawłowski",
    ),
    "cs": (
        "Jan, Tereza, Petr, Eliška, Tomáš, Lucie, Martin, Kateřina, Jakub, Veronika, Ondřej, Barbora, Jiří, "
        "Markéta, Lukáš, Zuzana",
        "Novák, Svoboda, Novotný, Dvořák, Černý, Procházka, Kučera, Veselý, Horák, Němec, Marek, Pokorný, "
        "Král, Růžička, Beneš, Fiala",
    ),
    "hu": (
        "Bence, Anna, Máté, Eszter, Dávid, Réka, Balázs, Zsófia, Gergő, Katalin, Levente, Dóra, Ádám, Noémi, "
        "Péter, Boglárka",
        "Nagy, Kovács, Tóth, Szabó, Horváth, Varga, Kiss, Molnár, Németh, Farkas, Balogh, Papp, Takács, "
        "Juhász, Lakatos, Mészáros",
    ),
    "ja": (
        "Hiroshi, Yuki, Takashi, Haruka, Kenji, Ayaka, Shota, Misaki, Daisuke, Yui, Ryo, Sakura, Tomoharu, Nao, "
        "Kazuki, Mai, Yuuya, Kotaro",
        "Sato, Suzuki, Takahashi, Tanaka, Watanabe, Ito, Yamamoto, Nakamura, Kobayashi, Kato, Yoshida, Yamada, "
        "Sasaki, Yamaguchi, Matsumoto, Inoue, Kimura, Hayashi, Saito, Shimizu",
    ),
    "ko": (
        "Min-jun, Seo-yeon, Ji-hoon, Ji-woo, Hyun-woo, Soo-ah, Dong-hyun, Ha-eun, Jae-won, Yuna, Sung-min, "
        "Eun-ji, Tae-yang, Da-eun",
        "Kim, Lee, Park, Choi, Jung, Kang, Cho, Yoon, Jang, Lim, Han, Oh, Seo, Shin",
    ),
    "zh": (
        "Wei, Fang, Jun, Li Na, Hao, Xin, Jie, Mei, Lei, Yan, Tao, Jing, Chen, Ying, Zhiwei, Xiaoming, Ka Wai, "
        "Wing Yan",
        "Wang, Li, Zhang, Liu, Chen, Yang, Huang, Zhao, Wu, Zhou, Xu, Sun, Ma, Zhu, Hu, Lin, Wong, Chan, Tan",
    ),
    "ru": (
        "Aleksandr, Anastasia, Dmitry, Maria, Sergey, Ekaterina, Andrey, Olga, Ivan, Natalia, Mikhail, Yulia, "
        "Nikita, Daria",
        "Ivanov, Smirnov, Kuznetsov, Popov, Vasiliev, Petrov, Sokolov, Mikhailov, Novikov, Fedorov, Morozov, "
        "Volkov, Lebedev, Kozlov",
    ),
    "sr": (
        "Marko, Jelena, Nikola, Milica, Stefan, Ana, Luka, Jovana, Nemanja, Ivana, Miloš, Tijana",
        "Jovanović, Petrović, Nikolić, Marković, Đorđević, Stojanović, Ilić, Stanković, Pavlović, Milošević, "
        "Popović, Kostić",
    ),
    "tl": (
        "Juan, Maria, Jose, Ana, Mark, Kristine, John Paul, Angelica, Miguel, Patricia, Rafael, Camille, Paolo, "
        "Bea, Jerome, Rica",
        "Santos, Reyes, Cruz, Bautista, Ocampo, Garcia, Mendoza, Torres, Tomas, Andrada, Castillo, Flores, "
        "Villanueva, Ramos, Aquino, dela Cruz",
    ),
}

STORES = [
    "The Dragon's Lair",
    "Mox Boarding House",
    "Spellbound Games",
    "The Goblin Hut",
    "Nerd Haven",
    "Card Kingdom",
    "The Rusty Golem",
    "Planeswalker's Rest",
    "Tolarian Academy",
    "Sol Ring Cards",
    "Black Lotus Lounge",
    "The Sleeping Griffin",
    "Owlbear Games",
    "Mana Leak Café",
]
TEAM_WORDS = (
    "Tolarian, Mana, Dark, Arcane, Sligh, Urza's, Shivan, Serra, Phyrexian, Goblin, Elvish, Mirror",
    "Wizards, Drakes, Confidants, Brothers, Legion, Academy, Collective, Syndicate, Guild, Circle, Tappers",
)
VTES_EVENT_NAMES = [
    "Open",
    "Cup",
    "Gehenna",
    "Blood Moon",
    "Night of the Kindred",
    "Conclave",
    "Sabbat War",
    "Jyhad",
    "Elysium",
    "Masquerade",
]

# Each participant's pool, from near to far: the event's region, its country, its continent, the world.
# How often a seat goes to each, by the kind of event: store events are local, premier events draw travellers.
TRAVEL = {
    "local": (0.60, 0.30, 0.07, 0.03),
    "regional": (0.25, 0.55, 0.15, 0.05),
    "premier": (0.10, 0.40, 0.35, 0.15),
    "online": (0.0, 0.0, 0.0, 1.0),
}

_CULTURES = list(NAMES)
_NAME_LISTS = {culture: (given.split(", "), family.split(", ")) for culture, (given, family) in NAMES.items()}
_TEAM_WORDS = [words.split(", ") for words in TEAM_WORDS]

COVID_PAUSE = (date(2020, 3, 15), date(2021, 6, 30))  # in-store play all but stopped
GAME_DRAW = 0.01  # a single game ends drawn
TIME_CALLED = 0.05  # the round ends before a match that went to a third game is finished
VTES_TIME_OUT = 0.1  # per oust: the table runs out of time first


@dataclass(slots=True)
class _Country:
    code: str
    name: str
    continent: str
    cultures: list[str]
    cities: list[tuple[str, str]]  # (city, region)
    regions: list[str]  # a handful more where players live, away from the tournament cities


@dataclass(slots=True)
class _Pool:
    """Players of one place, oldest debut first, so those active by a date are a prefix."""

    members: array
    debuts: array
    cumulative: array  # running total of the members' activity: draws favour regulars


@dataclass(slots=True)
class _Plan:
    day: int  # days after the start date
    kind: str  # "magic", "team" or "vtes"
    format: str
    k: int
    size: int
    structure: str
    level: str
    tier: str
    country: str
    city: str
    region: str
    name: str


class _World:
    """Hidden truths about the players: how good and how active, and when they played."""

    def __init__(self):
        self.ids: list[str] = []
        self.strength = array("d")
        self.activity = array("d")
        self.debut = array("i")
        self.retire = array("i")
        self.pools: dict[tuple, _Pool] = {}
        self.busy_day = -1  # events come in date order: the players at an event that day, so none plays two
        self.busy: set[int] = set()

    def busy_on(self, day: int) -> set[int]:
        """Who plays an event on `day` already (the set to add to)."""
        if day != self.busy_day:
            self.busy_day, self.busy = day, set()
        return self.busy


def demo_bundle_write(
    directory: Path,
    *,
    players: int = 3000,
    events: int = 300,
    seed: int = 1,
    start: date = date(2019, 1, 1),
    end: date = date(2026, 10, 31),
) -> dict:
    """Write players.csv, teams.csv, events.csv, matches.csv and standings.csv into `directory`.

    Returns how many rows each file got: players, teams, events, matches, standings.
    Events too small to hold (a tiny world) are left out, so `events` is an upper bound.
    """
    if end < start:
        raise ValueError("end is before start")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    span = (end - start).days + 1
    counts = dict.fromkeys(("players", "teams", "events", "matches", "standings"), 0)
    with ExitStack() as stack:
        writers = {}
        for name, columns in (
            ("players", PLAYER_COLUMNS),
            ("teams", TEAM_COLUMNS),
            ("events", EVENT_COLUMNS),
            ("matches", MATCH_COLUMNS),
            ("standings", STANDING_COLUMNS),
        ):
            handle = stack.enter_context(open(directory / f"{name}.csv", "w", newline="", encoding="utf-8"))
            writers[name] = csv.writer(handle, lineterminator="\n")
            writers[name].writerow(columns)

        countries = _countries(rng)
        world = _players_write(rng, writers["players"], players, span, countries)
        counts["players"] = players
        teams = _Teams(writers["teams"])
        plans = _event_plans(rng, events, span, start, countries)
        for plan in plans:
            number = counts["events"] + 1
            event_id = f"E{number:05d}"
            if plan.kind == "vtes":
                written = _vtes_event(rng, world, plan, event_id, writers["standings"])
                counts["standings"] += written
            else:
                written = _magic_event(rng, world, teams, plan, event_id, writers["matches"])
                counts["matches"] += written
            if not written:
                continue  # too few players around for this event: it did not happen
            counts["events"] += 1
            # Blank: the importer counts the participants. Team events leave it blank: whether it would
            # count people or teams is not settled by the SPEC.
            size = "" if plan.kind == "team" or rng.random() < 0.12 else plan.size
            k = "" if plan.kind == "vtes" or (plan.k == 16 and rng.random() < 0.1) else plan.k
            judge = int(rng.random() < (0.1 if plan.kind == "vtes" else LEVEL2_JUDGE_CHANCE[plan.k]))
            writers["events"].writerow(
                (
                    event_id,
                    plan.name,
                    (start + timedelta(days=plan.day)).isoformat(),
                    plan.format,
                    k,
                    size,
                    judge,
                    3 if plan.kind == "team" else 1,
                    plan.structure,
                    plan.country,
                    plan.city,
                    plan.level,
                )
            )
        counts["teams"] = teams.count
    return counts


# Geography and players -------------------------------------------------------


@cache
def _top_level_regions(country: str) -> dict[str, str]:
    """Top-level ISO 3166-2 subdivisions: code -> type (state, province, ...)."""
    subdivisions = pycountry.subdivisions.get(country_code=country) or []
    return {each.code: each.type for each in subdivisions if each.parent_code is None and each.code not in NOT_REGIONS}


def _countries(rng: random.Random) -> dict[str, _Country]:
    countries = {}
    for code, (_, _, cultures) in COUNTRIES.items():
        regions = _top_level_regions(code)
        cities = []
        for entry in CITIES[code].split(", "):
            city, _, region = entry.rpartition(" ")
            if "-" not in region:  # a city without a region, e.g. Hong Kong
                city, region = entry, ""
            cities.append((city, region if region in regions else ""))
        # Beyond the cities, a handful of the country's main kind of subdivision
        # (states, prefectures, ...): not its overseas or outlying territories.
        kinds = list(regions.values())
        main_kind = max(sorted(set(kinds)), key=kinds.count) if kinds else ""
        others = sorted(region for region, kind in regions.items() if kind == main_kind)
        city_regions = {region for _, region in cities}
        extra = [region for region in others if region not in city_regions]
        country = pycountry.countries.get(alpha_2=code)
        countries[code] = _Country(
            code=code,
            name=getattr(country, "common_name", country.name),
            continent=continent_of(code),
            cultures=cultures.split(),
            cities=cities,
            regions=rng.sample(extra, min(5, len(extra))),
        )
    return countries


def _player_name(rng: random.Random, cultures: list[str]) -> str:
    # Some players' families come from elsewhere: names are not a passport.
    culture = rng.choice(_CULTURES) if rng.random() < 0.08 else rng.choice(cultures)
    given, family = _NAME_LISTS[culture]
    return f"{rng.choice(given)} {rng.choice(family)}"


def _membership_number(rng: random.Random, game: str, taken: set[str]) -> str:
    while True:
        if game == "vtes":
            number = str(rng.randrange(1_000_000, 10_000_000))  # V:EKN numbers have 7 digits
        elif rng.random() < 0.05:
            number = str(rng.randrange(10_000_000, 100_000_000))  # an old 8-digit DCI number
        else:
            number = str(rng.randrange(1_000_000_000, 10_000_000_000))
        if number not in taken:
            taken.add(number)
            return number


def _players_write(rng, writer, count: int, span: int, countries: dict[str, _Country]) -> _World:
    world = _World()
    codes = list(countries)
    magic_weights = list(accumulate(COUNTRIES[code][0] for code in codes))
    vtes_weights = list(accumulate(COUNTRIES[code][1] for code in codes))
    taken: set[str] = set()
    members: dict[tuple, list[int]] = {}
    for index in range(count):
        # Two communities that barely overlap: Magic players and Vampire players.
        roll = rng.random()
        games = ("magic",) if roll < 0.85 else ("vtes",) if roll < 0.97 else ("magic", "vtes")
        country_code = rng.choices(codes, cum_weights=vtes_weights if games == ("vtes",) else magic_weights)[0]
        if rng.random() < 0.01:  # membership form left blank
            country, region, continent = None, "", ""
        else:
            country = countries[country_code]
            continent = country.continent
            roll = rng.random()
            if roll < 0.15:
                region = ""  # not given
            elif roll < 0.3 and country.regions:
                region = rng.choice(country.regions)
            else:
                region = _city(rng, country)[1]  # most live near a tournament city, the big ones first
        number = _membership_number(rng, games[-1], taken)
        name = _player_name(rng, country.cultures if country else _CULTURES)
        writer.writerow((number, name, country.code if country else "", region))

        activity = rng.lognormvariate(0, 1.0)  # a few regulars, many who come now and then
        world.ids.append(number)
        world.activity.append(activity)
        world.strength.append(rng.gauss(1600, 170) + 40 * math.log(activity))  # practice helps
        debut = int(rng.uniform(-0.25, 0.95) * span)
        career = span * 10 if rng.random() < 0.25 else 60 + int(rng.expovariate(1 / (0.45 * span)))
        world.debut.append(debut)
        world.retire.append(debut + career)
        for game in games:
            keys = [(game,)]
            if country:
                keys += [(game, continent), (game, country.code)]
                if region:
                    keys.append((game, region))
            for key in keys:
                members.setdefault(key, []).append(index)

    for key, indexes in members.items():
        world.pools[key] = _pool(world, indexes)
    # Pro Tour invitations go to the strongest fifth.
    magic = members.get(("magic",), [])
    cutoff = sorted(world.strength[i] for i in magic)[-max(1, len(magic) // 5)] if magic else 0
    world.pools[("elite",)] = _pool(world, [i for i in magic if world.strength[i] >= cutoff])
    return world


def _pool(world: _World, indexes: list[int]) -> _Pool:
    indexes.sort(key=world.debut.__getitem__)
    return _Pool(
        members=array("i", indexes),
        debuts=array("i", (world.debut[i] for i in indexes)),
        cumulative=array("d", accumulate(world.activity[i] for i in indexes)),
    )


def _pool_draw(rng: random.Random, world: _World, pool: _Pool | None, day: int) -> int | None:
    """A player of the pool who has debuted by `day`, regulars more likely; None when nobody has."""
    if pool is None:
        return None
    active = bisect_right(pool.debuts, day)
    if not active:
        return None
    player = pool.members[bisect_right(pool.cumulative, rng.random() * pool.cumulative[active - 1], 0, active - 1)]
    return player if world.retire[player] >= day else None


def _participants_draw(rng, world: _World, game: str, plan: _Plan, count: int, *, tier=None, exclude=()) -> list[int]:
    """Up to `count` distinct players active on the event's day, mostly local, some travellers."""
    tier = tier or plan.tier
    if tier == "elite":
        ladder = [world.pools.get(("elite",)), world.pools.get((game,))]
        shares = (0.8, 0.2)
    else:
        continent = continent_of(plan.country)
        ladder = [world.pools.get(key) for key in ((game, plan.region), (game, plan.country), (game, continent))]
        ladder.append(world.pools.get((game,)))
        shares = TRAVEL[tier]
    cumulative = list(accumulate(shares))
    chosen: list[int] = []
    busy = world.busy_on(plan.day)  # one event a day for anyone
    seen = set(exclude) | busy
    misses = 0
    while len(chosen) < count and misses < 6 * count + 20:
        # Start at a random rung of the ladder; when a place has nobody left, look further afield.
        rung = min(bisect_right(cumulative, rng.random() * cumulative[-1]), len(ladder) - 1)
        for pool in ladder[rung:]:
            player = _newcomer_draw(rng, world, pool, plan.day, seen)
            if player is not None:
                seen.add(player)
                chosen.append(player)
                break
        else:
            misses += 1
    busy.update(chosen)
    return chosen


def _newcomer_draw(rng, world: _World, pool: _Pool | None, day: int, seen: set[int]) -> int | None:
    """A player from the pool not yet in `seen`, after a few tries; None when none turns up."""
    for _ in range(3):
        player = _pool_draw(rng, world, pool, day)
        if player is not None and player not in seen:
            return player
    return None


# Event plans -------------------------------------------------------------------


def _weighted(rng: random.Random, weights: dict):
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _size(rng: random.Random, median: float, spread: float, low: int, high: int) -> int:
    return max(low, min(high, round(rng.lognormvariate(math.log(median), spread))))


def _event_day(rng: random.Random, span: int, start: date, weekdays: tuple[int, ...]) -> int:
    """A day in the range on one of `weekdays` (0 = Monday); rarely during the pandemic pause."""
    for _ in range(100):
        day = rng.randrange(span)
        when = start + timedelta(days=day)
        if COVID_PAUSE[0] <= when <= COVID_PAUSE[1] and rng.random() > 0.15:
            continue
        day += (rng.choice(weekdays) - when.weekday()) % 7
        if day < span:
            return day
    return rng.randrange(span)  # a range of a few days may not hold the weekday


def _event_plans(rng, count: int, span: int, start: date, countries: dict[str, _Country]) -> list[_Plan]:
    # One event of each format, K-value and V:EKN level first, so a world of a few dozen
    # events already shows them all; the rest as the dice fall.
    wanted = [{"kind": "magic", "fmt": fmt} for fmt in MAGIC_FORMATS]
    wanted += [{"kind": "magic", "k": k} for k in K_WEIGHTS]
    wanted += [{"kind": "team"}] + [{"kind": "vtes", "level": level} for level in VTES_LEVELS]
    wanted += [{}] * max(0, count - len(wanted))
    # A title held once a year (a national or continental championship, a Grand Prix or Pro Tour in a city) is
    # held once: a second draw of one is drawn again.
    plans, held = [], set()
    for need in wanted[:count]:
        for _ in range(20):
            plan = _plan(rng, span, start, countries, **need)
            if not plan.name[-4:].isdigit() or plan.name not in held:
                break
        held.add(plan.name)
        plans.append(plan)
    plans.sort(key=lambda plan: plan.day)  # events are recorded in date order
    return plans


def _plan(rng, span: int, start: date, countries: dict[str, _Country], *, kind=None, **fixed) -> _Plan:
    if kind is None:
        roll = rng.random()
        kind = "vtes" if roll < VTES_SHARE else "team" if roll < VTES_SHARE + TEAM_SHARE else "magic"
    if kind == "vtes":
        return _vtes_plan(rng, span, start, countries, **fixed)
    return _magic_plan(rng, span, start, countries, kind, **fixed)


def _store(city: str) -> str:
    """The city's game store: one name per city, never the same store in two cities."""
    return f"{STORES[zlib.crc32(city.encode()) % len(STORES)]} {city}"


def _city(rng, country: _Country) -> tuple[str, str]:
    """A city of the country, the big ones first; with its region."""
    return country.cities[min(int(rng.expovariate(0.6)), len(country.cities) - 1)]


def _magic_plan(rng, span, start, countries, kind: str, *, fmt=None, k=None) -> _Plan:
    codes = list(countries)
    country = countries[rng.choices(codes, weights=[COUNTRIES[code][0] for code in codes])[0]]
    city, region = _city(rng, country)
    if kind == "team":
        fmt = fmt or _weighted(rng, TEAM_FORMATS)
        k = k or _weighted(rng, TEAM_K_WEIGHTS)
    else:
        fmt = fmt or _weighted(rng, {name: weight for name, (weight, _) in MAGIC_FORMATS.items()})
        k = k or _weighted(rng, K_WEIGHTS)
    day = _event_day(rng, span, start, (4, 4, 4, 1, 2) if k == 8 and kind == "magic" else (5, 6))
    year = (start + timedelta(days=day)).year
    label = MAGIC_FORMATS[fmt][1]
    tier = "local"
    if kind == "team":
        if k == 40:
            size = _size(rng, 40, 0.4, 16, 150)
        else:
            size = rng.randint(4, 7) if rng.random() < 0.05 and k <= 16 else _size(rng, 12, 0.5, 8, 64)
        name = f"Team Grand Prix {city}" if k == 40 else f"{city} Team {label} Open"
        tier = "premier" if k == 40 else "regional" if k >= 24 else "local"
        structure = "swiss-top8" if rng.random() < 0.5 else "swiss"
    elif k == 8:  # Friday Night Magic, sometimes a weekday league
        size = rng.randint(4, 7) if rng.random() < 0.12 else _size(rng, 14, 0.35, 8, 40)
        store = _store(city)
        friday = (start + timedelta(days=day)).weekday() == 4
        name = f"Friday Night Magic {label}, {store}" if friday else f"{store} {label} League Night"
        structure = "single-elimination" if size <= 32 and rng.random() < 0.15 else "swiss"
    elif k == 16:
        size = rng.randint(4, 7) if rng.random() < 0.05 else _size(rng, 22, 0.5, 8, 128)
        name = f"{_store(city)} {label} Open"
        roll = rng.random()
        structure = "single-elimination" if roll < 0.1 and size <= 64 else "swiss-top8" if roll < 0.3 else "swiss"
    elif k == 24:
        size, tier = _size(rng, 40, 0.45, 12, 160), "regional"
        name = f"{city} {label} Championship"
        structure = "swiss-top8" if rng.random() < 0.85 else "swiss"
    elif k == 32:
        size, tier = _size(rng, 70, 0.5, 16, 300), "regional"
        name = f"Pro Tour Qualifier {city} ({label})"
        structure = "swiss-top8"
    elif k == 40 and rng.random() < 0.3:
        size, tier = _size(rng, 64, 0.4, 24, 200), "regional"
        name = f"{country.name} National Championship {year}"
        structure = "swiss-top8"
    elif k == 40:
        size, tier = _size(rng, 300, 0.4, 100, 900), "premier"
        name = f"Grand Prix {city} {year}"
        structure = "swiss-top8"
    else:
        size, tier = _size(rng, 250, 0.25, 120, 450), "elite"
        name = f"Pro Tour {city} {year}"
        structure = "swiss-top8"
    if structure == "swiss-top8" and size < 16:
        structure = "swiss"
    if kind == "magic" and k <= 16 and rng.random() < 0.03:  # webcam play, for when stores are shut
        return _Plan(day, kind, fmt, k, size, structure, "", "online", "", "", "", f"Online {label} Challenge")
    return _Plan(day, kind, fmt, k, size, structure, "", tier, country.code, city, region, name)


def _vtes_plan(rng, span, start, countries, **fixed) -> _Plan:
    codes = [code for code in countries if COUNTRIES[code][1]]
    country = countries[rng.choices(codes, weights=[COUNTRIES[code][1] for code in codes])[0]]
    city, region = _city(rng, country)
    level = fixed["level"] if "level" in fixed else _weighted(rng, VTES_LEVELS)
    day = _event_day(rng, span, start, (5, 6))
    year = (start + timedelta(days=day)).year
    continent = CONTINENT_NAMES_ENGLISH.get(country.continent, "World")
    tier = "regional"
    if level == "national":
        size, name = _size(rng, 40, 0.35, 16, 120), f"{country.name} V:TES National Championship {year}"
    elif level == "continental-qualifier":
        size, name = _size(rng, 30, 0.35, 12, 100), f"{continent} Championship Qualifier, {city}"
    elif level == "continental":
        size, name, tier = _size(rng, 120, 0.35, 50, 300), f"{continent} V:TES Championship {year}", "premier"
    else:
        size, tier = _size(rng, 17, 0.45, 8, 80), "local"
        title = f"{rng.choice(VTES_EVENT_NAMES)} {year}"
        if rng.random() < 0.03:
            return _Plan(day, "vtes", "vtes", 16, size, "", "", "online", "", "", "", f"Online {title}")
        name = f"{city} {title}"
    return _Plan(day, "vtes", "vtes", 16, size, "", level, tier, country.code, city, region, name)


# Magic events: pairings and games --------------------------------------------


class _Teams:
    """Teams of three, made as team events need them and written to teams.csv as they form."""

    def __init__(self, writer):
        self.writer = writer
        self.members: list[tuple[int, ...]] = []
        self.by_country: dict[str, list[int]] = {}
        self.by_members: dict[tuple[int, ...], int] = {}
        self.count = 0

    def pick(self, rng, world: _World, plan: _Plan, count: int) -> list[int]:
        """`count` teams with no player on two of them: most local teams come back, new ones form."""
        chosen, busy = [], set()
        playing = world.busy_on(plan.day)  # at another event that day
        local = self.by_country.setdefault(plan.country, [])
        for team in rng.sample(local, len(local)):
            members = self.members[team]
            if len(chosen) == count:
                break
            if (
                rng.random() < 0.75
                and busy.isdisjoint(members)
                and playing.isdisjoint(members)
                and min(world.retire[m] for m in members) >= plan.day
            ):
                chosen.append(team)
                busy.update(members)
                playing.update(members)
        while len(chosen) < count:
            members = tuple(sorted(_participants_draw(rng, world, "magic", plan, 3, tier="local", exclude=busy)))
            if len(members) < 3:
                break  # nobody left to make a team with
            team = self.by_members.get(members)
            if team is None:
                team = self._create(rng, world, members, plan.country)
            chosen.append(team)  # members are new to this event, so the team is too
            busy.update(members)
        return chosen

    def _create(self, rng, world: _World, members: tuple[int, ...], country: str) -> int:
        team = len(self.members)
        self.members.append(members)
        self.by_members[members] = team
        self.by_country.setdefault(country, []).append(team)
        adjective, noun = (rng.choice(words) for words in _TEAM_WORDS)
        name = f"{adjective} {noun}"
        self.writer.writerow((self.team_id(team), name, *(world.ids[m] for m in members)))
        self.count += 1
        return team

    @staticmethod
    def team_id(team: int) -> str:
        return f"T{team + 1:04d}"


def _magic_event(rng, world: _World, teams: _Teams, plan: _Plan, event_id: str, writer) -> int:
    """Play the event and write its matches; returns how many (0: not enough players came)."""
    if plan.kind == "team":
        entrants = teams.pick(rng, world, plan, plan.size)
        ids = [teams.team_id(team) for team in entrants]
        strength = [sum(world.strength[m] for m in teams.members[team]) / 3 for team in entrants]
    else:
        entrants = _participants_draw(rng, world, "magic", plan, plan.size)
        ids = [world.ids[player] for player in entrants]
        strength = [world.strength[player] for player in entrants]
    if len(entrants) < 2:
        return 0
    plan.size = len(entrants)
    if plan.structure == "swiss-top8" and plan.size < 16:
        plan.structure = "swiss"
    rows = _single_elimination(rng, strength) if plan.structure == "single-elimination" else _swiss(rng, strength, plan)
    writer.writerows(
        (event_id, rnd, ids[a], ids[b] if b is not None else "", g1, g2, d, elimination)
        for rnd, a, b, g1, g2, d, elimination in rows
    )
    return len(rows)


def _games(rng: random.Random, strength1: float, strength2: float, *, elimination: bool = False):
    """A best-of-three match as (games won by 1, games won by 2, games drawn)."""
    p = 1 / (1 + 10 ** ((strength2 - strength1) / 800))  # per game: luck matters more than in a match
    won1 = won2 = drawn = 0
    while won1 < 2 and won2 < 2:
        played = won1 + won2 + drawn
        if not elimination and (played == 3 or (played == 2 and rng.random() < TIME_CALLED)):
            break  # time in the round: the result stands as it is (elimination rounds play on)
        roll = rng.random()
        if roll < GAME_DRAW:
            drawn += 1
        elif roll < GAME_DRAW + (1 - GAME_DRAW) * p:
            won1 += 1
        else:
            won2 += 1
    return won1, won2, drawn


def _swiss_rounds(count: int, plan: _Plan) -> int:
    rounds = max(1, math.ceil(math.log2(count)))
    if plan.k >= 40:
        rounds += 4  # two-day events: more rounds, with a cut to day two
    return min(rounds, 16)


def _swiss(rng: random.Random, strength: list[float], plan: _Plan) -> list[tuple]:
    """Swiss rounds, then a top 8 when the structure says so. Rows: (round, a, b or None, g1, g2, d, elim)."""
    count = len(strength)
    rounds = _swiss_rounds(count, plan)
    top8 = plan.structure == "swiss-top8"
    keep = 10 if top8 else 4  # never let drops empty the event
    points, losses = [0] * count, [0] * count
    had_bye = [False] * count
    met = set()
    active = list(range(count))
    rows = []
    for rnd in range(1, rounds + 1):
        rng.shuffle(active)  # random order among equal scores
        active.sort(key=points.__getitem__, reverse=True)
        order = active[:]
        if len(order) % 2:
            # The lowest-placed player who has not had a bye yet sits this round out, with a win.
            at = next((i for i in range(len(order) - 1, -1, -1) if not had_bye[order[i]]), len(order) - 1)
            bye = order.pop(at)
            had_bye[bye] = True
            points[bye] += 3
            rows.append((rnd, bye, None, 2, 0, 0, 0))
        last = rnd == rounds
        for a, b, position in _pairings(order, met):
            if top8 and last and position < 6 and rng.random() < 0.6:
                g1, g2, d = 0, 0, 3  # an intentional draw to lock in a top-8 place
            else:
                g1, g2, d = _games(rng, strength[a], strength[b])
            if rng.random() < 0.5:  # who sits on the left of the results slip
                a, b, g1, g2 = b, a, g2, g1
            rows.append((rnd, a, b, g1, g2, d, 0))
            if g1 > g2:
                points[a] += 3
                losses[b] += 1
            elif g2 > g1:
                points[b] += 3
                losses[a] += 1
            else:
                points[a] += 1
                points[b] += 1
        if last:
            break
        if plan.k >= 40 and rnd == math.ceil(rounds * 0.6):
            # Day two is for those with three losses or fewer.
            survivors = [p for p in active if points[p] >= 3 * (rnd - 3)]
            if len(survivors) >= 16:
                active = survivors
        elif rnd >= 2:
            # Players out of contention sometimes go home.
            for player in active[::-1]:
                if len(active) <= keep:
                    break
                if losses[player] >= 2 and rng.random() < 0.1:
                    active.remove(player)
    if top8:
        rng.shuffle(active)
        active.sort(key=points.__getitem__, reverse=True)
        seeds = active[:8]
        bracket = [seeds[i] for i in (0, 7, 3, 4, 1, 6, 2, 5)]
        rows += _bracket(rng, strength, bracket, rounds + 1)
    return rows


def _pairings(order: list[int], met: set):
    """Pair neighbours in standings order, looking a few places down to avoid rematches."""
    paired = [False] * len(order)
    for x, a in enumerate(order):
        if paired[x]:
            continue
        paired[x] = True
        fallback = partner = None
        looked = 0
        for y in range(x + 1, len(order)):
            if paired[y]:
                continue
            if fallback is None:
                fallback = y
            if (a, order[y]) not in met:
                partner = y
                break
            looked += 1
            if looked == 6:
                break
        partner = fallback if partner is None else partner
        paired[partner] = True
        b = order[partner]
        met.add((a, b))
        met.add((b, a))
        yield a, b, x


def _knockout_round(rng, strength: list[float], players: list[int], rnd: int) -> tuple[list[tuple], list[int]]:
    """Neighbours in `players` play each other; returns the rows and the winners in bracket order."""
    rows, winners = [], []
    for a, b in zip(players[::2], players[1::2], strict=True):
        g1, g2, d = _games(rng, strength[a], strength[b], elimination=True)
        rows.append((rnd, a, b, g1, g2, d, 1))
        winners.append(a if g1 > g2 else b)
    return rows, winners


def _bracket(rng, strength: list[float], players: list[int], first_round: int) -> list[tuple]:
    """Single elimination among `players` (a power of two, in bracket order) until one is left."""
    rows = []
    rnd = first_round
    while len(players) > 1:
        played, players = _knockout_round(rng, strength, players, rnd)
        rows += played
        rnd += 1
    return rows


def _single_elimination(rng, strength: list[float]) -> list[tuple]:
    """A knockout from round 1; when the field is not a power of two, the first seeds get byes."""
    seeds = list(range(len(strength)))
    rng.shuffle(seeds)
    byes = (1 << (len(seeds) - 1).bit_length()) - len(seeds)
    resting, playing = seeds[:byes], seeds[byes:]
    rows, winners = _knockout_round(rng, strength, playing, 1)
    rows = [(1, player, None, 2, 0, 0, 1) for player in resting] + rows
    # In round 2 the players who had a bye meet the round-1 winners.
    second = [player for pair in zip_longest(resting, winners) for player in pair if player is not None]
    return rows + _bracket(rng, strength, second, 2)


# Vampire: The Eternal Struggle: tables of four or five, then a final ---------


def _vtes_event(rng, world: _World, plan: _Plan, event_id: str, writer) -> int:
    """Play the event and write every participant's standing; returns how many (0: not enough players)."""
    players = _participants_draw(rng, world, "vtes", plan, plan.size)
    if len(players) < 4:
        return 0
    plan.size = len(players)
    strength = [world.strength[player] for player in players]
    rounds = 2 if len(players) < 20 and not plan.level else 4 if plan.level == "continental" else 3
    rows = _vtes_play(rng, strength, rounds)
    writer.writerows(
        (event_id, world.ids[players[index]], rank, f"{vp:g}", gw, final) for index, rank, vp, gw, final in rows
    )
    return len(rows)


def _vtes_tables(count: int) -> tuple[list[int], int]:
    """Table sizes (fives preferred, then fours) and how many players sit the round out."""
    for out in range(count):
        seated = count - out
        for fives in range(seated // 5, -1, -1):
            if (seated - 5 * fives) % 4 == 0:
                return [5] * fives + [4] * ((seated - 5 * fives) // 4), out
    return [], count


def _vtes_table(rng, strength: list[float]) -> list[float]:
    """Victory points of one game: each oust scores 1 for the predator, the last one standing 1 more;
    when time runs out, those still in score half a point each."""
    alive = list(range(len(strength)))
    vp = [0.0] * len(strength)
    weights = [10 ** ((each - 1600) / 400) for each in strength]
    while len(alive) > 1:
        if rng.random() < VTES_TIME_OUT:
            for seat in alive:
                vp[seat] += 0.5
            return vp
        predator = rng.choices(alive, weights=[weights[seat] for seat in alive])[0]
        prey = alive[(alive.index(predator) + 1) % len(alive)]
        vp[predator] += 1
        alive.remove(prey)
    vp[alive[0]] += 1
    return vp


def _game_winner(vp: list[float]) -> int | None:
    """The seat that wins the game: most points, at least 2, and no tie."""
    best = max(vp)
    return vp.index(best) if best >= 2 and vp.count(best) == 1 else None


def _vtes_play(rng, strength: list[float], rounds: int) -> list[tuple]:
    """Preliminary rounds and a final table of five; rows (index, rank, vp, gw, final) by rank."""
    count = len(strength)
    vp, gw = [0.0] * count, [0] * count
    for _ in range(rounds):
        seats = list(range(count))
        rng.shuffle(seats)
        sizes, out = _vtes_tables(count)
        at = out  # the first `out` seats sit this round out
        for size in sizes:
            table = seats[at : at + size]
            at += size
            scores = _vtes_table(rng, [strength[p] for p in table])
            for player, score in zip(table, scores, strict=True):
                vp[player] += score
            winner = _game_winner(scores)
            if winner is not None:
                gw[table[winner]] += 1
    order = list(range(count))
    rng.shuffle(order)  # stands in for the tournament-point tiebreak
    order.sort(key=lambda p: (gw[p], vp[p]), reverse=True)
    finalists = order[:5]
    scores = _vtes_table(rng, [strength[p] for p in finalists])
    for player, score in zip(finalists, scores, strict=True):
        vp[player] += score
    # The final's winner has the most points; a tie goes to the better seed.
    placing = sorted(range(len(finalists)), key=lambda seat: (-scores[seat], seat))
    winner = finalists[placing[0]]
    gw[winner] += 1
    ranked = [finalists[seat] for seat in placing] + order[5:]
    return [
        (player, rank, vp[player], gw[player], "winner" if rank == 1 else "finalist" if rank <= 5 else "")
        for rank, player in enumerate(ranked, start=1)
    ]
