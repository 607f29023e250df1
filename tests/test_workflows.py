"""The GitHub workflows run with least privilege and pinned code: read-only permissions at the top (a job that
writes says so itself), and every third-party action pinned by the full SHA of a commit, its tag as a comment."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
PINNED = re.compile(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}")


def uses(node: Any) -> list[str]:
    """Every `uses:` value anywhere in a parsed workflow (steps and reusable workflows)."""
    if isinstance(node, dict):
        return [*([node["uses"]] if isinstance(node.get("uses"), str) else []),
                *(found for value in node.values() for found in uses(value))]
    if isinstance(node, list):
        return [found for item in node for found in uses(item)]
    return []


def test_the_workflows_are_found() -> None:
    assert {path.name for path in WORKFLOWS} >= {"cutoffs.yml", "refresh.yml"}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.name)
def test_every_action_is_pinned_by_a_commit_sha_with_its_tag_beside(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    actions = [action for action in uses(yaml.safe_load(text)) if not action.startswith("./")]
    assert actions
    assert [action for action in actions if not PINNED.fullmatch(action)] == []
    for action in actions:  # the tag it stands for, for the reader and for updates
        assert re.search(rf"uses: {re.escape(action)}\s+# v\d", text), action


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.name)
def test_permissions_are_read_only_at_the_top_and_granted_per_job(path: Path) -> None:
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    top = workflow.get("permissions")
    assert isinstance(top, dict), "no `permissions:` block at the top: the token gets the repository's default"
    assert all(level in ("read", "none") for level in top.values()), top
    for name, job in workflow["jobs"].items():
        granted = job.get("permissions", {})
        assert granted != "write-all" and isinstance(granted, dict), name
