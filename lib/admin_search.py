"""The admin's search, for lists whose own search would read every row: the words as the admin splits them.

The admin searches a list by ORing `search_fields` across its joins for every
word, which PostgreSQL can answer only by reading every row of the list (a
million matches: 1-2 s). Lists that large find each word's rows through the
tables that hold the words first (ModelAdmin.get_search_results).
"""

from django.utils.text import smart_split, unescape_string_literal


def search_words(search_term: str) -> list[str]:
    """The words of an admin search, as the admin splits them: a quoted phrase is one word."""
    words = []
    for word in smart_split(search_term):
        if word.startswith(('"', "'")) and word[0] == word[-1]:
            word = unescape_string_literal(word)
        words.append(word)
    return words
