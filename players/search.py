"""Finding players by any spelling: case, accents, word order and a typo forgiven.

Names are compared folded: lower case without accents ("Krüger" and "kruger"
are one). The database folds with `fold_name(text)`: on PostgreSQL an SQL
function over the unaccent extension (players migration 0005); on SQLite the
Python function below, registered on each connection. The players' names are
stored folded (Player.name_folded, a generated column, indexed by trigrams on
PostgreSQL).
Their rules agree on the letters names hold (tests/players/test_search.py).
"""

import unicodedata

from django.db.models import CharField, Func, GeneratedField

# Letters that no decomposition takes apart, as PostgreSQL's unaccent rules write them.
_LETTERS = str.maketrans(
    {"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L", "đ": "d",
     "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ı": "i", "ħ": "h", "Ħ": "H"}
)  # fmt: skip


def name_folded(name: str | None) -> str | None:
    """`name` in lower case without accents: what searches compare.

    Folded again until nothing changes: a letter's compatibility form or its
    lower case may be a letter the first pass takes apart or spells out
    (U+A7F8, a small raised H with a stroke, is "Ħ" decomposed; "ẞ" is "ß" in
    lower case). A name of everyday letters is the same after one pass.
    """
    if name is None:
        return None
    folded = _folded_once(name)
    for _ in range(3):  # two passes fold any one letter of Unicode (all of them tried); the bound is a guard
        again = _folded_once(folded)
        if again == folded:
            break
        folded = again
    return folded


def _folded_once(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name.translate(_LETTERS))
    return "".join(character for character in decomposed if not unicodedata.combining(character)).lower()


def query_words(query: str) -> list[str]:
    """The folded words of a search: each must be found in a name, in any order."""
    return name_folded(query).split()


def suggested_number(query: str) -> str:
    """The membership number of a suggestion as search boxes show it, "Name (number)"; else the query itself."""
    name, _, number = query.rstrip().rpartition(" (")
    if name and number.endswith(")") and number[:-1].strip():
        return number[:-1].strip()
    return query


class FoldName(Func):
    """fold_name(expression) in SQL: the database's name_folded."""

    function = "fold_name"
    output_field = CharField()


def name_folded_field(source: str = "name", *, max_length: int = 200) -> GeneratedField:
    """A column the database keeps: the `source` column folded as searches compare it (a player's name, a
    name in today's lists), so that a search's candidates are compared as stored, not folded one by one."""
    return GeneratedField(expression=FoldName(source), output_field=CharField(max_length=max_length), db_persist=True)


# How alike a word of a search and a word of a name must be for a search that found nothing as typed: pg_trgm's
# word similarity ("mikail" in "mikhail sokolov" is 0.5; "sokolow" 0.75). Its default, 0.6, misses a dropped letter.
NEAR_WORD_SIMILARITY = 0.5


def search_session_prepare(sender, connection, **kwargs) -> None:
    """Each new connection: SQLite gets fold_name (PostgreSQL has it as an SQL function); PostgreSQL gets the
    word similarity the near search's operator (%>, answered by the trigram index) compares with."""
    if connection.vendor == "sqlite":
        connection.connection.create_function("fold_name", 1, name_folded, deterministic=True)
    elif connection.vendor == "postgresql":
        with connection.connection.cursor() as cursor:
            cursor.execute(f"SET pg_trgm.word_similarity_threshold = {NEAR_WORD_SIMILARITY}")
