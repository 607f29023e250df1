"""The documentation a newcomer reads: README.md, BENCHMARKS.md and docs/*.md.

Each page renders with GitHub's own Markdown parser (cmark-gfm) without raw HTML leaking, every relative link
resolves to a file inside the repository (and its anchor to a heading of that file), the README stays a page a
newcomer reads in one sitting, and every command line in the README and docs names a verb the `quotefinder`
command has and parses with that verb's own parser."""

import contextlib
import html
import importlib
import io
import re
import shlex
from pathlib import Path

import cmarkgfm
import pytest

from quotefinder.commands import VERBS as COMMANDS
from quotefinder.commands.aliases import eval_words, sweep_words

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "BENCHMARKS.md", *(ROOT / "docs").glob("*.md")])
README_WORDS = 1600

# The verbs of `quotefinder` (and `python -m quotefinder`); `pipeline` takes a sub-verb.
VERBS = frozenset({"record", "refresh", "sweep", "compare", "drift", "monitor", "review", "import", "pipeline"})
PIPELINE_VERBS = frozenset({"show"})
# The two short forms the README opens with, and the verb each stands for.
ALIASES = {("python", "eval.py"): "record", ("python", "sweep.py"): "sweep"}
# A line that runs the harness, after any environment assignments (`NAME=value ...`).
HARNESS = re.compile(r"(?:[A-Z_][A-Z0-9_]*=\S*\s+)*"
                     r"(?:quotefinder\s|python -m quotefinder\s|python (?:eval|sweep)\.py\s)")


def rendered(page: Path) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(page.read_text(encoding="utf-8"))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for inner in re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", rendered(page), flags=re.S):
        base = slug(html.unescape(re.sub(r"<[^>]+>", "", inner)))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    """Every link target on the rendered page (so that text in code spans and blocks is never taken for one)."""
    return [html.unescape(href) for href in re.findall(r'<a href="([^"]*)"', rendered(page))]


def code_lines(markdown: str) -> list[str]:
    """The lines of the page's code blocks (indented or fenced), a line continued with a backslash joined to the
    next."""
    lines: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    "):
            text = line.strip()
            if lines and lines[-1].endswith("\\"):
                lines[-1] = lines[-1][:-1].rstrip() + " " + text
            else:
                lines.append(text)
    return lines


def commands(markdown: str) -> list[tuple[str, list[str]]]:
    """Each command line of the page's code blocks that runs the harness, as (verb, the arguments after it): the
    `quotefinder` command, `python -m quotefinder`, and the two aliases. Environment assignments before the command
    (`NAME=value quotefinder ...`) and comments are left out."""
    found = []
    for line in code_lines(markdown):
        if not HARNESS.match(line):  # a YAML or TOML line, another program
            continue
        words = shlex.split(line, comments=True)
        ends = [n for n, word in enumerate(words) if word in ("|", "||", "&&", ";") or word.startswith((">", "2>"))]
        cut = ends[0] if ends else len(words)
        words = words[:cut]  # a redirect or a pipe ends the harness's own arguments
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
            words = words[1:]
        if words[:1] == ["quotefinder"]:
            rest = words[1:]
        elif words[:3] == ["python", "-m", "quotefinder"]:
            rest = words[3:]
        elif tuple(words[:2]) in ALIASES:
            found.append((ALIASES[(words[0], words[1])], words[2:]))
            continue
        else:
            continue
        found.append((rest[0] if rest else "", rest[1:]))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_a_page_renders_without_raw_html(page: Path) -> None:
    """cmark-gfm (GitHub's parser) leaves out raw HTML and says so; a page must hold none, so that what a reader
    sees on GitHub is what the file says (an unquoted `<source>` or `<U+202E>` would vanish)."""
    assert "raw HTML omitted" not in rendered(page)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(page: Path) -> None:
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.is_relative_to(ROOT), f"{page.name}: {target} points outside the repository"
        assert file.is_file(), f"{page.name}: {target} is not a file of the repository"
        if anchor:
            assert file.suffix == ".md", f"{page.name}: {target} has an anchor into a file that is not Markdown"
            assert anchor in anchors(file), f"{page.name}: {target}: no heading of {file.name} has that anchor"


def test_the_readme_is_a_page_a_newcomer_reads() -> None:
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= README_WORDS, f"README.md has {words} words; the reference belongs in docs/"


def test_the_readme_links_every_docs_page() -> None:
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(ROOT / "README.md")}
    assert sorted((ROOT / "docs").glob("*.md")) == sorted(page for page in linked if page.parent == ROOT / "docs"
                                                          and page.exists())


