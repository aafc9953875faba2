"""How the site writes dates in English: one style everywhere, "23 Nov 2026" and "23 Nov 2026, 20:46".

Django's own English formats ("Nov. 23, 2026, 8:46 p.m.") would otherwise show wherever a template prints a
date without a format of its own.
"""

DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y, H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
TIME_FORMAT = "H:i"
MONTH_DAY_FORMAT = "j F"
YEAR_MONTH_FORMAT = "F Y"
