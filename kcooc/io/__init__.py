"""Inputs and outputs, the contracts every command keeps.

* readers.py: a path or ``-`` (stdin), compressed or not, as text lines, decoded blocks or undecoded blocks of
  whole lines (:class:`~kcooc.io.readers.RawLines`); errors name ``file:line``. compression.py: the formats
  (by suffix or magic bytes) and their readers; aligned.py: two aligned files as one TSV; limits.py: the
  line limit and how errors name an input.
* tsv.py: TSV columns chosen by 1-based index or by header name, validated before any work starts; a
  malformed line stops the run naming ``file:line``, or is skipped and counted.
* outputs.py: one guard for a run's outputs: checked before any work, locked for the run, committed on
  success; writers.py: each output written to a temporary file (compressed by suffix) and renamed into place.
* html.py: the blocks of every ``--report`` page (a self-contained HTML file that makes no request: escaped
  text, tables, inline SVG charts).
"""
