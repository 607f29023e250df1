"""`quotefinder pipeline show [SYSTEM]`: the file it prints holds every key with a comment and loads
back as exactly the recipe's pipeline; an unknown system is refused naming the known ones."""

from __future__ import annotations

from pathlib import Path

import yaml

from quotefinder.commands.pipeline import main
from quotefinder.core.pipelinefile import default_file, load_pipeline_file
from quotefinder.recipe.config import RECIPE, SCHEMA


def test_show_prints_every_key_and_loads_back_as_exactly_the_recipe(tmp_path: Path, capsys) -> None:
    assert main(["show"]) == 0
    out = capsys.readouterr().out
    path = tmp_path / "recipe.yaml"
    path.write_text(out, encoding="utf-8")
    assert load_pipeline_file(path) == ("quote-finder", RECIPE)
    data = yaml.safe_load(out)
    assert data.pop("system") == "quote-finder"
    assert data == RECIPE.as_json()  # every key present, with its value

    def keys(schema: dict, found: dict) -> None:
        assert set(found) == set(schema)
        for key, kind in schema.items():
            if isinstance(kind, dict):
                keys(kind, found[key])

    keys(SCHEMA, data)
    assert sum(1 for line in out.splitlines() if line.lstrip().startswith("#")) >= 15  # a comment per key
    assert main(["show", "quote-finder"]) == 0 and capsys.readouterr().out == out == default_file()


def test_show_refuses_an_unknown_system_and_explains_itself(capsys) -> None:
    assert main(["show", "rag-reader"]) == 2
    err = capsys.readouterr().err
    assert "unknown system `rag-reader`; the systems are: quote-finder, quote-answer, one-shot" in err
    assert main(["show", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--pipeline" in out and "runs/<questions>-<name>" in out
