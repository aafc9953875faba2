"""Text written to CSV files that people open in spreadsheets."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what spreadsheets read as the start of a formula


def spreadsheet_safe(text: str) -> str:
    """Keep a spreadsheet from running a name or id as a formula (CSV injection): a leading quote makes it text."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text
