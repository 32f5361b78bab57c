"""Every feature of a pair, in the columns of the learned score (classifier.py): the per-pair ones
(features.py, mismatch.py, language ID), PHSIC (Yokoi 2018, Eq. 18), the fluency and the
word-alignment ones (alignment.py)."""

from __future__ import annotations

import numpy as np

from ..text import TextStats, lowered
from .alignment import ALIGNMENT_FEATURES, AlignmentModel
from .charsets import declared_posterior, foreign_shares
from .corpus import CORPUS_FEATURES, CorpusModel
from .damage import DAMAGE_FEATURES, damage_features
from .features import LANGUAGE_FEATURES, PAIR_FEATURES, pair_features, pair_items
from .gate import FOREIGN
from .mismatch import MISMATCH_FEATURES, mismatch_features
from .tokens import token_ids


def feature_names(src_lang: str | None, tgt_lang: str | None, languages: bool = True) -> list[str]:
    """Features in the order of the columns: the per-pair ones (from the pair alone), then PHSIC and
    the ones from corpus statistics."""
    language = [name for name, code in zip(LANGUAGE_FEATURES, (src_lang, tgt_lang)) if languages and code]
    foreign = [FOREIGN[name] for name in language]
    return [*PAIR_FEATURES, *MISMATCH_FEATURES, *DAMAGE_FEATURES, *language, *foreign, "phsic", *CORPUS_FEATURES,
            *ALIGNMENT_FEATURES]


class FeatureExtractor:
    """Every feature of a block of pairs. Built once per worker: the language identifier, PHSIC
    (a fitted :class:`~kcooc.phsic.model.PHSIC` with the pair encoders), the corpus model and the
    alignment model."""

    def __init__(self, names: list[str], src_lang: str | None, tgt_lang: str | None, encoders=None, phsic=None,
                 corpus: CorpusModel | None = None, alignment: AlignmentModel | None = None):
        self.names = names
        self.languages = [code for name, code in zip(LANGUAGE_FEATURES, (src_lang, tgt_lang)) if name in names]
        self.sides = [side for side, name in enumerate(LANGUAGE_FEATURES) if name in names]
        self.encoders, self.phsic, self.corpus, self.alignment = encoders, phsic, corpus, alignment
        self.identifier = None
        if self.sides:
            from ..langid import LanguageIdentifier

            self.identifier = LanguageIdentifier()

    def pair(self, src: list[str], tgt: list[str], s: TextStats, t: TextStats, texts: tuple | None = None
             ) -> np.ndarray:
        """The per-pair features (lengths, agreement, mismatch, damage, language ID, foreign letters), float32 (one row
        per pair); ``s``, ``t``: the sides' text statistics, ``texts``: their ``lowered`` code points (made here
        if not given)."""
        texts = texts or (lowered(src), lowered(tgt))
        items = pair_items(src, tgt, s, t)
        tokens = token_ids(texts[0], 1 << 30), token_ids(texts[1], 1 << 30)
        columns = [pair_features(src, tgt, s, t, items), mismatch_features(*items, len(src)),
                   damage_features(s, t, *tokens, texts)]
        for side, code in zip(self.sides, self.languages):
            posteriors = self.identifier.log_probabilities((src, tgt)[side])
            columns.append(declared_posterior(posteriors, self.identifier.languages, code, texts[side])
                           .astype(np.float32)[:, None])
        for side, code in zip(self.sides, self.languages):
            columns.append(foreign_shares((src, tgt)[side], code, (tgt, src)[side])[:, None])
        return np.hstack(columns)

    def statistical(self, src: list[str], tgt: list[str], X, Y, originals: tuple | None = None,
                    texts: tuple | None = None) -> np.ndarray:
        """PHSIC of the encoded pairs, the fluency and the alignment features, (n, 11) float32; ``originals``:
        of synthetic examples (CorpusModel.features), ``texts``: the sides' ``lowered`` code points."""
        texts = texts or (lowered(src), lowered(tgt))
        phsic = self.phsic.score(X, Y).astype(np.float32)
        return np.column_stack([phsic, self.corpus.features(src, tgt, originals, texts),
                                self.alignment.features(src, tgt, texts)])

    def __call__(self, src: list[str], tgt: list[str], originals: tuple | None = None) -> np.ndarray:
        """Every feature, from the texts alone (used for the training examples; ``originals``: of synthetic ones)."""
        texts = lowered(src), lowered(tgt)  # each side lowered once for every feature
        X, Y = (encoder.encode_lowered(x, text) for encoder, x, text in zip(self.encoders, (src, tgt), texts))
        pair = self.pair(src, tgt, TextStats(src), TextStats(tgt), texts)
        return np.hstack([pair, self.statistical(src, tgt, X, Y, originals, texts)])
