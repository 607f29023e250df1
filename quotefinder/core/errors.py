"""The project's errors. Every message is written for the person at the terminal.

    QuoteFinderError                 base; `str(error)` is the whole message, never holding the API key
    ├── InputError                   a file or an option is wrong: say which and what to do (exit 2)
    │   ├── QuestionFileError        a questions YAML file (or a verdicts file)
    │   └── RunDirError              a run directory that is missing, not a run, or of another version
    ├── CacheError                   a cache entry cannot be trusted, or cannot be saved
    │   ├── CorruptEntry             torn, edited, or of another format version
    │   └── StorageError             the disk refused a write (full, read-only): stop before paying more
    ├── ContractError                an API response lacks what the pipeline reads (never cached)
    │   └── RefusedBefore            a request whose response was refused before: not sent again
    ├── ApiError                     an API request failed
    │   ├── AuthError                401/403: the key is wrong; stop at once, retrying only costs money
    │   ├── TransientError           429, 5xx, dropped connection, timeout: retried with backoff
    │   ├── Unreachable              no connection before any response: no network, or a wrong base URL
    │   ├── EvidenceMixError         a live response arriving in a synthetic run, or the reverse
    │   ├── KeyEchoed                a response that carries the API key back (in any form): never saved
    │   └── InsecureEndpoint         a base URL that would send the key over plain http
    ├── MissingResponse              replay needs a response the run does not hold
    ├── ReportError                  a report file could not be drawn or written
    └── BudgetSpent                  --max-requests reached: stop sending, as an interrupt would
"""

from __future__ import annotations


class QuoteFinderError(Exception):
    """Base class. Messages name the file, line or question, and say what to do."""


class InputError(QuoteFinderError):
    """A file or option given by the user is wrong."""


class QuestionFileError(InputError):
    """A questions YAML file is unreadable or breaks the schema."""


class RunDirError(InputError):
    """A run directory is missing, is not a run, or was written by an incompatible version."""


class CacheError(QuoteFinderError):
    """A cache entry cannot be used."""


class CorruptEntry(CacheError):
    """An entry failed its integrity check: torn by a crash, edited by hand, or another format."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class StorageError(CacheError):
    """A response could not be saved. Recording stops: every later response would be lost too."""


class ContractError(QuoteFinderError):
    """An API response is missing, or has malformed, something the pipeline reads."""


class RefusedBefore(ContractError):
    """A request whose response a recording refused before (`record.refused`): it is not sent again."""


class ApiError(QuoteFinderError):
    """An API request did not produce a usable response."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class AuthError(ApiError):
    """The API refused the key. Nothing further is sent."""


class TransientError(ApiError):
    """A failure worth retrying: rate limit, server error, dropped connection, timeout."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class Unreachable(ApiError):
    """The API could not be connected to before it ever answered (no network, a wrong base URL, a firewall):
    one condition for the whole recording, not a failure per question; the recording stops at once."""


class EvidenceMixError(ApiError):
    """The server's evidence (live or synthetic) differs from what the run already holds."""


class KeyEchoed(ApiError):
    """A response body holds the API key (as sent, escaped or encoded): it is neither saved nor used, and
    the message names the request, never the key."""


class InsecureEndpoint(ApiError):
    """The base URL would carry the key in clear text to a host that is not loopback."""


class MissingResponse(QuoteFinderError):
    """A replay needs a response that the run does not hold."""


class ReportError(QuoteFinderError):
    """A report file (a plot, the HTML page) could not be drawn or written."""


class BudgetSpent(QuoteFinderError):
    """The invocation has sent as many requests as `--max-requests` allows; nothing more goes out."""
