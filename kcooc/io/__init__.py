"""Inputs and outputs, the contracts every command keeps.

* readers.py: a path or ``-`` (stdin), ``.gz``/``.bz2``/``.xz``/``.zst`` read transparently (by suffix or magic
  bytes), as text lines, decoded blocks or undecoded blocks of whole lines (:class:`~kcooc.io.readers.RawLines`);
  errors name ``file:line``.
* tsv.py: TSV columns chosen by 1-based index or by header name, validated before any work starts; a
  malformed line stops the run naming ``file:line``, or is skipped and counted.
* outputs.py: one guard for a run's outputs: checked before any work, locked for the run, written to a
  temporary file and renamed into place on success.
"""
