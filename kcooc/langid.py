"""Batch language identification with langid.py's naive-Bayes model (Lui & Baldwin 2012).

The model is the one shipped by the PyPI package py3langid (versions 0.2 to 0.3, the file
``py3langid/data/model.plzma``, 97 languages, ISO 639-1 codes; py3langid 0.4 ships a different,
retrained model that is not supported). Features are byte n-grams of the UTF-8 text, found by one
pass of a deterministic automaton (Aho-Corasick: ``tk_nextmove`` over states x bytes,
``tk_output`` the features completed on entering a state). A text's score for language c is
``log P(c) + sum_t count_t log P(t | c)`` (Lui & Baldwin 2012, Eq. 1; ``nb_pc``, ``nb_ptc``),
normalised here over the languages into a log posterior.

A whole batch is scored at once: one numba pass walks the automaton over every text's bytes and
adds the feature rows of ``nb_ptc`` into that text's scores. Text is encoded exactly as
py3langid encodes it (UTF-8, lone surrogates passed through), so the predictions equal
py3langid's ``classify`` line by line. A text without any feature (empty, or only digits,
spaces and punctuation the model has no n-gram for) gets the model's prior, in which English is
the most probable language.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from .errors import InputError

BLOCK_TEXTS = 1 << 14  # texts scored at once: bounds the bytes and scores held besides the result


@functools.lru_cache(maxsize=1)
def _model() -> tuple:
    """(languages, log P(t|c) float32 (features x languages), log P(c), next-state table,
    CSR of features per state) from the installed py3langid, loaded once per process."""
    try:
        from py3langid import langid as py3langid
    except ImportError:  # pragma: no cover - a core dependency
        raise InputError("language identification needs py3langid>=0.2,<0.4: pip install 'py3langid<0.4'") from None
    if not hasattr(py3langid.LanguageIdentifier, "from_pickled_model"):
        raise InputError("py3langid >= 0.4 ships an unsupported model; install 'py3langid>=0.2,<0.4'")
    model = py3langid.LanguageIdentifier.from_pickled_model(py3langid.MODEL_FILE)
    n_states = len(model.tk_nextmove) >> 8
    outputs = [model.tk_output.get(state, ()) for state in range(n_states)]
    output_ptr = np.zeros(n_states + 1, dtype=np.int64)
    output_ptr[1:] = np.cumsum([len(features) for features in outputs])
    output_features = np.fromiter((f for features in outputs for f in features), dtype=np.int64,
                                  count=int(output_ptr[-1]))
    return (tuple(model.nb_classes), np.ascontiguousarray(model.nb_ptc, dtype=np.float32),
            np.asarray(model.nb_pc, dtype=np.float32), np.frombuffer(model.tk_nextmove, dtype=np.uint16),
            output_ptr, output_features)


@numba.njit(cache=True, nogil=True)
def _naive_bayes_log_posteriors(data, offsets, next_state, output_ptr, output_features, log_ptc, log_pc):
    """Log posteriors (texts x languages), float32: log P(c) + sum_t count_t log P(t|c) over the
    features t that the automaton emits while reading the bytes data[offsets[i]:offsets[i+1]] of
    text i, minus their log-sum-exp over the languages."""
    n, n_languages = offsets.size - 1, log_pc.size
    scores = np.empty((n, n_languages), dtype=np.float32)
    counts = np.zeros(log_ptc.shape[0], dtype=np.int64)
    seen = np.empty(log_ptc.shape[0], dtype=np.int64)  # the distinct features of the current text
    for i in range(n):
        n_seen = 0
        state = 0
        for position in range(offsets[i], offsets[i + 1]):
            state = next_state[(state << 8) + data[position]]
            for k in range(output_ptr[state], output_ptr[state + 1]):
                feature = output_features[k]
                if counts[feature] == 0:
                    seen[n_seen] = feature
                    n_seen += 1
                counts[feature] += 1
        row = scores[i]
        row[:] = log_pc
        for j in range(n_seen):
            feature = seen[j]
            count = np.float32(counts[feature])
            counts[feature] = 0
            for c in range(n_languages):
                row[c] += count * log_ptc[feature, c]
        top = row.max()
        total = 0.0
        for c in range(n_languages):
            if row[c] - top > -50.0:  # smaller terms change no digit of the sum (and would underflow)
                total += np.exp(np.float64(row[c] - top))
        log_total = np.float32(np.log(total))
        for c in range(n_languages):
            row[c] = (row[c] - top) - log_total  # in this order: exact differences near the top
    return scores


def check_language_code(code: str) -> str:
    """``code`` if the model knows it, else InputError naming the known codes (sorted)."""
    languages = _model()[0]
    if code not in languages:
        raise InputError(f"unknown language code {code!r}; the language identifier knows: "
                         f"{', '.join(sorted(languages))}")
    return code


class LanguageIdentifier:
    """langid.py's 97-language naive Bayes, scored a batch at a time.

    The model is loaded once per process and shared by every instance; pickling an instance
    sends nothing but its class (workers rebuild it from their own cached load).
    """

    def __init__(self):
        (self.languages, self._log_ptc, self._log_pc, self._next_state, self._output_ptr,
         self._output_features) = _model()
        self._index = {code: i for i, code in enumerate(self.languages)}

    def __reduce__(self):
        return LanguageIdentifier, ()

    def _log_posteriors(self, texts) -> np.ndarray:
        """Float32 log posteriors of a block of texts (all of it in memory at once)."""
        encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return _naive_bayes_log_posteriors(data, offsets, self._next_state, self._output_ptr, self._output_features,
                                           self._log_ptc, self._log_pc)

    def _blocks(self, texts):
        """Log posteriors of consecutive blocks of texts (at least one block, maybe empty)."""
        for start in range(0, len(texts), BLOCK_TEXTS) or [0]:
            yield self._log_posteriors(texts[start : start + BLOCK_TEXTS])

    def log_probabilities(self, texts) -> np.ndarray:
        """(n, len(languages)) float32 log posteriors log P(c | text), each row normalised."""
        return np.concatenate(list(self._blocks(texts)))

    def probability(self, texts, language: str) -> np.ndarray:
        """(n,) float64 posterior P(language | text)."""
        column = self._index[check_language_code(language)]
        return np.concatenate([np.exp(block[:, column].astype(np.float64)) for block in self._blocks(texts)])

    def predict(self, texts) -> np.ndarray:
        """(n,) the most probable language code of each text (the prior's, English, if it has no feature)."""
        codes = np.asarray(self.languages)
        return np.concatenate([codes[block.argmax(axis=1)] for block in self._blocks(texts)])
