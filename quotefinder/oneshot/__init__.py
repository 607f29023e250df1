"""The one-shot web answering pipeline as a system under test (`system: one-shot`): search, rank every hit's
relevance in one Decisions request, keep the best, summarize them in one chat completion with citations."""
