"""How the site writes dates and numbers in German: "23. Nov. 2026", "23. Nov. 2026, 20:46", "1612,5".

As in English (config/formats/en/formats.py) one style everywhere, with the month's short name, so that
a column of dates stays narrow on a phone.
"""

DATE_FORMAT = "j. M Y"
DATETIME_FORMAT = "j. M Y, H:i"
SHORT_DATE_FORMAT = "j. M Y"
SHORT_DATETIME_FORMAT = "j. M Y, H:i"
TIME_FORMAT = "H:i"
MONTH_DAY_FORMAT = "j. F"
YEAR_MONTH_FORMAT = "F Y"
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "."
NUMBER_GROUPING = 3
FIRST_DAY_OF_WEEK = 1  # Monday
