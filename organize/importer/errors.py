from dataclasses import dataclass

from django.utils.formats import number_format
from django.utils.translation import gettext as _

# Files in the order they are read, which is also the order errors are listed in.
BUNDLE_FILES = ("categories.csv", "players.csv", "teams.csv", "events.csv", "matches.csv", "standings.csv")


class Said(str):
    """A problem's message as the person reads it (in their language, when it was made), which also keeps what
    it is about: `kind` and its `values`, for pages that say it in their own words (organize.problems) rather
    than by reading the text back. A plain str to everything else."""

    kind: str
    values: dict

    def __new__(cls, text: str, kind: str = "", **values):
        said = super().__new__(cls, text)
        said.kind = kind
        said.values = values
        return said


@dataclass(frozen=True, order=True)
class BundleError:
    """One problem in a bundle, located as `file:line: column: message` (SPEC 6)."""

    file: str
    line: int
    column: str
    message: str

    def __str__(self):
        return f"{self.file}:{self.line}: {self.column}: {self.message}"

    def sort_key(self):
        order = BUNDLE_FILES.index(self.file) if self.file in BUNDLE_FILES else len(BUNDLE_FILES)
        return (order, self.file, self.line)  # stable: a line's errors stay in column order


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a row of results came from, to show its problems there."""

    line: int = 0  # its line in an uploaded file (0: not from a file)
    form_row: int | None = None  # the index of the form row it was typed in
    label: str = ""  # how the page names a stored row ("round 2", "Standing of 1001"); blank: by file and line


class BundleInvalid(Exception):
    """The bundle has errors; nothing was saved."""

    def __init__(self, errors: list[BundleError]):
        self.errors = sorted(errors, key=BundleError.sort_key)
        super().__init__(f"{len(self.errors)} error(s) in the results bundle")

    def __str__(self):
        return "\n".join(str(error) for error in self.errors)


# Problems one check collects at most: room for every "unknown player" of a large event whose new players
# each played many rounds; past it a file is junk and its first problems say so.
ERRORS_AT_MOST = 10_000


class TooManyErrors(Exception):
    """Raised by ErrorLog.append past its limit: checking stops there."""


class ErrorLog(list):
    """The problems found so far, where checking stops after `limit` of them.

    Each bad row of a file costs a little time and memory: an upload of a
    million lines of junk made a million problems (two minutes, 1.7 GB). The
    first problems usually explain the rest, so past the limit the check ends
    with a note saying where it stopped.
    """

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def append(self, error: BundleError) -> None:
        super().append(error)
        if len(self) >= self.limit:
            raise TooManyErrors

    def extend(self, errors) -> None:
        for error in errors:
            self.append(error)

    def stopped_note(self) -> BundleError:
        """About the whole file (line 0, listed first): where checking stopped."""
        last = max(self, key=BundleError.sort_key)
        message = _("more than %(limit)s problems: checking stopped at line %(line)s; fix these first") % {
            "limit": number_format(self.limit, force_grouping=True),
            "line": last.line,
        }
        return BundleError(last.file, 0, "-", message)
