"""kcooc: corpus-scale NLP batch jobs built on kernel methods."""

__version__ = "0.1.0"
