"""The validation log as its author reads it on the version page (docs/bots.md): the summary, each fault with a link
into the viewer at its step, the verdict, a "what next" for a rejected version, and the bot's stderr split by the
step it came with (the sandbox marks each with a `[ludus] step N` line: workers/sandbox/seat_log.py).

The stored log stays the plain text that workers/validation.py writes (the API gives it as it is); this only reads it.
Its links are absolute (LUDUS_SITE_URL); the page links to the same address on this site, whatever its host.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

STEP_MARK = re.compile(r"^\[ludus\] step (\d+)$")
URL = re.compile(r"^\s*(https?://\S+)\s*$")
STDERR = "--- the bot's stderr ---"


@dataclass
class Fault:
    text: str
    link: str | None = None


@dataclass
class Section:
    """Lines of the bot's stderr that came with one step (None: before its first decision)."""

    step: int | None
    lines: list[str] = field(default_factory=list)


@dataclass
class ReadLog:
    summary: list[str] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    verdict: str = ""
    watch: str | None = None
    notes: list[str] = field(default_factory=list)  # the sandbox's own "[ludus] ..." lines
    stderr: list[Section] = field(default_factory=list)
    has_stderr: bool = False

    @property
    def first_fault_link(self) -> str | None:
        return next((fault.link for fault in self.faults if fault.link), None)


def local(url: str) -> str:
    """The site-relative address of one of the log's viewer links."""
    parts = urlsplit(url)
    return parts.path + (f"#{parts.fragment}" if parts.fragment else "")


def read_log(text: str) -> ReadLog:
    log = ReadLog()
    head, marker, stderr = text.partition(f"\n{STDERR}\n")
    in_faults = False
    for line in head.splitlines():
        if in_faults and (url := URL.match(line)) and log.faults:
            log.faults[-1].link = local(url.group(1))
        elif in_faults and line.startswith("  "):
            log.faults.append(Fault(line.strip()))
        elif line.startswith("Faults ("):
            in_faults = True
        elif line.startswith("Verdict: "):
            in_faults, log.verdict = False, line
        elif line.startswith("Watch it: ") and (url := URL.match(line.removeprefix("Watch it: "))):
            log.watch = local(url.group(1))
        else:
            in_faults = False
            log.summary.append(line)
    if marker:
        log.has_stderr = True
        log.stderr = split_stderr(stderr.rstrip("\n"), log.notes)
    return log


def split_stderr(text: str, notes: list[str]) -> list[Section]:
    """The bot's own lines by the step they came with; the sandbox's notes apart."""
    sections = [Section(None)]
    for line in text.splitlines():
        if mark := STEP_MARK.match(line):
            sections.append(Section(int(mark.group(1))))
        elif line.startswith("[ludus] "):
            notes.append(line.removeprefix("[ludus] "))
        elif line != "(empty)" or len(sections) > 1 or sections[0].lines:
            sections[-1].lines.append(line)
    return [section for section in sections if section.lines]
