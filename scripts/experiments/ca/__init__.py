"""Reproduction: kernel CA on text8 against word2vec and fastText (`make text8`)."""
