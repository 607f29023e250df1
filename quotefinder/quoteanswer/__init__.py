"""The quote-answer API as a system under test (`system: quote-answer`): one request per question and
configuration, an answer made only of verbatim passages, and no probability to cut on."""