def test_the_readme_opens_with_the_install_the_demo_and_the_tests() -> None:
    """Its first screen (40 lines) shows the install, the demo and the test command; CI runs the README's install
    and full test commands (`.ci/run`)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = code_lines(text)
    first = ['python -m pip install -e ".[test]"', "python eval.py questions/ten.yaml", "python sweep.py runs/ten",
             "python -m pytest"]
    assert lines[:4] == first
    assert all(f"    {line}" in text.splitlines()[:40] for line in first)
    tests = [shlex.split(line, comments=True) for line in lines if line.startswith("python -m pytest")]
    assert tests == [["python", "-m", "pytest"], ["python", "-m", "pytest", "-m", ""]]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'python -m pip install -e ".[test]"' in ci and 'python -m pytest -m ""' in ci


def test_the_commands_are_found_however_they_are_written() -> None:
    page = """
    quotefinder sweep runs/ten --out cutoff-report   # a comment
    python -m quotefinder drift runs/new
    PERPLEXITY_API_KEY=x quotefinder record questions/ten.yaml \\
        --rate 0
    python eval.py questions/ten.yaml
    python -m quotefinder.standin scenarios/ten.yaml
    export PERPLEXITY_API_KEY=...

```
quotefinder pipeline show one-shot
```
"""
    assert commands(page) == [("sweep", ["runs/ten", "--out", "cutoff-report"]), ("drift", ["runs/new"]),
                              ("record", ["questions/ten.yaml", "--rate", "0"]),
                              ("record", ["questions/ten.yaml"]), ("pipeline", ["show", "one-shot"])]


def parses(verb: str, arguments: list[str], alias: bool) -> str:
    """'' when the verb's own parser takes `arguments` (for `python eval.py` and `python sweep.py`, the words the
    alias hands its verb: `aliases`), else what argparse said."""
    if alias:
        verb, arguments = (eval_words if verb == "record" else sweep_words)(arguments)
    parser = importlib.import_module(f"quotefinder.commands.{COMMANDS[verb][0]}").build_parser()
    error = io.StringIO()
    try:
        with contextlib.redirect_stderr(error):
            parser.parse_args(arguments)
    except SystemExit:
        return error.getvalue().strip() or "refused"
    return ""


def checked(name: str, markdown: str) -> int:
    """Every command line of a page names a verb and parses with that verb's parser; how many there are."""
    aliases = [line for line in code_lines(markdown) if line.startswith(("python eval.py", "python sweep.py"))]
    found = commands(markdown)
    alias_commands = [command for line in aliases for command in commands(f"    {line}")]
    for verb, arguments in found:
        assert verb in VERBS, f"{name}: `{verb}` is not a verb of quotefinder ({', '.join(sorted(VERBS))})"
        assert set(VERBS) == set(COMMANDS), "the docs' verbs are the command's"
        if verb == "pipeline":
            assert arguments[:1] and arguments[0] in PIPELINE_VERBS
        alias = (verb, arguments) in alias_commands
        problem = parses(verb, arguments, alias)
        assert not problem, f"{name}: `{verb} {' '.join(arguments)}` does not parse: {problem}"
    return len(found)


def test_every_readme_command_names_a_verb_and_parses() -> None:
    """Each command line of the README (`quotefinder VERB`, `python -m quotefinder VERB`, the two aliases) names a
    verb of the command, and that verb's own parser (the alias's, for `python eval.py` and `python sweep.py`) takes
    its options."""
    assert checked("README.md", (ROOT / "README.md").read_text(encoding="utf-8")) >= 6


@pytest.mark.parametrize("page", sorted((ROOT / "docs").glob("*.md")), ids=lambda page: page.name)
def test_every_docs_command_names_a_verb_and_parses(page: Path) -> None:
    checked(page.name, page.read_text(encoding="utf-8"))


def test_a_command_that_does_not_parse_is_caught() -> None:
    """The check above can fail: an option the verb lacks, and a verb that is not one, are refused."""
    assert "unrecognized arguments: --no-such-option" in parses("sweep", ["runs/ten", "--no-such-option"], False)
    assert parses("sweep", ["runs/ten", "--out", "x"], False) == ""
    assert "--no-such-option" in parses("record", ["questions/ten.yaml", "--no-such-option"], True)
    with pytest.raises(AssertionError, match="not a verb"):
        checked("x.md", "    quotefinder sweeep runs/ten\n")
