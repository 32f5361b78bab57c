"""Evaluation: kcooc.langid against other language identifiers, accuracy and speed (`make bench-langid`)."""
