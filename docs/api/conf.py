"""Sphinx configuration of kcooc's API reference: `make docs` builds it into build/docs (not committed).

The pages are the docstrings of the objects ``kcooc`` exports (numpydoc sections); kcooc must be
importable (``pip install -e '.[docs]'``).
"""

from kcooc import __version__

project = "kcooc"
author = "the kcooc authors"
copyright = "the kcooc authors, BSD-3-Clause"
release = version = __version__

extensions = ["sphinx.ext.autodoc", "numpydoc"]
autodoc_member_order = "bysource"
autodoc_typehints = "none"           # the numpydoc Parameters sections say the types
numpydoc_show_class_members = False  # autodoc lists the members itself (:members:)
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_title = f"kcooc {__version__} API reference"
exclude_patterns = ["_build"]
