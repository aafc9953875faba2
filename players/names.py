"""What a name may hold: printable text, without control characters or bidirectional overrides.

A name is shown on every page that lists the player. Control characters
break lines and tables; the bidirectional controls (U+202A to U+202E,
U+2066 to U+2069, and the marks U+200E, U+200F, U+061C) make text read in
another order than it is stored, so a name could pass for an address or
hide what follows it. Organizers' uploads, the admin and the importer all
refuse them with this one rule.
"""

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Unicode's control characters (general category Cc) are these 65 and will stay these: the category's
# members are fixed by Unicode's stability policy.
CONTROL_CHARACTERS = "\x00-\x1f\x7f-\x9f"
# One search for the first character a name may not hold (a bundle's 100,000 names: 0.3 s a character at a time).
_REFUSED = re.compile(f"[{CONTROL_CHARACTERS}{''.join(sorted(BIDI_CONTROLS))}]")


def name_problem(name: str) -> str:
    """Why `name` cannot be a name ("" when it can): its first control or bidirectional control character."""
    found = _REFUSED.search(name)
    if found is None:
        return ""
    character = found.group()
    if character in BIDI_CONTROLS:
        return _("the name holds a bidirectional control character (U+%(code)s), which reorders text") % {
            "code": f"{ord(character):04X}"
        }
    return _("the name holds a control character (U+%(code)s)") % {"code": f"{ord(character):04X}"}


def validate_name(name: str) -> None:
    problem = name_problem(name)
    if problem:
        raise ValidationError(problem[0].upper() + problem[1:] + ".", code="name_characters")
