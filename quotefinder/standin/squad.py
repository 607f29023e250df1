"""A stand-in scenario from SQuAD 2.0: real Wikipedia paragraphs as the pages, invented probabilities.

    python -m quotefinder.standin.squad data/squad2-dev-sample.json --out scenarios/squad.json

Each question's search returns its own paragraph and up to four other paragraphs of the same article,
in a seeded order; every page's title is the article's (an untitled article's: the paragraph's first words)
and its URL points into a reserved `.example` domain. The sentence a rank request picks is the one holding
the gold answer (for an unanswerable question, its plausible answer, else the sentence sharing most words with
the question). The probabilities are invented but shaped like a pipeline's: a paragraph that answers gets a high
has_answer and compare probability, an unanswerable question's own paragraph anything from low to
high (so some are quoted wrongly, as in life), other paragraphs lower. Real text reaches the pipeline's
splitter and request bodies; the evidence is still synthetic, and the stand-in says so.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

from ..recipe import sentences

LICENSE = ("Pages from SQuAD 2.0 (Rajpurkar, Jia and Liang, ACL 2018, https://rajpurkar.github.io/SQuAD-explorer/), "
           "CC BY-SA 4.0; probabilities invented by quotefinder.standin.squad.")
OTHERS = 4  # paragraphs of the same article served beside a question's own


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _sentence_with(split: list[str], fragment: str | None, question: str) -> int:
    """The 1-based number of the sentence holding `fragment`, else of the one sharing most words with
    `question` (1 for a page without sentences: the stand-in then picks its first option)."""
    if fragment:
        for n, sentence in enumerate(split, start=1):
            if fragment in sentence:
                return n
    asked = _words(question)
    scores = [len(asked & _words(sentence)) for sentence in split]
    return scores.index(max(scores)) + 1 if scores else 1


def _probability(rng: random.Random, low: float, high: float) -> float:
    """Uniform in [low, high], rounded to 2 decimals one time in five (so some fall exactly on a cutoff)."""
    value = rng.uniform(low, high)
    return round(value, 2) if rng.random() < 0.2 else round(value, 6)


UNTITLED = ("", "untitled")  # an article title that names nothing (the sample's largest article is "Untitled")
TITLE_WORDS = 8


def page_title(article: str, context: str) -> str:
    """A page's title: its article's, or, when the data set leaves the article untitled, the paragraph's first
    words, so that a report's sources can be told apart."""
    if article.strip().lower() not in UNTITLED:
        return article
    words = context.split()
    return " ".join(words[:TITLE_WORDS]) + (" ..." if len(words) > TITLE_WORDS else "")


def build(source: Path, seed: int = 0) -> dict[str, Any]:
    """The scenario (JSON-ready) for every question of a SQuAD 2.0 file."""
    data = json.loads(source.read_text(encoding="utf-8"))
    questions: dict[str, dict[str, Any]] = {}
    for article in data["data"]:
        title = str(article.get("title", "Article")).replace("_", " ")
        contexts = [paragraph["context"] for paragraph in article["paragraphs"]]
        splits = [sentences.split(context) for context in contexts]
        for index, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                text = " ".join(qa["question"].split())
                if text in questions:
                    continue
                rng = random.Random(f"{seed}:{qa['id']}")
                impossible = bool(qa.get("is_impossible"))
                gold = qa.get("plausible_answers" if impossible else "answers") or []
                fragment = gold[0]["text"] if gold else None
                others = rng.sample([i for i in range(len(contexts)) if i != index], min(OTHERS, len(contexts) - 1))
                order = [*others]
                order.insert(rng.randint(0, min(2, len(order))), index)
                results = []
                for page in order:
                    own = page == index
                    if own and not impossible:
                        has_answer, answers = _probability(rng, 0.55, 1.0), _probability(rng, 0.5, 1.0)
                    elif own:
                        has_answer, answers = _probability(rng, 0.05, 0.9), _probability(rng, 0.05, 0.95)
                    else:
                        has_answer, answers = _probability(rng, 0.0, 0.6), _probability(rng, 0.0, 0.7)
                    results.append({
                        "title": page_title(title, contexts[page]),
                        "url": f"https://en.wikipedia.example/wiki/{title.replace(' ', '_') or 'Article'}"
                               f"#paragraph-{page + 1}",
                        "snippet": contexts[page],
                        "choice": _sentence_with(splits[page], fragment if own else None, text),
                        "probability": round(rng.uniform(0.4, 1.0), 4),
                        "has_answer": has_answer,
                        "answers": answers,
                    })
                questions[text] = {"question": text, "results": results}
    return {"source": LICENSE, "jitter": 0.004, "repeat_jitter": 0.02, "questions": list(questions.values())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m quotefinder.standin.squad", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="a SQuAD 2.0 JSON file, e.g. data/squad2-dev-sample.json")
    parser.add_argument("--out", type=Path, required=True, help="the scenario file to write (.json)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the invented probabilities (default 0)")
    args = parser.parse_args(argv)
    try:
        scenario = build(args.source, args.seed)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"squad: {args.source}: cannot be read as SQuAD 2.0 JSON ({error})", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(scenario, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(scenario['questions'])} questions, synthetic probabilities on real paragraphs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
