from dataclasses import dataclass

# Files in the order they are read, which is also the order errors are listed in.
BUNDLE_FILES = ("categories.csv", "players.csv", "teams.csv", "events.csv", "matches.csv", "standings.csv")


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


class BundleInvalid(Exception):
    """The bundle has errors; nothing was saved."""

    def __init__(self, errors: list[BundleError]):
        self.errors = sorted(errors, key=BundleError.sort_key)
        super().__init__(f"{len(self.errors)} error(s) in the results bundle")

    def __str__(self):
        return "\n".join(str(error) for error in self.errors)
