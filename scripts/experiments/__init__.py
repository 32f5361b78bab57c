"""Paper reproductions, one folder per method: the data builder(s), the evaluation and its notes."""
